"""Dispatching entry points (Operators_K.cpp) and per-backend kernel registration
(Register<KEY>_K.cpp), sharded by a stable hash of the operator's root name."""
from __future__ import annotations

import json

from . import structured
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
            functions.append(dict(
                schema=str(f.func),
                schema_literal=json.dumps(str(f.func)),
                struct=cpp.struct_name(f.func),
                ret=cpp.return_type(f.func),
                params=", ".join(a.decl(False) for a in args),
                args=", ".join(a.name for a in args),
                dispatch_key=dispatch_key_expr(f),
            ))
    headers = sorted({layout.ops_header(r) for r in groups})
    return render("Operators.cpp.j2", shard=shard, num_shards=num_shards, headers=headers, functions=functions)


def render_registration(key: str, shard: int, num_shards: int, groups: dict[str, tuple[NativeFunction, ...]],
                        layout: Layout, every: dict[str, tuple[NativeFunction, ...]] | None = None) -> str:
    """groups: the functions to register (a selective build's part of the shard); every: all of
    the shard's, in which structured delegates find their out= entries (default: groups)."""
    every = groups if every is None else every
    registrations = []
    generated = []
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
            kernel = f.kernel_for(key)
            if kernel is None or f.manual_kernel_registration:
                continue
            roots.add(root)
            registrations.append(dict(schema=str(f.func), struct=cpp.struct_name(f.func),
                                      kernel=kernel.split("::")[-1]))
    headers = sorted({h for r in roots for h in (layout.ops_header(r), layout.native_header(r))})
    return render("Register.cpp.j2", key=key, shard=shard, num_shards=num_shards, headers=headers,
                  registrations=registrations, structured=generated, cpu_key=CPU_KERNEL_KEY,
                  device_type=DEVICE_TYPES.get(key, ""))
