"""Structured kernels, as PyTorch has them.

An operator's out= entry says `structured: True` and names one kernel per backend; its
functional and in-place forms say `structured_delegate: <that entry>` and name none. From the
group the generator declares (in the operator's native header)

    namespace tcore::meta   { struct structured_add_Tensor : MetaBase { void meta(self, other, alpha); }; }
    namespace tcore::native { struct structured_add_out : meta::structured_add_Tensor {
                                  void impl(self, other, alpha, out); }; }

and writes every kernel of the group for each backend the out= entry names (functional:
allocate the outputs meta() declares; in-place: check self against them; out=: check and
resize), and for the Meta backend (meta() alone). Pure functions of the model.
"""
from __future__ import annotations

from dataclasses import dataclass

from .api import cpp
from .model import BACKENDS, CPU_KERNEL_KEY, NativeFunction
from .schema import BaseType, is_tensor_like

# The key whose kernels are only meta functions: every structured group has one.
META_KEY = "Meta"
# The keys whose kernels are structured (PyTorch's dense backends); an out= entry's kernels for
# other keys (SparseCPU, QuantizedCPU...) are ordinary kernels, registered as they are.
STRUCTURED_KEYS = frozenset(BACKENDS) - {META_KEY}


def is_structured_kernel(f: NativeFunction, key: str) -> bool:
    return f.structured and key in STRUCTURED_KEYS


@dataclass(frozen=True)
class StructuredGroup:
    out: NativeFunction                      # the `structured: True` out= entry
    delegates: tuple[NativeFunction, ...]    # its functional and in-place forms

    @property
    def functional(self) -> NativeFunction | None:
        return next((f for f in self.delegates if f.func.kind == "functional"), None)

    @property
    def meta_name(self) -> str:
        """The meta function's struct: structured_<functional's name>, as PyTorch names it."""
        f = self.functional
        if f is not None:
            return f"structured_{f.func.name.unambiguous}"
        return f"structured_{self.out.func.name.base}"

    def backend_keys(self) -> tuple[str, ...]:
        """The keys whose kernels are generated from the out= entry's impls."""
        return tuple(k for k, _ in self.out.dispatch if k in STRUCTURED_KEYS)

    def members(self) -> tuple[NativeFunction, ...]:
        return (self.out,) + self.delegates


def impl_name(kernel: str) -> str:
    return f"structured_{kernel.split('::')[-1]}"


def meta_args(out: NativeFunction) -> list[cpp.CppArg]:
    """The arguments of meta(): the out= entry's, without its outputs."""
    outs = set(out.func.out_arguments)
    return [a for a in cpp.dispatcher_args(out.func) if a.schema not in outs]


def groups_of(functions: tuple[NativeFunction, ...]) -> list[StructuredGroup]:
    """The structured groups among one root name's functions (a delegate always names an
    entry of its own root in PyTorch's YAML and in tcore's)."""
    by_name = {str(f.func.name): f for f in functions}
    delegates: dict[str, list[NativeFunction]] = {}
    for f in functions:
        if f.structured_delegate is not None:
            target = by_name.get(str(f.structured_delegate))
            if target is None:
                raise f.error(f"structured_delegate {str(f.structured_delegate)!r} is not an overload of "
                              f"{f.root_name!r}", "structured_delegate")
            delegates.setdefault(str(target.func.name), []).append(f)
    groups = []
    for f in functions:
        if f.structured:
            groups.append(StructuredGroup(f, tuple(delegates.pop(str(f.func.name), ()))))
    for name, fs in delegates.items():
        raise fs[0].error(f"structured_delegate names {name!r}, which is not `structured: True`",
                          "structured_delegate")
    return groups


