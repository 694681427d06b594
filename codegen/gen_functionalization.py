"""Functionalize kernels (PyTorch's gen_functionalization_type): one per operator, from its
schema's alias annotations, registered under DispatchKey::Functionalize
(tcore/core/FunctionalTensor.h is the runtime they call).

  functional  `add(Tensor self, ...) -> Tensor`: runs on the unwrapped values, wraps the outputs
  view        `select(Tensor(a) self, ...) -> Tensor(a)`: runs on the value, records a ViewMeta
              (replay the view from its base; write a changed view back: REVERSE)
  inplace     `add_(Tensor(a!) self, ...)`: runs the functional twin (`add`), commits its result
  out         `add.out(..., Tensor(a!) out)`: likewise, into each out= argument
  inplace_view `transpose_(Tensor(a!) self, ...)`: the wrapper's view of its storage changes

Anything else (writes without a functional twin, lists of mutated tensors) has no kernel:
calling it while functionalized is a clear error (OperatorEntry::fallback); a
CompositeImplicitAutograd operator has none either and decomposes into ones that do."""
from __future__ import annotations

from . import autogen
from .api import cpp
from .gen_autograd import is_view_op, replay_captures
from .gen_headers import Layout
from .model import NativeFunction
from .schema import BaseType, ListType, OptionalType, is_tensor_like
from .templates import render

# How a changed view `mutated_view` is written back into its base `base_` (the view's other
# arguments as `{name}`): PyTorch's *_scatter operators where the view selects elements, the
# inverse view where it only rearranges them. A view operator not listed (or whose scatter
# operator the operator set lacks) is written back through its geometry: as_strided_scatter
# on a contiguous copy of the base (functionalization::strided_back).
REVERSE = {
    "view": ("functionalization::reshape_back(base_, mutated_view)", ()),
    "alias": ("functionalization::reshape_back(base_, mutated_view)", ()),
    "squeeze": ("functionalization::reshape_back(base_, mutated_view)", ()),
    "squeeze.dim": ("functionalization::reshape_back(base_, mutated_view)", ()),
    "squeeze.dims": ("functionalization::reshape_back(base_, mutated_view)", ()),
    "unsqueeze": ("functionalization::reshape_back(base_, mutated_view)", ()),
    # the bytes seen as the base's dtype again (a changed element size changes the last dim back)
    "view.dtype": ("functionalization::reshape_back(base_, functionalization::views_as_copies() "
                   "? ops::view_copy_dtype::call(mutated_view, base_.dtype()) "
                   ": ops::view_dtype::call(mutated_view, base_.dtype()))", ("view", "view_copy")),
    "transpose.int": ("functionalization::views_as_copies() ? ops::transpose_copy_int::call(mutated_view, {dim0}, {dim1}) "
                      ": ops::transpose_int::call(mutated_view, {dim0}, {dim1})", ("transpose", "transpose_copy")),
    "permute": ("functionalization::views_as_copies() "
                "? ops::permute_copy::call(mutated_view, functionalization::inverse_permutation({dims})) "
                ": ops::permute::call(mutated_view, functionalization::inverse_permutation({dims}))",
                ("permute", "permute_copy")),
    "select.int": ("ops::select_scatter::call(base_, mutated_view, {dim}, {index})", ("select_scatter",)),
    "slice.Tensor": ("ops::slice_scatter::call(base_, mutated_view, {dim}, {start}, {end}, {step})", ("slice_scatter",)),
    "diagonal": ("ops::diagonal_scatter::call(base_, mutated_view, {offset}, {dim1}, {dim2})", ("diagonal_scatter",)),
    "as_strided": ("ops::as_strided_scatter::call(base_, mutated_view, {size}, {stride}, {storage_offset})",
                   ("as_strided_scatter",)),
    "unfold": ('functionalization::strided_back(base_, mutated_view, "unfold", replay)', ()),
    "expand": ('(functionalization::overlapping_write("expand"), Tensor())', ()),
    "split.Tensor": ("functionalization::slice_back(base_, mutated_view, {dim}, static_cast<int64_t>(i) * {split_size})",
                     ()),
    "split_with_sizes": ("functionalization::slice_back(base_, mutated_view, {dim}, "
                         "functionalization::prefix_sum({split_sizes}, i))", ()),
    "unbind.int": ("ops::select_scatter::call(base_, mutated_view, {dim}, static_cast<int64_t>(i))", ("select_scatter",)),
}
# Mutating operators whose functional counterpart has another name or arguments:
# (its ops:: struct, the C++ arguments, the roots it needs).
TWINS = {"zero_": ("fill_Scalar", "{self}, Scalar(0)", ("fill",)),
         "normal_": ("normal_functional", "{self}, {mean}, {std}, {generator}", ("normal_functional",)),
         "normal.out": ("normal_functional", "{self}, {mean}, {std}, {generator}", ("normal_functional",)),
         # factories' out=: the factory with out's dtype and device
         "zeros.out": ("zeros", "{size}, {out}.dtype(), std::nullopt, {out}.device(), std::nullopt", ("zeros",)),
         "ones.out": ("ones", "{size}, {out}.dtype(), std::nullopt, {out}.device(), std::nullopt", ("ones",)),
         "full.out": ("full", "{size}, {fill_value}, {out}.dtype(), std::nullopt, {out}.device(), std::nullopt",
                      ("full",)),
         "empty.out": ("empty_memory_format", "{size}, {out}.dtype(), std::nullopt, {out}.device(), std::nullopt, "
                       "{memory_format}", ("empty",)),
         # an out= form that also writes inputs (the running statistics): the functional form
         # returns the outs' values, then the inputs' new ones
         "_native_batch_norm_legit.out": ("_native_batch_norm_legit_functional",
                                          "{input}, {weight}, {bias}, {running_mean}, {running_var}, {training}, "
                                          "{momentum}, {eps}", ("_native_batch_norm_legit_functional",))}

