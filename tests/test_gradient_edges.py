"""Gradients and values at the edges where torch defines them, found by fuzzing tcore against
torch 2.13: a mean loss over samples that are all ignored (NaN, gradient 0), the std of a constant
row (gradient 0), hardtanh/relu6 at their bounds (gradient 0, clamp's passes), atan2 at the origin
(gradient 0), dropout's scale in float64, cross_entropy's weight of another dtype (refused)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")


def _grads(lib, program):
    x = lib.tensor(program.x, dtype=lib.float64, requires_grad=True)
    out = program(lib, x)
    out.sum().backward()
    return out.tolist(), x.grad.tolist()


def _program(x):
    def wrap(fn):
        fn.x = x
        return fn
    return wrap


@_program([[0.5, 1.0, -2.0], [3.0, 0.0, 1.0]])
def _ce_all_ignored(lib, x):
    return lib.nn.functional.cross_entropy(x, lib.tensor([-100, -100]))


@_program([[0.5, 1.0, -2.0], [3.0, 0.0, 1.0]])
def _ce_all_ignored_smoothed(lib, x):
    return lib.nn.functional.cross_entropy(x, lib.tensor([-100, -100]), label_smoothing=0.2)


@_program([[0.5, 1.0, -2.0], [3.0, 0.0, 1.0]])
def _ce_some_ignored_weighted(lib, x):
    w = lib.tensor([1.0, 2.0, 0.5], dtype=lib.float64)
    return lib.nn.functional.cross_entropy(x, lib.tensor([-100, 2]), weight=w, label_smoothing=0.1)


@_program([[0.5, 1.0, -2.0], [3.0, 0.0, 1.0]])
def _nll_all_ignored(lib, x):
    return lib.nn.functional.nll_loss(x, lib.tensor([1, 1]), ignore_index=1)


@_program([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]])
def _std_constant_row(lib, x):
    return x.std(1)


@_program([[2.0, 2.0], [2.0, 2.0]])
def _std_all_constant(lib, x):
    return x.std()


@_program([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0])
def _hardtanh_bounds(lib, x):
    return lib.nn.functional.hardtanh(x, 0.0, 2.0)


@_program([-1.0, 0.0, 1.0, 2.0, 3.0])
def _relu6_bounds(lib, x):
    return lib.nn.functional.relu6(x * 3)


@_program([-1.0, 0.0, 1.0, 2.0])
def _clamp_bounds(lib, x):
    return x.clamp(0.0, 1.0)  # clamp's gradient passes at the bounds


@_program([0.0, 0.0, 1.0, -2.0])
def _atan2_origin(lib, x):
    return lib.atan2(x, x.flip(0) * 0 + lib.tensor([0.0, 1.0, 0.0, 0.0], dtype=lib.float64))


PROGRAMS = [_ce_all_ignored, _ce_all_ignored_smoothed, _ce_some_ignored_weighted, _nll_all_ignored,
            _std_constant_row, _std_all_constant, _hardtanh_bounds, _relu6_bounds, _clamp_bounds, _atan2_origin]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__.strip("_"))
def test_values_and_gradients_as_torch(tcore, program):
    (ov, og), (tv, tg) = _grads(tcore, program), _grads(torch, program)
    np.testing.assert_allclose(np.array(og), np.array(tg), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.array(ov), np.array(tv), rtol=1e-12, atol=1e-15, equal_nan=True)


def test_atan2_gradient_of_both_arguments_at_the_origin(tcore):
    for lib in (tcore, torch):
        y = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        x = lib.tensor([0.0, 1.0, -1.0], dtype=lib.float64, requires_grad=True)
        lib.atan2(y, x).sum().backward()
        if lib is tcore:
            ours = (y.grad.tolist(), x.grad.tolist())
    assert ours == (y.grad.tolist(), x.grad.tolist())


def test_dropout_scales_in_the_input_dtype(tcore):
    tcore.manual_seed(0)
    out = tcore.nn.functional.dropout(tcore.ones(64, dtype=tcore.float64), 0.25)
    assert set(out.tolist()) <= {0.0, 1 / 0.75} and 1 / 0.75 in out.tolist()
    h = tcore.nn.functional.dropout(tcore.ones(64, dtype=tcore.float16), 0.25)
    assert h.dtype == tcore.float16 and set(h.tolist()) <= {0.0, float(torch.tensor(1.0).half() / 0.75)}


def test_loss_weight_of_another_dtype_is_refused_and_hardtanh_bounds_checked(tcore):
    x, t = tcore.zeros(2, 3), tcore.tensor([0, 1])
    with pytest.raises(RuntimeError, match="expected scalar type"):
        tcore.nn.functional.cross_entropy(x, t, weight=tcore.ones(3, dtype=tcore.float64))
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        tcore.nn.functional.hardtanh(x, 1.0, 0.0)
