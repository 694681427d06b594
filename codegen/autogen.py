"""`autogen:` out= overloads, as PyTorch generates them.

An entry may list out= overloads of itself that native_functions.yaml does not spell out:

    - func: cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
      autogen: cumsum.out

The out= schema is the entry's with its outputs appended as keyword-only `Tensor(a!) out`
(`out0, out1...` for several returns, `Tensor(a!)[] out` for a list) and a factory's dtype,
layout, device and pin_memory taken from the out tensor, as torchgen writes them (a test
compares every one generated from PyTorch's YAML with torchgen's), and its kernel, generated
into the CompositeExplicitAutograd registrations, calls the entry (a functional operator) or a
clone of `self` given to it (an in-place one), checks each out's dtype and device, resizes it as
PyTorch does (silently when empty, with a UserWarning otherwise) and copies the result into it.
An out of another dtype is refused, as PyTorch's generated kernels refuse it, except for the
overloads in CASTING_OUTS. The generated entries join the operator set at load time, so bindings, stubs, the
dispatcher, unboxing and tracing treat them as any other out= overload.

A mutating entry's autogen may also name its functional form, which PyTorch generates for
functionalization (41 in its YAML): `zero_` -> `zero`, `_fused_adam_` -> `_fused_adam`, a
mutable entry `rrelu_with_noise` -> `rrelu_with_noise_functional`. Its schema has the entry's
arguments without annotations and returns the entry's returns (annotations dropped) followed by
each mutated argument not already returned as `NAME_out` (torchgen's FunctionSchema.signature);
its kernel clones the mutated arguments, runs the entry on the clones and returns them.
"""
from __future__ import annotations

import re
from dataclasses import replace

from .api.cpp import cpp_ident
from .model import NativeFunction
from .schema import BaseType, OperatorName, SchemaError, is_tensor_like, parse_schema

# The key whose registrations hold the generated kernels, and the kernel name their dispatch
# entry carries (no source defines it: the Register shard does).
AUTOGEN_KEY = "CompositeExplicitAutograd"
AUTOGEN_KERNEL = "<autogen>"
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
# The out= overloads tcore generates where PyTorch writes its own kernel, one that casts the result
# into an out of another dtype the result type can be cast to (TensorIterator's rule: a float
# result into a float64 out, not into an int32 one); every other generated out= overload refuses
# an out of another dtype, as PyTorch's generated kernels do (tests/test_autogen.py compares each
# with PyTorch's). A factory's out needs no entry: its dtype is the result's.
CASTING_OUTS = frozenset("""
    addcdiv.out addcmul.out clamp.Tensor_out clamp_max.Tensor_out clamp_min.Tensor_out column_stack.out
    copysign.Scalar_out deg2rad.out diff.out dstack.out floor_divide.out fmax.out fmin.out fmod.Scalar_out
    hstack.out kron.out logaddexp.out logaddexp2.out logit.out logsumexp.out max.out max.unary_out
    mean.dtype_out min.out min.unary_out mse_loss.out mvlgamma.out nanmean.out nansum.out outer.out
    pow.Tensor_Scalar_out remainder.Scalar_out sinc.out square.out std.correction_out std.out true_divide.out
    var.correction_out var.out vstack.out
    linalg_pinv.atol_rtol_tensor_out linalg_pinv.atol_rtol_float_out linalg_pinv.out linalg_pinv.out_rcond_tensor
    linalg_matrix_rank.atol_rtol_tensor_out linalg_matrix_rank.atol_rtol_float_out linalg_matrix_rank.out
    linalg_matrix_rank.out_tol_tensor cholesky_inverse.out cholesky_solve.out linalg_cond.out linalg_cond.p_str_out
    linalg_matrix_power.out linalg_tensorinv.out linalg_tensorsolve.out matrix_power.out addr.out ger.out
    linalg_householder_product.out orgqr.out special_i0.out
    special_digamma.out special_erf.out special_exp2.out special_expit.out special_expm1.out
    special_gammaln.out special_log1p.out special_logit.out special_logsumexp.out special_multigammaln.out
    special_entr.out special_erfc.out special_erfinv.out special_ndtr.out special_sinc.out special_xlog1py.out
    special_polygamma.out special_psi.out
    bitwise_and.Scalar_out bitwise_or.Scalar_out bitwise_xor.Scalar_out bitwise_left_shift.Tensor_Scalar_out
    bitwise_right_shift.Tensor_Scalar_out ldexp.out
    eq.Scalar_out ne.Scalar_out lt.Scalar_out le.Scalar_out gt.Scalar_out ge.Scalar_out
    xlogy.OutTensor xlogy.OutScalar_Self xlogy.OutScalar_Other special_xlogy.out special_xlogy.self_scalar_out
    special_xlogy.other_scalar_out threshold.out
""".split())
# A factory's TensorOptions arguments, which its out= overload takes from the out tensor instead
# (torchgen's Arguments.tensor_options): keyword-only, consecutive, in this order.
TENSOR_OPTIONS = ("dtype", "layout", "device", "pin_memory")
# What a generated kernel passes for each of them (translate.py's rule: the out tensor's dtype and
# device; tcore tensors are all strided; pin_memory does not matter for an existing out).
OPTION_FROM_OUT = {"dtype": "{out}.dtype()", "layout": "::std::nullopt", "device": "{out}.device()",
                   "pin_memory": "::std::nullopt"}