# The operators the write-backs call (their presence in an operator set decides REVERSE's use).
REVERSE_ROOTS = frozenset([r for _, needs in REVERSE.values() for r in needs] +
                          [r for _, _, needs in TWINS.values() for r in needs])
_GEOMETRY = 'functionalization::strided_back(base_, mutated_view, "{op}", replay)'


def _captures(f: NativeFunction) -> tuple[list[str], list[str]]:
    """(lambda captures, call arguments after the base) replaying view f on another base:
    autograd's (owned copies of shapes and strings), with tensor arguments captured as their
    values (slice_inverse's src, _make_dual's tangent)."""
    captures, call = replay_captures(f)
    for i, a in enumerate(f.func.arguments[1:]):
        if is_tensor_like(a.type):
            name = cpp.cpp_ident(a.name)
            captures[i], call[i] = f"{name}_ = functionalization::unwrap({name})", f"{name}_"
    return captures, call


def _unwrapped(f: NativeFunction) -> dict[str, str]:
    """Schema name -> the C++ expression passing the argument's up-to-date value below."""
    out = {}
    for a in f.func.arguments:
        name = cpp.cpp_ident(a.name)
        out[a.name] = f"functionalization::unwrap({name})" if is_tensor_like(a.type) else name
    return out


def _plain_tensor(t) -> bool:
    return isinstance(t, BaseType) and t.name == "Tensor"


def _types(args) -> list[str]:
    return [str(a.type) for a in args]


def _twin(f: NativeFunction, functions: tuple[NativeFunction, ...], have: set[str]) -> tuple[str, str, tuple] | None:
    """(the ops:: struct of a mutating f's functional counterpart, the C++ arguments it is called
    with, the roots it needs), or None."""
    values = _unwrapped(f)
    if str(f.func.name) in TWINS:
        struct, args, needs = TWINS[str(f.func.name)]
        return (struct, args.format(**values), needs) if set(needs) <= have else None
    inputs = [a for a in f.func.arguments if not (f.func.is_out_fn and a.is_write)]
    candidates = [g for g in functions if not g.func.name.inplace and not g.func.is_out_fn
                  and g.func.name.base == f.func.name.base and _types(g.func.arguments) == _types(inputs)
                  and not any(a.annotation for a in g.func.arguments)]
    # the same overload name first (add_.Tensor -> add.Tensor), else the one with these types
    candidates.sort(key=lambda g: g.func.name.overload != f.func.name.overload)
    if not candidates:
        return None
    return cpp.struct_name(candidates[0].func), ", ".join(values[a.name] for a in inputs), ()


