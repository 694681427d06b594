"""Operators of torch's API composed of others (native/composite/TorchApi.cpp) against torch 2.13:
values, dtypes and float64 gradients, at ordinary points and at the edges torch defines (equal
infinities in logaddexp, 0 in sinc and xlogy, NaN in fmax/fmin/nan_to_num/nansum, ties)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")
A = [[-2.5, -1.0, 0.0, 0.5], [1.0, 2.0, 3.5, -0.25], [0.75, -3.0, 1.5, 2.25]]
B = [[1.0, -1.0, 0.5, 0.5], [-2.0, 2.5, 3.5, 1.0], [0.25, -3.0, -1.5, 4.0]]
POS = [[0.1, 0.25, 0.5, 0.75], [0.9, 0.3, 0.6, 0.05], [0.2, 0.4, 0.8, 0.95]]
EDGE = [INF, -INF, NAN, 0.0, -0.0, 1.0, -1e300, 1e-300]
EDGE2 = [INF, -INF, 1.0, 0.0, NAN, 2.0, -1e300, 5.0]

# name: (fn(lib, *tensors), inputs); the inputs are float64 and require grad unless named in INTS
CASES = {
    "square": (lambda t, a: t.square(a), [A]),
    "square_int": (lambda t, a: t.square(a.long()), [A]),
    "clamp_min": (lambda t, a: t.clamp_min(a, 0.5), [A]),
    "clamp_min_tensor": (lambda t, a, b: t.clamp_min(a, b), [A, B]),
    "clamp_max": (lambda t, a: a.clamp_max(0.5), [A]),
    "clamp_max_tensor": (lambda t, a, b: a.clamp_max(b), [A, B]),
    "clamp_min_inplace": (lambda t, a: (a * 1).clamp_min_(0.5), [A]),
    "isfinite": (lambda t, a: t.isfinite(a), [EDGE]),
    "isfinite_int": (lambda t, a: t.isfinite(a.nan_to_num().clamp(-5, 5).long()), [EDGE]),
    "isposinf": (lambda t, a: t.isposinf(a), [EDGE]),
    "isneginf": (lambda t, a: a.isneginf(), [EDGE]),
    "floor_divide": (lambda t, a, b: t.floor_divide(a, b), [A, B]),
    "floor_divide_scalar": (lambda t, a: a.floor_divide(0.75), [A]),
    "floor_divide_int": (lambda t, a, b: t.floor_divide((a * 4).long(), (b * 2).long().clamp_min(1)), [A, B]),
    "true_divide": (lambda t, a, b: t.true_divide(a, b), [A, B]),
    "logaddexp": (lambda t, a, b: t.logaddexp(a, b), [A, B]),
    "logaddexp_edges": (lambda t, a, b: t.logaddexp(a, b), [EDGE, EDGE2]),
    "logaddexp_large": (lambda t, a, b: t.logaddexp(a * 400, b * 400), [A, B]),
    "logaddexp2": (lambda t, a, b: a.logaddexp2(b), [A, B]),
    "logaddexp2_edges": (lambda t, a, b: t.logaddexp2(a, b), [EDGE, EDGE2]),
    "nan_to_num": (lambda t, a: t.nan_to_num(a), [EDGE]),
    "nan_to_num_args": (lambda t, a: a.nan_to_num(1.5, 2.0, -3.0), [EDGE]),
    "nan_to_num_f16": (lambda t, a: t.nan_to_num(a.half()).double(), [EDGE]),
    "nan_to_num_inplace": (lambda t, a: (a * 1).nan_to_num_(0.0, 7.0), [EDGE]),
    "xlogy": (lambda t, a, b: t.xlogy(a, b.abs()), [A, B]),
    # (x = 0, y = inf): value 0 in both, gradient inf in torch's and 0 in tcore's: not compared
    "xlogy_edges": (lambda t, a, b: t.xlogy(a, b), [[0.0, 0.0, 1.0, 2.0, 2.0, NAN, 3.0, 1.0],
                                                    [0.0, NAN, 0.0, INF, INF, 1.0, -1.0, NAN]]),
    # x = 0 gives +0 whatever y (not NaN) and x's sign: torch's (0 * log(y) was -0 for y < 1)
    "xlogy_zero_signs": (lambda t, a, b: 1 / t.xlogy(a, b),  # (+inf for +0, -inf for -0)
                         [[0.0, -0.0, 0.0, -0.0, 0.0], [1e-300, 1.0, 0.5, 2.0, 1e300]]),
    "xlogy_scalar_other": (lambda t, a: t.xlogy(a, 3.0), [A]),
    "xlogy_scalar_self": (lambda t, b: t.xlogy(2, b.abs()), [B]),
    "xlogy_inplace": (lambda t, a, b: (a * 1).xlogy_(b.abs()), [A, B]),
    "xlogy_inplace_scalar": (lambda t, a: t.xlogy_(a * 1, 3.0), [A]),
    "special_xlogy": (lambda t, a, b: t.special.xlogy(a, b.abs()), [A, B]),
    "special_xlogy_scalars": (lambda t, a: t.special.xlogy(2, a.abs()) + t.special.xlogy(a, 0.5), [A]),
    "addcmul": (lambda t, a, b, c: t.addcmul(a, b, c, value=-1.5), [A, B, POS]),
    "addcmul_inplace": (lambda t, a, b, c: (a * 1).addcmul_(b, c, value=0.5), [A, B, POS]),
    "addcdiv": (lambda t, a, b, c: a.addcdiv(b, c, value=2), [A, B, POS]),
    "addcdiv_inplace": (lambda t, a, b, c: (a * 1).addcdiv_(b, c), [A, B, POS]),
    "frac": (lambda t, a: t.frac(a * 1.7), [A]),
    "sgn": (lambda t, a: t.sgn(a), [A]),
    "fix": (lambda t, a: t.fix(a * 1.7), [A]),
    "deg2rad": (lambda t, a: t.deg2rad(a * 90), [A]),
    "deg2rad_int": (lambda t, a: t.deg2rad((a * 90).long()), [A]),
    "logit": (lambda t, a: t.logit(a), [POS]),
    "logit_eps": (lambda t, a: t.logit(a * 1.2 - 0.1, eps=0.1), [POS]),
    "sinc": (lambda t, a: t.sinc(a), [A]),
    "sinc_edges": (lambda t, a: t.sinc(a), [[0.0, -0.0, 0.1, 1.0, 2.5, INF, NAN, -3.0]]),
    "fmax": (lambda t, a, b: t.fmax(a, b), [A, B]),
    "fmin": (lambda t, a, b: a.fmin(b), [A, B]),
    "fmax_nan": (lambda t, a, b: t.fmax(a, b), [EDGE, EDGE2]),
    "fmin_nan": (lambda t, a, b: t.fmin(a, b), [EDGE, EDGE2]),
    "movedim": (lambda t, a: t.movedim(a.reshape(2, 3, 2), [0, 2], [2, 0]), [A]),
    "movedim_int": (lambda t, a: a.reshape(2, 3, 2).movedim(-1, 0), [A]),
    "moveaxis": (lambda t, a: t.moveaxis(a.reshape(2, 3, 2), 0, -1), [A]),
    "tile": (lambda t, a: t.tile(a, (2,)), [A]),
    "tile_more": (lambda t, a: a.tile((2, 1, 3)), [A]),
    "broadcast_to": (lambda t, a: t.broadcast_to(a[0], (2, 4)), [A]),
    "broadcast_tensors": (lambda t, a, b: sum(x.sum() for x in t.broadcast_tensors(a[:1], b[:, :1])), [A, B]),
    "atleast": (lambda t, a: t.cat([t.atleast_1d(a[0, 0]), t.atleast_2d(a[0]).flatten(),
                                    t.atleast_3d(a).flatten(), t.atleast_3d(a[0]).flatten()]), [A]),
    "atleast_sequence": (lambda t, a: t.atleast_2d((a[0, 0], a[0]))[1], [A]),
    "hstack": (lambda t, a, b: t.hstack([a, b]), [A, B]),
    "hstack_1d": (lambda t, a, b: t.hstack([a[0], b[1]]), [A, B]),
    "vstack": (lambda t, a, b: t.vstack([a[0], b]), [A, B]),
    "dstack": (lambda t, a, b: t.dstack([a, b]), [A, B]),
    "column_stack": (lambda t, a, b: t.column_stack([a[0], b.t()]), [A, B]),
    "unflatten": (lambda t, a: a.flatten().unflatten(0, (3, -1, 2)), [A]),
    "take_along_dim": (lambda t, a: t.take_along_dim(a, a.argsort(1), 1), [A]),
    "take_along_dim_broadcast": (lambda t, a: t.take_along_dim(a, t.tensor([[0], [3], [1]]), 1), [A]),
    "take_along_dim_flat": (lambda t, a: a.take_along_dim(t.tensor([5, 0, 11])), [A]),
    "meshgrid_ij": (lambda t, a, b: sum((x * (k + 1)).sum() for k, x in enumerate(t.meshgrid(a[0], b[1], indexing="ij"))),
                    [A, B]),
    "meshgrid_xy": (lambda t, a, b: t.stack(t.meshgrid(a[0], b[1, :3], indexing="xy")), [A, B]),
    "diag_1d": (lambda t, a: t.diag(a[0], 1), [A]),
    "diag_2d": (lambda t, a: a.diag(-1), [A]),
    "trace": (lambda t, a: t.trace(a), [A]),
    "diff": (lambda t, a: t.diff(a), [A]),
    "diff_n2_dim0": (lambda t, a, b: a.diff(2, 0, prepend=b[:1], append=b[2:]), [A, B]),
    "diff_bool": (lambda t, a: t.diff(a > 0), [A]),
    "cross": (lambda t, a, b: t.cross(a[:, :3], b[:, :3], dim=1), [A, B]),
    "cross_default_dim": (lambda t, a, b: t.cross(a[:, :3].t(), b[:, :3].t()), [A, B]),
    "count_nonzero": (lambda t, a: t.count_nonzero(a), [A]),
    "count_nonzero_dims": (lambda t, a: a.count_nonzero((0, 1)), [A]),
    "count_nonzero_dim": (lambda t, a: t.count_nonzero(a, dim=1), [A]),
    "nansum": (lambda t, a: t.nansum(a), [EDGE[2:4] + [1.0, NAN]]),
    "nansum_dim": (lambda t, a: a.reshape(2, 4).nansum(1, keepdim=True), [[NAN, 1.0, 2.0, NAN, 3.0, NAN, NAN, NAN]]),
    "nanmean": (lambda t, a: a.reshape(2, 4).nanmean(0), [[NAN, 1.0, 2.0, NAN, 3.0, NAN, 4.0, 5.0]]),
    "nanmean_all_nan": (lambda t, a: t.nanmean(a.detach()), [[NAN, NAN]]),
    "std_unbiased": (lambda t, a: a.std(unbiased=False), [A]),
    "std_dim_positional": (lambda t, a: a.std(0, False), [A]),
    "std_dim_keepdim": (lambda t, a: t.std(a, 1, unbiased=True, keepdim=True), [A]),
    "std_dims_none": (lambda t, a: a.std(None, False), [A]),
    "var_unbiased": (lambda t, a: t.var(a, False), [A]),
    "var_dim": (lambda t, a: a.var((0, 1), True, True), [A]),
    "std_mean": (lambda t, a: t.stack(t.std_mean(a, 0)), [A]),
    "std_mean_all": (lambda t, a: t.stack(t.std_mean(a, unbiased=False)), [A]),
    "var_mean_correction": (lambda t, a: t.stack(t.var_mean(a, 1, correction=0, keepdim=True)), [A]),
    "all_dims": (lambda t, a: (a > -2).all((0, 1)), [A]),
    "all_dims_keepdim": (lambda t, a: (a > 0).all(dim=(1,), keepdim=True), [A]),
    "all_dims_empty": (lambda t, a: t.all(a > 0, dim=()), [A]),
    "any_dims_none": (lambda t, a: (a > 3).any(dim=None), [A]),
    "any_dims_uint8": (lambda t, a: (a > 0).to(t.uint8).any((1, 0)), [A]),
    "round_decimals": (lambda t, a: (a * 1.2345).round(decimals=2), [A]),
    "round_negative_decimals": (lambda t, a: t.round(a * 123.4, decimals=-1), [A]),
    "norm_default": (lambda t, a: a.norm(), [A]),
    "norm_fro_dim": (lambda t, a: a.norm(p="fro", dim=1), [A]),
    "norm_p1_dim_keepdim": (lambda t, a: t.norm(a, 1, dim=0, keepdim=True), [A]),
    "norm_inf": (lambda t, a: a.norm(p=float("inf")), [A]),
    "norm_dims": (lambda t, a: a.norm(dim=(0, 1)), [A]),
}


def _run(lib, name):
    fn, inputs = CASES[name]
    xs = [lib.tensor(x, dtype=lib.float64, requires_grad=True) for x in inputs]
    out = fn(lib, *xs)
    grads = None
    if out.requires_grad:
        try:
            (out.double() * lib.arange(1.0, out.numel() + 1, dtype=lib.float64).reshape(out.shape)).sum().backward()
        except RuntimeError as e:  # torch's floor_divide has no derivative; tcore's is 0
            assert lib is torch and "not implemented" in str(e)
            return out.detach().numpy(), str(out.dtype).split(".")[-1], "none"
        zero = getattr(xs[0].grad, "_is_zerotensor", lambda: False)  # torch's sgn: a ZeroTensor
        grads = [None if x.grad is None else np.zeros(x.shape) if zero() else x.grad.numpy() for x in xs]
    return out.detach().numpy(), str(out.dtype).split(".")[-1], grads


@pytest.mark.parametrize("name", sorted(CASES))
def test_composites_as_torch(tcore, name):
    (ov, od, og), (tv, td, tg) = _run(tcore, name), _run(torch, name)
    assert od == td
    assert ov.shape == tv.shape
    np.testing.assert_allclose(ov.astype(np.float64), tv.astype(np.float64), rtol=1e-13, atol=1e-15, equal_nan=True)
    if tg == "none":
        return
    assert (og is None) == (tg is None)
    for g, h in zip(og or [], tg or []):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-300, equal_nan=True)


def test_out_forms_and_errors(tcore):
    a, b = tcore.tensor([1.0, -2.0]), tcore.tensor([3.0, 0.5])
    out = tcore.empty(0)
    assert tcore.logaddexp(a, b, out=out) is out and out.shape == (2,)
    assert tcore.hstack([a, b], out=tcore.empty(0)).tolist() == [1.0, -2.0, 3.0, 0.5]
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        tcore.addcdiv(a, tcore.tensor([1]), tcore.tensor([2]))
    with pytest.raises(RuntimeError, match="indexing must be one of"):
        tcore.meshgrid(a, b, indexing="yx")
    with pytest.raises(RuntimeError, match="don't multiply up"):
        tcore.ones(6).unflatten(0, (4, 2))
    with pytest.raises(RuntimeError, match="repeated dim"):
        tcore.ones(2, 3).movedim([0, 0], [0, 1])
    for lib in (torch, tcore):  # xlogy_ keeps self: its shape, a dtype the result can be cast to
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            lib.zeros(3, dtype=lib.int64).xlogy_(lib.ones(3))
        with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
            lib.zeros(3).xlogy_(lib.ones(2, 3))


def test_review_cases_as_torch(tcore):
    """A review's findings: 0-dim inputs (movedim was a segfault), take_along_dim's negative
    indices, hardtanh of integers and NaN, bool through nan_to_num/diag, out-of-range
    replacements, float16/bfloat16 computed in float32, pow's shortcuts refusing overlaps."""
    def both(program):
        out = []
        for lib in (torch, tcore):
            try:
                r = program(lib)
                out.append((r.tolist(), str(r.dtype).split(".")[-1]))
            except (RuntimeError, IndexError) as e:
                out.append("error")
        return out

    cases = [
        lambda t: t.movedim(t.tensor(1.0), 0, 0),
        lambda t: t.movedim(t.tensor(1.0), -1, 0),
        lambda t: t.take_along_dim(t.tensor(1.0), t.tensor(0), dim=0),
        lambda t: t.cross(t.tensor(1.0), t.tensor(2.0), dim=0),
        lambda t: t.take_along_dim(t.arange(6.0).reshape(2, 3), t.tensor([[-1], [-3]]), 1),
        lambda t: t.nn.functional.hardtanh(t.tensor([-5, 0, 5])),
        lambda t: t.nn.functional.relu6(t.tensor([-5, 0, 9])),
        lambda t: t.nn.functional.hardtanh(t.tensor([True])),
        lambda t: t.nan_to_num(t.tensor([True, False])),
        lambda t: t.sgn(t.tensor([True, False])),
        lambda t: t.diag(t.tensor([[True, False], [False, True]])),
        lambda t: t.nan_to_num(t.tensor([float("nan"), float("inf"), -float("inf"), 1.0]), nan=2.0, posinf=1e300,
                               neginf=-1e300),
        lambda t: t.round(t.tensor([1.2345, -2.5551], dtype=t.bfloat16), decimals=2),
        lambda t: t.sinc(t.tensor([1.0, -1.0, 0.5], dtype=t.float16)),
        lambda t: t.logaddexp(t.tensor([1.0], dtype=t.float16), t.tensor([1.5], dtype=t.float16)),
        lambda t: t.zeros(3).expand(2, 3).pow_(0),
    ]
    for k, program in enumerate(cases):
        ours, theirs = both(program)
        assert ours == theirs, k
    for lib in (torch, tcore):
        x = lib.tensor([float("nan"), 0.5, 1.0, -1.0], requires_grad=True)
        lib.nn.functional.hardtanh(x).sum().backward()
        if lib is torch:
            want = x.grad.tolist()
    assert x.grad.tolist() == want


