"""Dispatching entry points (Operators_K.cpp) and per-backend kernel registration
(Register<KEY>_K.cpp), sharded by a stable hash of the operator's root name."""
from __future__ import annotations

import json

from . import autocast, autogen, structured
from .api import cpp
from .gen_headers import Layout
from .model import CPU_KERNEL_KEY, NativeFunction
from .schema import BaseType, OptionalType, is_tensor_like
from .templates import render

# The dispatch keys tcore registers kernels for, and the files they go to.
REGISTERED_KEYS = ("CPU", "CUDA", "HIP", structured.META_KEY, "CompositeExplicitAutograd", "CompositeImplicitAutograd")
# The keys whose registrations are compiled with their backend (CPU's once per capability, CUDA's
# or HIP's by that backend); the others are compiled into every build.
BACKEND_KEYS = ("CPU", "CUDA", "HIP")
# The device type a backend key's kernels run on.
DEVICE_TYPES = {"CPU": "CPU", "CUDA": "CUDA", "HIP": "HIP", structured.META_KEY: "Meta"}


def dispatch_key_expr(f: NativeFunction) -> str:
    """C++ expression picking the backend from the tensor arguments, else from `device`."""
    tensors = [cpp.cpp_ident(a.name) for a in f.func.arguments if is_tensor_like(a.type)]
    if tensors:
        return f"dispatch_key_of({', '.join(tensors)})"
    device = [a for a in f.func.arguments if isinstance(_strip_opt(a.type), BaseType) and _strip_opt(a.type).name == "Device"]
    if device:
        return f"dispatch_key_for({cpp.cpp_ident(device[0].name)})"
    return "DispatchKey::CPU"


def _strip_opt(t):
    return t.elem if isinstance(t, OptionalType) else t


def render_operators(shard: int, num_shards: int, groups: dict[str, tuple[NativeFunction, ...]],
                     layout: Layout) -> str:
    functions = []
    for fs in groups.values():
        for f in fs:
            args = cpp.dispatcher_args(f.func)
            policy = autocast.policy(f)
            tensors = [a.name for a in args if is_tensor_like(a.schema.type)]
            functions.append(dict(
                autocast=policy,
                autocast_tensors="".join(f", {t}" for t in tensors),
                autocast_args=", ".join(f"autocast::cast(to, {a.name})" if a.name in tensors else a.name
                                        for a in args),
                schema=str(f.func),
                schema_literal=json.dumps(str(f.func)),
                struct=cpp.struct_name(f.func),
                ret=cpp.return_type(f.func),
                params=", ".join(a.decl(False) for a in args),
                args=", ".join(a.name for a in args),
                dispatch_key=dispatch_key_expr(f),
            ))
    headers = sorted({layout.ops_header(r) for r in groups})
    if any(fn["autocast"] for fn in functions):
        headers.insert(0, "tcore/core/Autocast.h")
    return render("Operators.cpp.j2", shard=shard, num_shards=num_shards, headers=headers, functions=functions)


IMPLICIT_KEY = "CompositeImplicitAutograd"


def fresh_result(f: NativeFunction) -> bool:
    """A functional operator whose returns alias nothing: its registered kernels (below autograd;
    not CompositeImplicitAutograd's, which run above it) give results at version 0, as torch's
    (tcore/core/FreshResult.h)."""
    returns = f.func.returns
    return (f.func.kind == "functional" and bool(returns) and all(r.annotation is None for r in returns)
            and any(is_tensor_like(r.type) for r in returns))


def render_registration(key: str, shard: int, num_shards: int, groups: dict[str, tuple[NativeFunction, ...]],
                        layout: Layout, every: dict[str, tuple[NativeFunction, ...]] | None = None) -> str:
    """groups: the functions to register (a selective build's part of the shard); every: all of
    the shard's, in which structured delegates find their out= entries (default: groups)."""
    every = groups if every is None else every
    registrations = []
    generated = []
    made = []  # autogen: out= kernels
    sources: set[str] = set()  # the roots of the entries they call
    roots = set()
    for root, fs in groups.items():
        if key in DEVICE_TYPES:
            kernels = structured.kernels(key, every.get(root, fs), keep=fs)
            if kernels:
                roots.add(root)
                generated += kernels
        for f in fs:
            if structured.is_structured_kernel(f, key):  # generated (above)
                continue
            if autogen.is_generated(f):
                if key == autogen.AUTOGEN_KEY:
                    roots.add(root)
                    sources.add(f.autogen_from.name.base)  # __ilshift__ for __lshift__.Scalar_out
                    made.append(_autogen_kernel(f) if f.func.is_out_fn else _autogen_functional_kernel(f))
                continue
            kernel = f.kernel_for(key)
            if kernel is None or f.manual_kernel_registration:
                continue
            roots.add(root)
            registrations.append(dict(schema=str(f.func), struct=cpp.struct_name(f.func),
                                      kernel=kernel.split("::")[-1], fresh=key != IMPLICIT_KEY and fresh_result(f)))
    headers = {h for r in roots for h in (layout.ops_header(r), layout.native_header(r))}
    if any(r["fresh"] for r in registrations) or any(k["kind"] == "functional" for k in generated):
        headers.add("tcore/core/FreshResult.h")
    if made:  # what the generated out= kernels call
        headers |= {"tcore/core/Autogen.h", layout.ops_header("copy")} | {layout.ops_header(r) for r in sources}
        headers |= {layout.ops_header("clone") for a in made if a["inplace"] or a.get("clones")}
    return render("Register.cpp.j2", key=key, shard=shard, num_shards=num_shards, headers=sorted(headers),
                  registrations=registrations, structured=generated, autogen=made, cpu_key=CPU_KERNEL_KEY,
                  device_type=DEVICE_TYPES.get(key, ""))


