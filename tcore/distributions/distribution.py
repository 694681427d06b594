"""The base class of the distributions (torch.distributions.Distribution's semantics)."""
from __future__ import annotations

import warnings

import tcore

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]

_Size = getattr(tcore, "Size", tuple)  # what Tensor.shape is


def _all_true(valid) -> bool:
    if isinstance(valid, tcore.Tensor):
        return bool(valid.all())
    return bool(valid)


class Distribution:
    """A batch of probability distributions over events of event_shape, batched over
    batch_shape. validate_args (None: the class default, `set_default_validate_args`) checks the
    parameters against arg_constraints at construction and values against the support in
    log_prob, cdf and the like."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _Size(batch_shape)
        self._event_shape = _Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with "
                              "`validate_args=False` to turn off validation.", stacklevel=2)
            for name, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if name not in self.__dict__ and isinstance(getattr(type(self), name, None), lazy_property):
                    continue  # a parameter derived from another one, not given
                value = getattr(self, name)
                if not _all_true(constraint.check(value)):
                    raise ValueError(f"Expected parameter {name} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                                     f"constraint {constraint!r}, but found invalid values:\n{value}")
        super().__init__()

    # The generic expand() is driven by these two, which a distribution class sets in its own
    # body: _batch_params, the attributes it expands to the new batch shape where this instance
    # holds them (tensors keep their trailing non-batch dims; distributions are expanded in turn),
    # and _shared_attrs, those it passes on unchanged. Without _batch_params, expand is not
    # implemented.
    _batch_params = None
    _shared_attrs = ()

    def expand(self, batch_shape, _instance=None):
        """A new distribution with parameters expanded (as views) to batch_shape."""
        # the class that sets _batch_params owns this expand (a subclass of it with its own
        # __init__ must define its own expand: _get_checked_instance)
        owner = next(c for c in type(self).__mro__ if "_batch_params" in vars(c))
        if owner._batch_params is None:
            raise NotImplementedError
        new = self._get_checked_instance(owner, _instance)
        batch_shape = tuple(batch_shape)
        for name in owner._batch_params:
            if name in self.__dict__:
                value = self.__dict__[name]
                if isinstance(value, Distribution):
                    value = value.expand(batch_shape)
                else:
                    value = value.expand(batch_shape + tuple(value.shape[len(self._batch_shape):]))
                setattr(new, name, value)
        for name in owner._shared_attrs:
            setattr(new, name, getattr(self, name))
        return self._finish_expand(new, batch_shape)

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def arg_constraints(self):
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        with tcore.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        raise NotImplementedError

    def sample_n(self, n: int):
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning,
                      stacklevel=2)
        return self.sample((n,))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return tcore.exp(self.entropy())

    def _extended_shape(self, sample_shape=()):
        return _Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value) -> None:
        if not isinstance(value, tcore.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        shape = value.shape
        start = len(shape) - len(self._event_shape)
        if shape[start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {shape} vs "
                             f"{self._event_shape}.")
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(shape), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {shape} vs "
                                 f"{expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. Please "
                          "initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=2)
            return
        if support is None:
            raise AssertionError("support is unexpectedly None")
        if not _all_true(support.check(value)):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(shape)}) to be within "
                             f"the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _finish_expand(self, new, batch_shape, event_shape=None):
        """The common tail of expand: the base initializer without validation, then the flag."""
        Distribution.__init__(new, batch_shape, self._event_shape if event_shape is None else event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __repr__(self):
        parts = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                v = self.__dict__[name]
                parts.append(f"{name}: {v if v.numel() == 1 else v.shape}")
        return type(self).__name__ + "(" + ", ".join(parts) + ")"
