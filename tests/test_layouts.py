"""Memory layouts as PyTorch's: the strides of clone, to, empty_like and the other *_like factories
(memory_format=preserve_format by default), empty_strided, the view_copy operators, and the
elementwise loops that walk transposed and permuted operands in memory order. torch (CPU) is the
oracle for every stride."""
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")


def _views(seed):
    """A random view (permuted, sliced with steps, expanded, unsqueezed) built the same way in both
    libraries: (ops) -> a function of (library, tensor)."""
    rng = random.Random(seed)
    shape = [rng.choice([0, 1, 1, 2, 3, 4]) for _ in range(rng.randint(0, 4))]
    steps = []
    for _ in range(rng.randint(0, 3)):
        steps.append((rng.choice(["perm", "slice", "expand", "unsqueeze"]), rng.random(), rng.random()))

    def build(lib, t):
        for kind, u, v in steps:
            n = t.dim()
            if kind == "unsqueeze" or n == 0:
                t = t.unsqueeze(int(u * (n + 1)))
            elif kind == "perm":
                p = list(range(n))
                random.Random(u).shuffle(p)
                t = t.permute(*p)
            elif kind == "slice":
                d = int(u * n)
                t = t.transpose(0, d)[:: 1 + int(v * 3)].transpose(0, d)
            elif kind == "expand":
                d = int(u * n)
                if t.shape[d] == 1:
                    size = list(t.shape)
                    size[d] = 3
                    t = t.expand(*size)
        return t

    return shape, build


_COPIES = {
    "clone": lambda lib, t: t.clone(),
    "clone_contiguous": lambda lib, t: t.clone(memory_format=lib.contiguous_format),
    "to_float64": lambda lib, t: t.to(lib.float64),
    "to_copy": lambda lib, t: t.to(lib.float32, copy=True),
}
_FACTORIES = {
    "empty_like": lambda lib, t: lib.empty_like(t),
    "zeros_like": lambda lib, t: lib.zeros_like(t),
    "ones_like": lambda lib, t: lib.ones_like(t),
    "full_like": lambda lib, t: lib.full_like(t, 2.5),
    "empty_like_contiguous": lambda lib, t: lib.empty_like(t, memory_format=lib.contiguous_format),
    "zeros_like_float64": lambda lib, t: lib.zeros_like(t, dtype=lib.float64),
}


@pytest.mark.parametrize("seed", range(300))
def test_copies_and_factories_keep_the_layout_torch_gives(tcore, seed):
    shape, build = _views(seed)
    x = np.asarray(np.random.default_rng(seed).random(shape), dtype=np.float32)
    t, c = build(torch, torch.tensor(x)), build(tcore, tcore.tensor(x))
    assert tuple(c.shape) == tuple(t.shape) and tuple(c.stride()) == tuple(t.stride())
    for name, f in {**_COPIES, **_FACTORIES}.items():
        rt, rc = f(torch, t), f(tcore, c)
        assert tuple(rc.stride()) == tuple(rt.stride()), (name, tuple(t.shape), tuple(t.stride()))
        if name in _COPIES or not name.startswith("empty"):
            np.testing.assert_array_equal(rc.numpy(), rt.numpy(), err_msg=name)


def test_a_transposed_clone_is_transposed(tcore):
    for lib in (torch, tcore):
        a = lib.arange(12.0).reshape(3, 4)
        b = a.t().clone()
        assert b.stride() == (1, 4) and not b.is_contiguous()
        with pytest.raises((RuntimeError, ValueError), match="view size is not compatible"):
            b.view(12)
        np.testing.assert_array_equal(b.reshape(12).numpy(), np.arange(12.0).reshape(3, 4).T.reshape(12))
        assert b.contiguous().stride() == (3, 1)
        b[0, 1] = -1.0  # a copy: a is untouched
        assert a[1, 0].item() == 4.0


def test_view_copies_are_contiguous(tcore):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for name, f in {
        "transpose_copy": lambda lib, t: lib.transpose_copy(t, 0, 2),
        "permute_copy": lambda lib, t: lib.permute_copy(t, [2, 0, 1]),
        "select_copy": lambda lib, t: lib.select_copy(t.transpose(1, 2), 0, 1),
        "slice_copy": lambda lib, t: lib.slice_copy(t.transpose(0, 2), 0, 0, 4, 2),
        "diagonal_copy": lambda lib, t: lib.diagonal_copy(t, 0, 1, 2),
    }.items():
        rt, rc = f(torch, torch.tensor(x)), f(tcore, tcore.tensor(x))
        assert tuple(rc.stride()) == tuple(rt.stride()), name
        assert rc.is_contiguous(), name
        np.testing.assert_array_equal(rc.numpy(), rt.numpy(), err_msg=name)


