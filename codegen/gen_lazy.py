"""The lazy tensor backend (PyTorch's --gen-lazy-ts-backend): for each operator with a
backend kernel, one IR node class and one kernel under DispatchKey::Lazy
(tcore/lazy/Lazy.h is the runtime they call).

  node      the operator has a Meta function (a structured group's member, or a `Meta:`
            kernel) and attributes the IR can hold: the kernel runs the Meta function on meta
            tensors of the operands' geometry (output shapes, dtypes, argument checks) and
            records a node; the node's run() calls the operator on the CPU values.
              functional  fresh lazy outputs
              inplace     `add_`: the node computes self's new contents (a copy of self, written)
              out         `add.out`: the node computes each out's contents; the outs take them
  fallback  anything else with a backend kernel (no Meta function, a Generator, an opaque or
            list-of-optional type, a mutable entry): runs eagerly on the materialized operands,
            writes the mutated arguments back, and its results become device data.

Composite operators get no kernel: they decompose into operators that have one, and view
operators (composite in tcore) alias lazy storages as they alias CPU ones. Pure functions of
the model."""
from __future__ import annotations

from . import autogen, structured
from .api import cpp
from .gen_autograd import is_view_op, owned_field
from .gen_headers import Layout
from .model import BACKENDS, NativeFunction
from .schema import BaseType, ListType, OptionalType, is_tensor_like
from .templates import render

# Operators the runtime's hand-written kernels serve (csrc/lazy/LazyKernels.cpp): copy_ moves
# data between devices, resize_ changes a storage.
HAND_WRITTEN = frozenset({"copy_", "resize_"})
# Attribute types a node holds (and hashes): schema base types, bare, optional or in lists.
ATTRIBUTE_TYPES = frozenset({"int", "SymInt", "float", "bool", "Scalar", "ScalarType", "Layout", "MemoryFormat",
                             "Device", "str"})
_BACKEND_KEYS = frozenset(BACKENDS) - {"Lazy"}


def _attribute_ok(t) -> bool:
    if isinstance(t, OptionalType):
        return _attribute_ok(t.elem)
    if isinstance(t, ListType):
        return isinstance(t.elem, BaseType) and t.elem.name in ATTRIBUTE_TYPES and t.elem.name != "str"
    return isinstance(t, BaseType) and t.name in ATTRIBUTE_TYPES


def _operand_kind(t) -> str | None:
    """'tensor', 'optional', 'list', or None for a tensor type the IR does not hold (Tensor?[])."""
    if isinstance(t, BaseType) and t.name == "Tensor":
        return "tensor"
    if isinstance(t, OptionalType) and isinstance(t.elem, BaseType) and t.elem.name == "Tensor":
        return "optional"
    if isinstance(t, ListType) and isinstance(t.elem, BaseType) and t.elem.name == "Tensor":
        return "list"
    return None


def _is_device(t) -> bool:
    t = t.elem if isinstance(t, OptionalType) else t
    return isinstance(t, BaseType) and t.name == "Device"


def has_backend_kernel(f: NativeFunction) -> bool:
    return f.structured or f.structured_delegate is not None or any(k in _BACKEND_KEYS for k, _ in f.dispatch)


def has_meta(f: NativeFunction) -> bool:
    return f.kernel_for(structured.META_KEY) is not None or f.structured or f.structured_delegate is not None


def _returns_tensors(f: NativeFunction) -> bool:
    rets = f.func.returns
    if not rets:
        return False
    if len(rets) == 1 and not f.func.returns_tuple:
        return _operand_kind(rets[0].type) in ("tensor", "list")
    return all(_operand_kind(r.type) == "tensor" for r in rets)


def node_kind(f: NativeFunction) -> str | None:
    """'functional', 'inplace' or 'out' when f is recorded as a node; None: an eager fallback."""
    if not has_meta(f) or "nondeterministic_seeded" in f.tags:
        return None
    for a in f.func.arguments:
        if is_tensor_like(a.type):
            if _operand_kind(a.type) is None:
                return None
        elif not _attribute_ok(a.type):
            return None
    if not _returns_tensors(f):
        return None
    writes = [a for a in f.func.arguments if a.is_write]
    if not writes:
        return None if any(r.annotation is not None for r in f.func.returns) else "functional"
    if any(_operand_kind(a.type) != "tensor" for a in writes):
        return None
    if f.func.is_out_fn and len(writes) == len(f.func.returns):
        return "out"
    if autogen.is_inplace_name(f.func.name) and writes == [f.func.arguments[0]] and len(f.func.returns) == 1:
        return "inplace"
    return None


