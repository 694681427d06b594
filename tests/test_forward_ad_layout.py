"""A tangent has its primal's layout, as torch's (has_same_meta, else a copy laid out as the
primal): make_dual of a transposed or expanded tangent, a broadcasting formula's tangent. An
expanded tangent kept as it was took one write for several elements: d[0].mul_(3) tripled the
tangent of every row."""
import importlib

import pytest

torch = pytest.importorskip("torch")


def _both(program):
    out = []
    for name in ("torch", "tcore"):
        lib = importlib.import_module(name)
        fw = importlib.import_module(name + ".autograd.forward_ad")
        with fw.dual_level():
            out.append(program(lib, fw))
    return out


def _facts(fw, *tensors):
    return [(fw.unpack_dual(t).tangent.tolist(), fw.unpack_dual(t).tangent.stride()) for t in tensors]


def _expanded(lib, fw):
    d = fw.make_dual(lib.ones(2, 3), lib.arange(3.0).expand(2, 3))
    d[0].mul_(3)
    return _facts(fw, d)


def _transposed(lib, fw):
    d = fw.make_dual(lib.arange(12.0).reshape(3, 4), lib.arange(12.0).reshape(4, 3).t())
    v = d[:, 1]
    v.add_(v)
    return _facts(fw, d, d.t(), d[1:, ::2], d * 2, v)


def _broadcast_formula(lib, fw):
    b = fw.make_dual(lib.ones(3), lib.arange(3.0))
    y = lib.zeros(2, 3) + b  # y's tangent is b's broadcast to (2, 3)
    y[1].mul_(5)
    return _facts(fw, y, b)


def _offset_view_primal(lib, fw):
    base = lib.arange(10.0)
    d = fw.make_dual(base[2:8].view(2, 3), lib.ones(3, 2).t())
    d[:, 0].mul_(4)
    return _facts(fw, d, d.t()) + [fw.unpack_dual(d).tangent.storage_offset()]


def _channels_last_primal(lib, fw):
    p = lib.ones(1, 2, 2, 3).permute(0, 3, 1, 2)  # (1, 3, 2, 2) with channels last strides
    d = fw.make_dual(p, lib.arange(12.0).reshape(1, 3, 2, 2))
    d[0, 1].mul_(2)
    return _facts(fw, d)


@pytest.mark.parametrize("program", [_expanded, _transposed, _broadcast_formula, _offset_view_primal,
                                     _channels_last_primal], ids=lambda f: f.__name__.strip("_"))
def test_tangent_layouts_and_in_place_writes_as_torch(tcore, program):
    ours, theirs = _both(program)
    assert ours == theirs


def test_the_tangent_given_is_not_written(tcore):
    import tcore.autograd.forward_ad as fw
    t = tcore.arange(3.0).expand(2, 3)
    with fw.dual_level():
        d = fw.make_dual(tcore.ones(2, 3), t)
        d.mul_(2)
    assert t.tolist() == [[0.0, 1.0, 2.0]] * 2


def test_alias_keeps_every_stride_and_is_a_view(tcore):
    """make_dual's result is alias(primal), torch's: view() would recompute a size-1 dim's stride."""
    x = tcore.ones(1, 2, 2, 3).permute(0, 3, 1, 2).requires_grad_()
    a = tcore.alias(x * 1)
    assert a.stride() == torch.ones(1, 2, 2, 3).permute(0, 3, 1, 2).stride() and a._is_view()
    (a * tcore.arange(12.0).reshape(1, 3, 2, 2)).sum().backward()
    assert x.grad.tolist() == torch.arange(12.0).reshape(1, 3, 2, 2).tolist()
    b = tcore.zeros(2, 3)
    b.alias()[1].add_(1)
    assert b.tolist() == [[0.0] * 3, [1.0] * 3]
    f = tcore.func.functionalize(lambda t: t.alias().mul_(2))
    c = tcore.ones(2)
    assert f(c).tolist() == [2.0, 2.0] and c.tolist() == [2.0, 2.0]
    assert tcore.alias_copy(b).tolist() == b.tolist() and not tcore.alias_copy(b)._is_view()
