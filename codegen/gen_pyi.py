"""Type stubs of the tcore package from the schemas: every bound function and Tensor
method as an `@overload` per schema, with the schema's parameter names, keyword-only
markers, defaults and return types; multi-output operators return a NamedTuple (named
fields) or a plain tuple. Sharded like the bindings (`_stubs_k.pyi`, functions plus a
mixin of Tensor methods) so that one operator's edit rewrites one shard; `__init__.pyi`
holds the Python-only parts (tensor(), dtypes, the Tensor's attributes and operators)
and assembles the Tensor class from the mixins."""
from __future__ import annotations

import ast
import keyword
from dataclasses import dataclass

from .api import python
from .gen_python import bindable
from .model import NativeFunction
from .schema import Argument, BaseType, FunctionSchema, ListType, OptionalType, Type
from .templates import render

# Names the stub defines for builtins: the module itself binds int, float and bool to dtypes.
_BASE = {
    "Tensor": "Tensor",
    "Scalar": "_Number",
    "int": "_int",
    "SymInt": "_int",
    "float": "_float",
    "bool": "_bool",
    "str": "str",
    "ScalarType": "_dtype",
    "Layout": "_layout",
    "Device": "_device | str",
    "MemoryFormat": "_memory_format",
    "Dimname": "str",
    "Generator": "Generator",
}


def py_type(t: Type) -> str:
    if isinstance(t, BaseType):
        return _BASE.get(t.name, "Any")
    if isinstance(t, OptionalType):
        inner = py_type(t.elem)
        return inner if inner == "Any" else f"{inner} | None"
    elem = py_type(t.elem)
    if isinstance(t.elem, BaseType) and t.elem.name in ("int", "SymInt") and t.size is not None:
        return f"{elem} | Sequence[{elem}]"  # int[1]: a single int is accepted too
    return f"Sequence[{elem}]"


def py_default(arg: Argument) -> str:
    """The default as a literal where the schema's is one, else `...`."""
    d = arg.default
    if d is None:
        return ""
    if d in ("None", "True", "False"):
        return d
    if d.startswith("["):
        items = [i.strip() for i in d[1:-1].split(",") if i.strip()]
        return "(" + "".join(f"{i}, " for i in items).rstrip(" ") + ")" if items else "()"
    try:
        value = ast.literal_eval(d)
    except (ValueError, SyntaxError):
        return "..."
    return repr(value) if isinstance(value, (int, float, str)) else "..."


@dataclass(frozen=True)
class NamedReturn:
    name: str  # the NamedTuple class
    fields: tuple[tuple[str, str], ...]


def return_type(func: FunctionSchema) -> tuple[str, NamedReturn | None]:
    rets = func.returns
    if not rets:
        return "None", None
    types = [py_type(r.type) for r in rets]
    if len(rets) == 1 and not func.returns_tuple:
        return types[0], None
    if all(r.name for r in rets):
        named = NamedReturn(f"_return_{func.name.name}", tuple((r.name, t) for r, t in zip(rets, types)))
        return named.name, named
    return f"tuple[{', '.join(types)}]", None


def _params(f: NativeFunction, method: bool) -> list[str]:
    out, kw_done = [], False
    kwarg_only = set(a.name for a in f.func.kwarg_only)
    tupled = python.out_tuple(f)  # several outs: one out=(values, indices) tuple
    for a in f.func.arguments:
        if method and a.name == "self":
            continue
        if a.name in kwarg_only and not kw_done:
            out.append("*")
            kw_done = True
        if a in tupled:
            if a is tupled[0]:
                out.append(f"out: tuple[{', '.join(['Tensor'] * len(tupled))}]")
            continue
        name = f"{a.name}_" if keyword.iskeyword(a.name) else a.name  # random_(from, to): from_
        text = f"{name}: {py_type(a.type)}"
        default = py_default(a)
        out.append(text + (f" = {default}" if default else ""))
    return out


