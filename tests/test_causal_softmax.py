"""_causal_softmax (scaled_dot_product_attention's causal weights: softmax along the last dim of
each (L, S) matrix, the entries above its diagonal masked out) against torch's softmax of the
masked scores: values for every shape of (L, S) around the vector width, dtypes, gradients and
forward-mode tangents."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")


def reference(x):
    L, S = x.shape[-2:]
    above = torch.triu(torch.ones(L, S, dtype=torch.bool), 1)
    return torch.softmax(x.masked_fill(above, -float("inf")), -1)


@pytest.mark.parametrize("shape", [(1, 1), (3, 1), (1, 5), (2, 5, 7), (7, 5), (2, 17, 40), (33, 33), (2, 3, 20, 70)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16", "float16"])
def test_values_as_torch(tcore, shape, dtype):
    x = np.random.default_rng(len(shape)).standard_normal(shape) * 4
    got = tcore._C._causal_softmax(tcore.from_numpy(x).to(getattr(tcore, dtype))).double().numpy()
    want = reference(torch.from_numpy(x).to(getattr(torch, dtype))).double().numpy()
    tol = {"float64": 1e-12, "float32": 1e-6, "bfloat16": 1e-2, "float16": 1e-3}[dtype]
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 1e-3)


def test_transposed_input_empty_and_errors(tcore):
    x = np.random.default_rng(1).standard_normal((3, 6, 4))
    got = tcore._C._causal_softmax(tcore.from_numpy(x).transpose(-1, -2)).numpy()
    np.testing.assert_allclose(got, reference(torch.from_numpy(x).transpose(-1, -2)).numpy(), rtol=1e-12)
    assert tuple(tcore._C._causal_softmax(tcore.zeros(2, 0, 3)).shape) == (2, 0, 3)
    assert tuple(tcore._C._causal_softmax(tcore.zeros(2, 3, 0)).shape) == (2, 3, 0)
    with pytest.raises(RuntimeError, match="at least 2 dims"):
        tcore._C._causal_softmax(tcore.zeros(3))
    with pytest.raises(TypeError, match="floating"):
        tcore._C._causal_softmax(tcore.zeros(3, 3, dtype=tcore.int64))


def test_gradients_and_tangents_as_torch(tcore):
    rng = np.random.default_rng(2)
    x, g, t = (rng.standard_normal((2, 5, 7)) for _ in range(3))
    tx = torch.from_numpy(x).requires_grad_()
    reference(tx).backward(torch.from_numpy(g))
    cx = tcore.from_numpy(x).requires_grad_()
    tcore._C._causal_softmax(cx).backward(tcore.from_numpy(g))
    np.testing.assert_allclose(cx.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-14)
    import torch.autograd.forward_ad as tfwd
    with tfwd.dual_level():
        want = tfwd.unpack_dual(reference(tfwd.make_dual(torch.from_numpy(x), torch.from_numpy(t)))).tangent
    fwd = tcore.autograd.forward_ad
    with fwd.dual_level():
        got = fwd.unpack_dual(tcore._C._causal_softmax(fwd.make_dual(tcore.from_numpy(x), tcore.from_numpy(t)))).tangent
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-14)


def test_attention_with_is_causal_as_torch(tcore):
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal(s) for s in ((2, 3, 9, 8), (2, 3, 12, 8), (2, 3, 12, 5)))
    tq, tk, tv = (torch.from_numpy(a).requires_grad_() for a in (q, k, v))
    cq, ck, cv = (tcore.from_numpy(a).requires_grad_() for a in (q, k, v))
    want = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=True)
    got = tcore.nn.functional.scaled_dot_product_attention(cq, ck, cv, is_causal=True)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    want.sum().backward()
    got.sum().backward()
    for c, t in ((cq, tq), (ck, tk), (cv, tv)):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
