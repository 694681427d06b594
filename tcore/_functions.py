"""Python-level forms of operators whose PyTorch signatures the schema language cannot
say (as torch/functional.py): nonzero(as_tuple=), where(condition) with one argument,
unique's and unique_consecutive's optional outputs, einsum's operands as varargs, unbind's tuple, the tensors of
broadcast_tensors, meshgrid and atleast_*d as varargs, norm's p='fro' and dim=.
Each wraps the generated binding and keeps its behaviour for every other call."""
from __future__ import annotations

import copy
import functools

from . import _C


def _nonzero(fn):
    @functools.wraps(fn)
    def nonzero(*args, as_tuple: bool = False, **kwargs):
        if not as_tuple:
            return fn(*args, **kwargs)  # out=, and the binding's own argument errors
        if kwargs.get("out") is not None:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        input = args[0] if args else kwargs.get("input", kwargs.get("self"))
        if not isinstance(input, _C.Tensor):
            return fn(*args, **kwargs)
        return _columns(input)
    return nonzero


def _columns(input) -> tuple:
    """nonzero as a tuple of 1-d index tensors, one per dim (a 0-dim input reads as a
    1-element vector, as in PyTorch)."""
    if input.ndim == 0:
        input = input.view([1])
    nz = _C.nonzero(input)
    return tuple(nz.select(1, d) for d in range(input.ndim))


def _where(fn):
    @functools.wraps(fn)
    def where(condition, *args, **kwargs):
        if not args and not kwargs and isinstance(condition, _C.Tensor):
            return _columns(condition)
        return fn(condition, *args, **kwargs)
    return where