def is_out_name(name: OperatorName) -> bool:
    """How PyTorch tells an out= overload among a mutating entry's autogen names (a functional
    entry's are all out= overloads: sort.values, threshold_backward.grad_input)."""
    return name.overload.endswith("out")


def is_generated(f: NativeFunction) -> bool:
    return f.autogen_from is not None


def is_inplace_name(name: OperatorName) -> bool:
    """add_, and PyTorch's in-place dunders (__iand__, __ilshift__)."""
    return name.inplace or (name.name.startswith("__i") and name.name.endswith("__"))


def _functional_base(name: OperatorName) -> str:
    if name.name.startswith("__i") and name.name.endswith("__"):
        return "__" + name.name[3:]
    return name.base


def tensor_options(func) -> range:
    """The indices of func's TensorOptions arguments (empty when it has none)."""
    names = [a.name for a in func.arguments]
    for i in range(len(names) - len(TENSOR_OPTIONS) + 1):
        if tuple(names[i:i + len(TENSOR_OPTIONS)]) == TENSOR_OPTIONS and (
                func.kwarg_only_start is not None and i >= func.kwarg_only_start):
            return range(i, i + len(TENSOR_OPTIONS))
    return range(0)


def entry_call(f: NativeFunction, value_of) -> list[str]:
    """The arguments a generated out= overload f passes to the entry it was generated from:
    value_of(argument) for each of the entry's own, a factory's options from f's first out."""
    options = tensor_options(f.autogen_from)
    first_out = cpp_ident(f.func.out_arguments[0].name)
    return [OPTION_FROM_OUT[a.name].format(out=first_out) if i in options else value_of(a)
            for i, a in enumerate(f.autogen_from.arguments)]


def _annotated(t, letter: str) -> str:
    """Type t written with the write annotation (letter!) after its base: Tensor(a!)[], Tensor(b!)?."""
    text = str(t)
    return f"Tensor({letter}!){text[len('Tensor'):]}"


def _returns_text(rets: list[str], as_tuple: bool) -> str:
    return rets[0] if len(rets) == 1 and not as_tuple else f"({', '.join(rets)})"


def _out_schema_text(f: NativeFunction, name: OperatorName) -> str:
    """PyTorch's rules (torchgen's functional_to_out_signature, self_to_out_signature): a
    functional entry gets one out per Tensor-like return (`out`, or `out<i>` for return i of
    several), returned when every return is a plain Tensor; an in-place one gets `self` without
    its annotation and an `out` that takes it over."""
    func = f.func
    args = [str(a) for a in func.arguments]
    if is_inplace_name(func.name):
        idx = next((i for i, a in enumerate(func.arguments) if a.name == "self" and a.is_write), None)
        if idx is None:
            raise f.error(f"autogen {str(name)!r}: an in-place entry needs a mutable self", "autogen")
        self_arg = func.arguments[idx]
        args[idx] = f"{self_arg.type} self" + ("" if self_arg.default is None else f"={self_arg.default}")
        outs = [f"{self_arg.type_str()} out"]
        rets = _returns_text([str(r) for r in func.returns], func.returns_tuple) if func.returns else "()"
    else:
        if not any(is_tensor_like(r.type) for r in func.returns):
            raise f.error(f"autogen {str(name)!r}: an out= overload needs a Tensor return (this entry returns "
                          f"{', '.join(str(r) for r in func.returns) or 'nothing'})", "autogen")
        used = {c for a in func.arguments if a.annotation is not None for c in re.findall(r"[a-z]", str(a.annotation))}
        letters = [c for c in _LETTERS if c not in used]
        plain = all(r.type == BaseType("Tensor") for r in func.returns)
        outs, new_rets = [], []
        for i, r in enumerate(func.returns):
            if is_tensor_like(r.type):
                outs.append(f"{_annotated(r.type, letters[i])} {'out' if len(func.returns) == 1 else f'out{i}'}")
                if plain:
                    new_rets.append(f"Tensor({letters[i]}!)")
            else:
                new_rets.append(str(r))
        rets = _returns_text(new_rets, func.returns_tuple) if new_rets else "()"
    options = tensor_options(func)
    if func.kwarg_only_start is None:
        parts = args + ["*"] + outs
    else:
        kwargs = [a for i, a in enumerate(args) if i >= func.kwarg_only_start and i not in options]
        parts = args[:func.kwarg_only_start] + ["*"] + kwargs + outs
    return f"{name}({', '.join(parts)}) -> {rets}"


