"""Pruning with torch.nn.utils.prune's semantics. Pruning `name` of a module moves the parameter to
`<name>_orig`, adds the buffer `<name>_mask` and sets the plain attribute `<name>` = mask * orig, which a
forward pre-hook (the pruning method itself) recomputes before every forward, so gradients reach
`<name>_orig` through the mask. Pruning the same tensor again combines the masks in a
PruningContainer: the new method acts only on what is still unpruned (unstructured: the entries left;
structured: the channels not yet all zero). remove() makes the pruning permanent: `<name>` becomes a
parameter again holding the pruned values.

Methods: Identity, RandomUnstructured, L1Unstructured, RandomStructured, LnStructured, CustomFromMask
(and the functions identity, random_unstructured, l1_unstructured, random_structured, ln_structured,
custom_from_mask, global_unstructured, remove, is_pruned). `amount` is an int (a count) or a float in
[0, 1] (a fraction, rounded), validated with torch's errors.

L1Unstructured and LnStructured choose the same entries as torch's, also among equal values: torch's
CPU topk leaves ties to std::nth_element / std::partial_sort (libstdc++), while tcore.topk takes the
lower index first, so where equal values straddle the cut the selection is replayed here with
libstdc++'s algorithms (in Python: slow on very large tensors with many ties). The random methods
draw from tcore's generator, so their choices differ from torch's for the same seed."""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import numpy as np

from ... import _C
from ..._tensor import tensor as _tensor
from .convert_parameters import parameters_to_vector
from .weight_norm import _remove_hook

Tensor = _C.Tensor
_CONTIGUOUS = _C.memory_format.contiguous_format

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


# ---------------------------------------------------------------------------------------------- torch's topk ties
# libstdc++'s selection algorithms over `a` (a list of positions into `key`, compared by key only), so
# that elements comparing equal end up where torch's CPU topk leaves them.