def unique(input, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """The distinct values (sorted), and optionally the index of each element's value and
    the count of each value; with dim, the distinct slices along dim (torch.unique)."""
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"unique(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if dim is None:
        values, inverse, counts = _C._unique2(input, sorted, return_inverse, return_counts)
    else:
        values, inverse, counts = _C.unique_dim(input, dim, sorted, return_inverse, return_counts)
    out = (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out[0] if len(out) == 1 else out


def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """The first element of each run of equal consecutive values (or slices along dim), and
    optionally each element's run index and the run lengths (torch.unique_consecutive)."""
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"unique_consecutive(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    values, inverse, counts = _C.unique_consecutive(input, return_inverse, return_counts, dim)
    out = (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out[0] if len(out) == 1 else out


def _einsum(fn):
    @functools.wraps(fn)
    def einsum(*args, **kwargs):
        """einsum("ij,jk->ik", a, b) or einsum("ij,jk->ik", [a, b]), as in PyTorch."""
        if len(args) > 2 or (len(args) == 2 and not isinstance(args[1], (list, tuple))):
            args = (args[0], list(args[1:]))
        return fn(*args, **kwargs)
    return einsum


def _as_tuple(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return tuple(fn(*args, **kwargs))
    return wrapper


def _tensors_varargs(fn, single_unwrapped: bool = False, one_result: bool = False):
    """torch/functional.py's broadcast_tensors(*tensors), meshgrid(*tensors, indexing=) and
    atleast_1d(*tensors): the tensors as separate arguments or one sequence; atleast_*d of one
    tensor is a tensor, of several a tuple. one_result: block_diag(*tensors) and
    cartesian_prod(*tensors), whose result is one tensor."""
    @functools.wraps(fn)
    def wrapper(*tensors, **kwargs):
        if not tensors:  # the binding's own keywords: tensors=[...], self=x
            return fn(**kwargs) if kwargs or not one_result else fn([])
        if one_result:
            return fn(list(tensors), **kwargs)
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
        elif single_unwrapped and len(tensors) == 1:
            return fn(tensors[0], **kwargs)
        return tuple(fn(list(tensors), **kwargs))
    return wrapper


def _tensordot(fn):
    """torch.tensordot(a, b, dims=2, out=None): dims an int n (a's last n dims summed with b's first
    n), a pair of dim lists (or of ints), or a tensor of either; the operator takes the two lists."""
    def torch_form(a, b, dims=2, out=None):
        if not isinstance(a, _C.Tensor) or not isinstance(b, _C.Tensor):
            return fn(a, b, dims, out)  # the binding's TypeError
        if isinstance(dims, _C.Tensor):
            dims = dims.tolist() if dims.ndim > 0 else dims.item()
        if isinstance(dims, int):
            if dims < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            if dims > min(a.ndim, b.ndim):
                raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
            dims_a, dims_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
        else:
            dims_a, dims_b = dims
            dims_a, dims_b = list(dims_a), list(dims_b)
        return fn(a, b, dims_a, dims_b) if out is None else fn(a, b, dims_a, dims_b, out=out)

    @functools.wraps(fn)
    def tensordot(*args, **kwargs):
        if len(args) > 3 or not set(kwargs) <= {"a", "b", "dims", "out"}:  # the binding's own form
            return fn(*args, **kwargs)
        return torch_form(*args, **kwargs)
    return tensordot


def _norm(fn):
    """torch.norm / Tensor.norm: p='fro' (the default: the 2-norm of the elements), a number, or
    None; dim an int or a list; dtype=. p='nuc' needs an SVD, which tcore lacks. Calls in the
    binding's own terms (self=, out=) go to it unchanged."""
    def torch_form(input, p="fro", dim=None, keepdim=False, dtype=None):
        if isinstance(p, str):
            if p == "nuc":
                raise NotImplementedError("norm(p='nuc') needs a singular value decomposition, which tcore lacks")
            if p != "fro":
                raise ValueError(f"norm: p must be a number, 'fro' or 'nuc', got {p!r}")
            p = 2
        p = 2 if p is None else p
        if dtype is not None:
            dims = [dim] if isinstance(dim, int) else dim
            return _C._linalg.linalg_vector_norm(input, p, dims, keepdim, dtype=dtype)
        if dim is None:
            return fn(input, p) if not keepdim else fn(input, p, list(range(input.ndim)), True)
        return fn(input, p, [dim] if isinstance(dim, int) else list(dim), keepdim)

    @functools.wraps(fn)
    def norm(*args, **kwargs):
        if not set(kwargs) <= {"input", "p", "dim", "keepdim", "dtype"}:
            return fn(*args, **kwargs)
        return torch_form(*args, **kwargs)
    return norm


def _data(self):
    return self.detach()


def _set_data(self, value) -> None:
    """t.data = other: t now stands for other's elements (dtype and shape included), keeps
    its requires_grad, and drops its grad (PyTorch keeps a grad of the old shape)."""
    if not isinstance(value, _C.Tensor):
        raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
    requires_grad = self.requires_grad
    self._set_data(value.detach())
    if requires_grad:
        self.requires_grad_(True)


def _new(factory):
    def method(self, *size, dtype=None, device=None, requires_grad=False):
        if len(size) == 1 and isinstance(size[0], (list, tuple)):
            size = tuple(size[0])
        out = factory(list(size), dtype=dtype or self.dtype, device=device or self.device)
        return out.requires_grad_(True) if requires_grad else out
    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    out = _C.full(list(size), fill_value, dtype=dtype or self.dtype, device=device or self.device)
    return out.requires_grad_(True) if requires_grad else out


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    from ._tensor import tensor
    out = tensor(data, dtype=dtype or self.dtype).to(device or self.device)
    return out.requires_grad_(True) if requires_grad else out


def _deepcopy(self, memo):
    """torch's Tensor.__deepcopy__: a detached clone with requires_grad, its .grad and its own
    attributes (the object's __dict__) deep-copied too."""
    if id(self) in memo:
        return memo[id(self)]
    out = self.detach().clone()
    if self.requires_grad:
        out.requires_grad_(True)
    memo[id(self)] = out
    if self.is_leaf and self.grad is not None:
        out.grad = copy.deepcopy(self.grad, memo)
    state = getattr(self, "__dict__", None)
    if state:
        out.__dict__.update(copy.deepcopy(state, memo))
    return out


def install(namespace: dict) -> None:
    """The Python-side functions and methods. In a selective build an operator may be absent
    (TCORE_SELECTED_OP_LIST_PATH): what wraps one is installed only where it exists."""
    T = _C.Tensor
    T.data = property(_data, _set_data)
    for name, factory in (("new_zeros", "zeros"), ("new_ones", "ones"), ("new_empty", "empty")):
        if hasattr(_C, factory):
            setattr(T, name, _new(getattr(_C, factory)))
    if hasattr(_C, "full"):
        T.new_full = _new_full
    T.new_tensor = _new_tensor
    T.view_as = lambda self, other: self.view(list(other.shape))
    T.reshape_as = lambda self, other: self.reshape(list(other.shape))
    T.expand_as = lambda self, other: self.expand(list(other.shape))
    T.is_floating_point = lambda self: self.dtype.is_floating_point
    T.nelement = lambda self: self.numel()
    T.ndimension = lambda self: self.ndim
    T.__deepcopy__ = _deepcopy
    wrappers = {"nonzero": _nonzero, "where": _where, "einsum": _einsum, "unbind": _as_tuple}  # unbind: a tuple, as torch
    for name, wrap in wrappers.items():
        if name in namespace:
            namespace[name] = wrap(namespace[name])
    for name, wrap in (("nonzero", _nonzero), ("unbind", _as_tuple)):
        if hasattr(T, name):
            setattr(T, name, wrap(getattr(T, name)))
    if "norm" in namespace:
        namespace["norm"] = _norm(namespace["norm"])
        T.norm = _norm(T.norm)
    for name in ("broadcast_tensors", "meshgrid"):
        if name in namespace:
            namespace[name] = _tensors_varargs(namespace[name])
    for name in ("block_diag", "cartesian_prod", "chain_matmul"):
        if name in namespace:
            namespace[name] = _tensors_varargs(namespace[name], one_result=True)
    if "tensordot" in namespace:
        namespace["tensordot"] = _tensordot(namespace["tensordot"])
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        if name in namespace:
            namespace[name] = _tensors_varargs(namespace[name], single_unwrapped=True)
    namespace["unique"] = unique
    T.unique = unique
    if "unique_consecutive" in namespace:
        namespace["unique_consecutive"] = unique_consecutive
        T.unique_consecutive = unique_consecutive