def _reverse(f: NativeFunction, loads: dict[str, str], have: set[str]) -> tuple[str, tuple[str, ...]]:
    """(the write-back expression, the roots it calls)."""
    text, needs = REVERSE.get(str(f.func.name), (None, ()))
    if text is None or not set(needs) <= have:
        return _GEOMETRY.format(op=str(f.func.name)), ()
    return text.format(**loads), needs


def copy_variant(f: NativeFunction) -> tuple[str, str]:
    """(root, ops:: struct) of view f's view_copy operator: select.int -> select_copy.int."""
    root = f"{f.func.name.base}_copy"
    return root, f"{root}_{f.func.name.overload}" if f.func.name.overload else root


def _view_call(g: NativeFunction, have: set[str], first: str, rest: list[str]) -> tuple[str, tuple[str, ...]]:
    """(C++ calling view g on `first` and `rest`, the roots it needs): the view, or while views
    run as copies (remove="mutations_and_views") its view_copy operator; the outputs of a
    multi-output view as the copies of their geometry (functionalization::copies_of)."""
    struct = cpp.struct_name(g.func)
    view_call = f"ops::{struct}::call({', '.join([first] + rest)})"
    copy_root, copy_struct = copy_variant(g)
    if isinstance(g.func.returns[0].type, ListType):
        views = f"[&](const Tensor& base_) {{ return ops::{struct}::call({', '.join(['base_'] + rest)}); }}"
        return f"(functionalization::views_as_copies() ? functionalization::copies_of({first}, {views}) : {view_call})", ()
    if copy_root in have:
        copy_call = f"ops::{copy_struct}::call({', '.join([first] + rest)})"
        return f"(functionalization::views_as_copies() ? {copy_call} : {view_call})", (copy_root,)
    return view_call, ()


