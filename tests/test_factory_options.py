"""Factories take requires_grad= as torch's do (every function whose schema has the tensor
options, not only the ones whose size may be spread), and rand/randn/randint have their _like
forms: shape, dtype, layout and range as torch's."""
import pytest

torch = pytest.importorskip("torch")

CALLS = [
    ("arange", (3.0,)), ("arange", (1.0, 3.0)), ("arange", (1.0, 3.0, 0.5)), ("linspace", (0.0, 1.0, 3)),
    ("eye", (2,)), ("eye", (2, 3)), ("full", ((2,), 1.0)), ("zeros", (2, 3)), ("ones", ((2,),)), ("empty", (2,)),
    ("rand", (2,)), ("randn", (2, 2)), ("empty_strided", ((2, 3), (1, 2))),
    ("zeros_like", "x"), ("ones_like", "x"), ("empty_like", "x"), ("rand_like", "x"), ("randn_like", "x"),
    ("full_like", ("x", 2.0)), ("randint_like", ("x", 5)), ("randint_like", ("x", 2, 5)),
]


def _call(lib, name, args, **kwargs):
    x = lib.ones(3, 2, dtype=lib.float64).t()
    args = (x,) if args == "x" else tuple(x if a == "x" else a for a in args)
    return getattr(lib, name)(*args, **kwargs)


@pytest.mark.parametrize("name, args", CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CALLS)])
def test_factories_take_requires_grad_as_torch(tcore, name, args):
    def facts(lib):
        r = _call(lib, name, args, requires_grad=True)
        (r * 1).sum().backward()
        return (r.requires_grad, r.is_leaf, r.grad_fn is None, str(r.dtype).split(".")[-1], tuple(r.shape),
                r.stride(), r.grad.tolist() == lib.ones_like(r).tolist())
    assert facts(tcore) == facts(torch)
    assert not _call(tcore, name, args).requires_grad


@pytest.mark.parametrize("name, args", [("randint", (0, 5, (2,))), ("randperm", (3,)), ("arange", (3,)),
                                        ("zeros", ((2,),))])
def test_integer_factories_refuse_requires_grad(tcore, name, args):
    kwargs = {"dtype": tcore.int32} if name == "zeros" else {}
    with pytest.raises(RuntimeError, match="floating point"):
        getattr(tcore, name)(*args, requires_grad=True, **kwargs)


def test_operators_that_are_not_factories_refuse_requires_grad(tcore):
    x = tcore.ones(2)
    for fn in (lambda: tcore.add(x, x, requires_grad=True), lambda: tcore.sum(x, requires_grad=True)):
        with pytest.raises(TypeError):
            fn()
    assert "add" not in tcore._C._factory_functions and "zeros_like" in tcore._C._factory_functions


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bfloat16"])
def test_random_like_ranges_dtypes_and_layouts(tcore, dtype):
    tcore.manual_seed(0)
    base = tcore.ones(400, 300, dtype=getattr(tcore, dtype)).t()
    ints = base.dtype == tcore.int64
    forms = [("randint_like", (9,)), ("randint_like", (-3, 4))] + ([] if ints else [("rand_like", ()),
                                                                                  ("randn_like", ())])
    for name, extra in forms:
        r = getattr(tcore, name)(base, *extra)
        t = getattr(torch, name)(torch.ones(400, 300, dtype=getattr(torch, dtype)).t(), *extra)
        assert (r.dtype.name, r.shape, r.stride()) == (str(t.dtype).split(".")[-1], tuple(t.shape), t.stride())
        lo, hi = r.double().min().item(), r.double().max().item()
        if name == "rand_like":
            assert 0 <= lo and hi < 1 and abs(r.double().mean().item() - 0.5) < 0.01
        elif name == "randn_like":
            assert abs(r.double().mean().item()) < 0.01 and abs(r.double().std().item() - 1) < 0.01
        else:
            low, high = (0, *extra) if len(extra) == 1 else extra
            assert (lo, hi) == (low, high - 1)  # 120,000 draws reach both ends
            assert (r.double() - r.double().floor()).abs().max().item() == 0
    assert tcore.rand_like(base, dtype=tcore.float64, memory_format=tcore.contiguous_format).stride() == (400, 1)


@pytest.mark.parametrize("dtype, digits", [("float16", 11), ("bfloat16", 8), ("float32", 24)])
def test_rand_of_reduced_floats_stays_below_one(tcore, dtype, digits):
    """float16/bfloat16 rand draws multiples of 2^-digits, below 1 as torch's are (drawn in float32
    and rounded, 1 - 2^-25 became 1.0)."""
    tcore.manual_seed(1)
    r = tcore.rand(1 << 20, dtype=getattr(tcore, dtype)).double()
    scaled = r * (1 << digits)
    assert r.min().item() >= 0 and r.max().item() < 1
    assert (scaled - scaled.floor()).abs().max().item() == 0
    assert abs(r.mean().item() - 0.5) < 0.005
    u = tcore.empty(1 << 16, dtype=getattr(tcore, dtype)).uniform_(-2, 2).double()
    assert u.min().item() >= -2 and u.max().item() < 2