def test_empty_strided(tcore):
    for size, stride in [([2, 3], [1, 2]), ([2, 3], [3, 1]), ([4], [2]), ([2, 0, 3], [5, 7, 1]), ([], []),
                         ([3, 3], [0, 1])]:
        t, c = torch.empty_strided(size, stride), tcore.empty_strided(size, stride)
        assert tuple(c.shape) == tuple(t.shape) and tuple(c.stride()) == tuple(t.stride())
        assert c.dtype == tcore.float32
    c = tcore.empty_strided([2, 3], [1, 2], dtype=tcore.int64)
    c.copy_(tcore.tensor([[1, 2, 3], [4, 5, 6]]))
    np.testing.assert_array_equal(c.numpy(), [[1, 2, 3], [4, 5, 6]])
    assert c.t().is_contiguous()
    assert tcore.empty_strided([2, 3], [1, 2], device="meta").stride() == (1, 2)
    with pytest.raises(ValueError, match="mismatch in length of strides and shape"):
        tcore.empty_strided([2, 3], [1])
    with pytest.raises(ValueError, match="negative strides are not supported"):
        tcore.empty_strided([2, 3], [-1, 1])
    with pytest.raises(ValueError, match="negative dimension -1"):
        tcore.empty_strided([-1, 3], [3, 1])
    with pytest.raises(RuntimeError, match="overflowed"):
        tcore.empty_strided([2 ** 62, 4], [4, 1])


def test_slice_steps_a_dim_left_with_one_element(tcore):
    for lib in (torch, tcore):
        a = lib.zeros(3, 1, 2)
        assert a.transpose(0, 1)[::2].stride() == (4, 2, 1)
    big = tcore.zeros(1, 2).as_strided([1, 2], [2 ** 62, 1])
    assert big[::4].stride() == (2 ** 62, 1)  # stride * step would overflow: no element reaches it


def _operand(lib, x, kind):
    if kind == "t":
        return lib.tensor(x).t().contiguous().t()  # the same values, column-major
    if kind == "step":
        return lib.tensor(np.repeat(x, 2, axis=1))[:, ::2]  # every other column
    return lib.tensor(x)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("out_kind", ["c", "t", "step"])
@pytest.mark.parametrize("a_kind", ["c", "t", "step"])
def test_elementwise_loops_in_memory_order(tcore, threads, out_kind, a_kind):
    """Outputs and inputs in every pairing of row-major, column-major and stepped layouts, with a
    broadcast operand, at 1 and 2 threads (the loops walk the output's memory order now)."""
    old = tcore.get_num_threads()
    tcore.set_num_threads(threads)
    try:
        rng = np.random.default_rng(7)
        x = rng.standard_normal((257, 130)).astype(np.float32)
        y = rng.standard_normal((257, 130)).astype(np.float32)
        col = rng.standard_normal((257, 1)).astype(np.float32)
        a, b = _operand(tcore, x, a_kind), _operand(tcore, y, "t" if a_kind == "c" else "c")
        expect = {
            "add": x + y, "mul_col": x * col, "exp": np.exp(x), "where": np.where(x > 0, x, y),
            "copy": x, "fill": np.full_like(x, 3.0), "masked_fill": np.where(x > 0, -1.0, x).astype(np.float32),
            "to_f64": x.astype(np.float64),
        }
        for name, ref in expect.items():
            out = _operand(tcore, np.zeros_like(ref), out_kind)
            if name == "add":
                tcore.add(a, b, out=out)
            elif name == "mul_col":
                tcore.mul(a, tcore.tensor(col), out=out)
            elif name == "exp":
                tcore.exp(a, out=out)
            elif name == "where":
                tcore.where(a > 0, a, b, out=out)
            elif name == "copy":
                out.copy_(a)
            elif name == "fill":
                out.fill_(3.0)
            elif name == "masked_fill":
                out.copy_(a)
                out.masked_fill_(a > 0, -1.0)
            elif name == "to_f64":
                out.copy_(a)  # float32 -> float64 conversion into the layout
            np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6, atol=0, err_msg=name)
    finally:
        tcore.set_num_threads(old)


def test_gradients_through_a_transposed_clone(tcore):
    x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    grads = []
    for lib in (torch, tcore):
        a = lib.tensor(x, requires_grad=True)
        b = a.t().clone()
        (b * lib.tensor(np.arange(12, dtype=np.float32).reshape(4, 3))).sum().backward()
        grads.append(a.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


@pytest.mark.parametrize("seed", range(40))
def test_permuted_outputs_and_broadcast_inputs(tcore, seed):
    """3-D and 4-D outputs in a random dim order, inputs in another and broadcast along random dims."""
    rng = np.random.default_rng(seed)
    shape = [int(v) for v in rng.integers(1, 7, size=int(rng.integers(3, 5)))]
    perm_out, perm_in = rng.permutation(len(shape)), rng.permutation(len(shape))
    a_shape = [1 if rng.random() < 0.3 else n for n in shape]
    x = rng.standard_normal(a_shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)

    def laid_out(arr, perm):  # arr's values, stored in the dim order perm
        return tcore.tensor(np.ascontiguousarray(arr.transpose(perm))).permute(*np.argsort(perm).tolist())

    out = laid_out(np.zeros(shape, np.float32), perm_out)
    a, b = laid_out(x, perm_in), laid_out(y, perm_out[::-1].copy())
    tcore.sub(a, b, alpha=2, out=out)
    np.testing.assert_allclose(out.numpy(), x - 2 * y, rtol=1e-6, atol=1e-6)
    out.copy_(a)
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(x, shape))