def kernel(f: NativeFunction, functions: tuple[NativeFunction, ...], have: set[str]) -> dict | None:
    """The template's view of f's Functionalize kernel, or None when it has none (`have`: the
    REVERSE_ROOTS the operator set has)."""
    if f.is_composite_implicit:
        return None
    args = cpp.dispatcher_args(f.func)
    common = dict(struct=cpp.struct_name(f.func), ret=cpp.return_type(f.func), op=str(f.func.name),
                  params=", ".join(a.decl(False) for a in args), void=not f.func.returns,
                  call=", ".join(_unwrapped(f).values()))
    writes = [a for a in f.func.arguments if a.is_write]
    annotated = writes or any(r.annotation is not None for r in f.func.returns)
    if not annotated:
        return dict(common, kind="functional")
    if autogen.is_generated(f) and f.func.is_out_fn and not autogen.is_inplace_name(f.autogen_from.name):
        return _generated_out(f, common, writes, functions)
    if is_view_op(f):
        captures, call = _captures(f)
        loads = {a.name: c for a, c in zip(f.func.arguments[1:], call)}
        multi = isinstance(f.func.returns[0].type, ListType)
        replay, copy_needs = _view_call(f, have, "base_", call)
        replay += "[i]" if multi else ""
        reverse, needs = _reverse(f, loads, have)
        needs = needs + copy_needs
        common["first_call"] = _view_call(f, have, f"functionalization::unwrap({args[0].name})",
                                          [_unwrapped(f)[a.name] for a in f.func.arguments[1:]])[0]
        return dict(common, kind="view", multi=multi, captures=", ".join(captures + (["i"] if multi else [])),
                    replay=replay, reverse=reverse, needs=needs, uses_replay="replay" in reverse, self=args[0].name)
    if (f.func.name.inplace and not f.func.returns and len(writes) == 1 and writes[0] is f.func.arguments[0]
            and isinstance(writes[0].type, ListType) and _plain_tensor(writes[0].type.elem)):
        # _foreach_add_ (Tensor(a!)[] self): its functional twin's outputs, committed element by element
        found = _twin(f, functions, have)
        twin_f = found and next((g for g in functions if cpp.struct_name(g.func) == found[0]), None)
        if not twin_f or [str(r.type) for r in twin_f.func.returns] != ["Tensor[]"]:
            return None
        twin, twin_call, needs = found
        return dict(common, kind="inplace_list", twin=twin, twin_call=twin_call, needs=needs, resize=False,
                    self=cpp.cpp_ident(writes[0].name))
    if not all(_plain_tensor(a.type) for a in writes):
        return None  # optional outputs, lists written otherwise: no kernel
    if "inplace_view" in f.tags and f.func.name.inplace:
        twin = next((g for g in functions if is_view_op(g) and g.func.name.base == f.func.name.base
                     and _types(g.func.arguments[1:]) == _types(f.func.arguments[1:])), None)
        if twin is None:
            return None
        captures, call = _captures(f)
        loads = {a.name: c for a, c in zip(f.func.arguments[1:], call)}
        reverse, needs = _reverse(twin, loads, have)
        replay, copy_needs = _view_call(twin, have, "base_", call)
        first = _view_call(twin, have, f"functionalization::unwrap({args[0].name})",
                           [_unwrapped(f)[a.name] for a in f.func.arguments[1:]])[0]
        return dict(common, kind="inplace_view", captures=", ".join(captures), replay=replay, first_call=first,
                    reverse=reverse, needs=needs + copy_needs, uses_replay="replay" in reverse, self=args[0].name,
                    multi=False)
    if not autogen.is_inplace_name(f.func.name) and not f.func.is_out_fn:  # a mutable entry (rrelu_with_noise's noise)
        return _mutable(f, common, writes, functions)
    found = _twin(f, functions, have)
    if found is None:
        return None
    twin, twin_call, needs = found
    twin_f = next((g for g in functions if cpp.struct_name(g.func) == twin), None)
    twin_returns = twin_f.func.returns if twin_f is not None else f.func.returns
    if not all(_plain_tensor(r.type) for r in twin_returns):
        return None
    if f.func.name.inplace and writes and writes[0].name == f.func.arguments[0].name and len(twin_returns) == len(writes):
        # add_ (self), _fused_adam_ (self and the moments: the twin returns each new value)
        names = [cpp.cpp_ident(a.name) for a in writes]
        commits = [(n, "result" if len(names) == 1 else f"std::get<{i}>(result)", False) for i, n in enumerate(names)]
        twin_ret = "Tensor" if len(names) == 1 else cpp.return_type(twin_f.func)
        return dict(common, kind="inplace", twin=twin, twin_ret=twin_ret, twin_call=twin_call, needs=needs,
                    commits=commits, returned=names[0])
    # a TWINS entry's functional form (not in this root) returns one value per written argument
    twin_count = len(twin_f.func.returns) if twin_f is not None else len(writes)
    if f.func.is_out_fn and twin_count == len(writes) and len(f.func.out_arguments) == len(f.func.returns):
        # the twin returns the outs' values, then the new values of the inputs it writes (X_functional's)
        outs = [cpp.cpp_ident(a.name) for a in f.func.out_arguments]
        written = [cpp.cpp_ident(a.name) for a in writes if a not in f.func.out_arguments]
        one = len(writes) == 1 and not (twin_f is not None and twin_f.func.returns_tuple)
        commits = [(o, "result" if one else f"std::get<{i}>(result)", True) for i, o in enumerate(outs)]
        commits += [(w, f"std::get<{len(outs) + j}>(result)", False) for j, w in enumerate(written)]
        returned = outs[0] if len(outs) == 1 and not f.func.returns_tuple else f"{common['ret']}({', '.join(outs)})"
        twin_ret = (cpp.return_type(twin_f.func) if twin_f is not None else "Tensor" if len(writes) == 1
                    else f"::std::tuple<{', '.join(['Tensor'] * len(writes))}>")
        return dict(common, kind="out", twin=twin, twin_ret=twin_ret, twin_call=twin_call,
                    commits=commits, returned=returned, needs=needs)
    return None


def _functional_form(entry: NativeFunction | None):
    """The schema of a mutating entry's generated functional form (autogen:), or None."""
    if entry is None or autogen.functional_name(entry.func) not in entry.autogen:
        return None
    return next(g.func for g in autogen.out_variants(entry) if not g.func.is_out_fn)


