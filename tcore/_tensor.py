"""Python-side parts of the Tensor API: construction from data, Python operators,
varargs sizes, repr. Everything numeric goes through the generated bindings."""
from __future__ import annotations

import builtins
import functools
import sys

import numpy as np

from . import _C, _indexing, _tensor_methods

_NUMPY_TO_DTYPE = {
    np.dtype(np.bool_): _C.dtype.bool,
    np.dtype(np.uint8): _C.dtype.uint8,
    np.dtype(np.int8): _C.dtype.int8,
    np.dtype(np.int16): _C.dtype.int16,
    np.dtype(np.int32): _C.dtype.int32,
    np.dtype(np.int64): _C.dtype.int64,
    np.dtype(np.float32): _C.dtype.float32,
    np.dtype(np.float64): _C.dtype.float64,
    np.dtype(np.float16): _C.dtype.float16,
}
_DTYPE_TO_NUMPY = {v: k for k, v in _NUMPY_TO_DTYPE.items()}


# torch.set_printoptions' values (tcore/_utilities.py sets them), read by the repr
PRINT_OPTIONS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


def numpy_dtype(dtype: _C.dtype) -> np.dtype:
    return _DTYPE_TO_NUMPY[dtype]


def tensor(data, dtype: _C.dtype | None = None, requires_grad: bool = False) -> _C.Tensor:
    """A new tensor holding a copy of `data` (nested lists, numbers, numpy arrays, tensors).

    As in PyTorch, Python floats become the default dtype (float32 unless set_default_dtype
    changed it) unless dtype says otherwise."""
    if isinstance(data, _C.Tensor):
        data = _host(data)._numpy_read()
    arr = np.array(data)
    if arr.dtype == np.float64 and dtype is None and not isinstance(data, (np.ndarray, np.generic)):
        dtype = _C._get_default_dtype()  # (an explicit dtype converts the Python floats once)
    if arr.dtype not in _NUMPY_TO_DTYPE:
        raise TypeError(f"can't build a tensor from data of numpy dtype {arr.dtype}")
    if dtype is not None and not isinstance(data, (np.ndarray, np.generic)):
        _check_integer_range(arr, dtype)
    if dtype == _C.dtype.bfloat16:  # numpy has no bfloat16: built in float32, rounded by the copy
        t = _C._from_private_array(np.array(arr.astype(np.float32), copy=True, order="C")).to(dtype)
    else:
        if dtype is not None:
            with np.errstate(over="ignore"):
                arr = arr.astype(numpy_dtype(dtype))
        t = _C._from_private_array(np.array(arr, copy=True, order="C"))
    return t.requires_grad_(True) if requires_grad else t


def _check_integer_range(arr: np.ndarray, dtype: _C.dtype) -> None:
    """Python numbers into an integer dtype must fit, as in PyTorch (numpy arrays wrap, as there):
    an int may also be a negative that an unsigned type wraps (-255..-1 for uint8)."""
    target = _DTYPE_TO_NUMPY.get(dtype)
    if target is None or target.kind not in "iu" or arr.size == 0:
        return
    info = np.iinfo(target)
    if arr.dtype.kind in "iub":
        lo = info.min if target.kind == "i" else -int(info.max)
        ok = int(arr.min()) >= lo and int(arr.max()) <= info.max
    elif arr.dtype.kind == "f":
        finite = bool(np.all(np.isfinite(arr)))
        ok = finite and float(np.trunc(arr).min()) >= info.min and float(arr.max()) < float(info.max) + 1
    else:
        return
    if not ok:
        raise RuntimeError(f"value cannot be converted to type {target.name} without overflow")


def _spread(args: tuple) -> tuple:
    """(2, 3) -> ([2, 3],): a leading int list given as varargs."""
    if len(args) > 1 and all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args):
        return (list(args),)
    return args


def _python_function(fn, varargs: bool, factory: bool):
    """fn as tcore exports it: with varargs the leading int list may be spread (ones(2, 3) ==
    ones((2, 3))); a factory (zeros, arange, empty_like...) takes requires_grad= as in PyTorch."""
    spread = _spread if varargs else tuple
    if factory:
        @functools.wraps(fn)
        def factory_wrapper(*args, requires_grad: bool = False, **kwargs):
            out = fn(*spread(args), **kwargs)
            return out.requires_grad_(True) if requires_grad else out
        return factory_wrapper
    if varargs:
        @functools.wraps(fn)
        def varargs_wrapper(*args, **kwargs):
            return fn(*_spread(args), **kwargs)
        return varargs_wrapper
    return fn


