"""nn.utils.fuse_conv_bn_eval / fuse_linear_bn_eval (and their weight functions) against torch's:
the fused layer's parameters and its output equal to the layer and BatchNorm in evaluation;
convert_conv2d_weight_memory_format's layouts."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tcore  # noqa: E402
from torch_twins import copy_parameters  # noqa: E402


def _trained_bn(lib, bn):
    """bn with running statistics away from 0 and 1, and affine parameters set, in evaluation."""
    rng = np.random.default_rng(3)
    with lib.no_grad():
        bn.running_mean.copy_(lib.tensor(rng.standard_normal(bn.num_features)))
        bn.running_var.copy_(lib.tensor(rng.random(bn.num_features) + 0.5))
    return bn.eval()


CASES = [
    ("Conv2d", (3, 4, 3), "BatchNorm2d", (4,), False, (2, 3, 6, 6)),
    ("Conv2d", (3, 4, 3), "BatchNorm2d", (4,), False, (2, 3, 6, 6)),  # (without the convolution's bias)
    ("ConvTranspose2d", (3, 4, 3), "BatchNorm2d", (4,), True, (2, 3, 5, 5)),
    ("Conv1d", (2, 5, 3), "BatchNorm1d", (5,), False, (2, 2, 9)),
    ("Linear", (6, 4), "BatchNorm1d", (4,), None, (5, 6)),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("affine", [True, False])
def test_fusions_as_torch(case, affine):
    layer, args, norm, norm_args, transpose, shape = CASES[case]
    if layer == "Linear" and not affine:
        pytest.skip("torch's fuse_linear_bn_weights needs the BatchNorm's weight and bias (tcore's takes None)")
    fused = []
    for lib in (torch, tcore):
        if lib is torch:
            torch.manual_seed(case)
        kw = {} if layer == "Linear" or case != 1 else {"bias": False}
        m = getattr(lib.nn, layer)(*args, **kw).double().eval()
        bn = _trained_bn(lib, getattr(lib.nn, norm)(*norm_args, affine=affine).double())
        if lib is tcore:
            copy_parameters(ref_layer, m)
            if affine:
                copy_parameters(ref_bn, bn)
        ref_layer, ref_bn = (m, bn) if lib is torch else (ref_layer, ref_bn)
        f = lib.nn.utils.fuse_linear_bn_eval(m, bn) if layer == "Linear" else \
            lib.nn.utils.fuse_conv_bn_eval(m, bn, transpose=transpose)
        x = lib.tensor(np.random.default_rng(1).standard_normal(shape))
        np.testing.assert_allclose(f(x).detach().numpy(), bn(m(x)).detach().numpy(), rtol=1e-12, atol=1e-13)
        fused.append(f)
    for (name, p), (_, q) in zip(fused[1].named_parameters(), fused[0].named_parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-13, err_msg=name)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        tcore.nn.utils.fuse_conv_bn_eval(tcore.nn.Conv2d(1, 1, 1), tcore.nn.BatchNorm2d(1))
    with pytest.raises(AssertionError, match="linear.out_features == bn.num_features or bn.num_features == 1"):
        tcore.nn.utils.fuse_linear_bn_eval(tcore.nn.Linear(2, 3).eval(), tcore.nn.BatchNorm1d(2).eval())


def test_convert_conv2d_weight_memory_format():
    model = tcore.nn.Sequential(tcore.nn.Conv2d(3, 4, 3), tcore.nn.ReLU(),
                                tcore.nn.Sequential(tcore.nn.ConvTranspose2d(4, 2, 3)), tcore.nn.Linear(2, 2))
    weights = [model[0].weight, model[2][0].weight]
    values = [w.detach().numpy().copy() for w in weights]
    tcore.nn.utils.convert_conv2d_weight_memory_format(model, tcore.channels_last)
    for w, v, reference in zip(weights, values, (model[0].weight, model[2][0].weight)):
        assert w is reference and w.is_contiguous(memory_format=tcore.channels_last) and not w.is_contiguous()
        np.testing.assert_array_equal(w.detach().numpy(), v)
    assert model[3].weight.is_contiguous()
