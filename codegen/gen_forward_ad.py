"""Forward-mode AD in the generated autograd kernels, from the `result:` formulas of
derivatives.yaml (PyTorch's language):

* `auto_element_wise`: the operator's Jacobian is diagonal (or symmetric), so the tangent is
  the backward formulas with `grad` replaced by each input's tangent, summed over the inputs
  that have one;
* `auto_linear`: the operator is linear in its differentiable inputs, so the tangent is the
  operator itself applied to their tangents (zeros for the inputs without one);
* anything else is a C++ expression over the inputs (`self`, `self_p`), their tangents
  (`self_t`) and the outputs (`result`, or the outputs' names).

An operator with backward formulas but no forward formula raises a clear error when a
tangent reaches it, never a silent zero. Returns lines of C++ the kernel template places:
`pre` before the call (an in-place operation's original self), `body` after it.
"""
from __future__ import annotations

import re

from .api import cpp
from .derivatives import Derivative
from .formula import spelled
from .model import NativeFunction
from .schema import Argument, ListType, OptionalType, is_tensor_like

_GRAD = re.compile(r"(?<![\w.:>])grad(?!\w)")


def _word(name: str) -> re.Pattern:
    return re.compile(rf"(?<![\w.:>]){re.escape(name)}(?!\w)")


def _inputs(f: NativeFunction) -> list[Argument]:
    return [a for a in f.func.arguments if is_tensor_like(a.type) and not (f.func.is_out_fn and a.is_write)]


_ELEMENT = re.compile(r"\[\s*i\s*\]")  # a foreach formula's subscript: element i


def is_foreach(f: NativeFunction, d: Derivative, inplace: bool) -> bool:
    """A foreach operator's derivative: formulas of element i (`grads[i]`, `self[i]`, `result[i]`),
    or an in-place operator on a list (`_foreach_div_.List(Tensor(a!)[] self, ...)`)."""
    return (any(_ELEMENT.search(x.text) for x in [*d.forward, *d.backward])
            or (inplace and bool(f.func.arguments) and isinstance(f.func.arguments[0].type, ListType)))


def check_expr(f: NativeFunction) -> str:
    """C++: does an input carry a tangent?"""
    parts = [f"detail::has_fw_grad({cpp.cpp_ident(a.name)})" for a in _inputs(f)]
    return " || ".join(parts) or "false"


def _tangent_decl(a: Argument, materialize: bool) -> str:
    name = cpp.cpp_ident(a.name)
    if isinstance(a.type, ListType):
        return f"const std::vector<Tensor> {name}_t = fw_grads_or_zeros({name});"
    if isinstance(a.type, OptionalType):
        get = "fw_grad_or_zeros" if materialize else "fw_grad"
        return f"const Tensor {name}_t = {name} ? {get}(*{name}) : Tensor();"
    return f"const Tensor {name}_t = {'fw_grad_or_zeros' if materialize else 'fw_grad'}({name});"


def _linear_arg(a: Argument, differentiable: set[str]) -> str:
    """auto_linear's argument: the tangent of a differentiable input, any other as it is (index's
    integer `indices`)."""
    name = cpp.cpp_ident(a.name)
    if not is_tensor_like(a.type) or a.name not in differentiable:
        return name
    if isinstance(a.type, ListType):
        return f"fw_tangent_args({name})"
    if isinstance(a.type, OptionalType):
        return f"({name} ? ::std::optional<Tensor>(fw_tangent_arg(*{name})) : ::std::optional<Tensor>())"
    return f"fw_tangent_arg({name})"


def _outputs(f: NativeFunction) -> dict[str, str]:
    """output name -> the C++ expression of that output in the kernel (`result` holds them)."""
    rets = f.func.returns
    if len(rets) == 1 and not f.func.returns_tuple:
        names = {"result": "result", "result0": "result"}
        if rets[0].name:
            names[rets[0].name] = "result"
        return names
    out = {}
    for i, r in enumerate(rets):
        out[f"result{i}"] = f"std::get<{i}>(result)"
        if r.name:
            out[r.name] = f"std::get<{i}>(result)"
    return out


