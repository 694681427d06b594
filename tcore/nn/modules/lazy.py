"""torch's lazy modules: LazyLinear, LazyConv1d/2d/3d, LazyConvTranspose1d/2d/3d,
LazyBatchNorm1d/2d/3d and LazyInstanceNorm1d/2d/3d. Their parameters (and running statistics)
are uninitialized until the first forward, which reads the input's features (its last dim for
Linear, its channel dim for the others), materializes and initializes them as the plain module
would, and turns the module into that plain module (LazyLinear becomes Linear). A state_dict
loaded before the first forward gives them the loaded shapes."""
from __future__ import annotations

from ... import _C
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """The first forward's pre-hook: initialize_parameters(*input), then the module becomes
    cls_to_become; a load_state_dict before it materializes the parameters to the loaded shapes."""

    cls_to_become: type | None = None
    _features: str  # the attribute the first input gives (in_features, in_channels, num_features)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters)

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs) -> None:
        for store in (self._parameters, self._buffers):
            for name, value in list(store.items()):
                key = prefix + name
                if key in state_dict and is_lazy(value) and not is_lazy(state_dict[key]):
                    loaded = state_dict[key]
                    if isinstance(value, UninitializedParameter):
                        value.materialize(tuple(loaded.shape))
                    else:
                        store[name] = _C.empty(list(loaded.shape), dtype=value.dtype, device=value.device)

    def _lazy_weights(self, out_attr: str, out: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        setattr(self, out_attr, out)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        # (the plain constructor calls it before the parameters exist)
        if not self.has_uninitialized_params() and getattr(self, self._features) != 0:
            super().reset_parameters()

    def initialize_parameters(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer is still uninitialized."""
        return any(is_lazy(v) for v in (*self._parameters.values(), *self._buffers.values()))

    def _infer_parameters(self, module, args) -> None:
        module.initialize_parameters(*args)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module.__dict__["_initialize_hook"], module.__dict__["_load_hook"]
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the first input's last dim."""

    cls_to_become = Linear
    _features = "in_features"

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self._lazy_weights("out_features", out_features, bias, device, dtype)

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            with _no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # (parameters loaded from a state_dict)
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyConvXdMixin(LazyModuleMixin):
    """A convolution whose in_channels is the first input's channel dim."""

    _n: int
    _features = "in_channels"

    def _get_in_channels(self, input) -> int:
        unbatched, batched = self._n + 1, self._n + 2
        if input.ndim not in (unbatched, batched):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {batched}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {list(input.shape)}")
        return input.shape[1] if input.ndim == batched else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        with _no_grad():
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy_conv(plain, n: int):
    class LazyConv(_LazyConvXdMixin, plain):
        cls_to_become = plain
        _n = n

        def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                     bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
            self._lazy_weights("out_channels", out_channels, bias, device, dtype)

    LazyConv.__name__ = LazyConv.__qualname__ = f"Lazy{plain.__name__}"
    LazyConv.__doc__ = f"{plain.__name__} whose in_channels is the first input's channel dim."
    return LazyConv


def _lazy_conv_transpose(plain, n: int):
    class LazyConvTranspose(_LazyConvXdMixin, plain):
        cls_to_become = plain
        _n = n

        def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                     bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                             device, dtype)
            self._lazy_weights("out_channels", out_channels, bias, device, dtype)

    LazyConvTranspose.__name__ = LazyConvTranspose.__qualname__ = f"Lazy{plain.__name__}"
    LazyConvTranspose.__doc__ = f"{plain.__name__} whose in_channels is the first input's channel dim."
    return LazyConvTranspose


LazyConv1d, LazyConv2d, LazyConv3d = (_lazy_conv(c, n) for c, n in ((Conv1d, 1), (Conv2d, 2), (Conv3d, 3)))
LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (
    _lazy_conv_transpose(c, n) for c, n in ((ConvTranspose1d, 1), (ConvTranspose2d, 2), (ConvTranspose3d, 3)))


class _LazyNormBase(LazyModuleMixin):
    """A BatchNorm or InstanceNorm whose num_features is the first input's dim 1 (torch's)."""

    _features = "num_features"

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        track = track_running_stats
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine, self.track_running_stats = affine, track
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _C.zeros([], dtype=_C.dtype.int64, device=device)

    def initialize_parameters(self, input) -> None:
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        with _no_grad():
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                for name in ("running_mean", "running_var"):
                    old = self._buffers[name]
                    self._buffers[name] = _C.empty([self.num_features], dtype=old.dtype, device=old.device)
            self.reset_parameters()


def _lazy_norm(plain):
    return type(f"Lazy{plain.__name__}", (_LazyNormBase, plain),
                {"cls_to_become": plain, "__doc__": f"{plain.__name__} whose num_features is the first input's dim 1."})


LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d = (_lazy_norm(c) for c in (BatchNorm1d, BatchNorm2d, BatchNorm3d))
# (torch's lazy instance norms default to affine and tracked statistics too, unlike InstanceNorm)
LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (_lazy_norm(c) for c in (InstanceNorm1d, InstanceNorm2d,
                                                                                        InstanceNorm3d))


def _no_grad():
    from ...autograd import no_grad
    return no_grad()
