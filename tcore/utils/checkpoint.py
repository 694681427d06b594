"""Activation checkpointing, as torch.utils.checkpoint: run a function without keeping what its
backward needs, and run it again in backward to get it.

* use_reentrant=False (torch's recommendation): the forward runs under saved_tensors_hooks that
  keep only a handle per saved tensor; the first backward that unpacks one runs the function
  again (same RNG state, grad mode on) under hooks that collect the recomputed tensors in the
  same order, and stops once it has them all (early_stop). Works with autograd.grad and with
  inputs that do not require grad; a recomputation that saves fewer tensors, or tensors of other
  shapes, raises CheckpointError (determinism_check).
* use_reentrant=True: a custom Function whose backward recomputes the outputs from detached
  inputs and runs backward on them itself; refused under autograd.grad (torch's error).
Omitting use_reentrant warns and takes True, as torch 2.13 does."""
from __future__ import annotations

import contextlib
import warnings

from .. import _C
from .._utilities import get_rng_state, set_rng_state
from ..autograd import Function, enable_grad, no_grad
from ..autograd import backward as _backward
from ..autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "noop_context_fn",
           "detach_variable", "check_backward_validity"]

Tensor = _C.Tensor


class CheckpointError(RuntimeError):
    """The recomputation saved other tensors than the forward (non-deterministic function)."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs: tuple) -> tuple:
    """Each tensor detached, keeping whether it requires grad (others as they are)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    if not any(isinstance(inp, Tensor) and inp.requires_grad for inp in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3)


@contextlib.contextmanager
def _rng_as(state):
    """The RNG at `state` inside (when given), as it was after."""
    if state is None:
        yield
        return
    before = get_rng_state()
    set_rng_state(state)
    try:
        yield
    finally:
        set_rng_state(before)


class CheckpointFunction(Function):
    """use_reentrant=True: forward without a graph, backward recomputes and back-propagates."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng_state = get_rng_state() if preserve_rng_state else None
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _C._is_checkpoint_valid():
            raise RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                               "passing an `inputs` parameter to .backward(). To resolve this error, you can either "
                               "set use_reentrant=False, or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        with _rng_as(ctx.rng_state), enable_grad():
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in detached)


class _Recomputed(Exception):
    """Raised by the recomputation's pack hook once it has every tensor backward needs."""


def _meta(tensor) -> dict:
    return {"shape": tuple(tensor.shape), "dtype": tensor.dtype, "device": tensor.device}


class _Frame:
    """use_reentrant=False: one checkpointed call, its saved tensors' metadata, and their
    recomputed values once a backward asked for one."""

    def __init__(self, fn, args, kwargs, rng_state, recompute_context, determinism_check: str,
                 early_stop: bool) -> None:
        self.fn, self.args, self.kwargs, self.rng_state = fn, args, kwargs, rng_state
        self.recompute_context, self.check, self.early_stop = recompute_context, determinism_check, early_stop
        self.metas: list[tuple] = []
        self.values: list | None = None
        # the inputs' versions: recomputing from an input written in place since would give the
        # gradient at other values (torch saves them for backward, which checks this)
        self.versions = [(a, a._version) for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]

    def pack(self, tensor):
        self.metas.append(_meta(tensor))
        return len(self.metas) - 1

    def unpack(self, index: int):
        if self.values is None:
            self._recompute()
        return self.values[index]

    def _recompute(self) -> None:
        for a, version in self.versions:
            if a._version != version:
                producer = f", which is output 0 of {a.grad_fn.name()}," if a.grad_fn is not None else ""
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace operation: "
                    f"[{a.dtype} {list(a.shape)}]{producer} is at version {a._version}; expected version {version} "
                    "instead (an input of torch.utils.checkpoint's function).")
        values: list = []

        def keep(tensor):
            values.append(tensor.detach())
            if self.early_stop and len(values) == len(self.metas):
                raise _Recomputed  # (all that backward needs: the rest of the function is not run)

        def never(_):
            raise CheckpointError("torch.utils.checkpoint: a tensor saved during the recomputation was unpacked")

        try:
            with _rng_as(self.rng_state), enable_grad(), self.recompute_context, saved_tensors_hooks(keep, never):
                self.fn(*self.args, **self.kwargs)
        except _Recomputed:
            pass
        if self.check != "none":
            if len(values) != len(self.metas):
                raise CheckpointError(
                    "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                    f"recomputation.\nNumber of tensors saved during forward: {len(self.metas)}\nNumber of tensors "
                    f"saved during recomputation: {len(values)}.")
            bad = [i for i, (v, m) in enumerate(zip(values, self.metas)) if _meta(v) != m]
            if bad:
                lines = "".join(f"tensor at position {i}:\nsaved metadata: {self.metas[i]}\nrecomputed metadata: "
                                f"{_meta(values[i])}\n" for i in bad)
                raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have "
                                      f"different metadata than during the forward pass.\n{lines}")
        self.values = values


def _reentrant(use_reentrant: bool | None, caller: str) -> bool:
    """use_reentrant as given, or True with torch 2.13's warning when it was left out."""
    if use_reentrant is None:
        warnings.warn(f"{caller}: the use_reentrant parameter should be passed explicitly. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, you can pass "
                      "use_reentrant=True. Refer to docs for more details on the differences between the two "
                      "variants.", stacklevel=3)
        return True
    return use_reentrant


def checkpoint(function, *args, use_reentrant: bool | None = None, context_fn=noop_context_fn,
               determinism_check: str = "default", debug: bool = False, early_stop: bool = True, **kwargs):
    """function(*args, **kwargs), its intermediate values recomputed in backward instead of kept."""
    use_reentrant = _reentrant(use_reentrant, "torch.utils.checkpoint")
    preserve = kwargs.pop("preserve_rng_state", True)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve, *args)
    forward_context, recompute_context = context_fn()
    frame = _Frame(function, args, kwargs, get_rng_state() if preserve else None, recompute_context,
                   determinism_check, early_stop)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """A Sequential (or list of modules) in `segments` checkpointed runs; the last runs plainly."""
    use_reentrant = _reentrant(use_reentrant, "torch.utils.checkpoint.checkpoint_sequential")
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run(start: int, end: int):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
