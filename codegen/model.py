"""What an operator *is*: frozen dataclasses built once from native_functions.yaml.

`NativeFunction.from_entry` pops every key, checks its type and rejects unknown
keys, so a typo in the YAML is an error with file:line:col, never a silent skip.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import Location, SourceError
from .names import bad_kernel_name, bad_operator_name
from .schema import FunctionSchema, OperatorName, SchemaError, parse_schema
from .yaml_source import Entry, YMap, entry_location

# Dispatch keys a `dispatch:` section may name (PyTorch's, plus HIP for tcore).
BACKENDS = ("CPU", "CUDA", "HIP", "XLA", "MPS", "IPU", "XPU", "HPU", "VE", "Lazy", "MTIA", "Meta",
             "MAIA", "PrivateUse1", "PrivateUse2", "PrivateUse3")
_FUNCTIONALITY = ("", "Sparse", "SparseCsr", "Quantized", "NestedTensor", "Autograd")
COMPOSITE_KEYS = ("CompositeImplicitAutograd", "CompositeImplicitAutogradNestedTensor",
                  "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional")
# The key whose kernels are compiled once per CPU capability (cmake/cpu_capabilities.txt) and
# declared in the capability's namespace (tcore/core/CPUCapability.h).
CPU_KERNEL_KEY = "CPU"
DISPATCH_KEYS = frozenset(
    [f + b for f in _FUNCTIONALITY for b in BACKENDS]
    + list(COMPOSITE_KEYS) + ["MkldnnCPU", "ZeroTensor", "FPGA", "Vulkan", "Metal"]
)

VARIANTS = frozenset({"function", "method"})
DEVICE_CHECKS = frozenset({"NoCheck", "ExactSame"})


@dataclass(frozen=True)
class Tag:
    name: str
    desc: str


@dataclass(frozen=True)
class NativeFunction:
    func: FunctionSchema
    variants: frozenset[str]
    dispatch: tuple[tuple[str, str], ...]  # (dispatch key, kernel name), in source order
    tags: tuple[str, ...]
    python_module: str | None = None
    structured: bool = False
    structured_delegate: OperatorName | None = None
    structured_inherits: str | None = None
    precomputed: tuple[str, ...] = ()
    autogen: tuple[OperatorName, ...] = ()
    autogen_from: FunctionSchema | None = None  # the entry an autogen: out= overload is generated from
    device_check: str = "ExactSame"
    device_guard: bool = True
    manual_cpp_binding: bool = False
    manual_kernel_registration: bool = False
    category_override: str | None = None
    cpp_no_default_args: frozenset[str] = frozenset()
    use_const_ref_for_mutable_tensors: bool = False
    ufunc_inner_loop: tuple[tuple[str, str], ...] = ()
    has_explicit_dispatch: bool = False
    # where it came from: file, absolute line of "- func:", and the entry's text
    file: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)
    source: str = field(default="", compare=False, repr=False)
    # (key, relative line, col) of every key and dispatch kernel, for error messages
    positions: tuple[tuple[str, int, int], ...] = field(default=(), compare=False, repr=False)

    @property
    def name(self) -> OperatorName:
        return self.func.name

    @property
    def digest(self) -> str:
        """sha1 of the entry's text: what the plan keys its units on."""
        import hashlib

        return hashlib.sha1(self.source.encode()).hexdigest()

    def get(self) -> "NativeFunction":
        """The model itself (a LazyFunction unpickles it here)."""
        return self

    @property
    def root_name(self) -> str:
        """Per-operator headers group every overload of add, add_ and add.out under 'add'."""
        return self.func.name.base

    def kernel_for(self, key: str) -> str | None:
        for k, kernel in self.dispatch:
            if k == key:
                return kernel
        return None

    @property
    def is_composite_implicit(self) -> bool:
        return any(k == "CompositeImplicitAutograd" for k, _ in self.dispatch)

    def location(self, key: str = "func") -> Location:
        """The position of a YAML key (or 'dispatch:<KEY>' / 'tags:<TAG>') in the source."""
        for k, rel, col in self.positions:
            if k == key:
                return entry_location(Entry(self.file, self.line, self.source), rel, col)
        return Location(self.file, self.line, 1, self.source.splitlines()[0] if self.source else "")

    def error(self, message: str, key: str = "func") -> SourceError:
        return SourceError(f"{message} (in {self.func.name})", self.location(key))

    # ------------------------------------------------------------------ construction

    @staticmethod
    def from_entry(entry: Entry, data: YMap) -> "NativeFunction":
        """Build and validate one entry (tags are checked later, against tags.yaml)."""
        e = dict(data)
        positions: list[tuple[str, int, int]] = []
        for key, (rel, col) in data.key_pos.items():
            # errors about the schema point at its text, the others at their key
            rel, col = data.value_pos[key] if key == "func" else (rel, col)
            positions.append((str(key), rel, col))

        def loc(key: str, value: bool = True) -> Location:
            rel, col = (data.value_pos if value else data.key_pos)[key]
            return entry_location(entry, rel, col)

        def pop(key: str, kind: type | tuple[type, ...], default=None):
            if key not in e:
                return default
            value = e.pop(key)
            if not isinstance(value, kind):
                names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
                raise SourceError(f"'{key}' must be {names}, got {type(value).__name__}", loc(key))
            return value

        if "func" not in e:
            raise SourceError("entry has no 'func' key", entry_location(entry, 0, 3))
        func_text = pop("func", str)
        try:
            func = parse_schema(func_text)
        except SchemaError as err:
            raise SourceError(err.message, _schema_location(entry, data, func_text, err.offset)) from None

        variants_text = pop("variants", str, "function")
        variants = frozenset(v.strip() for v in variants_text.split(","))
        bad = variants - VARIANTS
        if bad:
            raise SourceError(f"unknown variant {sorted(bad)[0]!r} (expected function, method)", loc("variants"))
        if "method" in variants and not any(a.name == "self" for a in func.arguments):
            raise SourceError("a method variant needs an argument named 'self'", loc("variants"))

        dispatch: list[tuple[str, str]] = []
        raw_dispatch = pop("dispatch", dict)
        if raw_dispatch is not None:
            for keys, kernel in raw_dispatch.items():
                rel, col = raw_dispatch.key_pos[keys]
                vrel, vcol = raw_dispatch.value_pos[keys]
                if not isinstance(kernel, str):
                    raise SourceError("a dispatch kernel must be a name", entry_location(entry, vrel, vcol))
                bad_name = bad_kernel_name(kernel)
                if bad_name is not None:
                    at, why = bad_name
                    raise SourceError(f"kernel name {kernel!r} is not a C++ identifier (optionally namespaced, "
                                      f"a::b): {why}", _text_location(entry, vrel, vcol, kernel, at))
                offset = 0
                for key in str(keys).split(","):
                    stripped = key.strip()
                    kcol = col + offset + (len(key) - len(key.lstrip()))
                    offset += len(key) + 1
                    if stripped not in DISPATCH_KEYS:
                        raise SourceError(f"unknown dispatch key {stripped!r}", entry_location(entry, rel, kcol))
                    if any(k == stripped for k, _ in dispatch):
                        raise SourceError(f"dispatch key {stripped!r} given twice", entry_location(entry, rel, kcol))
                    dispatch.append((stripped, kernel))
                    positions.append((f"dispatch:{stripped}", vrel, vcol))
        has_explicit_dispatch = bool(dispatch)

        tags_value = pop("tags", (str, list), [])
        tags = (tags_value,) if isinstance(tags_value, str) else tuple(tags_value)
        if isinstance(tags_value, list):
            for tag, (rel, col) in zip(tags_value, getattr(tags_value, "pos", [])):
                if not isinstance(tag, str):
                    raise SourceError(f"a tag must be a name, got {type(tag).__name__}", entry_location(entry, rel, col))
                positions.append((f"tags:{tag}", rel, col))
        elif tags:
            rel, col = data.value_pos["tags"]
            positions.append((f"tags:{tags_value}", rel, col))

        structured = pop("structured", bool, False)
        delegate = pop("structured_delegate", str)
        if delegate is not None:
            _check_operator_name(entry, data, "structured_delegate", delegate, 0)
        autogen_text = pop("autogen", str, "")
        start = 0
        for name in autogen_text.split(","):
            if name.strip():
                _check_operator_name(entry, data, "autogen", name.strip(), start + len(name) - len(name.lstrip()))
            start += len(name) + 1
        no_default_args = pop("cpp_no_default_args", list, [])
        for arg, (rel, col) in zip(no_default_args, getattr(no_default_args, "pos", [])):
            if not isinstance(arg, str):
                raise SourceError(f"cpp_no_default_args lists argument names, got {type(arg).__name__}",
                                  entry_location(entry, rel, col))
        device_check = pop("device_check", str, "ExactSame")
        if device_check not in DEVICE_CHECKS:
            raise SourceError(f"unknown device_check {device_check!r}", loc("device_check"))
        python_module = pop("python_module", str)
        if python_module is not None and not re.fullmatch(r"[a-z][a-z0-9_]*", python_module):
            raise SourceError(f"python_module must be a module name (nn, linalg, special, fft...), got {python_module!r}",
                              loc("python_module"))
        nf = NativeFunction(
            func=func,
            variants=variants,
            dispatch=tuple(dispatch),
            tags=tags,
            python_module=python_module,
            structured=structured,
            structured_delegate=_parse_op_name(delegate) if delegate else None,
            structured_inherits=pop("structured_inherits", str),
            precomputed=tuple(str(p) for p in pop("precomputed", list, [])),
            autogen=tuple(_parse_op_name(a.strip()) for a in autogen_text.split(",") if a.strip()),
            device_check=device_check,
            device_guard=pop("device_guard", bool, True),
            manual_cpp_binding=pop("manual_cpp_binding", bool, False),
            manual_kernel_registration=pop("manual_kernel_registration", bool, False),
            category_override=pop("category_override", str),
            cpp_no_default_args=frozenset(no_default_args),
            use_const_ref_for_mutable_tensors=pop("use_const_ref_for_mutable_tensors", bool, False),
            ufunc_inner_loop=tuple((str(k), str(v)) for k, v in pop("ufunc_inner_loop", dict, {}).items()),
            has_explicit_dispatch=has_explicit_dispatch,
            file=entry.file,
            line=entry.line,
            source=entry.text,
            positions=tuple(positions),
        )
        if e:
            key = next(iter(e))
            raise SourceError(f"unknown field {key!r}", loc(key, value=False))
        if not dispatch and delegate is None:
            # PyTorch's rule: no dispatch section means a composite kernel named after the op
            nf = _with_dispatch(nf, (("CompositeImplicitAutograd", func.name.unambiguous),))
        return nf