def _method_varargs(fn):
    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        return fn(self, *_spread(args), **kwargs)

    return wrapper


def _host(self: _C.Tensor) -> _C.Tensor:
    """self as a CPU tensor numpy can read (bfloat16 widened to float32)."""
    t = self.detach() if getattr(self, "requires_grad", False) else self
    if t.device.type != "cpu":
        t = t.to("cpu")
    return t.float() if t.dtype == _C.dtype.bfloat16 else t


def _repr(self: _C.Tensor) -> str:
    if self.device.type == "meta":  # no values to print, as torch prints them
        suffix = f", dtype=tcore.{self.dtype.name}" if self.dtype != _C._get_default_dtype() else ""
        if getattr(self, "requires_grad", False):
            suffix += ", requires_grad=True"
        return f"tensor(..., device='meta', size={tuple(self.shape)}{suffix})"
    arr = _host(self)._numpy_read()
    prefix = "tensor("
    if arr.size == 0:
        body = "[]" if arr.ndim == 1 else f"[], size={tuple(arr.shape)}"
    else:
        options = PRINT_OPTIONS
        formatter = {"bool": lambda b: "True" if b else "False"}
        if options["sci_mode"] is not None and arr.dtype.kind == "f":  # (None: numpy's choice, as torch's)
            form = "e" if options["sci_mode"] else "f"
            formatter["float_kind"] = lambda v, p=options["precision"]: f"{v:.{p}{form}}"
        threshold = options["threshold"]
        body = np.array2string(arr, separator=", ", prefix=prefix,
                               threshold=sys.maxsize if threshold == float("inf") else int(threshold),
                               edgeitems=options["edgeitems"], max_line_width=options["linewidth"],
                               formatter=formatter, precision=options["precision"], floatmode=_floatmode(arr))
    suffix = ""
    if self.device.type != "cpu":
        suffix += f", device='{self.device}'"
    if self.dtype not in (_C._get_default_dtype(), _C.dtype.int64, _C.dtype.bool):
        suffix += f", dtype=tcore.{self.dtype.name}"
    grad_fn = getattr(self, "grad_fn", None)
    if grad_fn is not None:
        suffix += f", grad_fn=<{grad_fn.name()}>"
    elif getattr(self, "requires_grad", False):
        suffix += ", requires_grad=True"
    return f"{prefix}{body}{suffix})"


def _floatmode(arr: np.ndarray) -> str:
    """PyTorch prints 4 decimals, except that all-integral float tensors print as "2."."""
    if arr.dtype.kind != "f":
        return "maxprec"
    finite = arr[np.isfinite(arr)]
    return "maxprec" if finite.size == 0 or np.all(finite == np.round(finite)) else "fixed"


def _iter(self: _C.Tensor):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))  # as torch's: the rows are unbind's views (written in place: its error)


def _install_named_returns(namespace: dict) -> None:
    """max(x, dim) returns tcore.return_types.max(values, indices), like PyTorch."""
    import collections
    import sys
    import types

    module = types.ModuleType("tcore.return_types", "Named tuples of the operators with named outputs")
    sys.modules["tcore.return_types"] = module
    namespace["return_types"] = module
    T = _C.Tensor
    for name, fields in _C._named_returns.items():
        kind = collections.namedtuple(name, fields, module="tcore.return_types")
        setattr(module, name, kind)
        if name in namespace:
            namespace[name] = named_returns(namespace[name], kind)
        if hasattr(T, name):
            setattr(T, name, named_returns(getattr(T, name), kind))


