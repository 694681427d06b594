"""tcore.autograd: grad(), backward() and the grad-mode switches (context managers
and decorators), over the engine in csrc/autograd."""
from __future__ import annotations

from .. import _C
from .._utilities import _ContextDecorator

__all__ = ["forward_ad", "functional", "function", "graph", "Function", "set_detect_anomaly", "detect_anomaly",
           "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "once_differentiable", "grad", "backward", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "gradcheck",
           "gradgradcheck", "GradcheckError"]


def _as_list(x) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def grad(outputs, inputs, grad_outputs=None, retain_graph: bool | None = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple:
    """The gradients of `outputs` w.r.t. `inputs`; nothing is accumulated into .grad.
    is_grads_batched: each grad_output has a leading batch dim, one backward per index, the
    results stacked (torch vmaps it; here a loop). materialize_grads: zeros for inputs the
    outputs do not depend on (instead of None)."""
    if not only_inputs:
        import warnings
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", stacklevel=2)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    unused_ok = bool(allow_unused) or materialize_grads
    outs, ins = _as_list(outputs), _as_list(inputs)
    gouts = _as_list(grad_outputs) or [None] * len(outs)
    if is_grads_batched:
        if any(g is None for g in gouts):
            raise RuntimeError("grad_outputs must be given (one batch of them per output) with is_grads_batched=True")
        batch = gouts[0].shape[0]
        per_index = []
        for b in range(batch):
            keep = True if b < batch - 1 else retain_graph
            per_index.append(_C._autograd_grad(outs, ins, [g[b] for g in gouts], keep, create_graph, unused_ok))
        result = tuple(None if per_index[0][i] is None else _C.stack([r[i] for r in per_index])
                       for i in range(len(ins)))
    else:
        result = _C._autograd_grad(outs, ins, gouts, retain_graph, create_graph, unused_ok)
    if materialize_grads:
        result = tuple(_C.zeros_like(x) if g is None else g for g, x in zip(result, ins))
    return result


def backward(tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Accumulates the gradients of `tensors` into the leaves' .grad (into `inputs`' only, when
    given: leaves or not)."""
    outs = _as_list(tensors)
    gouts = _as_list(grad_tensors if grad_tensors is not None else grad_variables) or [None] * len(outs)
    if inputs is None:
        _C._autograd_backward(outs, gouts, retain_graph, create_graph)
        return
    ins = _as_list(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    _C._autograd_backward_into(outs, gouts, retain_graph, create_graph, ins)


def is_grad_enabled() -> bool:
    return _C.is_grad_enabled()


class _GradMode(_ContextDecorator):
    """Sets grad mode for a with-block, or for every call of a decorated function."""

    enabled: bool

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self.enabled)
        return self

    def __exit__(self, *exc) -> None:
        _C._set_grad_enabled(self._prev)


class _Scoped(_GradMode):
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled


class no_grad(_GradMode):
    enabled = False


class enable_grad(_GradMode):
    enabled = True


class set_grad_enabled(_GradMode):
    def __init__(self, mode: bool) -> None:
        self.enabled = bool(mode)
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self.enabled)  # also works as a plain function call

    def __enter__(self):
        return self


# ----------------------------------------------------------------------------- gradcheck


class GradcheckError(RuntimeError):
    """The analytical and numerical gradients disagree."""


def _outputs(fn, inputs) -> list:
    out = fn(*inputs)
    return [o for o in _as_list(out) if isinstance(o, _C.Tensor) and o.dtype.is_floating_point]


def _numerical_jacobian(fn, inputs, i, eps):
    """d outputs / d inputs[i] by central differences: one row per element of inputs[i]."""
    import numpy as np

    x = inputs[i]
    base = x.detach()._numpy_read().copy()
    rows = []
    for k in range(base.size):
        cols = []
        for sign in (1.0, -1.0):
            arr = base.copy()
            arr.flat[k] += sign * eps
            moved = list(inputs)
            # the moved input keeps requires_grad: fn may differentiate (gradgradcheck)
            moved[i] = _C.from_numpy(arr).to(x.dtype).requires_grad_(x.requires_grad)
            cols.append(np.concatenate([o.detach()._numpy_read().ravel() for o in _outputs(fn, moved)] or [np.zeros(0)]))
        rows.append((cols[0] - cols[1]) / (2 * eps))
    return np.array(rows)


def _analytical_jacobian(fn, inputs, i):
    """The same rows, from reverse mode: one vector-Jacobian product per output element."""
    import numpy as np

    outs = _outputs(fn, inputs)
    sizes = [o.numel() for o in outs]
    jac = np.zeros((inputs[i].numel(), sum(sizes)))
    col = 0
    for o, n in zip(outs, sizes):
        for k in range(n):
            seed = np.zeros(n)
            seed[k] = 1.0
            g = _C.from_numpy(seed.reshape(tuple(o.shape))).to(o.dtype)
            if not o.requires_grad:
                col += 1
                continue
            (gi,) = grad([o], [inputs[i]], [g], retain_graph=True, allow_unused=True)
            if gi is not None:
                jac[:, col] = gi.detach()._numpy_read().ravel()
            col += 1
    return jac


def gradcheck(fn, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True) -> bool:
    """Compares the gradients autograd computes for fn(*inputs) with central differences, for
    every input that requires grad (float64 inputs recommended, as in torch.autograd.gradcheck)."""
    import numpy as np

    inputs = tuple(_as_list(inputs))
    for i, x in enumerate(inputs):
        if not (isinstance(x, _C.Tensor) and x.requires_grad):
            continue
        numerical = _numerical_jacobian(fn, inputs, i, eps)
        analytical = _analytical_jacobian(fn, inputs, i)
        if not np.allclose(analytical, numerical, atol=atol, rtol=rtol):
            if raise_exception:
                raise GradcheckError(f"Jacobian mismatch for output 0 with respect to input {i},\n"
                                     f"numerical:{numerical}\nanalytical:{analytical}")
            return False
    return True


def gradgradcheck(fn, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  raise_exception: bool = True) -> bool:
    """gradcheck of the vector-Jacobian product of fn (create_graph=True): second derivatives."""
    import numpy as np

    inputs = tuple(_as_list(inputs))
    outs = _outputs(fn, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [_C.from_numpy(rng.standard_normal(tuple(o.shape))).to(o.dtype).requires_grad_(True)
                        for o in outs]
    grad_outputs = list(_as_list(grad_outputs))
    n = len(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]

    def vjp(*args):
        xs, gs = args[:n], args[n:]
        ys = _outputs(fn, xs)
        grads = grad(ys, [xs[i] for i in diff], list(gs), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(vjp, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)


from . import forward_ad, functional, function, graph  # noqa: E402 - they use grad() and no_grad above
from .function import Function, once_differentiable  # noqa: E402


def _install_tensor_backward() -> None:
    """Tensor.backward(gradient, retain_graph, create_graph, inputs): inputs as backward()'s."""
    plain = _C.Tensor.backward

    def tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if inputs is None:
            return plain(self, gradient, retain_graph, create_graph)
        return backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    tensor_backward.__doc__ = plain.__doc__
    _C.Tensor.backward = tensor_backward


if _C._has_autograd:  # (tcore.func imports this package in builds without autograd too)
    _install_tensor_backward()


class set_detect_anomaly:  # noqa: N801 - torch's name: a call that sets the mode, or a with-block
    """Anomaly mode (process-wide, as torch's): with check_nan, a backward node that returns a NaN
    gradient raises an error naming it. (tcore keeps no forward tracebacks.)"""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._previous = (_C._is_anomaly_enabled(), _C._is_anomaly_check_nan_enabled())
        _C._set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        _C._set_anomaly_enabled(*self._previous)


def is_anomaly_enabled() -> bool:
    return _C._is_anomaly_enabled()


def is_anomaly_check_nan_enabled() -> bool:
    return _C._is_anomaly_check_nan_enabled()


class detect_anomaly(_ContextDecorator):  # noqa: N801 - torch's name
    """Anomaly mode inside a with-block (or a decorated function)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan

    def __enter__(self):
        self._previous = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _C._set_anomaly_enabled(True, self.check_nan)
        return self

    def __exit__(self, *exc) -> None:
        _C._set_anomaly_enabled(*self._previous)