def _with_dispatch(nf: NativeFunction, dispatch: tuple[tuple[str, str], ...]) -> NativeFunction:
    from dataclasses import replace

    return replace(nf, dispatch=dispatch)


def _parse_op_name(text: str) -> OperatorName:
    name, _, overload = text.partition(".")
    return OperatorName(name, overload)


def _check_operator_name(entry: Entry, data: YMap, key: str, name: str, offset: int) -> None:
    bad = bad_operator_name(name)
    if bad is not None:
        rel, col = data.value_pos[key]
        value = data[key]
        raise SourceError(f"{key}: {name!r} is not an operator name (name or name.overload): {bad[1]}",
                          _text_location(entry, rel, col, value, offset + bad[0]))


def _schema_location(entry: Entry, data: YMap, func_text: str, offset: int) -> Location:
    """Map a column inside the schema string to the file (plain and quoted scalars)."""
    rel, col = data.value_pos["func"]
    return _text_location(entry, rel, col, func_text, offset)


def _text_location(entry: Entry, rel: int, col: int, text: str, offset: int) -> Location:
    """Where character `offset` of a string value starting at (rel, col) stands: exact for
    a value written plainly on its line, else the start of the value (quoted, folded)."""
    lines = entry.text.splitlines()
    line = lines[rel] if 0 <= rel < len(lines) else ""
    start = line.find(text, col - 1)
    if start < 0:
        return entry_location(entry, rel, col)
    return entry_location(entry, rel, start + 1 + offset)
