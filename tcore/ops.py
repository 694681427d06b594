"""tcore.ops: every operator through the boxed path (generated unboxing code), as an
interpreter calls it. `tcore.ops.add.Tensor(a, b, alpha=2)` names an overload;
`tcore.ops.add(a, b)` resolves it (the first overload whose schema accepts the
arguments); `tcore.ops.schemas()` lists every registered schema."""
from __future__ import annotations

from . import _C


class OpOverload:
    def __init__(self, name: str, schema: str, arguments: list, returns: int):
        self.name, self.schema, self.returns = name, schema, returns
        self.arguments = arguments  # (name, type, has_default, kwarg_only, default value)

    def _stack(self, args: tuple, kwargs: dict) -> list:
        positional = [a for a in self.arguments if not a[3]]
        if len(args) > len(positional):
            raise TypeError(f"{self.name}() takes {len(positional)} positional arguments but {len(args)} were given")
        values = list(args)
        names = [a[0] for a in self.arguments]
        unknown = set(kwargs) - set(names)
        if unknown:
            raise TypeError(f"{self.name}() got an unexpected keyword argument {sorted(unknown)[0]!r}")
        for i in range(len(values), len(self.arguments)):
            name, _, has_default, _, default = self.arguments[i]
            if name in kwargs:
                values.append(kwargs[name])
            elif has_default:
                values.append(default)
            else:
                raise TypeError(f"{self.name}() missing required argument {name!r}")
        return values

    def __call__(self, /, *args, **kwargs):
        return self._call(self._stack(args, kwargs))

    def _call(self, stack: list):
        out = _C._call_boxed(self.name, stack)
        if self.returns == 0:
            return None
        if self.schema.endswith("-> ScalarType"):  # (an int on the stack)
            return _C.dtype(out[0])
        return out[0] if self.returns == 1 and not self.schema.split("->")[1].strip().startswith("(") else tuple(out)

    def __repr__(self) -> str:
        return f"tcore::{self.schema}"


class OpPacket:
    """All overloads of one operator name; calling it picks the first that fits."""

    def __init__(self, name: str):
        self.name = name
        self.overloads: dict[str, OpOverload] = {}

    def __getattr__(self, overload: str) -> OpOverload:
        try:
            return self.__dict__["overloads"]["" if overload == "default" else overload]
        except KeyError:
            raise AttributeError(f"tcore::{self.name} has no overload {overload!r}") from None

    def __call__(self, /, *args, **kwargs):
        errors = []
        for op in self.overloads.values():
            try:
                stack = op._stack(args, kwargs)
            except TypeError as e:
                errors.append(f"  {op.schema}: {e}")
                continue
            try:
                return op._call(stack)
            except TypeError as e:
                errors.append(f"  {op.schema}: {e}")
        raise TypeError(f"no overload of tcore::{self.name} accepts these arguments:\n" + "\n".join(errors))


class _Ops:
    def __init__(self):
        self._packets: dict[str, OpPacket] = {}
        for name, schema, arguments, returns in _C._boxed_operators():
            base, _, overload = name.partition(".")
            packet = self._packets.setdefault(base, OpPacket(base))
            packet.overloads[overload] = OpOverload(name, schema, [tuple(a) for a in arguments], returns)

    def __getattr__(self, name: str) -> OpPacket:
        try:
            return self.__dict__["_packets"][name]
        except KeyError:
            if any(n.split(".")[0] == name for n in _C._unselected_operators()):
                raise AttributeError(f"operator tcore::{name} is not built in this selective build") from None
            raise AttributeError(f"no operator tcore::{name}") from None

    def schemas(self) -> list[str]:
        return sorted(op.schema for p in self._packets.values() for op in p.overloads.values())

    def __dir__(self):
        return sorted(self._packets)


ops = _Ops()