def _autogen_functional_kernel(f: NativeFunction) -> dict:
    """The template's view of a mutating entry's generated functional form: the mutated
    arguments cloned (`NAME_new_`), the entry run on the clones, its own results and the clones
    returned in the functional schema's order."""
    source = f.autogen_from
    args = cpp.dispatcher_args(f.func)
    clones, inputs, new = [], [], {}
    for a in source.arguments:
        name = cpp.cpp_ident(a.name)
        if not a.is_write:
            inputs.append(name)
            continue
        var = f"{name}_new_"
        t = a.type
        if isinstance(t, BaseType):
            clones.append(f"Tensor {var} = ops::clone::call({name}, ::std::nullopt);")
        elif isinstance(t, OptionalType):
            clones.append(f"::std::optional<Tensor> {var} = {name} ? ::std::optional<Tensor>(ops::clone::call(*{name}, "
                          f"::std::nullopt)) : ::std::nullopt;")
        else:  # Tensor[]
            clones.append(f"::std::vector<Tensor> {var};")
            clones.append(f"for (const Tensor& t : {name}) {var}.push_back(ops::clone::call(t, ::std::nullopt));")
        inputs.append(var)
        new[a.annotation.alias_set] = var
    one = len(source.returns) == 1 and not source.returns_tuple
    values = [new[r.annotation.alias_set] if r.annotation is not None and r.annotation.is_write
              else ("result" if one else f"::std::get<{i}>(result)") for i, r in enumerate(source.returns)]
    values += [new[a.annotation.alias_set] for a in autogen.mutated_outputs(source)]
    ret_type = cpp.return_type(f.func)
    returns = values[0] if len(values) == 1 and not f.func.returns_tuple else f"{ret_type}({', '.join(values)})"
    keeps = any(v == "result" or v.startswith("::std::get<") for v in values)
    return dict(name=str(f.func.name), source=str(source.name), struct=cpp.struct_name(f.func),
                source_struct=source.name.unambiguous, ret=ret_type, params=", ".join(a.decl(False) for a in args),
                inputs=inputs, inplace=False, functional=True, clones=clones, keeps_result=keeps, returns=returns)


def _autogen_kernel(f: NativeFunction) -> dict:
    """The template's view of an autogen: out= kernel (codegen/autogen.py): what it calls, and for
    each out the part of the result copied into it (out<i> takes return i of several)."""
    args = cpp.dispatcher_args(f.func)
    outs = [a for a in args if a.schema in f.func.out_arguments]
    source = f.autogen_from.name
    inplace = autogen.is_inplace_name(source)
    inputs = autogen.entry_call(f, lambda a: cpp.cpp_ident(a.name))
    self_list = inplace and not isinstance(f.func.arguments[0].type, BaseType)
    copies, taken = [], []
    for a in outs:
        if inplace or len(outs) == 1 and a.schema.name == "out":
            part = "result"
        else:
            index = int(a.schema.name[len("out"):])
            taken.append(index)
            part = f"::std::get<{index}>(result)"
        copies.append(dict(out=a.name, part=part, list=not isinstance(a.schema.type, BaseType)))
    kept = [r for r in f.func.returns if not r.is_write]  # non-Tensor returns of the entry
    ret_type = cpp.return_type(f.func)
    if ret_type == "void":
        returns = None
    elif not kept:
        returns = outs[0].name if len(outs) == 1 and not f.func.returns_tuple else f"{ret_type}({', '.join(a.name for a in outs)})"
    else:
        rest = [i for i in range(len(outs) + len(kept)) if i not in taken]
        values = [f"::std::get<{i}>(result)" for i in rest]
        returns = values[0] if len(values) == 1 and not f.func.returns_tuple else f"{ret_type}({', '.join(values)})"
    return dict(name=str(f.func.name), source=str(source), struct=cpp.struct_name(f.func),
                source_struct=source.unambiguous, ret=ret_type, params=", ".join(a.decl(False) for a in args),
                inputs=inputs, inplace=inplace, self_list=self_list, copies=copies, returns=returns,
                casts=str(f.func.name) in autogen.CASTING_OUTS)