def forward_code(f: NativeFunction, d: Derivative, inplace: bool) -> dict:
    op = str(f.func.name)
    if not d.forward:
        return dict(pre=[], body=[f'fw_not_implemented("{op}");'])
    outputs = _outputs(f)
    list_return = len(f.func.returns) == 1 and isinstance(f.func.returns[0].type, ListType)
    inputs = _inputs(f)
    arg_names = [a.name for a in f.func.arguments]
    pre: list[str] = []
    body: list[str] = []
    uses_original = False
    foreach = is_foreach(f, d, inplace)  # its formula is element i's (`self_p`, `self_t`, `result[i]`)
    # an output that is no view of an input gets a tangent of its own: a formula giving an input's
    # tangent as it is (the identity's `grad` -> `self_t`) is copied, or writing the output in place
    # would write the input's tangent too (y = x + 1; y.mul_(3) changed x's)
    view = any(r.annotation is not None and not r.annotation.is_write for r in f.func.returns)

    def own(expr: str) -> str:
        bare = re.fullmatch(r"\s*(\w+_t)\s*", expr)
        return f"tcore::clone({bare.group(1)})" if bare and not view else expr

    def setter(target: str, value: str) -> str:
        if list_return:
            return f"set_fw_grads({target}, {value});"
        if inplace and target == "result":
            return f"set_fw_grad_inplace(result, {value});"
        return f"set_fw_grad({target}, {value});"

    for formula in d.forward:
        target = outputs.get(formula.inputs[0], "result")
        text = formula.text.strip()
        if text == "auto_element_wise":
            body.append("{")
            body.append("  Tensor tangent;")
            for x in d.backward:
                arg = next((a for a in inputs if a.name == x.inputs[0]), None)
                if arg is None or len(x.inputs) != 1:
                    continue
                name = cpp.cpp_ident(arg.name)
                expr = _GRAD.sub(f"{name}_t", spelled(x.text, arg_names))
                if inplace and _word("self").search(expr):
                    expr = _word("self").sub("original_self_p", expr)
                    uses_original = True
                body.append(f"  if (const Tensor {name}_t = fw_grad({name}); {name}_t.defined()) "
                            f"tangent = fw_accumulate(tangent, {own(expr)});")
            body.append(f"  {setter(target, 'tangent')}")
            body.append("}")
        elif text == "auto_linear":
            with_formula = {n for x in d.backward if x.text.strip() != "non_differentiable" for n in x.inputs}
            call = ", ".join(_linear_arg(a, with_formula) for a in d.schema.arguments)
            body.append(setter(target, f"ops::{cpp.struct_name(d.schema)}::call({call})"))
        elif foreach:
            lines, reads_original = _foreach_forward(spelled(text, arg_names), inputs, inplace)
            body += lines
            uses_original = uses_original or reads_original
        else:
            expr = spelled(text, arg_names)
            decls = []
            for a in inputs:
                name = cpp.cpp_ident(a.name)
                if _word(f"{name}_t").search(expr):
                    decls.append("  " + _tangent_decl(a, materialize=True))
                if _word(f"{name}_p").search(expr):  # an optional's primal: undefined when absent (toNonOptPrimal)
                    primal = f"{name}.value_or(Tensor())" if isinstance(a.type, OptionalType) else name
                    expr = _word(f"{name}_p").sub(primal, expr)
            if inplace and _word("self").search(expr):
                expr = _word("self").sub("original_self_p", expr)
                uses_original = True
            # an in-place formula may name self's value and tangent before the write itself
            uses_original = uses_original or (inplace and bool(_word("original_self_p").search(expr)))
            if inplace and _word("original_self_t").search(expr):
                self_arg = next(a for a in inputs if a.name == "self")
                if not _word("self_t").search(expr):
                    decls.append("  " + _tangent_decl(self_arg, materialize=True))
                decls.append("  const Tensor original_self_t = tcore::clone(self_t);")
            for out_name, cpp_expr in outputs.items():
                if out_name == "result" and cpp_expr != "result":  # an output named result, of several
                    expr = _word("result").sub(cpp_expr, expr)
                elif out_name != "result" and cpp_expr != "result" and _word(out_name).search(expr):
                    decls.append(f"  const Tensor& {out_name} = {cpp_expr};")
            body += ["{", *decls, f"  {setter(target, own(expr))}", "}"]
    if uses_original and foreach:
        pre.append("std::vector<Tensor> original_self_p;")
        pre.append(f"if ({check_expr(f)}) {{")
        pre.append("  AutoDispatchBelowAutograd below;")
        pre.append("  for (const Tensor& s : self) original_self_p.push_back(tcore::clone(s));")
        pre.append("}")
    elif uses_original:
        pre.append("Tensor original_self_p;")
        pre.append(f"if ({check_expr(f)}) {{")
        pre.append("  AutoDispatchBelowAutograd below;")
        pre.append("  original_self_p = tcore::clone(self);")
        pre.append("}")
    return dict(pre=pre, body=body)


def _foreach_forward(expr: str, inputs: list[Argument], inplace: bool) -> tuple[list[str], bool]:
    """A foreach operator's tangents, element by element: `x_t`/`x_p` are element i of a list
    input's tangents/values, `result[i]` the i-th output (self, written, for an in-place one,
    whose `self` is the value before the write). Also: does it read self's values before the write?"""
    decls, loop = [], []
    for a in inputs:
        name = cpp.cpp_ident(a.name)
        listed = isinstance(a.type, ListType)
        if _word(f"{name}_t").search(expr):
            if listed:
                decls.append(f"  const std::vector<Tensor> {name}_t_all = fw_grads_or_zeros({name});")
                loop.append(f"    const Tensor& {name}_t = {name}_t_all[i];")
            else:
                loop.append("    " + _tangent_decl(a, materialize=True))
        original = inplace and name == "self"
        value = ("original_self_p[i]" if original else f"{name}[i]") if listed else name
        expr = _word(f"{name}_p").sub(value, expr)
        if original:
            expr = _word("self").sub("original_self_p", expr)
    reads_original = bool(_word("original_self_p").search(expr))
    if inplace:
        expr = _word("result").sub("self", expr)
        setter = f"set_fw_grad_inplace(self[i], {expr});"
    else:
        setter = f"set_fw_grad(result[i], {expr});"
    return ["{", *decls, f"  for (size_t i = 0; i < {'self' if inplace else 'result'}.size(); ++i) {{", *loop,
            f"    {setter}", "  }", "}"], reads_original


def formula_calls(d: Derivative) -> list[str]:
    """The forward formulas' texts (their called operators need headers)."""
    return [x.text for x in d.forward if x.text.strip() not in ("auto_element_wise", "auto_linear")] + (
        [x.text for x in d.backward] if any(x.text.strip() == "auto_element_wise" for x in d.forward) else [])