def check(groups: list[StructuredGroup]) -> None:
    """The rules a structured group keeps (errors point at the entry that breaks one)."""
    for g in groups:
        out = g.out
        if not out.func.is_out_fn:
            raise out.error("a `structured: True` entry must be an out= overload (its outputs are "
                            "keyword-only Tensor(a!) arguments)", "structured")
        if not all(a.type == BaseType("Tensor") for a in out.func.out_arguments):
            raise out.error("a structured out= overload's outputs must be Tensors", "structured")
        want = [(a.name, str(a.type)) for a in out.func.arguments if a not in out.func.out_arguments]
        for d in g.delegates:
            if d.func.kind == "out":
                raise d.error("an out= overload cannot be a structured_delegate", "structured_delegate")
            have = [(a.name, str(a.type)) for a in d.func.arguments]  # types without alias annotations
            if have != want:
                raise d.error(f"arguments differ from those of {out.func.name} without its outputs "
                              f"({', '.join(t + ' ' + n for n, t in want)})", "structured_delegate")
            clash = [k for k, _ in d.dispatch if k in g.backend_keys()]
            if clash:
                raise d.error(f"a structured_delegate gets its {clash[0]} kernel from {out.func.name}: its own "
                              f"dispatch section may name other keys only", f"dispatch:{clash[0]}")


# ------------------------------------------------------------------ declarations (native header)

def declarations(functions: tuple[NativeFunction, ...]) -> list[dict]:
    """The meta and impl structs of one root's structured groups, for op_native.h.j2."""
    groups = groups_of(functions)
    check(groups)
    out = []
    for g in groups:
        impls = []
        for key, kernel in g.out.dispatch:
            if key not in STRUCTURED_KEYS:
                continue
            impls.append(dict(name=impl_name(kernel), cpu=key == CPU_KERNEL_KEY,
                              params=", ".join(a.decl(False) for a in cpp.dispatcher_args(g.out.func))))
        # one struct per kernel name: a name CPU shares with another key (PyTorch's `CPU, CUDA:
        # aminmax_out`) is the CPU capability's, as for other kernels (gen_headers.native_kernels);
        # declared in both namespaces, native::structured_<name> would be ambiguous
        unique: dict[str, dict] = {}
        for i in impls:
            first = unique.setdefault(i["name"], i)
            first["cpu"] = first["cpu"] or i["cpu"]
        unique = list(unique.values())
        out.append(dict(meta=g.meta_name, meta_params=", ".join(a.decl(False) for a in meta_args(g.out)),
                        impls=unique, schema=str(g.out.func)))
    return out


# ------------------------------------------------------------------ kernels (Register<KEY>_N.cpp)

def kernels(key: str, functions: tuple[NativeFunction, ...], keep: tuple[NativeFunction, ...] | None = None) -> list[dict]:
    """The generated kernels of one root's structured groups for one dispatch key: one per
    member of each group whose out= entry names a kernel for `key` (every group for Meta);
    only those in `keep` (a selective build's) when given."""
    groups = groups_of(functions)
    check(groups)
    kept = None if keep is None else {str(f.func.name) for f in keep}
    out = []
    for g in groups:
        if key == META_KEY:
            base = f"meta::{g.meta_name}"
        elif key not in STRUCTURED_KEYS:
            continue
        else:
            kernel = g.out.kernel_for(key)
            if kernel is None:
                continue
            base = f"native::{impl_name(kernel)}"
        outs_schema = g.out.func.out_arguments
        all_args = cpp.dispatcher_args(g.out.func)
        out_names = [a.name for a in all_args if a.schema in outs_schema]
        impl_outputs = [f"meta.outputs_[{i}]" for i in range(len(out_names))]
        margs = meta_args(g.out)
        tensors = [a.name for a in margs if is_tensor_like(a.schema.type)]
        for f in g.members():
            if kept is not None and str(f.func.name) not in kept:
                continue
            if f is not g.out and f.kernel_for(key) is not None:  # a delegate's own kernel (Meta, say)
                continue
            args = cpp.dispatcher_args(f.func)
            kind = f.func.kind
            if kind == "out":
                outputs = out_names
            elif kind == "inplace":
                outputs = [a.name for a in args if a.schema.is_write]
            else:
                outputs = []
            meta_call = ", ".join(a.name for a in args if a.schema not in f.func.out_arguments)
            out.append(dict(
                struct=cpp.struct_name(f.func), kind=kind, base=base, impl=key != META_KEY,
                ret=cpp.return_type(f.func), params=", ".join(a.decl(False) for a in args),
                n=len(out_names), outputs=outputs, meta_args=meta_call,
                impl_args=", ".join(x for x in [meta_call, *(impl_outputs if kind == "functional" else outputs)] if x),
                tensors=tensors, op=f.func.name.name, name=str(f.func.name),
            ))
    return out