_ELEMENTWISE = {
    "add": lambda lib, a, b: lib.add(a, b),
    "sub_alpha": lambda lib, a, b: lib.sub(a, b, alpha=2),
    "mul_scalar": lambda lib, a, b: a * 3.0,
    "div": lambda lib, a, b: a / (b.abs() + 1),
    "exp": lambda lib, a, b: lib.exp(a),
    "sigmoid": lambda lib, a, b: lib.sigmoid(a),
    "neg": lambda lib, a, b: lib.neg(a),
    "abs_int": lambda lib, a, b: lib.abs((a * 10).to(lib.int64)),
    "eq": lambda lib, a, b: lib.eq(a, b),
    "gt_scalar": lambda lib, a, b: a > 0.5,
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "silu": lambda lib, a, b: lib.nn.functional.silu(a),
    "leaky_relu": lambda lib, a, b: lib.nn.functional.leaky_relu(a, 0.1),
    # the kernels that allocate their own result (not structured)
    "where": lambda lib, a, b: lib.where(a > 0.5, a, b),
    "where_scalar": lambda lib, a, b: lib.where(b > 0.5, a, 0.0),
    "clamp": lambda lib, a, b: lib.clamp(a, 0.2, 0.7),
    "pow_scalar": lambda lib, a, b: lib.pow(a, 2),
    "pow_tensor": lambda lib, a, b: lib.pow(a, b),
    "fmod": lambda lib, a, b: lib.fmod(a, b + 0.25),
    "remainder": lambda lib, a, b: lib.remainder(a, 0.3),
    "remainder_int": lambda lib, a, b: lib.remainder((a * 10).to(lib.int64), 3),
    "gelu": lambda lib, a, b: lib.nn.functional.gelu(a),
    "relu": lambda lib, a, b: lib.relu(a - 0.5),
    "hardtanh": lambda lib, a, b: lib.nn.functional.hardtanh(a, 0.1, 0.6),
    "relu6": lambda lib, a, b: lib.nn.functional.relu6(a * 8),
    "lerp": lambda lib, a, b: lib.lerp(a, b, 0.3),
    "atan2": lambda lib, a, b: lib.atan2(a, b + 1),
    "isnan": lambda lib, a, b: lib.isnan(a),
    "logical_not": lambda lib, a, b: lib.logical_not(a > 0.5),
    "logical_and": lambda lib, a, b: lib.logical_and(a > 0.5, b > 0.5),
    "bitwise_and": lambda lib, a, b: lib.bitwise_and((a * 10).to(lib.int32), (b * 10).to(lib.int32)),
    "bitwise_not": lambda lib, a, b: lib.bitwise_not((a * 10).to(lib.int64)),
    "half_add": lambda lib, a, b: (a.half() + b.half()).float(),
}


# torch's hardtanh (and relu6) write into empty_like(input), which keeps a dense input's strides even
# along size-1 dims and in empty tensors where TensorIterator gives others; tcore's are clamp's (the
# same layout wherever a stride matters): values only
_EMPTY_LIKE_FIRST = {"hardtanh", "relu6"}


@pytest.mark.parametrize("seed", range(200))
def test_elementwise_outputs_follow_their_inputs_layout(tcore, seed):
    """A fresh elementwise result in the layout torch's TensorIterator gives it: the inputs' when
    they share one, else dense strides in the order the inputs' strides put the dims in."""
    shape, build = _views(seed)
    _, build_b = _views(seed + 1000)
    x = np.asarray(np.random.default_rng(seed).random(shape), dtype=np.float32)
    t, c = build(torch, torch.tensor(x)), build(tcore, tcore.tensor(x))
    # a second operand: the same view, another view of the same shape when one exists, or a row
    for other in ("same", "row", "permuted"):
        if other == "same":
            tb, cb = t + 0.5, c + 0.5
        elif other == "row" and t.dim() > 0:
            row = np.asarray(np.random.default_rng(seed + 1).random(t.shape[-1:]), dtype=np.float32)
            tb, cb = torch.tensor(row), tcore.tensor(row)
        elif other == "permuted" and t.dim() > 1:
            y = np.asarray(np.random.default_rng(seed + 2).random(tuple(t.shape)[::-1]), dtype=np.float32)
            dims = list(range(t.dim()))[::-1]
            tb, cb = torch.tensor(y).permute(*dims), tcore.tensor(y).permute(*dims)
        else:
            continue
        for name, f in _ELEMENTWISE.items():
            rt, rc = f(torch, t, tb), f(tcore, c, cb)
            assert tuple(rc.shape) == tuple(rt.shape), name
            if name not in _EMPTY_LIKE_FIRST:
                    assert tuple(rc.stride()) == tuple(rt.stride()), (name, other, tuple(t.shape), tuple(t.stride()),
                                                                  tuple(tb.stride()))
            np.testing.assert_allclose(rc.numpy().astype(np.float64), rt.numpy().astype(np.float64), rtol=2e-6,
                                       atol=1e-7, err_msg=name)