def test_addcmul_addcdiv_types_and_in_place_checks_as_torch(tcore):
    """value takes no part in the promotion (truncated for an integral result); the in-place forms
    refuse a result their self cannot hold and a broadcast beyond self's shape, as torch's."""
    def run(lib):
        L = lambda v: lib.full((3,), v, dtype=lib.int64)  # noqa: E731
        F = lambda v: lib.full((3,), float(v))  # noqa: E731
        calls = [lambda: lib.addcmul(L(1), L(3), L(2), value=0.5), lambda: lib.addcmul(L(1), L(3), L(2), value=-1.5),
                 lambda: lib.addcmul(L(1), L(3), L(2), value=True), lambda: lib.addcmul(F(1), L(3), L(2), value=0.5),
                 lambda: lib.addcmul(F(1).bfloat16(), F(3).bfloat16(), F(2).bfloat16(), value=0.1),
                 lambda: lib.addcmul(lib.ones(3, dtype=lib.bool), lib.ones(3, dtype=lib.bool), lib.ones(3, dtype=lib.bool)),
                 lambda: L(0).addcmul_(L(1), F(2)), lambda: L(0).addcdiv_(L(1), F(2), value=-0.1),
                 lambda: L(0).addcmul_(L(1), L(2), value=0.5), lambda: F(0).addcmul_(lib.ones(2, 3), F(1)),
                 lambda: F(0).addcdiv_(F(1), lib.full((3,), 4.0), value=2)]
        out = []
        for call in calls:
            try:
                r = call()
                out.append((str(r.dtype).split(".")[-1], r.float().tolist()))
            except (RuntimeError, TypeError) as e:
                out.append(("error", "cast" if "can't be cast" in str(e) else "other"))
        return out

    got, want = run(tcore), run(torch)
    assert got == want


