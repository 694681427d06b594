"""The functions of native_functions.yaml's `python_module:` entries, where torch has them.

The bindings put them in submodules of tcore._C (python_module: linalg in tcore._C._linalg, as
torch._C._linalg). tcore.linalg, tcore.special, tcore.fft (one module per python_module the YAML
names) hold them without the module's prefix: tcore._C._linalg.linalg_matmul is
tcore.linalg.matmul, _special.special_erf is tcore.special.erf. The nn entries (unprefixed) are
what tcore.nn.functional calls; it adds torch.nn.functional's conventions on top.
"""
from __future__ import annotations

import sys
import types

from . import _C

_DOCS = {
    "linalg": "tcore.linalg: torch.linalg's functions (the YAML's python_module: linalg entries)",
    "special": "tcore.special: torch.special's functions (the YAML's python_module: special entries)",
    "fft": "tcore.fft: torch.fft's functions (the YAML's python_module: fft entries)",
}


def public_name(module: str, name: str) -> str:
    """linalg_matmul of python_module linalg is linalg.matmul; nn's names have no prefix."""
    prefix = module + "_"
    return name[len(prefix):] if name.startswith(prefix) else name


def functions(module: str) -> dict[str, object]:
    """The functions of one python_module by their public names, with the varargs sizes and
    named tuples of tcore's top-level functions."""
    from . import return_types
    from ._tensor import _python_function, named_returns

    sub = getattr(_C, "_" + module)
    varargs, factories = set(_C._varargs_size_functions), set(_C._factory_functions)
    out = {}
    for name in dir(sub):
        if name.startswith("_"):
            continue
        qualified = f"_{module}.{name}"
        fn = _python_function(getattr(sub, name), qualified in varargs, qualified in factories)
        if name in _C._named_returns:
            fn = named_returns(fn, getattr(return_types, name))
        out[public_name(module, name)] = fn
    return out


def install(package: dict) -> None:
    """tcore.NAME for each python_module but nn (tcore.nn is a package of its own)."""
    for module in _C._python_modules:
        if module == "nn":
            continue
        mod = types.ModuleType(f"tcore.{module}", _DOCS.get(module, f"tcore.{module}: the YAML's python_module: "
                                                                    f"{module} entries"))
        mod.__dict__.update(functions(module))
        if module == "linalg":
            mod.LinAlgError = _C._LinAlgError  # (torch.linalg.LinAlgError: a RuntimeError)
        mod.__all__ = sorted(n for n in mod.__dict__ if not n.startswith("_"))
        sys.modules[mod.__name__] = mod
        package[module] = mod