def _mutable(f: NativeFunction, common: dict, writes, functions) -> dict | None:
    """A mutable entry (not in-place, not out=: rrelu_with_noise mutates its noise): its generated
    functional form (X_functional) runs below, each mutated argument takes its new value (the
    results after the entry's own), and the entry's own results are returned."""
    twin = _functional_form(f)
    if twin is None or not all(_plain_tensor(a.type) for a in writes):
        return None
    mine = f.func.returns
    tail = autogen.mutated_outputs(f.func)
    n = len(twin.returns)
    part = (lambda i: "result") if n == 1 and not twin.returns_tuple else (lambda i: f"std::get<{i}>(result)")
    commits = [(cpp.cpp_ident(a.name), part(len(mine) + j), False) for j, a in enumerate(tail)]
    by_alias = {a.annotation.alias_set: cpp.cpp_ident(a.name) for a in writes}
    values = [by_alias[r.annotation.alias_set] if r.annotation is not None and r.annotation.is_write else part(i)
              for i, r in enumerate(mine)]
    returned = values[0] if len(values) == 1 and not f.func.returns_tuple else (
        f"{common['ret']}({', '.join(values)})" if values else "")
    return dict(common, kind="mutable", twin=twin.name.unambiguous, twin_ret=cpp.return_type(twin),
                twin_call=common["call"], needs=(twin.name.base,), commits=commits, returned=returned)


def _generated_out(f: NativeFunction, common: dict, writes, functions) -> dict | None:
    """An autogen: out= overload: the entry it was generated from, its results committed to the
    outs (a factory's options from the first out, as its generated kernel does). When that entry
    mutates arguments of its own, its functional form runs instead and they are committed too."""
    source = f.autogen_from
    values = _unwrapped(f)
    call = ", ".join(autogen.entry_call(f, lambda a: values[a.name]))
    twin, twin_ret, needs = cpp.struct_name(source), cpp.return_type(source), (source.name.base,)
    mutated = autogen.mutated_outputs(source)
    if any(a.is_write for a in source.arguments):
        functional = _functional_form(next((g for g in functions if g.func == source), None))
        if functional is None or not all(_plain_tensor(a.type) for a in mutated):
            return None
        twin, twin_ret, needs = functional.name.unambiguous, cpp.return_type(functional), (functional.name.base,)
    if len(writes) == 1 and isinstance(writes[0].type, ListType) and _plain_tensor(writes[0].type.elem):
        return dict(common, kind="inplace_list", twin=twin, twin_call=call, needs=needs,
                    self=cpp.cpp_ident(writes[0].name), resize=True)
    if not (all(_plain_tensor(a.type) for a in writes) and all(_plain_tensor(r.type) for r in source.returns)):
        return None
    names = {a.name for a in mutated}
    outs = [cpp.cpp_ident(a.name) for a in writes if a.name not in names]
    one = len(source.returns) == 1 and not source.returns_tuple and not mutated
    commits = [(o, "result" if one else f"std::get<{i}>(result)", True) for i, o in enumerate(outs)]
    commits += [(cpp.cpp_ident(a.name), f"std::get<{len(source.returns) + j}>(result)", False)
                for j, a in enumerate(mutated)]
    returned = outs[0] if len(outs) == 1 and not f.func.returns_tuple else f"{common['ret']}({', '.join(outs)})"
    return dict(common, kind="out", twin=twin, twin_ret=twin_ret, twin_call=call,
                commits=commits, returned=returned, needs=needs)


def have_roots(roots) -> set[str]:
    """The roots whose presence changes what the kernels call: REVERSE's and the view_copy ones."""
    return {r for r in roots if r in REVERSE_ROOTS or r.endswith("_copy")}


def render_functionalization(shard: int, num_shards: int, groups: dict[str, tuple[NativeFunction, ...]],
                             have: set[str], layout: Layout) -> str:
    # `have`: the REVERSE_ROOTS and view_copy roots the operator set has (have_roots)
    per_root = {r: [k for f in fs if (k := kernel(f, fs, have)) is not None] for r, fs in groups.items()}
    kernels = [k for ks in per_root.values() for k in ks]
    roots = {r for r, ks in per_root.items() if ks}
    roots |= {r for k in kernels for r in k.get("needs", ())}
    headers = sorted(layout.ops_header(r) for r in roots)
    return render("functionalize.cpp.j2", shard=shard, num_shards=num_shards, headers=headers, kernels=kernels)