def test_partial_overlap_refused_and_fill_with_a_tensor_as_torch(tcore):
    """Elementwise writes whose output shares some memory with an input (not the same elements in
    the same layout) are refused, as torch's TensorIterator refuses them; the same elements pass
    (x.add_(x), copy_ of an identical view); fill_ takes a 0-dim tensor (its gradient the sum)."""
    def run(lib):
        x = lib.tensor(np.arange(9.0).reshape(3, 3))
        out = []
        for call in (lambda: x.clone().add_(x.t()), lambda: x.add_(x), lambda: lib.add(x, 1, out=x.t()),
                     lambda: x.view(-1)[1:].add_(x.view(-1)[:-1]), lambda: x.copy_(x.t()),
                     lambda: x.view(-1).mul_(x.view(-1)[4]), lambda: lib.exp(x.view(-1)[1:], out=x.view(-1)[:-1]),
                     lambda: lib.neg(x, out=x.t()), lambda: x[0].expand(3, 3).copy_(x[0].expand(3, 3)),
                     lambda: x.view(-1)[:4].sub_(x.view(-1)[5:])):
            try:
                call()
                out.append("ok")
            except RuntimeError as e:
                out.append(str(e)[:60])
        v = lib.tensor(2.5, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        y = w * 1
        y.fill_(v)
        (y * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        out += [y.tolist(), w.grad.tolist(), v.grad.item(), lib.zeros(2, dtype=lib.int64).fill_(lib.tensor(3.7)).tolist()]
        with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
            lib.zeros(2).fill_(lib.ones(2))
        return out

    assert run(tcore) == run(torch)