def test_a_transposed_sum_is_transposed_and_its_gradient_right(tcore):
    x = np.random.default_rng(5).standard_normal((64, 48)).astype(np.float32)
    out = []
    for lib in (torch, tcore):
        a = lib.tensor(x, requires_grad=True)
        y = a.t() * 2 + 1
        assert y.stride() == (1, 48)
        with pytest.raises((RuntimeError, ValueError), match="view size is not compatible"):
            y.view(-1)
        (y.exp() * lib.tensor(np.arange(64 * 48, dtype=np.float32).reshape(48, 64) / 1e3)).sum().backward()
        out.append((y.detach().numpy(), a.grad.numpy()))
    np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-6)
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-5)


@pytest.mark.parametrize("leaf", ["contiguous", "transposed", "stepped", "permuted3"])
def test_leaf_gradients_keep_the_leafs_layout(tcore, leaf):
    """torch's gradient layout contract: .grad has the leaf's strides when the leaf is dense (a
    gradient that arrives transposed, as .t()'s backward gives it, is copied), else is contiguous."""
    rng = np.random.default_rng(11)
    base = rng.standard_normal((4, 6, 5)).astype(np.float32)
    weights = rng.standard_normal((5, 6, 4)).astype(np.float32)
    results = []
    for lib in (torch, tcore):
        x = lib.tensor(base)
        p = {"contiguous": x, "transposed": x.transpose(0, 2).contiguous().transpose(0, 2),
             "stepped": lib.tensor(np.repeat(base, 2, axis=1))[:, ::2], "permuted3": x.permute(1, 2, 0).contiguous().permute(2, 0, 1)}[leaf]
        p = p.detach().requires_grad_(True)
        for _ in range(2):  # the second backward accumulates into the first's .grad
            (p.permute(2, 1, 0) * lib.tensor(weights)).exp().sum().backward()
        results.append((tuple(p.grad.stride()), p.grad.numpy()))
    assert results[1][0] == results[0][0]
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-5)


_OUT_FORMS = {
    "add": lambda lib, a, b, out: lib.add(a, b, out=out),
    "exp": lambda lib, a, b, out: lib.exp(a, out=out),
    "mul_float64_out": lambda lib, a, b, out: lib.mul(a, b, out=out.to(lib.float64)),
    "where": lambda lib, a, b, out: lib.where(a > 0, a, b, out=out),
    "clamp": lambda lib, a, b, out: lib.clamp(a, -0.5, 0.5, out=out),
    "pow": lambda lib, a, b, out: lib.pow(a, b.abs(), out=out),
    "atan2": lambda lib, a, b, out: lib.atan2(a, b, out=out),
    "fmod": lambda lib, a, b, out: lib.fmod(a, b + 3, out=out),
    "half_add": lambda lib, a, b, out: lib.add(a.half(), b.half(), out=out.half()),
    "logical_not": lambda lib, a, b, out: lib.logical_not(a > 0, out=out.bool()),
    "bitwise_not": lambda lib, a, b, out: lib.bitwise_not((a * 9).long(), out=out.long()),
}


