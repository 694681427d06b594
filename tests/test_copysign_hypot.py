"""copysign, hypot and signbit against torch: signed zeros and NaN signs, integer promotion (and
hypot's refusal of integers), float16/bfloat16, broadcasting, in-place and out= forms, float64
gradients and forward-mode tangents."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")
A = [0.0, -0.0, 1.5, -2.0, INF, -INF, NAN, 1e-310, 3e38]
B = [-0.0, 0.0, -1.0, 2.0, NAN, -NAN, -INF, INF, -1e-310]

CASES = {
    "copysign": lambda t: t.copysign(t.tensor(A, dtype=t.float64), t.tensor(B, dtype=t.float64)),
    "copysign float32": lambda t: t.copysign(t.tensor(A), t.tensor(B)),
    "copysign method broadcast": lambda t: t.tensor([[1.0], [-2.0]]).copysign(t.tensor([-1.0, 0.0, -0.0])),
    "copysign ints": lambda t: t.copysign(t.tensor([3, -4]), t.tensor([-1, 1])),
    "copysign bool": lambda t: t.copysign(t.tensor([True, False]), t.tensor([-1, 1])),
    "copysign number": lambda t: t.copysign(t.tensor([3, 4]), -0.0),
    "copysign number method": lambda t: t.tensor([3.0, -4.0]).copysign(2),
    "copysign float16 float64": lambda t: t.copysign(t.tensor([3.0], dtype=t.float16), t.tensor([-1.0], dtype=t.float64)),
    "copysign bfloat16": lambda t: t.copysign(t.tensor([3.0, -1.0], dtype=t.bfloat16), t.tensor([-1.0, 1.0], dtype=t.bfloat16)),
    "copysign_": lambda t: t.tensor([1.0, 2.0]).copysign_(t.tensor([-1])),
    "copysign_ number": lambda t: t.tensor([1.0, -2.0]).copysign_(1.0),
    "copysign out": lambda t: t.copysign(t.tensor([1.0, 2.0]), t.tensor([-1.0, 1.0]), out=t.empty(0)),
    "hypot": lambda t: t.hypot(t.tensor(A, dtype=t.float64), t.tensor(B, dtype=t.float64)),
    "hypot large": lambda t: t.hypot(t.tensor([3e38, 1e-45]), t.tensor([3e38, 1e-45])),
    "hypot mixed": lambda t: t.hypot(t.tensor([3.0]), t.tensor([4], dtype=t.int32)),
    "hypot float16": lambda t: t.hypot(t.tensor([3.0, 6e4], dtype=t.float16), t.tensor([4.0, 6e4], dtype=t.float16)),
    "hypot_": lambda t: t.tensor([3.0, 5.0]).hypot_(t.tensor([4.0])),
    "hypot out": lambda t: t.hypot(t.tensor([3.0]), t.tensor([4.0]), out=t.empty(0)),
    "signbit": lambda t: t.signbit(t.tensor(A + B, dtype=t.float64)),
    "signbit float16": lambda t: t.tensor([-0.0, 0.0, -1.0, NAN], dtype=t.float16).signbit(),
    "signbit ints": lambda t: t.signbit(t.tensor([-1, 0, 2], dtype=t.int8)),
    "signbit uint8": lambda t: t.signbit(t.tensor([0, 255], dtype=t.uint8)),
    "signbit bool": lambda t: t.signbit(t.tensor([True, False])),
}
ERRORS = {
    "hypot ints": lambda t: t.hypot(t.tensor([3]), t.tensor([4])),
    "copysign_ into int": lambda t: t.tensor([1, 2]).copysign_(t.tensor([-1])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_torch(tcore, name):
    def run(lib):
        r = CASES[name](lib)
        v = np.array(r.double().tolist() if r.dtype != lib.bool else r.tolist())
        signs = np.signbit(v) if v.dtype != bool else v
        return v, signs, str(r.dtype).split(".")[-1], tuple(r.shape)

    (ev, es, ed, eshape), (gv, gs, gd, gshape) = run(torch), run(tcore)
    assert (gd, gshape) == (ed, eshape)
    np.testing.assert_array_equal(gv, ev)
    np.testing.assert_array_equal(gs[~np.isnan(gv)] if gv.dtype != bool else gs,
                                  es[~np.isnan(ev)] if ev.dtype != bool else es)


def test_nan_sign_is_copied(tcore):
    """copysign copies the sign onto a NaN too, and signbit reads a NaN's sign, as torch's."""
    for lib in (torch, tcore):
        r = lib.copysign(lib.tensor([NAN, NAN], dtype=lib.float64), lib.tensor([-1.0, 1.0], dtype=lib.float64))
        assert lib.signbit(r).tolist() == [True, False]


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_torch(tcore, name):
    for lib in (torch, tcore):
        with pytest.raises(RuntimeError):
            ERRORS[name](lib)


@pytest.mark.parametrize("op", ["copysign", "hypot"])
def test_gradients_and_tangents_as_torch(tcore, op):
    def run(lib):
        x = lib.tensor([0.0, -2.0, 3.0, 1.5, 0.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([-1.0, 0.0, -0.0, 2.0, 0.0], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=lib.float64)
        (getattr(lib, op)(x, y) * w).sum().backward()
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            dx = fwAD.make_dual(x.detach(), w)
            dy = fwAD.make_dual(y.detach(), w * 2)
            tangent = fwAD.unpack_dual(getattr(lib, op)(dx, dy)).tangent
        return x.grad.tolist(), y.grad.tolist(), tangent.tolist()

    np.testing.assert_allclose(np.array(run(tcore), dtype=float), np.array(run(torch), dtype=float), rtol=1e-15,
                               equal_nan=True)
