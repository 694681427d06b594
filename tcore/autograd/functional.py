"""Higher-level derivatives of a function of tensors, as torch.autograd.functional:
jvp (forward mode), vjp (reverse mode), hvp (forward over reverse), jacobian and hessian.
Inputs and outputs are a tensor or a tuple of tensors; results come back in the same form."""
from __future__ import annotations

from .. import _C
from . import forward_ad as fwAD
from . import grad as _grad

__all__ = ["jvp", "vjp", "hvp", "jacobian", "hessian"]


def _tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _like(template, values: tuple):
    """values as a tuple when template is one, else its single element."""
    return tuple(values) if isinstance(template, (tuple, list)) else values[0]


def _check(xs: tuple, vs: tuple, what: str) -> None:
    if len(xs) != len(vs):
        raise RuntimeError(f"{what}: {len(xs)} inputs but {len(vs)} vectors")
    for i, (x, t) in enumerate(zip(xs, vs)):
        if tuple(x.shape) != tuple(t.shape):
            raise RuntimeError(f"{what}: input {i} has shape {tuple(x.shape)} but its vector has shape "
                               f"{tuple(t.shape)}")


def _default_v(xs: tuple, what: str):
    if len(xs) != 1 or xs[0].numel() != 1:
        raise RuntimeError(f"{what}: v can be omitted only for a single input with one element")
    return (_C.ones_like(xs[0]),)


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), J v) by forward-mode AD (one pass, no backward)."""
    xs = _tuple(inputs)
    vs = _tuple(v) if v is not None else _default_v(xs, "jvp")
    _check(xs, vs, "jvp")
    with fwAD.dual_level():
        duals = tuple(fwAD.make_dual(x if create_graph else x.detach(), t) for x, t in zip(xs, vs))
        out = func(*duals)
        primals, tangents = [], []
        for o in _tuple(out):
            p, t = fwAD.unpack_dual(o)
            if t is None:
                if strict:
                    raise RuntimeError("jvp: an output does not depend on the inputs (strict=True)")
                t = _C.zeros_like(p)
            primals.append(p if create_graph else p.detach())
            tangents.append(t if create_graph else t.detach())
    return _like(out, primals), _like(out, tangents)


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T J) by reverse-mode AD."""
    xs = tuple(x.detach().requires_grad_(True) for x in _tuple(inputs))
    out = func(*xs)
    outs = _tuple(out)
    vs = _tuple(v) if v is not None else _default_v(outs, "vjp")
    _check(outs, vs, "vjp")
    grads = _grad(list(outs), list(xs), list(vs), create_graph=create_graph, allow_unused=True)
    result = []
    for x, g in zip(xs, grads):
        if g is None:
            if strict:
                raise RuntimeError("vjp: an input is not used to compute the outputs (strict=True)")
            g = _C.zeros_like(x)
        result.append(g if create_graph else g.detach())
    return _like(out, [o if create_graph else o.detach() for o in outs]), _like(inputs, result)


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), H v) for a scalar func: the gradient computed in reverse mode on dual
    inputs, its tangent read by forward mode (forward over reverse)."""
    xs0 = _tuple(inputs)
    vs = _tuple(v) if v is not None else _default_v(xs0, "hvp")
    _check(xs0, vs, "hvp")
    with fwAD.dual_level():
        xs = tuple(fwAD.make_dual(x.detach().requires_grad_(True), t) for x, t in zip(xs0, vs))
        out = func(*xs)
        if out.numel() != 1:
            raise RuntimeError(f"hvp: the function must return a single-element tensor, got shape {tuple(out.shape)}")
        grads = _grad([out], list(xs), None, create_graph=True, allow_unused=True)
        hv = []
        for x, g in zip(xs, grads):
            t = None if g is None else fwAD.unpack_dual(g).tangent
            if t is None:
                if strict:
                    raise RuntimeError("hvp: the Hessian-vector product is independent of an input (strict=True)")
                t = _C.zeros_like(x)
            hv.append(t if create_graph else t.detach())
        value = fwAD.unpack_dual(out).primal
    return (value if create_graph else value.detach()), _like(inputs, hv)


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False):
    """d func / d inputs, one reverse pass per output element: shape output.shape + input.shape."""
    xs = tuple(x.detach().requires_grad_(True) for x in _tuple(inputs))
    out = func(*xs)
    rows = []
    for o in _tuple(out):
        per_input = []
        flat = o.reshape(-1)
        for i, x in enumerate(xs):
            cols = []
            for k in range(flat.numel()):
                (g,) = _grad([flat[k]], [x], None, retain_graph=True, create_graph=create_graph, allow_unused=True)
                if g is None:
                    if strict:
                        raise RuntimeError(f"jacobian: output does not depend on input {i} (strict=True)")
                    g = _C.zeros_like(x)
                cols.append(g if create_graph else g.detach())
            jac = _C.stack(cols) if cols else _C.zeros([0] + list(x.shape), dtype=x.dtype)
            per_input.append(jac.reshape(list(o.shape) + list(x.shape)))
        rows.append(_like(inputs, per_input))
    return _like(out, rows)


def hessian(func, inputs, create_graph: bool = False, strict: bool = False):
    """The Hessian of a scalar func: the jacobian of its gradient (one tensor for one input,
    else a tuple of tuples, as torch)."""

    def gradient(*args):
        out = func(*args)
        gs = _grad([out], list(args), None, create_graph=True, allow_unused=True)
        return _like(inputs, [g if g is not None else _C.zeros_like(a) for a, g in zip(args, gs)])

    return jacobian(gradient, inputs, create_graph=create_graph, strict=strict)