@pytest.mark.parametrize("name", sorted(_OUT_FORMS))
@pytest.mark.parametrize("layout", ["transposed", "permuted", "broadcast_column"])
def test_a_resized_out_takes_the_layout_of_a_fresh_result(tcore, name, layout):
    """An out= tensor that must be resized (here: one with no elements) gets the strides a fresh
    result would have, as PyTorch's resize_out restrides it; one of the right shape keeps its own."""
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((6, 5, 4)).astype(np.float32), rng.standard_normal((4, 5, 6)).astype(np.float32)

    def operands(lib):
        a = lib.tensor(x)
        if layout == "transposed":
            return a[0].t(), lib.tensor(y)[:, :, 0]
        if layout == "permuted":
            return a.permute(2, 0, 1), lib.tensor(y).permute(0, 2, 1)
        return a[0].t(), lib.tensor(y)[:, :1, 0]  # (4, 5) with a (4, 1) column

    results = []
    for lib in (torch, tcore):
        a, b = operands(lib)
        out = lib.empty(0)
        r = _OUT_FORMS[name](lib, a, b, out)
        results.append(r)
    rt, rc = results
    assert tuple(rc.stride()) == tuple(rt.stride()), (name, layout)
    np.testing.assert_allclose(rc.float().numpy(), rt.float().numpy(), rtol=2e-3 if "half" in name else 2e-6,
                               atol=1e-6)
    if rc.dtype == tcore.float32:  # an out of the right shape keeps its strides (the forms that take out itself)
        a, b = operands(tcore)
        keep = tcore.empty(*rc.shape)
        _OUT_FORMS[name](tcore, a, b, keep)
        assert keep.is_contiguous()
        np.testing.assert_allclose(keep.numpy(), rt.numpy(), rtol=2e-6, atol=1e-6)


def _four_d_views(seed):
    """A random 4-D view (sizes 0-3, permuted, stepped, expanded) built alike in both libraries."""
    rng = random.Random(seed)
    shape = [rng.choice([0, 1, 1, 2, 3]) if rng.random() < 0.1 else rng.choice([1, 2, 3, 4]) for _ in range(4)]
    perm = list(range(4))
    rng.shuffle(perm)
    step_dim, expand = rng.randrange(4), rng.random() < 0.2

    def build(lib, t):
        t = t.permute(*perm)
        t = t.transpose(0, step_dim)[::2].transpose(0, step_dim) if t.shape[step_dim] > 2 else t
        if expand and 1 in t.shape:
            size = list(t.shape)
            size[size.index(1)] = 3
            t = t.expand(*size)
        return t

    return shape, build


_CHANNELS_LAST_FORMS = {
    "is_contiguous_cl": lambda lib, t: t.is_contiguous(memory_format=lib.channels_last),
    "is_contiguous_preserve": lambda lib, t: t.is_contiguous(memory_format=lib.preserve_format),
    "contiguous_cl": lambda lib, t: t.contiguous(memory_format=lib.channels_last),
    "clone_cl": lambda lib, t: t.clone(memory_format=lib.channels_last),
    "empty_like_cl": lambda lib, t: lib.empty_like(t, memory_format=lib.channels_last),
    "zeros_like_cl_float64": lambda lib, t: lib.zeros_like(t, dtype=lib.float64, memory_format=lib.channels_last),
    "to_cl": lambda lib, t: t.to(memory_format=lib.channels_last),
    "to_contiguous": lambda lib, t: t.to(memory_format=lib.contiguous_format),
    "to_float64_cl": lambda lib, t: t.to(lib.float64, memory_format=lib.channels_last),
    "cl_then_add": lambda lib, t: t.contiguous(memory_format=lib.channels_last) + 1,
    "cl_then_clone": lambda lib, t: t.contiguous(memory_format=lib.channels_last).clone(),
}


@pytest.mark.parametrize("seed", range(150))
def test_channels_last_as_torch(tcore, seed):
    """memory_format=channels_last on clone, contiguous, to, empty_like and the *_like factories,
    is_contiguous(memory_format=...), and whether `to` keeps the tensor itself (PyTorch's
    suggest_memory_format), over random 4-D views."""
    shape, build = _four_d_views(seed)
    x = np.asarray(np.random.default_rng(seed).standard_normal(shape), dtype=np.float32)
    t, c = build(torch, torch.tensor(x)), build(tcore, tcore.tensor(x))
    for name, f in _CHANNELS_LAST_FORMS.items():
        rt, rc = f(torch, t), f(tcore, c)
        if isinstance(rt, bool):
            assert rc == rt, (name, tuple(t.shape), t.stride())
            continue
        assert tuple(rc.stride()) == tuple(rt.stride()), (name, tuple(t.shape), t.stride())
        aliased_t, aliased_c = rt.data_ptr() == t.data_ptr(), rc.data_ptr() == c.data_ptr()
        if t.numel():
            assert aliased_c == aliased_t, (name, tuple(t.shape), t.stride())
        if "empty" not in name:
            np.testing.assert_array_equal(rc.numpy(), rt.numpy(), err_msg=name)


@pytest.mark.parametrize("call", [
    lambda lib: lib.empty(2, 3, 4, memory_format=lib.channels_last),
    lambda lib: lib.empty(2, 3, 4, 5, 6, memory_format=lib.channels_last),
    lambda lib: lib.empty(2, memory_format=lib.preserve_format),
    lambda lib: lib.ones(3, 4).contiguous(memory_format=lib.channels_last),
    lambda lib: lib.ones(3, 4).clone(memory_format=lib.channels_last),
    lambda lib: lib.ones(3, 4).to(memory_format=lib.channels_last),
    lambda lib: lib.empty_like(lib.ones(3), memory_format=lib.channels_last),
    lambda lib: lib.ones(2, 3, 4, 5).transpose(1, 2).contiguous(memory_format=lib.preserve_format),
])
def test_memory_format_errors_as_torch(tcore, call):
    with pytest.raises(RuntimeError) as expected:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(tcore)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 0, 4, 5), (1, 3, 1, 1), (3, 4, 5, 1), (0, 0, 0, 0)])
