"""derivatives.yaml / deprecated.yaml: PyTorch's entries parse and check; bad
formulas and entries are errors with file:line:col."""
from __future__ import annotations

import pytest

from codegen.derivatives import check_against, load_deprecated, load_derivatives
from codegen.errors import SourceError
from codegen.load import load_operator_set

NATIVE = """\
- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
- func: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
"""
TAGS = "- tag: core\n  desc: x\n"


@pytest.fixture()
def opset(tmp_path):
    (tmp_path / "n.yaml").write_text(NATIVE)
    (tmp_path / "t.yaml").write_text(TAGS)
    return load_operator_set(str(tmp_path / "n.yaml"), str(tmp_path / "t.yaml"))


def load(tmp_path, text):
    p = tmp_path / "derivatives.yaml"
    p.write_text(text)
    return load_derivatives(str(p))


def test_good_entries(tmp_path, opset):
    ds = load(tmp_path, """\
- name: mul.Tensor(Tensor self, Tensor other) -> Tensor
  self: mul_tensor_backward(grad, other, self.scalar_type())
  other: grad * self
  result: other_t * self_p + self_t * other_p

- name: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
  self: value_selecting_reduction_backward(grad, dim, indices, self.sizes(), keepdim)
  values: gather_with_keepdimed_indices(self_t, dim, indices, keepdim)
  output_differentiability: [True, False]
""")
    assert [f.inputs for f in ds[0].backward] == [("self",), ("other",)]
    assert [f.inputs for f in ds[1].forward] == [("values",)]
    check_against(ds, opset.lookup())


@pytest.mark.parametrize("text,message,line,col", [
    ("- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  selff: grad * other\n",
     "'selff' is not an input", 2, 3),
    ("- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  self: grad * otherr\n",
     "'otherr'", 2, 16),
    ("- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  self: grads[1] * other\n",
     "grads[1]", 2, 9),
    ("- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  self, other: grad\n  output_differentiability: [True, False]\n",
     "2 entries for 1 outputs", 3, 29),
    ("- name: mul.Tensor(Tensor self, Tensr other) -> Tensor\n  self: grad\n", "unknown type 'Tensr'", 1, 33),
])
def test_bad_entries(tmp_path, text, message, line, col):
    with pytest.raises(SourceError) as info:
        load(tmp_path, text)
    err = info.value
    assert message in err.message
    assert (err.location.line, err.location.col) == (line, col), str(err)
    assert "^" in str(err)


def test_entry_for_unknown_operator(tmp_path, opset):
    ds = load(tmp_path, "- name: div.Tensor(Tensor self, Tensor other) -> Tensor\n  self: grad / other\n")
    with pytest.raises(SourceError, match="not in native_functions.yaml") as info:
        check_against(ds, opset.lookup())
    assert info.value.location.line == 1


def test_pytorch_derivatives(pytorch_dir):
    ds = load_derivatives(str(pytorch_dir / "derivatives.yaml"))
    assert len(ds) >= 680
    opset = load_operator_set(str(pytorch_dir / "native_functions.yaml"), str(pytorch_dir / "tags.yaml"))
    check_against(ds, opset.lookup(), opset.autogen_names())
    grouped = [f for d in ds for f in d.backward if len(f.inputs) > 1]
    assert grouped, "PyTorch uses grouped inputs such as 'self, other:'"
    deprecated = load_deprecated(str(pytorch_dir / "deprecated.yaml"))
    assert len(deprecated) >= 40
    assert deprecated[0].call.startswith("add(")


def test_parse_cache_is_keyed_by_the_bytes(tmp_path, monkeypatch):
    """With a cache folder the second load parses nothing; an edit (here, an entry inserted above,
    which moves the other's line) parses again with the new positions; a torn cache file is a
    cold cache; a bad entry is still an error at its place, and leaves no cache behind."""
    from codegen import derivatives as mod

    cache = tmp_path / "cache"
    path = tmp_path / "derivatives.yaml"
    mul = "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  self: grad * other\n"
    path.write_text(mul)
    first = mod.load_derivatives(str(path), str(cache))
    (stored,) = cache.glob("derivatives-*.pickle")

    def no_parse(entry):
        raise AssertionError("parsed although cached")

    monkeypatch.setattr(mod, "parse_derivative", no_parse)
    assert mod.load_derivatives(str(path), str(cache)) == first
    monkeypatch.undo()
    path.write_text("- name: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)\n"
                    "  self: grad\n\n" + mul)
    second = mod.load_derivatives(str(path), str(cache))
    assert [d.line for d in second] == [1, 4] and first[0].line == 1
    assert len(list(cache.glob("derivatives-*.pickle"))) == 1 and not stored.exists()  # the old one replaced
    (new,) = cache.glob("derivatives-*.pickle")
    new.write_bytes(b"\x80\x05torn")
    assert mod.load_derivatives(str(path), str(cache)) == second
    path.write_text(mul.replace("grad * other", "grad * otherr"))
    with pytest.raises(SourceError, match="otherr"):
        mod.load_derivatives(str(path), str(cache))