def _varargs_form(params: list[str]) -> list[str]:
    """ones(2, 3): the leading int list given as separate ints."""
    name = params[0].split(":")[0]
    return [f"*{name}: _int", *(p for p in params[1:] if p != "*")]


def signatures(f: NativeFunction, method: bool) -> list[str]:
    """The parameter lists (without self) of this overload: one, plus the varargs form."""
    params = _params(f, method)
    if python.is_factory(f) and not method:
        params = [*params, "requires_grad: _bool = False"]  # after the keyword-only tensor options
    forms = [params]
    if python.accepts_varargs_size(f, method):
        forms.append(_varargs_form(params))
    return [", ".join(p) for p in forms]


# Methods tcore/_tensor.py turns into attributes, as torch's (x.mT): tcore.pyi.j2 declares them as
# properties instead (tests/test_stubs.py checks the stub against the runtime)
PROPERTIES = frozenset({"mT", "mH"})


def render_shard(k: int, functions: tuple[NativeFunction, ...]) -> str:
    """`_stubs_k.pyi`: the module functions of shard k and a mixin class with its Tensor
    methods. Shards follow the binding shards, so a schema edit rewrites one of them."""
    module: dict[str, list[str]] = {}
    methods: dict[str, list[str]] = {}
    named: dict[str, NamedReturn] = {}
    for f in functions:
        if not bindable(f):
            continue
        ret, nt = return_type(f.func)
        if nt is not None:
            named[nt.name] = nt
        name = f.func.name.name
        if "function" in f.variants and not f.python_module:  # those are in their module's stub
            module.setdefault(name, []).extend(f"def {name}({p}) -> {ret}: ..." for p in signatures(f, False))
        if "method" in f.variants and not f.func.is_out_fn and name not in PROPERTIES:
            methods.setdefault(name, []).extend(
                f"def {name}(self{', ' if p else ''}{p}) -> {ret}: ..." for p in signatures(f, True))
    return render("tcore_shard.pyi.j2", shard=k, functions=_overloaded(module), methods=_overloaded(methods),
                  named=sorted(named.values(), key=lambda n: n.name))


def stub_modules(functions) -> list[str]:
    """The python_module names that get a module of their own (tcore.linalg...): all but nn,
    whose functions tcore.nn.functional wraps. Reads only `python_module`, which the plan's
    lazy entries have too."""
    return sorted({f.python_module for f in functions if f.python_module and f.python_module != "nn"})


def render_module(module: str, functions: tuple[NativeFunction, ...]) -> str:
    """`MODULE.pyi` (tcore.linalg...): the functions of python_module MODULE by their public names
    (linalg_matmul is matmul), as tcore/_python_modules.py exports them."""
    defs: dict[str, list[str]] = {}
    named: dict[str, NamedReturn] = {}
    prefix = module + "_"
    for f in functions:
        if f.python_module != module or "function" not in f.variants or not bindable(f):
            continue
        ret, nt = return_type(f.func)
        if nt is not None:
            named[nt.name] = nt
        name = f.func.name.name
        public = name[len(prefix):] if name.startswith(prefix) else name
        defs.setdefault(public, []).extend(f"def {public}({p}) -> {ret}: ..." for p in signatures(f, False))
    return render("tcore_module.pyi.j2", module=module, functions=_overloaded(defs),
                  named=sorted(named.values(), key=lambda n: n.name))


def render_index(num_shards: int, modules: tuple[str, ...] = ()) -> str:
    """`__init__.pyi`: the Python-only API and the Tensor class made of the shards' mixins."""
    return render("tcore.pyi.j2", shards=range(num_shards), modules=modules)


def _overloaded(defs: dict[str, list[str]]) -> list[list[str]]:
    """Each name's definitions, decorated with @overload when there is more than one."""
    out = []
    for name in sorted(defs):
        unique = list(dict.fromkeys(defs[name]))
        out.append(unique if len(unique) == 1 else [line for d in unique for line in ("@overload", d)])
    return out
