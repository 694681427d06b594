"""Custom autograd functions, as torch.autograd.Function: a subclass defines forward (and
backward, and jvp for forward mode) as static methods and is called through .apply.

    class Sigmoid(Function):
        @staticmethod
        def forward(ctx, x):
            s = 1 / (1 + (-x).exp())
            ctx.save_for_backward(s)
            return s

        @staticmethod
        def backward(ctx, grad):
            (s,) = ctx.saved_tensors
            return grad * s * (1 - s)

forward runs without grad mode (and without the inputs' tangents); its outputs get a node whose
backward calls the class's backward with one gradient per output (zeros for an output that got
none unless ctx.set_materialize_grads(False); None for an output that is not a tensor) and must
return one gradient per forward argument (None for arguments that are not tensors). The context
(ctx) keeps what forward gave it: save_for_backward (tensors checked against later in-place
writes, as the built-in nodes' saves), mark_dirty (inputs forward wrote in place: their history
is rebased onto this node), mark_non_differentiable, needs_input_grad, any attribute; the node
(output.grad_fn) shows the context's attributes. The other style, forward(*args) without ctx
and setup_context(ctx, inputs, output), works too. backward may be differentiated again
(create_graph) when it is written in differentiable operators; once_differentiable runs it
without recording. The graph itself is tcore's C++ engine (csrc/python/function.cpp)."""
from __future__ import annotations

import functools
import inspect
import warnings

from .. import _C
from . import forward_ad as _fwAD

__all__ = ["Function", "FunctionCtx", "once_differentiable", "InplaceFunction"]

Tensor = _C.Tensor


class FunctionCtx:
    """What forward (or setup_context) tells backward and jvp."""

    def save_for_backward(self, *tensors) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise AssertionError("save_for_forward expects all arguments to be tensors; you should save "
                                     "non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args) -> None:
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value

    @property
    def saved_tensors(self) -> tuple:
        if getattr(self, "_in_jvp", False) and hasattr(self, "saved_for_forward"):
            return tuple(self.saved_for_forward)
        saved = getattr(self, "_saved", None)
        if saved is not None:
            return saved.unpack()
        return tuple(getattr(self, "to_save", ()))


class BackwardCFunction(FunctionCtx):
    """The context of one call (torch's name for it)."""


def _is_overridden(cls, name: str) -> bool:
    return getattr(cls, name) is not getattr(Function, name)


def _shape(t) -> list:
    return list(t.shape)


def _expandable(shape: list, to: list) -> bool:
    """Whether `shape` broadcasts to `to` (torch's is_expandable_to)."""
    if len(shape) > len(to):
        return False
    return all(s == 1 or s == t for s, t in zip(reversed(shape), reversed(to)))


class _Call:
    """One apply: the forward arguments' layout and the outputs' metadata backward needs."""

    def __init__(self, cls, ctx, args: tuple) -> None:
        self.cls, self.ctx = cls, ctx
        self.name = f"{cls.__name__}Backward"
        self.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.n_args = len(args)
        self.input_shapes = [_shape(args[i]) for i in self.tensor_positions]
        self.output_positions: list[int] = []
        self.output_meta: list[tuple] = []
        self.n_outputs = 0

    def run_backward(self, grads: tuple) -> list:
        """(the node's incoming gradients, one per tensor output) -> one per tensor argument."""
        ctx = self.ctx
        full = [None] * self.n_outputs
        materialize = getattr(ctx, "materialize_grads", True)
        for slot, (position, (shape, dtype, device)) in enumerate(zip(self.output_positions, self.output_meta)):
            g = grads[slot] if slot < len(grads) else None
            if g is None and materialize:
                g = _C.zeros(shape, dtype=dtype, device=device)
            full[position] = g
        backward = self.cls.backward if _is_overridden(self.cls, "backward") else self.cls.vjp
        result = backward(ctx, *full)
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) != self.n_args:
            if len(result) > self.n_args and all(r is None for r in result[self.n_args:]):
                result = result[:self.n_args]
            else:
                raise RuntimeError(f"function {self.name} returned an incorrect number of gradients (expected "
                                   f"{self.n_args}, got {len(result)})")
        tensor_positions = set(self.tensor_positions)
        for i, r in enumerate(result):
            if i not in tensor_positions and r is not None:
                raise RuntimeError(f"function {self.name} returned a gradient different than None at position "
                                   f"{i + 1}, but the corresponding forward input was not a Variable")
        out = []
        for k, i in enumerate(self.tensor_positions):
            g = result[i]
            if g is not None:
                if not isinstance(g, Tensor):
                    raise TypeError(f"function {self.name} returned a gradient of type {type(g).__name__} at "
                                    f"position {i + 1}: expected a Tensor or None")
                if not _expandable(self.input_shapes[k], _shape(g)):
                    raise RuntimeError(f"Function {self.name} returned an invalid gradient at index {k} - got "
                                       f"{_shape(g)} but expected shape compatible with {self.input_shapes[k]}")
            out.append(g)
        return out


