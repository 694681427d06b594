"""nn.MultiheadAttention and the Transformer family against torch's: parameters (names, shapes,
order), reprs, outputs, attention weights and the gradients of the query and of every parameter,
in float64 with torch's parameters copied in; masks (bool and float, key padding, causal),
kdim/vdim, bias_k/bias_v, zero attention, batch_first, unbatched inputs, pre- and post-norm.
torch runs its reference path here (a query that requires grad keeps it off its fused fast path)."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402
from torch_twins import copy_parameters  # noqa: E402


def _twins(tm, cm):
    t_params, c_params = copy_parameters(tm, cm)
    assert repr(cm) == repr(tm)
    return t_params, c_params


def _close(got, want, tol=1e-12):
    got, want = np.asarray(got.detach().numpy()), want.detach().numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(np.nan_to_num(got), np.nan_to_num(want), rtol=tol, atol=tol)


_CAUSAL = np.triu(np.full((5, 5), -np.inf), 1)
_PADDING = np.zeros((3, 5), bool)
_PADDING[0, 3:] = True
MHA_CASES = [
    (dict(embed_dim=8, num_heads=2), (5, 3, 8), None, {}),
    (dict(embed_dim=8, num_heads=2, batch_first=True), (3, 5, 8), None, dict(average_attn_weights=False)),
    (dict(embed_dim=8, num_heads=4, kdim=3, vdim=5), (5, 3, 8), ((6, 3, 3), (6, 3, 5)), {}),
    (dict(embed_dim=8, num_heads=2, add_bias_kv=True, add_zero_attn=True), (5, 3, 8), ((6, 3, 8), (6, 3, 8)), {}),
    (dict(embed_dim=8, num_heads=2, bias=False), (5, 8), None, dict(need_weights=False)),
    (dict(embed_dim=8, num_heads=2), (5, 8), ((4, 8), (4, 8)), {}),
    (dict(embed_dim=8, num_heads=2), (5, 3, 8), None, dict(attn_mask=_CAUSAL)),
    (dict(embed_dim=8, num_heads=2), (5, 3, 8), None, dict(attn_mask=_CAUSAL, need_weights=False, is_causal=True)),
    (dict(embed_dim=8, num_heads=2), (5, 3, 8), None, dict(key_padding_mask=_PADDING)),
    (dict(embed_dim=8, num_heads=2), (5, 3, 8), None, dict(key_padding_mask=_PADDING, need_weights=False)),
    (dict(embed_dim=8, num_heads=2), (5, 3, 8), None,
     dict(attn_mask=np.triu(np.ones((5, 5), bool), 1), key_padding_mask=_PADDING)),
    (dict(embed_dim=8, num_heads=2), (5, 3, 8), None, dict(attn_mask=np.random.default_rng(2).random((6, 5, 5)))),
]


@pytest.mark.parametrize("kw,q_shape,kv_shapes,call", MHA_CASES, ids=lambda v: str(v)[:60].replace(" ", ""))
def test_multihead_attention_as_torch(kw, q_shape, kv_shapes, call):
    rng = np.random.default_rng(0)
    tm, cm = torch.nn.MultiheadAttention(**kw).double(), tcore.nn.MultiheadAttention(**kw, dtype=tcore.float64)
    t_params, c_params = _twins(tm, cm)
    q = rng.standard_normal(q_shape)
    qt, qc = torch.tensor(q, requires_grad=True), tcore.tensor(q, requires_grad=True)
    if kv_shapes is None:  # self-attention: the same tensor three times
        args_t, args_c = (qt, qt, qt), (qc, qc, qc)
    else:
        k, v = (rng.standard_normal(s) for s in kv_shapes)
        args_t, args_c = (qt, torch.tensor(k), torch.tensor(v)), (qc, tcore.tensor(k), tcore.tensor(v))
    as_t = {n: torch.tensor(a) if isinstance(a, np.ndarray) else a for n, a in call.items()}
    as_c = {n: tcore.tensor(a) if isinstance(a, np.ndarray) else a for n, a in call.items()}
    out_t, weights_t = tm(*args_t, **as_t)
    out_c, weights_c = cm(*args_c, **as_c)
    _close(out_c, out_t)
    assert (weights_c is None) == (weights_t is None)
    if weights_t is not None:
        _close(weights_c, weights_t)
    out_t.nan_to_num().sum().backward()
    out_c.nan_to_num().sum().backward()
    _close(qc.grad, qt.grad, 1e-11)
    for name in t_params:
        _close(c_params[name].grad, t_params[name].grad, 1e-11)


@pytest.mark.parametrize("kw", [dict(), dict(norm_first=True, activation="gelu", batch_first=True)], ids=str)
def test_transformer_as_torch(kw):
    rng = np.random.default_rng(1)
    kw = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, num_encoder_layers=2, num_decoder_layers=2, **kw)
    tm, cm = torch.nn.Transformer(**kw).double(), tcore.nn.Transformer(**kw, dtype=tcore.float64)
    t_params, c_params = _twins(tm, cm)
    first = kw.get("batch_first", False)
    src = rng.standard_normal((3, 6, 8) if first else (6, 3, 8))
    tgt = rng.standard_normal((3, 4, 8) if first else (4, 3, 8))
    padding = np.zeros((3, 6), bool)
    padding[1, 4:] = True
    st, sc = torch.tensor(src, requires_grad=True), tcore.tensor(src, requires_grad=True)
    out_t = tm(st, torch.tensor(tgt), tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(4).double(),
               src_key_padding_mask=torch.tensor(padding), memory_key_padding_mask=torch.tensor(padding))
    out_c = cm(sc, tcore.tensor(tgt),
               tgt_mask=tcore.nn.Transformer.generate_square_subsequent_mask(4, dtype=tcore.float64),
               src_key_padding_mask=tcore.tensor(padding), memory_key_padding_mask=tcore.tensor(padding))
    _close(out_c, out_t, 1e-11)
    out_t.sum().backward()
    out_c.sum().backward()
    _close(sc.grad, st.grad, 1e-10)
    for name in t_params:
        _close(c_params[name].grad, t_params[name].grad, 1e-10)


def test_encoder_layer_unbatched_and_causal_as_torch():
    rng = np.random.default_rng(2)
    tl = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0).double()
    cl = tcore.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=tcore.float64)
    _twins(tl, cl)
    te, ce = torch.nn.TransformerEncoder(tl, 2, enable_nested_tensor=False), tcore.nn.TransformerEncoder(cl, 2)
    x = rng.standard_normal((5, 8))
    mask_t = torch.nn.Transformer.generate_square_subsequent_mask(5).double()
    mask_c = tcore.nn.Transformer.generate_square_subsequent_mask(5, dtype=tcore.float64)
    np.testing.assert_array_equal(mask_c.numpy(), mask_t.numpy())
    xt = torch.tensor(x, requires_grad=True)
    _close(ce(tcore.tensor(x), mask=mask_c), te(xt, mask=mask_t))  # (the causal mask detected: is_causal)
    _close(cl(tcore.tensor(x), src_mask=mask_c, is_causal=True), tl(xt, src_mask=mask_t, is_causal=True))


def test_attention_dropout_and_errors():
    m = tcore.nn.MultiheadAttention(8, 2, dropout=0.5)
    x = tcore.randn(5, 3, 8)
    m.eval()
    assert m(x, x, x)[0].tolist() == m(x, x, x)[0].tolist()
    m.train()
    assert m(x, x, x)[0].tolist() != m(x, x, x)[0].tolist()
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        tcore.nn.MultiheadAttention(8, 3)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is \(4, 4\), but should be \(5, 5\)."):
        m(x, x, x, attn_mask=tcore.zeros(4, 4))
    with pytest.raises(AssertionError, match="only bool and floating types of attn_mask are supported"):
        m(x, x, x, attn_mask=tcore.zeros(5, 5, dtype=tcore.int64))
    with pytest.raises(AssertionError, match="For batched \\(3-D\\) `query`, expected `key` and `value` to be 3-D"):
        m(x, x[0], x[0])
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        tcore.nn.TransformerEncoderLayer(8, 2, activation="tanh")
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        tcore.nn.Transformer(8, 2, 1, 1, 16)(tcore.randn(5, 3, 8), tcore.randn(5, 3, 4))


def test_module_list_repr_groups_repeats_as_torch():
    def build(m):
        return m.nn.ModuleList([m.nn.Linear(2, 2), m.nn.Linear(2, 2), m.nn.ReLU(), m.nn.Linear(2, 2)])

    assert repr(build(tcore)) == repr(build(torch))
    assert repr(tcore.nn.ModuleList()) == repr(torch.nn.ModuleList())
    for kw in (dict(), dict(bias=False), dict(elementwise_affine=False)):
        assert repr(tcore.nn.LayerNorm(8, **kw)) == repr(torch.nn.LayerNorm(8, **kw))
