"""derivatives.yaml formulas in PyTorch's dialect (Tensor methods, C++ operators, SymInt spellings)
become tcore's C++ API (codegen/formula.py): the exact rewrites, the tables checked against the C++
headers they describe, and an operator whose formulas are written as PyTorch writes them compiles
through the generator."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from codegen import formula

ROOT = Path(__file__).resolve().parent.parent
HEADERS = ROOT / "csrc/include/tcore/core"

REWRITES = [
    ("grad.mul(other).conj()", "conj(mul(grad, other))"),
    ("std::get<0>(r).sum(dims)", "sum(std::get<0>(r), dims)"),
    ("-grad * (result * result).conj()", "-grad * conj((result * result))"),
    ("grad.expand_symint(self.sym_sizes())", "expand(grad, self.sizes())"),
    ("at::zeros_symint(self.sym_sizes(), grad.options())", "tcore::zeros(self.sizes(), options(grad))"),
    ("self.size(0) > 1 ? grad.sum(0) : grad", "self.size(0) > 1 ? sum(grad, 0) : grad"),
    ("grads[0].sum()", "sum(grads[0])"),
    ("grad.clone().masked_fill_(mask, 0)", "masked_fill_(clone(grad), mask, 0)"),
    ("self.sgn().conj() * other.sym_size(-1)", "conj(sgn(self)) * other.size(-1)"),
    ('x.to("a.b(c)")', 'to(x, "a.b(c)")'),  # brackets in strings do not count
    ("dim.has_value() ? grad.unsqueeze(dim.value()) : grad", "dim.has_value() ? unsqueeze(grad, dim.value()) : grad"),
    ("alpha.toDouble() * self.sizes().vec().size()", "alpha.to_double() * self.sizes().vec().size()"),
    ("at::where(self > other, grad, other.new_zeros_symint({}))", "tcore::where(self > other, grad, new_zeros(other, {}))"),
    ("c10::at::x(1) + std::get<1>(cat::at::y)", "c10::at::x(1) + std::get<1>(cat::at::y)"),
    ("f(bias->sym_sizes(), std::vector<c10::SymInt>(n, 0), p->other())",
     "f(bias.sizes(), std::vector<int64_t>(n, 0), p->other())"),
    ("mul(grad, self)", "mul(grad, self)"),  # tcore's own style is left as it is
    # malformed or odd text is left as it is (the compile reports it) or rewritten whole
    ("grad.mul(other", "grad.mul(other"),
    ("x).sum()", "x).sum()"),
    (".sum()", ".sum()"),
    ('f("x.y(").g()', 'g(f("x.y("))'),
    ("a /* x.y() */ .z()", "z(a /* x.y() */)"),
    ("(((x))).neg().neg()", "neg(neg((((x)))))"),
    ("self.scalar_type() == other.dtype() && self.dim() == 0", "self.scalar_type() == other.dtype() && self.dim() == 0"),
]


@pytest.mark.parametrize("text,expected", REWRITES)
def test_rewrite(text, expected):
    assert formula.to_cpp(text) == expected


def test_kept_methods_are_tensor_members():
    body = (HEADERS / "Tensor.h").read_text()
    body = body[body.index("class TCORE_API Tensor {"):]
    for name in formula.TENSOR_METHODS:
        assert re.search(rf"\b{name}\s*\(", body), name
    assert not formula.TENSOR_METHODS & formula.VALUE_METHODS - {"size"}
    scalar = (HEADERS / "Scalar.h").read_text()
    for name in set(formula.SCALAR_METHODS.values()) | {"to_double", "to_long", "is_bool"}:
        assert re.search(rf"\b{name}\(\) const", scalar), name
    assert set(formula.SYM_METHODS.values()) <= formula.TENSOR_METHODS


def test_operator_table_matches_the_header():
    """Every operator TensorOperators.h defines, with each function it calls, is in OPERATORS."""
    text = (HEADERS / "TensorOperators.h").read_text()
    defined: dict[str, set[str]] = {}
    for m in re.finditer(r"^TCORE_\w+\(([^,]+), (\w+)(?:, (\w+))?\)", text, re.M):
        defined.setdefault(m.group(1).strip(), set()).update(x for x in m.groups()[1:] if x)
    for m in re.finditer(r"operator(\S+)\(const (?:T|Scalar)& a(?:, const T& b)?\) \{ return (.*?); \}", text):
        defined.setdefault(m.group(1), set()).update(re.findall(r"(\w+)\(", m.group(2)))
    assert set(defined) == set(formula.OPERATORS), set(defined) ^ set(formula.OPERATORS)
    for op, calls in defined.items():
        assert calls <= set(formula.OPERATORS[op]), (op, calls)
    assert formula.operator_calls("grad * other - 2 && x->y") == {"mul", "sub", "add", "neg"}


def test_pytorch_dialect_formulas_compile(tmp_path):
    """An operator whose backward and forward formulas use Tensor methods, operators, SymInt
    spellings and a method chain compiles through the generated autograd shard."""
    from test_generated_names import _syntax_check, generate_with

    schema = "pt_dialect(Tensor self, Tensor other, float alpha=1) -> Tensor"
    functions = f"""
- func: {schema}
  variants: function
  dispatch:
    CompositeExplicitAutograd: pt_dialect
"""
    derivatives = f"""
- name: {schema}
  self: grad.mul(other.sign()).sum_to_size_symint(self.sym_sizes()) * alpha + 2 * grad.neg()
  other: (grad / other).exp().mul(self.sym_size(0)) - grad.clone() * (-2.0 / sqrt(M_PI) * exp(-alpha))
  result: self_t.mul(other_p) + (self_p * other_t).neg() / 2
"""
    out = generate_with(tmp_path, functions, derivatives)
    shard = next(p for p in (out / "autograd").glob("*.cpp") if "pt_dialect" in p.read_text())
    text = shard.read_text()
    assert "mul(grad, sign(other))" in text and "neg(grad)" in text
    failures = _syntax_check(out, [shard])
    assert not failures, "\n\n".join(failures)