def _adjust_heap(a, key, hole, length, value):
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if key[a[child]] < key[a[child - 1]]:
            child -= 1
        a[hole] = a[child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[hole] = a[child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and key[a[parent]] < key[value]:
        a[hole] = a[parent]
        hole = parent
        parent = (hole - 1) // 2
    a[hole] = value


def _heap_select(a, key, first, middle, last):
    """std::__heap_select on a[first:last] (first == 0 here): the `middle` smallest into a[:middle]."""
    length = middle - first
    if length >= 2:
        for parent in range((length - 2) // 2, -1, -1):
            _adjust_heap(a, key, parent, length, a[parent])
    for i in range(middle, last):
        if key[a[i]] < key[a[first]]:
            value, a[i] = a[i], a[first]
            _adjust_heap(a, key, 0, length, value)


def _insertion_sort(a, key, first, last):
    for i in range(first + 1, last):
        val = a[i]
        kv = key[val]
        if kv < key[a[first]]:
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            j = i
            while kv < key[a[j - 1]]:
                a[j] = a[j - 1]
                j -= 1
            a[j] = val


def _partition_pivot(a, key, first, last):
    """std::__unguarded_partition_pivot: median of three moved to `first`, then Hoare's partition."""
    x, y, z = first + 1, first + (last - first) // 2, last - 1
    kx, ky, kz = key[a[x]], key[a[y]], key[a[z]]
    if kx < ky:
        s = y if ky < kz else (z if kx < kz else x)
    else:
        s = x if kx < kz else (z if ky < kz else y)
    a[first], a[s] = a[s], a[first]
    pivot = key[a[first]]
    lo, hi = first + 1, last
    while True:
        while key[a[lo]] < pivot:
            lo += 1
        hi -= 1
        while pivot < key[a[hi]]:
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _nth_element(a, key, nth):
    """std::nth_element (introselect)."""
    first, last = 0, len(a)
    if first == last or nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, key, first, nth + 1, last)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, key, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, key, first, last)


def _topk_indices(x: Tensor, k: int, largest: bool) -> Tensor:
    """The positions torch.topk(x, k, largest=largest) returns for a 1-D x on the CPU (as a set: in
    some order). NaN counts as the largest value, as in torch. Off the CPU: tcore.topk's choice."""
    if x.device.type != "cpu":
        return _C.topk(x, k, largest=largest)[1]
    values = np.asarray(x.detach().numpy()).reshape(-1)
    n = values.size
    _, rank = np.unique(values, return_inverse=True)
    rank = rank.reshape(-1).astype(np.int64)
    if values.dtype.kind == "f":
        nan = np.isnan(values)
        if nan.any():
            rank[nan] = rank.max() + 1
    if largest:
        rank = -rank
    ordered = np.sort(rank)
    bound = ordered[k - 1]
    if k == n or ordered[k] != bound:  # no tie across the cut: the set is the k smallest keys
        chosen = np.flatnonzero(rank <= bound)
    else:
        key = rank.tolist()
        a = list(range(n))
        if k * 64 <= n:  # torch's topk: std::partial_sort
            _heap_select(a, key, 0, k, n)
        else:  # std::nth_element(..., begin + k - 1, ...)
            _nth_element(a, key, k - 1)
        chosen = np.array(sorted(a[:k]), dtype=np.int64)
    return _tensor(chosen, dtype=_C.dtype.int64)


# ---------------------------------------------------------------------------------------------- methods
class BasePruningMethod(ABC):
    """A pruning method: compute_mask(t, default_mask) gives the new mask; apply(module, name, ...)
    reparametrizes `name` of `module` and registers the method as its forward pre-hook."""

    _tensor_name: str

    def __call__(self, module, inputs):
        """The forward pre-hook: recomputes the pruned tensor from `<name>_orig` and `<name>_mask`."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask for `t`, on top of `default_mask` (the mask of the pruning so far)."""

    def apply_mask(self, module):
        """`<name>_mask` * `<name>_orig` (the mask cast to orig's dtype)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prunes `name` of `module` with cls(*args, **kwargs), on top of an earlier pruning of it
        (combined in a PruningContainer), the mask computed from importance_scores (default: the
        tensor itself). Returns the method (or container) now registered as the hook."""
        old_method, keys = None, []
        for k, hook in module._forward_pre_hooks.items():
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                old_method = hook
                keys.append(k)
        if len(keys) > 1:
            raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
                                 f"{module}. Use a PruningContainer.")
        for k in keys:
            del module._forward_pre_hooks[k]

        method = cls(*args, **kwargs)
        method._tensor_name = name
        if old_method is not None:
            if isinstance(old_method, PruningContainer):
                old_method.add_pruning_method(method)
                method = old_method
            elif isinstance(old_method, BasePruningMethod):
                container = PruningContainer(old_method)
                container.add_pruning_method(method)
                method = container

        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as parameter {name} of "
                                     f"{module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig

        if not isinstance(method, PruningContainer):  # first pruning of this tensor
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _C.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(memory_format=_CONTIGUOUS)

        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not isinstance(method, PruningContainer):  # undo the reparametrization
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """t * compute_mask(importance_scores or t, default_mask or ones), without a module."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(f"importance_scores should have the same shape as tensor t, got "
                                     f"{importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else _C.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Makes the pruning permanent: `<name>` becomes the parameter `<name>_orig` was, holding the
        masked values; `<name>_orig` and `<name>_mask` go (the hook is removed by prune.remove)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied in turn to one tensor; its mask is the last one's, computed on the
    part the earlier ones left."""

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        elif method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The last method's mask over what default_mask still keeps, merged into default_mask."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            slc = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                                     "`dim` defined.")
            n_dims = t.dim()
            dim = method.dim
            if dim < 0:
                dim = n_dims + dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = [slice(None)] * n_dims
            slc[dim] = keep_channel
        elif kind == "global":
            slc = [slice(None)] * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        if isinstance(slc, list):
            slc = tuple(slc)
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones."""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class _Unstructured(BasePruningMethod):
    """Prunes `amount` entries of the flattened tensor: the ones _pruned picks."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def _pruned(self, t, n: int):
        raise NotImplementedError

    def compute_mask(self, t, default_mask):
        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone(memory_format=_CONTIGUOUS)
        if nparams_toprune != 0:
            mask.view(-1)[self._pruned(t, nparams_toprune)] = 0
        return mask