@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_empty_channels_last(tcore, shape, device):
    t = torch.empty(*shape, memory_format=torch.channels_last, device=device)
    c = tcore.empty(*shape, memory_format=tcore.channels_last, device=device)
    assert tuple(c.stride()) == tuple(t.stride())
    assert c.is_contiguous(memory_format=tcore.channels_last) == t.is_contiguous(memory_format=torch.channels_last)


_CHANNELS_LAST_NN = {
    "conv2d": lambda F, lib, a, w: F.conv2d(a, w, padding=1),
    "conv2d_bias_stride": lambda F, lib, a, w: F.conv2d(a, w, lib.ones(w.shape[0]), stride=2),
    "conv2d_groups": lambda F, lib, a, w: F.conv2d(a, w[:, :1].contiguous(), groups=a.shape[1]),
    "conv2d_weight_channels_last": lambda F, lib, a, w: F.conv2d(a.contiguous(), w.contiguous(
        memory_format=lib.channels_last)),
    "max_pool2d": lambda F, lib, a, w: F.max_pool2d(a, 2),
    "max_pool2d_indices": lambda F, lib, a, w: F.max_pool2d(a, 3, 2, 1, return_indices=True)[1],
    "max_pool2d_dilated_ceil": lambda F, lib, a, w: F.max_pool2d(a, 3, 2, 1, dilation=2, ceil_mode=True),
    "max_pool2d_nan": lambda F, lib, a, w: F.max_pool2d(a * lib.where(a > 1.5, float("nan"), 1.0), 3, 1, 1),
    "avg_pool2d": lambda F, lib, a, w: F.avg_pool2d(a, 2, padding=1),
    "avg_pool2d_exclusive_ceil": lambda F, lib, a, w: F.avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    "avg_pool2d_divisor": lambda F, lib, a, w: F.avg_pool2d(a, (3, 2), (1, 2), divisor_override=5),
    "batch_norm": lambda F, lib, a, w: F.batch_norm(a, lib.zeros(a.shape[1]), lib.ones(a.shape[1]) * 2),
    "batch_norm_training": lambda F, lib, a, w: F.batch_norm(a, None, None, lib.ones(a.shape[1]) * 3, training=True),
    "pad": lambda F, lib, a, w: F.pad(a, (1, 2, 0, 1), value=0.5),
    "cat": lambda F, lib, a, w: lib.cat([a, a * 2], 1),
    "cat_mixed": lambda F, lib, a, w: lib.cat([a, a.contiguous()], 0),
    "relu_then_add": lambda F, lib, a, w: F.relu(a) + a,
}


@pytest.mark.parametrize("name", sorted(_CHANNELS_LAST_NN))
@pytest.mark.parametrize("size", ["small", "large"])  # large: conv2d through oneDNN where it is built
def test_channels_last_through_the_nn_operators(tcore, name, size):
    """A channels_last input gives channels_last results and gradients, as in PyTorch: conv2d (the
    input's or the weight's format; oneDNN reads and writes nhwc in place), pooling, batch_norm,
    constant padding, cat; values and gradients against torch."""
    shape, out_channels = ((2, 3, 8, 8), 6) if size == "small" else ((4, 16, 32, 32), 32)
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((out_channels, shape[1], 3, 3)).astype(np.float32)
    results = []
    for lib in (torch, tcore):
        a = lib.tensor(x).contiguous(memory_format=lib.channels_last).requires_grad_()
        r = _CHANNELS_LAST_NN[name](lib.nn.functional, lib, a, lib.tensor(w))
        grad = None
        if r.dtype == lib.float32:
            (r * r).sum().backward()
            grad = a.grad
        results.append((r, grad))
    (rt, gt), (rc, gc) = results
    assert tuple(rc.stride()) == tuple(rt.stride()), name
    np.testing.assert_allclose(rc.detach().numpy(), rt.detach().numpy(), rtol=1e-4, atol=1e-4)
    if "nan" in name:
        return  # (the gradient through a NaN window: NaN both, nothing to compare)
    if gt is not None:
        assert tuple(gc.stride()) == tuple(gt.stride()), name
        np.testing.assert_allclose(gc.numpy(), gt.numpy(), rtol=1e-3, atol=1e-3)