def wants_kernel(f: NativeFunction) -> bool:
    if f.func.name.name in HAND_WRITTEN or not has_backend_kernel(f):
        return False
    if is_view_op(f) or "inplace_view" in f.tags:
        return False  # geometry, not contents: a backend view kernel cannot run on lazy data
    return True


def _node(f: NativeFunction, kind: str) -> dict:
    args = cpp.dispatcher_args(f.func)
    struct = cpp.struct_name(f.func)
    fields, meta_call, run_prelude, run_call, hashes, stores = [], [], [], [], [], []
    operands = []  # (local, expression): recorded in argument order (a call's arguments are not)
    outs = []
    for a in args:
        t = a.schema.type
        name = a.name
        if is_tensor_like(t):
            operand = _operand_kind(t)
            if kind == "out" and a.schema.is_write:
                outs.append(name)
                meta_call.append(f"lazy_meta_{name}")
                run_call.append(f"lazy::fresh(shapes[{len(outs) - 1}])")
                continue
            if operand == "list":
                fields.append(("size_t", f"{name}_n_"))
                stores.append((f"{name}_n_", f"{name}.size()"))
                hashes.append(f"lazy::hash_of(static_cast<int64_t>(this->{name}_n_))")
                run_prelude.append(f"std::vector<Tensor> {name}_v = lazy::operand_list(in, k, this->{name}_n_);")
                run_prelude.append(f"k += this->{name}_n_;")
                run_call.append(f"{name}_v")
            elif operand == "optional":
                run_prelude.append(f"std::optional<Tensor> {name}_v = lazy::optional_operand(in[k++]);")
                run_call.append(f"{name}_v")
            elif kind == "inplace" and a.schema.is_write:
                run_prelude.append(f"Tensor {name}_v = lazy::writable(in[k++]);")
                run_call.append(f"{name}_v")
            else:
                run_prelude.append(f"const Tensor& {name}_v = in[k++];")
                run_call.append(f"{name}_v")
            operands.append((f"lazy_m_{name}", f"lazy_rec.meta({name})"))
            meta_call.append(f"lazy_m_{name}")
            continue
        ftype, store, load = owned_field(a.schema, member=True)
        fields.append((ftype, f"{cpp.cpp_ident(a.schema.name)}_"))
        store = owned_field(a.schema)[1]
        stores.append((f"{cpp.cpp_ident(a.schema.name)}_", store))
        hashes.append(f"lazy::hash_of(this->{cpp.cpp_ident(a.schema.name)}_)")
        if _is_device(t):
            meta_call.append(f"lazy_rec.device({name})")
            run_call.append(f"lazy::eager_device({load})")
        else:
            meta_call.append(name)
            run_call.append(load)
    returns = ("results", None)
    if kind == "inplace":
        self_name = args[0].name
        returns = ("self", self_name)
    elif kind == "out":
        ret = cpp.return_type(f.func)
        returns = ("outs", outs[0] if len(outs) == 1 and not f.func.returns_tuple else f"{ret}({', '.join(outs)})")
    return dict(kind=kind, struct=struct, op=str(f.func.name), ret=cpp.return_type(f.func),
                params=", ".join(a.decl(False) for a in args), fields=fields, stores=stores, hashes=hashes,
                meta_call=", ".join(meta_call), run_prelude=run_prelude, run_call=", ".join(run_call),
                outs=outs, returns=returns, self=args[0].name if args else "", operands=operands)


def _fallback(f: NativeFunction) -> dict:
    args = cpp.dispatcher_args(f.func)
    call = []
    for a in args:
        t = a.schema.type
        if is_tensor_like(t):
            call.append(f"lazy_fb.eager_mut({a.name})" if a.schema.is_write else f"lazy_fb.eager({a.name})")
        elif _is_device(t):
            call.append(f"lazy_fb.device({a.name})")
        else:
            call.append(a.name)
    return dict(kind="fallback", struct=cpp.struct_name(f.func), op=str(f.func.name), ret=cpp.return_type(f.func),
                params=", ".join(a.decl(False) for a in args), call=", ".join(call), void=not f.func.returns)


def kernel(f: NativeFunction) -> dict | None:
    """The template's view of f's lazy kernel (and node class), or None when it has none."""
    if not wants_kernel(f):
        return None
    kind = node_kind(f)
    return _node(f, kind) if kind is not None else _fallback(f)


def render_lazy(shard: int, num_shards: int, groups: dict[str, tuple[NativeFunction, ...]], layout: Layout) -> str:
    per_root = {r: [k for f in fs if (k := kernel(f)) is not None] for r, fs in groups.items()}
    kernels = [k for ks in per_root.values() for k in ks]
    headers = [layout.ops_header(r) for r in sorted(r for r, ks in per_root.items() if ks)]
    return render("lazy.cpp.j2", shard=shard, num_shards=num_shards, headers=headers, kernels=kernels)
