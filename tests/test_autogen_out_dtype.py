"""The dtype of an out= tensor given to a generated (`autogen:`) out= overload, against torch:
PyTorch's generated kernels refuse an out of another dtype, and its own kernels for the overloads
tcore generates (codegen/autogen.py's CASTING_OUTS) cast into one the result can be cast to. Every
generated overload of tcore's registry that torch has is compared with torch for float64, int32
and bool outs; a few, the scatters, take, searchsorted and bucketize, in detail: the right dtype
written and resized as torch does, the inputs' own errors first."""
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from codegen import autogen
from codegen.load import load_operator_set

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
OPSET = load_operator_set(str(ROOT / "csrc/native/native_functions.yaml"), str(ROOT / "csrc/native/tags.yaml"))
GENERATED_OUTS = {str(f.func.name) for f in OPSET.functions if autogen.is_generated(f) and f.func.is_out_fn}


def calls(t):
    x, i, s = t.zeros(3), t.tensor([0, 2]), t.tensor([1.0, 2.0])
    b = t.tensor([1.0, 2.0, 3.0])
    return {
        "scatter src": (lambda o: t.scatter(x, 0, i, s, out=o), t.float32),
        "scatter value": (lambda o: t.scatter(x, 0, i, 5.0, out=o), t.float32),
        "scatter reduce": (lambda o: t.scatter(x, 0, i, s, reduce="add", out=o), t.float32),
        "scatter value reduce": (lambda o: t.scatter(x, 0, i, 2.0, reduce="multiply", out=o), t.float32),
        "scatter_add": (lambda o: t.scatter_add(x, 0, i, s, out=o), t.float32),
        "scatter_reduce": (lambda o: t.scatter_reduce(x, 0, i, s, "amax", include_self=False, out=o), t.float32),
        "take": (lambda o: t.take(b, t.tensor([2, 0]), out=o), t.float32),
        "searchsorted": (lambda o: t.searchsorted(b, t.tensor([1.5, 9.0]), out=o), t.int64),
        "searchsorted int32": (lambda o: t.searchsorted(b, t.tensor([1.5]), out_int32=True, out=o), t.int32),
        "searchsorted number": (lambda o: t.searchsorted(b, 2.5, out=o), t.int64),
        "bucketize": (lambda o: t.bucketize(t.tensor([0.5, 2.0]), b, right=True, out=o), t.int64),
        "bucketize int32": (lambda o: t.bucketize(t.tensor([0.5, 2.0]), b, out_int32=True, out=o), t.int32),
    }


NAMES = sorted(calls(torch))


def outcome(lib, name, dtype_name, size):
    fn, _ = calls(lib)[name]
    out = lib.full((size,), 7, dtype=getattr(lib, dtype_name))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = fn(out)
        except RuntimeError as e:
            return "error", str(e).split(" but ")[0]
    assert r is out or r.data_ptr() == out.data_ptr()
    resized = sum("resized" in str(w.message) for w in caught)
    return np.array(out.tolist()).tolist(), str(out.dtype).split(".")[-1], resized


@pytest.mark.parametrize("name", NAMES)
def test_the_result_dtype_is_written_as_torch(tcore, name):
    dtype = str(calls(torch)[name][1]).split(".")[-1]
    for size in (0, 2, 3, 5):  # empty: resized silently; another size: resized with a warning
        assert outcome(tcore, name, dtype, size) == outcome(torch, name, dtype, size)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float64", "int64", "int32", "float16"])
def test_another_dtype_is_refused_as_torch(tcore, name, dtype):
    want = outcome(torch, name, dtype, 0)
    got = outcome(tcore, name, dtype, 0)
    assert got[0] == want[0]
    if want[0] == "error" and name.startswith("scatter"):  # their structured kernels' message, as the generated ones'
        assert got[1].split("dtype")[0] == want[1].split("dtype")[0]


def test_a_refused_out_keeps_its_shape(tcore):
    out = tcore.zeros(5, dtype=tcore.float64)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float32, but got float64 instead"):
        tcore.take(tcore.tensor([1.0, 2.0]), tcore.tensor([0]), out=out)
    assert out.shape == (5,)


def _probe(lib, ops, name, arguments, dtype):
    """lib's outcome of the out= overload `name` with outs of `dtype`: "ok", "refused" (a dtype
    error), or None where the call fails for another reason (a sample argument it cannot take)."""
    from test_boxed import _value  # the registry sweep's sample arguments

    rng = np.random.default_rng(0)
    given = {}
    for arg, type_, has_default, write, _ in arguments:
        if write and type_.startswith("Tensor("):
            given[arg] = lib.empty(0, dtype=getattr(lib, dtype))
            continue
        v = _value(lib, name, arg, type_, rng)
        if v is not None or not has_default:
            given[arg] = v
    base, _, overload = name.partition(".")
    op = getattr(getattr(ops, base), overload)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            op(**given)
    except Exception as e:  # noqa: BLE001 - torch's ops raise RuntimeError, TypeError, NotImplementedError
        text = str(e).split("\n")[0]
        dtype_error = re.search(r"dtype|scalar type|cast|[Ee]xpected out|support non-boolean|supports bool|"
                                r"expects Long|Found dtype|Expected .*type for result", text)
        return "refused" if dtype_error else None
    return "ok"


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_every_generated_out_overload_takes_the_dtypes_torch_takes(tcore, dtype):
    generated = {n: a for n, _, a, _ in tcore._C._boxed_operators() if n in GENERATED_OUTS}
    compared, differ = 0, []
    for name, arguments in sorted(generated.items()):
        base, _, overload = name.partition(".")
        if base.startswith(("rand", "_foreach", "normal", "bernoulli", "multinomial")):
            continue  # random: their draws differ, not their dtype rules
        if not hasattr(getattr(torch.ops.aten, base, None), overload):
            continue
        if name == "linspace.out" and dtype == "bool":
            continue  # torch writes a one-step bool linspace, refuses longer ones; tcore refuses all
        if name == "_logcumsumexp.out":
            continue  # torch's internal kernel writes into an out of any dtype unchecked; logcumsumexp.out checks
        want = _probe(torch, torch.ops.aten, name, arguments, dtype)
        if want is None:
            continue
        tcore.manual_seed(0)
        got = _probe(tcore, tcore.ops, name, arguments, dtype)
        compared += 1
        if got != want:
            differ.append((name, got, want))
    assert compared > 100 and not differ, differ


def test_the_inputs_errors_come_before_the_out_dtype(tcore):
    for lib in (torch, tcore):
        with pytest.raises(RuntimeError, match="[Ii]ndex"):
            lib.scatter_add(lib.zeros(3), 0, lib.tensor([0.0]), lib.ones(1), out=lib.empty(0, dtype=lib.float64))
        with pytest.raises(RuntimeError, match="right"):
            lib.searchsorted(lib.tensor([1.0]), lib.tensor([1.0]), side="left", right=True,
                             out=lib.empty(0, dtype=lib.float64))


def test_out_that_requires_grad_is_refused(tcore):
    for lib in (torch, tcore):
        with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
            lib.scatter_add(lib.zeros(3, requires_grad=True), 0, lib.tensor([0]), lib.ones(1), out=lib.empty(3))