def is_mutating(func) -> bool:
    return is_inplace_name(func.name) or any(a.is_write for a in func.arguments)


def functional_name(func) -> OperatorName:
    """The name of a mutating entry's functional form: add_.Tensor -> add.Tensor, __iand__.Scalar
    -> __and__.Scalar, a mutable (not in-place, not out=) entry X.ov -> X_functional.ov."""
    if is_inplace_name(func.name):
        return OperatorName(_functional_base(func.name), func.name.overload)
    return OperatorName(f"{func.name.name}_functional", func.name.overload)


def _functional_schema_text(f: NativeFunction, name: OperatorName) -> str:
    func = f.func
    if tensor_options(func):
        raise f.error(f"autogen {str(name)!r}: a mutating factory has no functional form", "autogen")

    def plain(a) -> str:
        return f"{a.type} {a.name}" + ("" if a.default is None else f"={a.default}")

    args = [plain(a) for a in func.arguments]
    if func.kwarg_only_start is not None:
        args.insert(func.kwarg_only_start, "*")
    rets = [f"{r.type}" + (f" {r.name}" if r.name else "") for r in func.returns]
    rets += [f"{a.type} {a.name}_out" for a in mutated_outputs(func)]
    return f"{name}({', '.join(args)}) -> {_returns_text(rets, len(rets) > 1) if rets else '()'}"


def mutated_outputs(func) -> list:
    """The mutated arguments a mutating entry's functional form returns after the entry's own
    results (as `NAME_out`): those no return of the entry aliases, in argument order."""
    returned = {r.annotation.alias_set for r in func.returns if r.annotation is not None}
    return [a for a in func.arguments if a.is_write and a.annotation.alias_set not in returned]


def _generated(f: NativeFunction, name: OperatorName, text: str) -> NativeFunction:
    """The overload `name` with schema `text`, generated from entry f (a kernel of AUTOGEN_KEY)."""
    try:
        schema = parse_schema(text)
    except SchemaError as e:  # an entry's own schema always parses; this is a generator bug
        raise f.error(f"autogen {str(name)!r}: cannot build its schema {text!r}: {e}", "autogen") from None
    return replace(f, func=schema, variants=frozenset({"function"}), dispatch=((AUTOGEN_KEY, AUTOGEN_KERNEL),),
                   autogen=(), autogen_from=f.func, structured=False, structured_delegate=None,
                   python_module=f.python_module, manual_kernel_registration=False, has_explicit_dispatch=True)


def out_variants(f: NativeFunction) -> tuple[NativeFunction, ...]:
    """The overloads f's `autogen:` names (out= ones, and a mutating entry's functional form), as
    NativeFunctions of their own (pointing at f's entry for errors)."""
    made = []
    mutating = is_mutating(f.func)
    for name in f.autogen:
        if f.func.kind == "out":
            raise f.error(f"autogen {str(name)!r}: an out= overload generates nothing (list its out= overloads "
                          "and functional form on the functional or mutating entry)", "autogen")
        if mutating and not is_out_name(name):  # the functional form of a mutating entry
            want = functional_name(f.func)
            if name != want:
                raise f.error(f"autogen {str(name)!r}: the functional form of {str(f.func.name)!r} is {str(want)!r}",
                              "autogen")
            made.append(_generated(f, name, _functional_schema_text(f, name)))
            continue
        want_base = _functional_base(f.func.name)
        if name.name != want_base:
            raise f.error(f"autogen {str(name)!r} is not an overload of {want_base!r}", "autogen")
        made.append(_generated(f, name, _out_schema_text(f, name)))
    return tuple(made)