def named_returns(fn, kind):
    """fn, returning its tuples as the named tuple kind (tcore.return_types.NAME)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        result = fn(*args, **kwargs)
        return kind(*result) if type(result) is tuple and len(result) == len(kind._fields) else result
    return wrapper


def _comparable(other) -> bool:
    """== and != compare elementwise with tensors and numbers; anything else is not equal."""
    return isinstance(other, (_C.Tensor, bool, int, float))


def _dtype_repr(self: _C.dtype) -> str:
    return f"tcore.{self.name}"


def install(namespace: dict) -> None:
    """Exports the generated operators into the tcore namespace and adds Python methods."""
    T = _C.Tensor
    varargs, factories = set(_C._varargs_size_functions), set(_C._factory_functions)
    for name in dir(_C):
        # operators named with an underscore stay in tcore._C, except the foreach family (torch._foreach_add)
        if (name.startswith("_") and not name.startswith("_foreach_")) or name in namespace:
            continue
        namespace[name] = _python_function(getattr(_C, name), name in varargs, name in factories)
    for qualified in varargs:
        if qualified.startswith("Tensor."):
            name = qualified.split(".", 1)[1]
            setattr(T, name, _method_varargs(getattr(T, name)))

    _install_named_returns(namespace)
    _install_conversions(T)
    T.__repr__ = _repr
    T.__str__ = _repr
    T.__len__ = lambda self: self.shape[0] if self.ndim else _raise_len()
    T.__array__ = lambda self, dtype=None, copy=None: self.numpy() if dtype is None else self._numpy_read().astype(dtype)
    T.__add__ = lambda self, other: _C.add(self, other)
    T.__radd__ = lambda self, other: _C.add(self, other)
    T.__iadd__ = lambda self, other: self.add_(other)
    T.__sub__ = lambda self, other: _C.sub(self, other)
    T.__rsub__ = _reflected("sub")
    T.__isub__ = lambda self, other: self.sub_(other)
    T.__mul__ = lambda self, other: _C.mul(self, other)
    T.__rmul__ = lambda self, other: _C.mul(self, other)
    T.__imul__ = lambda self, other: self.mul_(other)
    T.__truediv__ = lambda self, other: _C.div(self, other)
    # torch's number / tensor: tensor.reciprocal() * number (the same roundings as torch's)
    T.__rtruediv__ = _reflected(lambda number, self: _C.mul(_C.reciprocal(self), number))
    T.__itruediv__ = lambda self, other: self.div_(other)
    T.__matmul__ = lambda self, other: _C.matmul(self, other)
    T.__rmatmul__ = lambda self, other: _C.matmul(other, self)
    T.__neg__ = lambda self: _C.neg(self)
    T.__pos__ = lambda self: self
    T.__abs__ = lambda self: _C.abs(self)
    T.tolist = lambda self: _host(self)._numpy_read().tolist()
    T.cuda = lambda self, device=None: self.to("cuda" if device is None else f"cuda:{int(device)}")
    T.cpu = lambda self: self.to("cpu")
    T.is_cuda = property(lambda self: self.device.type == "cuda")
    T.is_meta = property(lambda self: self.device.type == "meta")
    # DLPack through numpy's view of the same memory (CPU tensors; no copy)
    T.__dlpack__ = lambda self, *args, **kwargs: self.numpy().__dlpack__(*args, **kwargs)
    T.__dlpack_device__ = lambda self: self._numpy_read().__dlpack_device__()
    T.__getitem__ = _indexing.getitem  # basic and advanced indexing (tcore/_indexing.py)
    T.__setitem__ = _indexing.setitem
    T.__iter__ = _iter
    T.__mod__ = lambda self, other: _C.remainder(self, other)
    T.__rmod__ = _reflected("remainder")
    T.__imod__ = lambda self, other: self.remainder_(other)
    T.__floordiv__ = lambda self, other: _C.div(self, other, rounding_mode="floor")
    T.__rfloordiv__ = _reflected("div", rounding_mode="floor")
    T.__ifloordiv__ = lambda self, other: self.div_(other, rounding_mode="floor")
    T.__pow__ = lambda self, other: _C.pow(self, other)
    T.__rpow__ = _reflected("pow")
    T.__ipow__ = lambda self, other: self.pow_(other)
    T.__eq__ = lambda self, other: _C.eq(self, other) if _comparable(other) else NotImplemented
    T.__ne__ = lambda self, other: _C.ne(self, other) if _comparable(other) else NotImplemented
    T.__lt__ = lambda self, other: _C.lt(self, other)
    T.__le__ = lambda self, other: _C.le(self, other)
    T.__gt__ = lambda self, other: _C.gt(self, other)
    T.__ge__ = lambda self, other: _C.ge(self, other)
    T.__hash__ = object.__hash__  # by identity, as PyTorch's tensors (== is elementwise)
    T.__and__ = T.__rand__ = lambda self, other: _C.bitwise_and(self, other)
    T.__or__ = T.__ror__ = lambda self, other: _C.bitwise_or(self, other)
    T.__xor__ = T.__rxor__ = lambda self, other: _C.bitwise_xor(self, other)
    T.__iand__ = lambda self, other: self.bitwise_and_(other)
    T.__ior__ = lambda self, other: self.bitwise_or_(other)
    T.__ixor__ = lambda self, other: self.bitwise_xor_(other)
    T.__invert__ = lambda self: _C.bitwise_not(self)
    T.__lshift__ = lambda self, other: _C.bitwise_left_shift(self, other)
    T.__rlshift__ = _reflected("bitwise_left_shift")
    T.__ilshift__ = lambda self, other: self.bitwise_left_shift_(other)
    T.__rshift__ = lambda self, other: _C.bitwise_right_shift(self, other)
    T.__rrshift__ = _reflected("bitwise_right_shift")
    T.__irshift__ = lambda self, other: self.bitwise_right_shift_(other)
    for method, dtype in _CONVERSIONS.items():  # x.float(), x.long(), ...: x.to(dtype)
        if hasattr(_C.dtype, dtype):
            setattr(T, method, lambda self, _d=getattr(_C.dtype, dtype): self.to(_d))
    T.type_as = lambda self, other: self.to(other.dtype)
    T.T = property(lambda self: self.numpy_T())  # (the dims reversed, torch's warnings past 2)
    T.H = property(lambda self: self.matrix_H())
    for name in ("mT", "mH"):  # the methods as attributes, as torch's (x.mT, not x.mT())
        if hasattr(T, name):  # (a selective build may leave them out)
            setattr(T, name, property(getattr(T, name)))
    _C.dtype.__repr__ = _dtype_repr
    _C.dtype.__str__ = _dtype_repr
    _C.dtype.is_floating_point = property(lambda self: self in (_C.dtype.float32, _C.dtype.float64, _C.dtype.float16,
                                                                 _C.dtype.bfloat16))
    _C.dtype.itemsize = property(lambda self: _C.element_size(self))
    _tensor_methods.install(T)


_CONVERSIONS = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16", "long": "int64",
                "int": "int32", "short": "int16", "char": "int8", "byte": "uint8", "bool": "bool"}


def _reflected(op, **kwargs):
    """number - tensor and the like: op(number, tensor) with the number as torch passes it, a
    wrapped number (it promotes as a Python scalar: 2.5 - uint8 is float32, 2 / bool is float32);
    converting it to the tensor's dtype first wrapped 2.5 - uint8 around and 1e5 / float16 to inf."""
    def method(self, other):  # op: a function, or a name looked up per call (a selective build may lack it)
        if not isinstance(other, (builtins.bool, builtins.int, builtins.float)):
            return NotImplemented
        fn = getattr(_C, op) if isinstance(op, str) else op
        return fn(_C._wrapped_number(other), self, **kwargs)
    return method


def _raise_len():
    raise TypeError("len() of a 0-d tensor")


def _install_conversions(T) -> None:
    """Python numbers from one-element tensors, as torch: float(), int(), bool(), index()
    (integer tensors only), format() (0-dim only) and truth values."""

    def scalar(self, what: str):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return _host(self).item()

    def to_bool(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return builtins.bool(_host(self).item())

    def to_index(self):
        if self.numel() != 1 or self.dtype.is_floating_point or self.dtype == _C.dtype.bool:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(_host(self).item())

    def to_format(self, spec: str) -> str:
        if self.ndim == 0:
            return format(_host(self).item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    T.__float__ = lambda self: builtins.float(scalar(self, "float"))
    T.__int__ = lambda self: builtins.int(scalar(self, "int"))
    T.__bool__ = to_bool
    T.__index__ = to_index
    T.__format__ = to_format