class RandomUnstructured(_Unstructured):
    """Prunes `amount` entries chosen at random."""

    def _pruned(self, t, n: int):
        return _C.topk(_C.rand_like(t.detach()).view(-1), n)[1]

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes the `amount` entries of smallest absolute value."""

    def _pruned(self, t, n: int):
        return _topk_indices(_C.abs(t).view(-1), n, largest=False)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes `amount` channels along `dim` chosen at random."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        prob = _C.rand(tensor_size)
        threshold = _C.kthvalue(prob, nparams_toprune)[0]
        mask = _C.zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = prob > threshold
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the `amount` channels along `dim` of smallest L`n` norm."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        nparams_tokeep = tensor_size - nparams_toprune
        _validate_pruning_amount(nparams_toprune, tensor_size)
        norm = _compute_norm(t, self.n, self.dim)
        if nparams_toprune == 0:
            return default_mask
        keep = _topk_indices(norm, nparams_tokeep, largest=True) if nparams_tokeep > 0 else \
            _C.zeros([0], dtype=_C.dtype.int64)
        mask = _C.zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = keep
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given mask is 0."""
    PRUNING_TYPE = "global"

    def __init__(self, mask) -> None:
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask shape "
                                 f"{self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


# ---------------------------------------------------------------------------------------------- functions
def identity(module, name):
    """Reparametrizes `name` with an all-ones mask. Returns the module."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prunes `amount` random entries of `name`. Returns the module."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prunes the `amount` entries of `name` with the smallest |importance_scores| (default: |tensor|)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prunes `amount` random channels of `name` along `dim`. Returns the module."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prunes the `amount` channels of `name` along `dim` with the smallest L`n` norm. Returns the module."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    """Prunes the (module, name) pairs of `parameters` together: pruning_method(**kwargs) (an
    unstructured method) picks among all their entries at once; each tensor then gets its part of the
    mask as a CustomFromMask. importance_scores: {(module, name): scores}, default the tensors."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant_importance_scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name)) for (module, name) in parameters])
    default_mask = parameters_to_vector(
        [getattr(module, name + "_mask", _C.ones_like(getattr(module, name))) for (module, name) in parameters])

    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)

    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + num_param].view_as(param))
        pointer += num_param


def custom_from_mask(module, name, mask):
    """Prunes `name` where `mask` is 0. Returns the module."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Makes the pruning of `name` permanent and removes its hook. Returns the module."""
    return _remove_hook(module, lambda hook: isinstance(hook, BasePruningMethod) and hook._tensor_name == name,
                        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module) -> bool:
    """Whether `module` or one of its submodules has a pruning hook."""
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


# ---------------------------------------------------------------------------------------------- checks
def _validate_pruning_amount_init(amount) -> None:
    # (a bool is refused: torch's fails later, in topk, with a TypeError too)
    if not isinstance(amount, numbers.Real) or isinstance(amount, bool):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _validate_pruning_amount(amount, tensor_size) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}")


def _validate_structured_pruning(t) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of "
                         f"shape {shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount, tensor_size):
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _validate_pruning_dim(t, dim) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t, n, dim):
    """The L`n` norm of each slice of t along `dim` (over every other dim)."""
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    from ... import norm  # (tcore.norm: p may be 'fro', as torch.norm's)
    return norm(t, p=n, dim=dims)
