"""unbind's outputs are views made together, as torch's: values and gradients as torch's, an in-place
write to one refused under autograd (torch's error), allowed without it (the base changes), forward
mode and functionalize through it."""
import pytest

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_values_gradients_and_views_as_torch(tcore, dim):
    for lib in (tcore, torch):
        a = lib.arange(12.0).reshape(3, 4).requires_grad_()
        outs = (a * 1).unbind(dim)
        assert all(o._is_view() for o in outs)
        (outs[0] * 2 + outs[-1] * 3).sum().backward()
        if lib is tcore:
            ours = (a.grad.tolist(), [o.tolist() for o in outs], [o.grad_fn.name() for o in outs])
        else:
            assert ours == (a.grad.tolist(), [o.tolist() for o in outs], [o.grad_fn.name() for o in outs])


def test_inplace_write_refused_under_autograd_allowed_without(tcore):
    a = tcore.ones(3, 2, requires_grad=True)
    outs = (a * 2).unbind(0)
    with pytest.raises(RuntimeError, match="output of a function that returns multiple views"):
        outs[0].mul_(3)
    b = tcore.ones(3, 2)
    o = b.unbind(0)
    o[1].mul_(5)
    assert b.tolist() == [[1.0, 1.0], [5.0, 5.0], [1.0, 1.0]]
    assert b._version == 1 and o[0]._version == 1


def test_forward_mode_and_functionalize(tcore):
    import tcore.autograd.forward_ad as fwAD

    p, t = tcore.randn(3, 2), tcore.randn(3, 2)
    with fwAD.dual_level():
        outs = fwAD.make_dual(p, t).unbind(1)
        for i, o in enumerate(outs):
            assert fwAD.unpack_dual(o).tangent.tolist() == t[:, i].tolist()
    f = tcore.func.functionalize(lambda x: [o * 2 for o in x.unbind(0)])
    assert [o.tolist() for o in f(tcore.ones(2, 3))] == [[2.0] * 3, [2.0] * 3]
    g = tcore.zeros(2, 3)
    torch_like = tcore.func.functionalize(lambda x: x.unbind(0)[1].add_(1))
    torch_like(g)
    assert g.tolist() == [[0.0] * 3, [1.0] * 3]


def _message(lib, program):
    try:
        program(lib)
    except RuntimeError as e:
        return str(e)
    return None


@pytest.mark.parametrize("case", ["direct", "indirect", "split", "split_sizes", "split_view", "no_grad_base",
                                  "no_grad_base_indirect"])
def test_inplace_errors_word_for_word_torch(tcore, case):
    """The refused writes name the view as torch's messages do: "Output 1 of Unbind" (no
    Backward0), and a multi-output view of a tensor that required nothing as made in no_grad mode."""
    def program(lib):
        x = lib.ones(3, 4, requires_grad=True)
        w = lib.ones(4, requires_grad=True)
        if case == "direct":
            (x * 2).unbind(0)[1].mul_(2)
        elif case == "indirect":
            y = x * 2
            v = y.unbind(0)
            y.mul_(2)
            v[0].grad_fn  # noqa: B018  (the access regenerates the view's node: the error)
        elif case == "split":
            (x * 2).split(2)[1].add_(1)
        elif case == "split_sizes":
            (x * 2).split([1, 2])[1].add_(1)
        elif case == "split_view":
            (x * 2).chunk(2)[0].view(-1).add_(1)
        elif case == "no_grad_base":
            lib.ones(3, 4).unbind(0)[0].mul_(w)
        else:
            a = lib.ones(3, 4)
            v = a.unbind(0)
            a.mul_(w)
            v[0] + 1
    ours, theirs = _message(tcore, program), _message(torch, program)
    assert theirs is not None and ours == theirs


def test_split_chunk_and_unbind_nodes_named_as_torch(tcore):
    """split with a list of sizes is split_with_sizes (torch's SplitWithSizesBackward0), by
    method, function or the operator itself; an int size is SplitBackward0, chunk goes through it."""
    def names(lib):
        x = lib.arange(6.0, requires_grad=True)
        calls = (x.split([2, 4]), lib.split(x, [2, 4]), x.split_with_sizes([1, 5]), lib.split_with_sizes(x, [6]),
                 x.split(4), x.chunk(3), x.unbind(0))
        for parts in calls:
            sum(p.sum() * (i + 1) for i, p in enumerate(parts)).backward()
        return [parts[0].grad_fn.name() for parts in calls], x.grad.tolist()
    assert names(tcore) == names(torch)
    assert names(tcore)[0][:4] == ["SplitWithSizesBackward0"] * 4


def test_iteration_is_unbind(tcore):
    """for r in t: the rows are unbind's (torch's Tensor.__iter__): writing one in place under
    autograd is refused as torch refuses it, without autograd it writes the base."""
    for lib in (tcore, torch):
        y = lib.ones(3, 2, requires_grad=True) * 2
        rows = list(y)
        assert [r.grad_fn.name() for r in rows] == ["UnbindBackward0"] * 3
        with pytest.raises(RuntimeError, match="Output 0 of Unbind is a view"):
            rows[0].mul_(2)
        b = lib.zeros(2, 2)
        for i, r in enumerate(b):
            r.add_(i + 1)
        assert b.tolist() == [[1.0, 1.0], [2.0, 2.0]]
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(tcore.tensor(1.0))