class Function:
    """Base class of custom autograd functions: subclass it, define the static methods forward
    and backward (or vjp; jvp for forward mode), call Subclass.apply(*args). tcore.func's
    transforms take any Function (vmap calls it once per sample: generate_vmap_rule and a vmap
    staticmethod are accepted and not needed)."""

    generate_vmap_rule = False

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, "
                      "so you should invoke them on the class itself. Instantiating an autograd function will raise "
                      "an error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use new-style "
                           "autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        separate_context = _is_overridden(cls, "setup_context")
        if kwargs:  # (bound to forward's parameters: the graph knows positional arguments only)
            sig = inspect.signature(cls.forward)
            bound = sig.bind(*args, **kwargs) if separate_context else sig.bind(None, *args, **kwargs)
            bound.apply_defaults()
            args = tuple(bound.args) if separate_context else tuple(bound.args[1:])
        ctx = BackwardCFunction()
        call = _Call(cls, ctx, args)
        tensors = [args[i] for i in call.tensor_positions]
        record = _C.is_grad_enabled() and any(t.requires_grad for t in tensors)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad and record for a in args)
        fw_enabled = _C._is_fw_grad_enabled()
        dual = fw_enabled and _C._current_dual_level() >= 0
        tangents = [_fwAD.unpack_dual(t).tangent if dual else None for t in tensors]
        forward_mode = any(t is not None for t in tangents)
        if forward_mode and not _is_overridden(cls, "jvp"):
            raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                      "with forward mode AD.")
        with _Modes(grad=False, fw_grad=False):
            if separate_context:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
        single = not isinstance(output, tuple)
        outputs = [output] if single else list(output)
        call.n_outputs = len(outputs)
        call.output_positions = [i for i, o in enumerate(outputs) if isinstance(o, Tensor)]
        call.output_meta = [(_shape(outputs[i]), outputs[i].dtype, outputs[i].device) for i in call.output_positions]
        tensor_outputs = [outputs[i] for i in call.output_positions]
        dirty = [t for t in getattr(ctx, "dirty_tensors", ()) if t is not None]
        if record:
            recorded, saved, _ = _C._function_record(
                call.name, call.run_backward, ctx, tensors, tensor_outputs, dirty,
                [t for t in getattr(ctx, "non_differentiable", ()) if t is not None],
                list(getattr(ctx, "to_save", ())))
            ctx._saved = saved
            ctx.__dict__.pop("to_save", None)  # (the node holds them now, outputs without a cycle)
            for i, t in zip(call.output_positions, recorded):
                outputs[i] = t
        else:  # (an input returned as it is comes back as a view of itself all the same, as torch's)
            for i in call.output_positions:
                if any(outputs[i] is t for t in tensors) and not any(outputs[i] is d for d in dirty):
                    with _Modes(grad=False):
                        outputs[i] = outputs[i].view_as(outputs[i])
        if forward_mode:
            _forward_tangents(cls, ctx, args, call, tensors, tangents, outputs, dirty)
        return outputs[0] if single else tuple(outputs)


def _forward_tangents(cls, ctx, args, call, tensors, tangents, outputs, dirty) -> None:
    """jvp(ctx, *tangents of the arguments) -> the outputs' tangents (zeros for tensor arguments
    without one, None for the others), as torch's."""
    by_position = dict(zip(call.tensor_positions, zip(tensors, tangents)))
    arg_tangents = []
    for i in range(len(args)):
        if i in by_position:
            t, tangent = by_position[i]
            arg_tangents.append(tangent if tangent is not None else _C.zeros_like(t))
        else:
            arg_tangents.append(None)
    ctx._in_jvp = True
    try:
        with _Modes(fw_grad=False):
            result = cls.jvp(ctx, *arg_tangents)
    finally:
        ctx._in_jvp = False
    results = list(result) if isinstance(result, tuple) else [result]
    if len(results) != len(outputs):
        raise RuntimeError(f"{cls.__name__}.jvp returned an incorrect number of tangents (expected {len(outputs)}, "
                           f"got {len(results)})")
    for out, tangent in zip(outputs, results):
        if isinstance(out, Tensor) and tangent is not None and out.dtype.is_floating_point:
            _C._set_fw_grad(out, tangent, any(out is d for d in dirty))


class _BackwardHookFunction(Function):
    """The identity, for Module's full backward hooks (its node's hooks see the gradients); its
    outputs are views of its inputs, so writing them in place is refused, as torch's."""

    @staticmethod
    def forward(ctx, *args):
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class InplaceFunction(Function):
    """A Function with an `inplace` flag (torch's)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


def once_differentiable(fn):
    """Runs a backward without recording it: its results cannot be differentiated again."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        from . import no_grad
        with no_grad():
            return fn(ctx, *args)

    return wrapper


class _Modes:
    """Grad mode and forward-grad mode set for a with-block (None: left as it is), restored after."""

    def __init__(self, grad: bool | None = None, fw_grad: bool | None = None) -> None:
        self.grad, self.fw_grad = grad, fw_grad

    def __enter__(self) -> None:
        self._saved = (_C.is_grad_enabled(), _C._is_fw_grad_enabled())
        if self.grad is not None:
            _C._set_grad_enabled(self.grad)
        if self.fw_grad is not None:
            _C._set_fw_grad_enabled(self.fw_grad)

    def __exit__(self, *exc) -> None:
        _C._set_grad_enabled(self._saved[0])
        _C._set_fw_grad_enabled(self._saved[1])