def test_adaptive_avg_pool2d_of_channels_last_is_channels_last(tcore):
    """(torch restrides its (N, C, 1, 1) mean to C along the size-1 dims; strides along dims of size 1
    address nothing, so the layouts agree: channels_last-contiguous both)"""
    x = np.random.default_rng(2).standard_normal((2, 5, 4, 4)).astype(np.float32)
    for out in (1, 2):
        r = tcore.nn.functional.adaptive_avg_pool2d(tcore.tensor(x).contiguous(memory_format=tcore.channels_last), out)
        e = torch.nn.functional.adaptive_avg_pool2d(torch.tensor(x).contiguous(memory_format=torch.channels_last), out)
        assert r.is_contiguous(memory_format=tcore.channels_last) == e.is_contiguous(memory_format=torch.channels_last)
        np.testing.assert_allclose(r.numpy(), e.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape", [(4, 8, 16, 16), (8, 3, 5, 7)])
def test_channels_last_kernels_alike_at_any_thread_count(tcore, shape):
    """The channels_last pooling and batch_norm kernels split work by image and channel block (and
    batch_norm's column sums by runs of rows summed in a fixed order): one thread and two give the
    same bits, and the NCHW kernels the same values."""
    x = np.random.default_rng(11).standard_normal(shape).astype(np.float32) * 100 + 1e4
    F = tcore.nn.functional
    forms = {
        "max_pool2d": lambda a: F.max_pool2d(a, 3, 2, 1),
        "avg_pool2d": lambda a: F.avg_pool2d(a, 3, 2, 1),
        "batch_norm": lambda a: F.batch_norm(a, None, None, training=True),
    }
    before = tcore.get_num_threads()
    try:
        for name, f in forms.items():
            runs = []
            for threads in (1, 2):
                tcore.set_num_threads(threads)
                a = tcore.tensor(x).contiguous(memory_format=tcore.channels_last).requires_grad_()
                r = f(a)
                (r * r).sum().backward()
                runs.append((r.detach().numpy(), a.grad.numpy()))
            np.testing.assert_array_equal(runs[0][0], runs[1][0], err_msg=name)
            np.testing.assert_array_equal(runs[0][1], runs[1][1], err_msg=name)
            plain = tcore.tensor(x).requires_grad_()
            r = f(plain)
            (r * r).sum().backward()
            np.testing.assert_allclose(runs[0][0], r.detach().numpy(), rtol=1e-5, atol=1e-5 if name != "batch_norm" else 1e-4)
            np.testing.assert_allclose(runs[0][1], plain.grad.numpy(), rtol=1e-4, atol=1e-3)
    finally:
        tcore.set_num_threads(before)


def test_a_channels_last_network_as_torch(tcore):
    """Module.to(memory_format=channels_last) lays out the 4-D parameters so (the Parameters kept),
    and a small CNN run on a channels_last batch gives torch's results, layouts and gradients."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 3, 12, 12)).astype(np.float32)
    runs = []
    for lib in (torch, tcore):
        nn = lib.nn
        lib.manual_seed(0)
        m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(8, 6, 3))
        weights = [p for p in m.parameters()]
        m.to(memory_format=lib.channels_last)
        assert all(a is b for a, b in zip(weights, m.parameters()))
        assert m[0].weight.is_contiguous(memory_format=lib.channels_last)
        runs.append(m)
    # copy torch's initial weights into tcore's
    for pt, pc in zip(runs[0].parameters(), runs[1].parameters()):
        pc.data = tcore.tensor(pt.detach().numpy()).to(memory_format=tcore.channels_last) if pt.dim() == 4 else \
            tcore.tensor(pt.detach().numpy())
    outs = []
    for lib, m in zip((torch, tcore), runs):
        a = lib.tensor(x).contiguous(memory_format=lib.channels_last).requires_grad_()
        y = m(a)
        (y * y).sum().backward()
        outs.append((y, a.grad, [p.grad for p in m.parameters()]))
    (yt, gt, pgt), (yc, gc, pgc) = outs
    assert tuple(yc.stride()) == tuple(yt.stride()) and tuple(gc.stride()) == tuple(gt.stride())
    np.testing.assert_allclose(yc.detach().numpy(), yt.detach().numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gc.numpy(), gt.numpy(), rtol=1e-3, atol=1e-3)
    for a, b in zip(pgt, pgc):
        assert tuple(b.stride()) == tuple(a.stride())
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-3, atol=1e-3)
    with pytest.raises(TypeError):
        runs[1].to(memory_format="channels_last")


_SCALAR_FORMS = {
    "add": lambda x, s: x + s, "sub": lambda x, s: x - s, "rsub": lambda x, s: s - x, "mul": lambda x, s: x * s,
    "div": lambda x, s: x / s, "eq": lambda x, s: x == s, "lt": lambda x, s: x < s, "ge": lambda x, s: x >= s,
    "fmod": lambda x, s: x.fmod(s), "remainder": lambda x, s: x.remainder(s), "maximum": lambda x, s: x.clamp(min=s),
    # torch's mul and div read a one-element second operand at its own precision (float32)
    "floor_div": lambda x, s: x.div(s, rounding_mode="floor"), "trunc_div": lambda x, s: x.div(s, rounding_mode="trunc"),
    "mul_float32_scalar_tensor": lambda x, s: x * x.new_tensor(s, dtype=x.float().dtype),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(_SCALAR_FORMS))
def test_a_python_number_meets_a_reduced_float_in_its_dtype(tcore, dtype, name):
    """x - 0.7 is 0 for x = bfloat16(0.7), x == 0.7 holds: a Python number is rounded to the
    tensor's float16/bfloat16 first, as torch's TensorIterator casts its inputs to the common dtype;
    contiguous runs (the blocked float32 path) and strided ones (the general path) alike."""
    rng = np.random.default_rng(len(name))
    values = rng.choice([0.7, 1.4, 2.1, -0.7, 0.1, 3.3, 1e-3, 250.3], size=64).astype(np.float32)
    for s in (0.7, -0.7, 0.1, 3.3, 2):
        for strided in (False, True):
            results = []
            for lib in (torch, tcore):
                x = lib.tensor(values).to(getattr(lib, dtype))
                if strided:
                    x = x.view(8, 8).t()
                results.append(_SCALAR_FORMS[name](x, s))
            rt, rc = results
            assert rc.dtype.__repr__().split(".")[-1] == str(rt.dtype).split(".")[-1]
            np.testing.assert_array_equal(rc.float().numpy() if rc.dtype != tcore.bool else rc.numpy(),
                                          rt.float().numpy() if rt.dtype != torch.bool else rt.numpy(),
                                          err_msg=f"{name} {s} strided={strided}")


def test_max_pool2d_twice_differentiable_as_torch(tcore):
    """max_pool2d's backward depends on its input with a zero derivative (as torch's): its gradient
    requires grad under create_graph, and a second derivative is zeros, not an error."""
    x = np.random.default_rng(1).standard_normal((2, 3, 6, 6))
    grads = []
    for lib in (torch, tcore):
        X = lib.tensor(x).requires_grad_()
        g, = lib.autograd.grad(lib.nn.functional.max_pool2d(X, 2).sum(), [X], create_graph=True)
        assert g.requires_grad
        gg, = lib.autograd.grad((g * g).sum(), [X], allow_unused=True)
        grads.append(gg.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])
    assert not grads[1].any()


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_reduced_float_gelu_and_pool_gradients_keep_the_layout(tcore, dtype):
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 6)).astype(np.float32)
    for approximate in ("none", "tanh"):
        rt = torch.nn.functional.gelu(torch.tensor(x).to(getattr(torch, dtype)).contiguous(
            memory_format=torch.channels_last), approximate=approximate)
        rc = tcore.nn.functional.gelu(tcore.tensor(x).to(getattr(tcore, dtype)).contiguous(
            memory_format=tcore.channels_last), approximate=approximate)
        assert tuple(rc.stride()) == tuple(rt.stride())
        np.testing.assert_allclose(rc.float().numpy(), rt.float().numpy(), rtol=1e-2, atol=1e-2)
    for lib in (torch, tcore):  # a gradient that arrives contiguous (sum's) still lands channels_last
        a = lib.tensor(x).contiguous(memory_format=lib.channels_last).requires_grad_()
        lib.nn.functional.max_pool2d(a, 2).sum().backward()
        assert a.grad.is_contiguous(memory_format=lib.channels_last)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "eq", "lt", "ge", "remainder", "fmod", "pow",
                                  "bitwise_and", "bitwise_xor"])
def test_out_with_a_python_number_as_torch(tcore, name):
    """f(x, number, out=o): PyTorch's Python API wraps the number and calls the Tensor out=
    overload (its Python bindings have no Scalar out= ones), so a resized o takes the layout of a
    fresh result; tcore's bindings of the generated Scalar out= overloads call that Tensor twin."""
    x = np.random.default_rng(9).standard_normal((6, 5)).astype(np.float32)
    results = []
    for lib in (torch, tcore):
        a = lib.tensor(x).t()
        if name.startswith("bitwise"):
            a = (a * 10).to(lib.int64)
        kwargs = {"alpha": 3} if name in ("add", "sub") else {}
        dtype = lib.bool if name in ("eq", "lt", "ge") else a.dtype
        out = lib.empty(0, dtype=dtype)
        r = getattr(lib, name)(a, 2, out=out, **kwargs)
        assert r is out
        results.append(out)
    rt, rc = results
    assert tuple(rc.stride()) == tuple(rt.stride())
    np.testing.assert_array_equal(rc.numpy(), rt.numpy())
