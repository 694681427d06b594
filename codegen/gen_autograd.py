"""Autograd code from derivatives.yaml: per operator a backward Node class that saves
exactly the inputs, outputs and scalars its formulas use, and an Autograd kernel that
records it; sharded like the dispatch files (autograd/Functions_N.cpp)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from . import formula, gen_forward_ad
from .api import cpp
from .derivatives import Derivative
from .gen_headers import Layout
from .model import NativeFunction
from .schema import Argument, BaseType, ListType, OptionalType, is_tensor_like
from .templates import render

_IDENT = re.compile(r"(?<![.:>\w])([A-Za-z_][A-Za-z0-9_]*)")
_CALL = re.compile(r"(?:(?<![.:\w])|(?<![\w:])tcore::)([A-Za-z_][A-Za-z0-9_]*)\s*\(")  # f(, tcore::f(


@dataclass(frozen=True)
class Plan:
    """What one function's autograd code needs."""

    function: NativeFunction
    derivative: Derivative | None  # None: an out= overload, which only checks
    inplace: bool


def plan_for(functions: tuple[NativeFunction, ...], derivatives: dict[str, Derivative]) -> list[Plan]:
    """Functions with a formula (their own, or their functional twin's for in-place)."""
    out = []
    for f in functions:
        name = f.func.name
        d = derivatives.get(str(name))
        if d is not None:
            out.append(Plan(f, d, name.inplace))
            continue
        if name.inplace:
            twin = derivatives.get(f"{name.base}.{name.overload}" if name.overload else name.base)
            if twin is not None:
                out.append(Plan(f, twin, True))
                continue
        if f.func.is_out_fn:
            family = _families(derivatives).get(f.root_name, [])
            if family and all(non_differentiable(d) for d in family):
                out.append(Plan(f, family[0], False))  # runs below autograd, like its functional twins
            elif family:
                out.append(Plan(f, None, False))
    return out


_FAMILIES: dict[int, tuple[dict, dict[str, list[Derivative]]]] = {}


def _families(derivatives: dict[str, Derivative]) -> dict[str, list[Derivative]]:
    """The derivatives by operator root (add_, add.Tensor -> add), built once per derivatives
    mapping (every shard of a plan shares one: scanning it for each out= overload cost a
    PyTorch-scale cold run 1.3 s)."""
    hit = _FAMILIES.get(id(derivatives))
    if hit is None or hit[0] is not derivatives:
        index: dict[str, list[Derivative]] = {}
        for k, d in derivatives.items():
            index.setdefault(str(k).split(".")[0].rstrip("_"), []).append(d)
        _FAMILIES.clear()  # the latest mapping only: a process plans once, a long-lived one may plan again
        hit = _FAMILIES[id(derivatives)] = (derivatives, index)
    return hit[1]


def _differentiable(f: NativeFunction) -> list[Argument]:
    """The inputs gradients flow to: tensor arguments, except out= ones and index lists."""
    return [a for a in f.func.arguments
            if is_tensor_like(a.type) and not (f.func.is_out_fn and a.is_write) and not _is_index_list(a)]


def _is_index_list(arg: Argument) -> bool:
    """Tensor?[] (index's indices): integer or bool tensors, never differentiable."""
    return isinstance(arg.type, ListType) and isinstance(arg.type.elem, OptionalType)


def _is_list(arg: Argument) -> bool:
    return isinstance(arg.type, ListType) and is_tensor_like(arg.type)


def owned_field(arg: Argument, member: bool = False) -> tuple[str, str, str]:
    """(field type, expression storing the argument, expression giving it back in apply).
    Everything is owned: views of the caller's memory (ArrayRef, string_view) are copied.
    `member`: the field is a node's, read as this->x_ (a local of apply may be named x_)."""
    t = arg.type
    name = cpp.cpp_ident(arg.name)
    if member:
        ftype, store, load = owned_field(arg)
        return ftype, store, re.sub(rf"(?<![\w>.]){re.escape(name)}_(?!\w)", f"this->{name}_", load)
    if is_tensor_like(t):
        if isinstance(t, BaseType):
            return "SavedVariable", f"SavedVariable({name}, false)", f'{name}_.unpack("{arg.name}", this)'
        if isinstance(t, OptionalType) and isinstance(t.elem, BaseType):  # Tensor?: undefined when None
            return ("SavedVariable", f"SavedVariable({name}.value_or(Tensor()), false)",
                    f'{name}_.unpack("{arg.name}", this)')
        if _is_index_list(arg):  # kept as they are: index tensors have no history
            return ("std::vector<std::optional<Tensor>>", f"std::vector<std::optional<Tensor>>({name}.begin(), {name}.end())",
                    f"ArrayRef<std::optional<Tensor>>({name}_)")
        return "std::vector<SavedVariable>", f"save_list({name})", f'unpack_list({name}_, "{arg.name}")'
    if isinstance(t, BaseType) and t.name == "str":
        return "std::string", f"std::string({name})", f"{name}_"
    if isinstance(t, OptionalType) and isinstance(t.elem, BaseType) and t.elem.name == "str":
        return ("std::optional<std::string>", f"{name} ? std::optional<std::string>(std::string(*{name})) : std::nullopt",
                f"{name}_")
    value = cpp.value_type(t)
    if isinstance(t, ListType) and value.startswith("ArrayRef<"):
        elem = value[len("ArrayRef<"):-1]
        return f"std::vector<{elem}>", f"std::vector<{elem}>({name}.begin(), {name}.end())", f"ArrayRef<{elem}>({name}_)"
    if isinstance(t, OptionalType) and isinstance(t.elem, ListType) and cpp.value_type(t.elem).startswith("ArrayRef<"):
        elem = cpp.value_type(t.elem)[len("ArrayRef<"):-1]
        return (f"std::optional<std::vector<{elem}>>",
                f"{name} ? std::optional<std::vector<{elem}>>(std::vector<{elem}>({name}->begin(), {name}->end())) "
                f": std::nullopt",
                f"{name}_ ? std::optional<ArrayRef<{elem}>>(ArrayRef<{elem}>(*{name}_)) : std::nullopt")
    return value, name, f"{name}_"


def _names_used(formulas: list[str]) -> set[str]:
    used: set[str] = set()
    for text in formulas:
        used.update(m.group(1) for m in _IDENT.finditer(text))
    return used


def node_names(derivatives: dict[str, Derivative]) -> dict[str, str]:
    """PyTorch's naming: AddBackward0, AddBackward1, ... in derivatives.yaml order."""
    counts: dict[str, int] = {}
    names = {}
    for key, d in derivatives.items():
        camel = "".join(p.capitalize() for p in d.schema.name.base.split("_") if p)
        names[key] = f"{camel}Backward{counts.get(camel, 0)}"
        counts[camel] = counts.get(camel, 0) + 1
    return names


# A formula that reads only these of a tensor saves them instead of the tensor (PyTorch's
# `self_sym_sizes`): smaller graphs, and no error when the tensor is later written in place.
# attribute -> (field type, expression storing it from the tensor {x}, expression in apply)
_ATTRIBUTES = {
    "sizes": ("std::vector<int64_t>", "{x}.sizes().vec()", "IntArrayRef({f}_)"),
    "sym_sizes": ("std::vector<int64_t>", "{x}.sizes().vec()", "IntArrayRef({f}_)"),
    "strides": ("std::vector<int64_t>", "{x}.strides().vec()", "IntArrayRef({f}_)"),
    "sym_strides": ("std::vector<int64_t>", "{x}.strides().vec()", "IntArrayRef({f}_)"),
    "dim": ("int64_t", "{x}.dim()", "{f}_"),
    "storage_offset": ("int64_t", "{x}.storage_offset()", "{f}_"),
    "numel": ("int64_t", "{x}.numel()", "{f}_"),
    "sym_numel": ("int64_t", "{x}.numel()", "{f}_"),
    "scalar_type": ("ScalarType", "{x}.scalar_type()", "{f}_"),
    "dtype": ("ScalarType", "{x}.dtype()", "{f}_"),
    "device": ("Device", "{x}.device()", "{f}_"),
}
_ATTRIBUTE_CALL = r"(?<![.:>\w]){name}\s*\.\s*({attrs})\s*\(\s*\)"


def _attribute_only(name: str, formulas: list[str]) -> set[str] | None:
    """The attributes of tensor `name` the formulas call, when that is all they use of it."""
    pattern = re.compile(_ATTRIBUTE_CALL.format(name=re.escape(name), attrs="|".join(_ATTRIBUTES)))
    bare = re.compile(rf"(?<![.:>\w]){re.escape(name)}(?!\w)")
    attrs: set[str] = set()
    for text in formulas:
        calls = pattern.findall(text)
        if len(calls) != len(bare.findall(text)):
            return None
        attrs.update(calls)
    return attrs or None


def _use_attributes(name: str, formulas: list[str]) -> list[str]:
    pattern = re.compile(_ATTRIBUTE_CALL.format(name=re.escape(name), attrs="|".join(_ATTRIBUTES)))
    return [pattern.sub(lambda m: f"{name}_{m.group(1)}", text) for text in formulas]


def _output_field(t, name: str, value: str) -> dict:
    """How a node keeps one output of several that its formulas read: a tensor as an output's
    SavedVariable, a tensor list as a list of them, an integer (SymInt) by value."""
    if isinstance(t, ListType) and is_tensor_like(t):
        return dict(type="std::vector<SavedVariable>", store=f"save_list({value}, true)",
                    load=f'unpack_list(this->{name}_, "{name}")')
    if is_tensor_like(t):
        return dict(type="SavedVariable", store=f"SavedVariable({value}, true)", load=f'this->{name}_.unpack("{name}", this)')
    return dict(type=cpp.value_type(t), store=value, load=f"this->{name}_")


_CALL = re.compile(r"(?<![\w.:>])([A-Za-z_]\w*)\s*\(")


def _unshadow_calls(formulas: list[str], saved: list[dict]) -> list[str]:
    """A formula that calls a function named like a saved argument (`to_sparse_backward(grad,
    layout(self), ...)` of _to_sparse, whose `layout` is saved): that argument's local gets
    another name (`layout_value`), so that the call finds the function."""
    called = {m.group(1) for text in formulas for m in _CALL.finditer(formula.blank_literals(text))}
    for s in saved:
        if s["name"] in called:
            s["local"] = f"{s['name']}_value"
            variable = re.compile(rf"(?<![\w.:>]){re.escape(s['name'])}(?!\w)(?!\s*\()")
            formulas = [variable.sub(s["local"], text) for text in formulas]
    return formulas


def _group_member(position: int, index: int, arg, ranged: bool) -> dict:
    """How element `position` of a grouped formula's tuple reaches the input's gradient slots:
    its own slot, or with a Tensor[] input among the node's the input's edge range (a list
    input's whole range: _cudnn_rnn's weight)."""
    got = f"std::get<{position}>(formula_grads)"
    if not ranged:
        return dict(mask=f"should_compute_output({index})", assign=f"grad_inputs[{index}] = {got};")
    edges = f"{cpp.cpp_ident(arg.name)}_edges_"
    if _is_list(arg):
        return dict(mask=f"should_compute_any({edges})", assign=f"assign_range(grad_inputs, {edges}, std::move({got}));")
    return dict(mask=f"should_compute_output({edges}.begin)", assign=f"grad_inputs[{edges}.begin] = {got};")


def node_class(f: NativeFunction, d: Derivative, inplace: bool, node: str) -> dict:
    # formulas spell the arguments as the generated C++ does (cpp_ident: `key` -> `key_arg`)
    arg_names = [a.name for a in f.func.arguments]
    formulas = [formula.spelled(x.text, arg_names) for x in d.backward]
    used = _names_used(formulas)
    inputs = _differentiable(f)
    index = {a.name: i for i, a in enumerate(inputs)}
    # With a Tensor[] input the edges of the inputs are ranges known only at run time.
    ranged = any(_is_list(a) for a in inputs)
    saved = []
    # an output named like an input (_cudnn_attention_forward's cum_seq_q, max_q) is what its
    # formulas read: the backward operator takes the forward's results, not its optional inputs
    returned = {r.name for r in f.func.returns if r.name} if len(f.func.returns) > 1 else set()
    for a in f.func.arguments:
        name = cpp.cpp_ident(a.name)
        if a.name in returned:
            continue
        attrs = (_attribute_only(name, formulas) if name in used and isinstance(a.type, BaseType)
                 and a.type.name == "Tensor" else None)
        if attrs:
            formulas = _use_attributes(name, formulas)
            for attr in sorted(attrs):
                ftype, store, load = _ATTRIBUTES[attr]
                field = f"{name}_{attr}"
                saved.append(dict(name=field, type=ftype, store=store.format(x=name), load=load.format(f=field)))
            continue
        if name in used:
            ftype, store, load = owned_field(a, member=True)
            if inplace and a.name == "self":
                store = "SavedVariable(original_self, false)"
            saved.append(dict(name=name, type=ftype, store=store, load=load))
        if _is_list(a) and f"{name}_sizes" in used:
            saved.append(dict(name=f"{name}_sizes", type="std::vector<std::vector<int64_t>>",
                              store=f"sizes_of({name})", load=f"{name}_sizes_"))
    used = _names_used(formulas)
    # foreach operators (`_foreach_div.List`): formulas of element i (`grads[i]`, `self[i]`); an
    # in-place one (`_foreach_div_.List`, which returns nothing) records one node per element of
    # self, holding element i of each list as a list of one (so its formulas run with i = 0)
    elementwise = gen_forward_ad.is_foreach(f, d, inplace)
    foreach_inplace = inplace and bool(f.func.arguments) and _is_list(f.func.arguments[0])
    if foreach_inplace:
        lists = [cpp.cpp_ident(a.name) for a in f.func.arguments
                 if isinstance(a.type, ListType) or (isinstance(a.type, OptionalType) and isinstance(a.type.elem, ListType))]
        for s in saved:
            s["element_store"] = ("save_list(original_self)" if s["name"] == "self" else
                                  re.sub(rf"(?<![\w.>])({'|'.join(map(re.escape, lists))})(?!\w)", r"element(\1, i)", s["store"])
                                  if lists else s["store"])
    formulas = _unshadow_calls(formulas, saved)
    grads = []
    for x, text in zip(d.backward, formulas):
        if text.strip() == "non_differentiable":
            continue  # that input gets no gradient
        # a group `self, other: f(...)` computes a tuple, one gradient per input it names
        members = [(k, inputs[index[n]]) for k, n in enumerate(x.inputs) if n in index]
        if not members:
            continue
        if len(x.inputs) > 1:
            grads.append(dict(group=True, formula=text, input=", ".join(x.inputs),
                              members=[_group_member(k, index[a.name], a, ranged) for k, a in members]))
            continue
        arg = members[0][1]
        grads.append(dict(group=False, index=index[arg.name], formula=text, input=x.inputs[0], list=_is_list(arg),
                          range=f"{cpp.cpp_ident(arg.name)}_edges_", elementwise=elementwise))
    # Several outputs: each differentiable one gets this node as grad_fn; the ones the
    # formulas name (`indices`, `result1`) are saved after the call.
    returns = f.func.returns
    multi = len(returns) > 1
    # False marks an output without gradient; True or a C++ condition (PyTorch's) one with
    differentiable = d.output_differentiability or tuple(True for _ in returns)
    outputs, saved_outputs = [], []
    for i, r in enumerate(returns):
        names = {f"result{i}"} | ({r.name} if r.name else set())
        if multi and differentiable[i] is not False and is_tensor_like(r.type) and not isinstance(r.type, ListType):
            outputs.append(dict(index=i))
        if multi and names & used:
            for n in sorted(names & used):
                saved_outputs.append(dict(name=n, index=i, **_output_field(r.type, n, f"std::get<{i}>(result)")))
    list_return = len(returns) == 1 and isinstance(returns[0].type, ListType)
    uses_result = "result" in used and not multi
    _save_conditions(saved, grads, ranged)
    return dict(
        node=node,
        saved=saved,
        foreach_inplace=foreach_inplace,
        element_inputs=[dict(name=cpp.cpp_ident(a.name), listed=_is_list(a),
                             value=f"element({cpp.cpp_ident(a.name)}, i)" if _is_list(a) else cpp.cpp_ident(a.name))
                        for a in inputs],
        result_list=uses_result and (list_return or foreach_inplace),
        multi=multi,
        uses_grad="grad" in used,
        outputs=outputs,
        saved_outputs=saved_outputs,
        uses_result=uses_result,
        output_grads=_output_grads(f, returns, outputs, used) if multi else [],
        uses_retain_variables="retain_variables" in used,
        list_return=list_return,
        inplace_view=inplace and "inplace_view" in f.tags,
        grads=grads,
        inputs=[cpp.cpp_ident(a.name) for a in inputs],
        ranged=ranged,
        clone_self=inplace and "self" in used and not foreach_inplace,
        clone_condition=next((x.get("condition") for x in saved if x["name"] == "self"), None),
        clone_element=foreach_inplace and "self" in used,
        derivative=str(d.schema.name),
    )


def _grad_masks(g: dict, ranged: bool) -> list[str]:
    """The C++ conditions under which a formula of `grads` runs in apply (as the template's)."""
    if g["group"]:
        return [m["mask"] for m in g["members"]]
    if g["list"]:
        return [f"should_compute_any({g['range']})"]
    if g["elementwise"] or ranged:
        return [f"should_compute_output({g['range']}.begin)"]
    return [f"should_compute_output({g['index']})"]


def _save_conditions(saved: list[dict], grads: list[dict], ranged: bool) -> None:
    """A saved tensor that only some formulas read is saved only when one of them will run
    (PyTorch's should_compute_output at record time): an operand whose own gradient is not needed
    (x * w with w frozen saves w, not x) may then be written in place without a version error."""
    for s in saved:
        s["condition"] = None
    if not grads:
        return
    for s in saved:
        if s["type"] not in ("SavedVariable", "std::vector<SavedVariable>"):
            continue
        name = re.compile(rf"(?<![\w.:>]){re.escape(s.get('local', s['name']))}(?!\w)")
        readers = [g for g in grads if name.search(g["formula"])]
        if not readers or len(readers) == len(grads):
            continue
        masks = list(dict.fromkeys(m for g in readers for m in _grad_masks(g, ranged)))
        # (evaluated where the node is recorded: on grad_fn, its edges set)
        on_node = re.sub(r"\b(should_compute_\w+\(|\w+_edges_)", r"grad_fn->\1", " || ".join(masks))
        s["condition"] = on_node


def _output_grads(f, returns, outputs: list[dict], used: set[str]) -> list[dict]:
    """`grad_<name>` of each named output the formulas use: the node's input slot of that output,
    its place among the differentiable outputs (each gets a slot as set_history gives it this
    node: linalg_slogdet's logabsdet, its only one, is slot 0)."""
    slots = {o["index"]: k for k, o in enumerate(outputs)}
    out = []
    for i, r in enumerate(returns):
        if r.name and f"grad_{r.name}" in used:
            if i not in slots:
                raise f.error(f"grad_{r.name}: output {r.name!r} is not differentiable (output_differentiability)",
                              "derivatives")
            out.append(dict(name=r.name, index=slots[i]))
    return out


def kernel(plan: Plan, names: dict[str, str]) -> dict:
    f = plan.function
    args = cpp.dispatcher_args(f.func)
    tensors = [a.name for a in args if is_tensor_like(a.schema.type)]
    info = dict(
        struct=cpp.struct_name(f.func),
        schema=str(f.func),
        ret=cpp.return_type(f.func),
        params=", ".join(a.decl(False) for a in args),
        args=", ".join(a.name for a in args),
        requires_grad=" || ".join(f"detail::needs_grad({t})" for t in tensors) or "false",
        op=str(f.func.name),
        out_only=plan.derivative is None,
        inplace=plan.inplace,
    )
    d = plan.derivative
    info["non_differentiable"] = d is not None and non_differentiable(d)
    info["fw_check"] = gen_forward_ad.check_expr(f)
    if d is not None and not info["non_differentiable"]:
        info.update(node_class(f, d, plan.inplace, names[str(d.schema.name)]))
        info["fw"] = gen_forward_ad.forward_code(f, d, plan.inplace)
    return info


def non_differentiable(d: Derivative) -> bool:
    """`output_differentiability: [False]` and no formula: the outputs (bool masks, integer
    results) never require grad; the operator runs below autograd and records nothing."""
    return d.output_differentiability is not None and not any(d.output_differentiability) and not d.backward


# ----------------------------------------------------------------- in-place-or-view kernels
# PyTorch's ADInplaceOrView layer: the outputs of view operators (a return aliasing `self`
# without writing it, `Tensor(a)` or `Tensor(a)[]`) learn their base and a replay
# function; `inplace_view` operators (transpose_, ...) extend the replay of a view.


def _aliases_self(f: NativeFunction) -> bool:
    args = [a for a in f.func.arguments if is_tensor_like(a.type)]
    if not args or args[0].annotation is None or args[0].annotation.is_write:
        return False
    rets = f.func.returns
    return (len(rets) == 1 and rets[0].annotation is not None and not rets[0].annotation.is_write
            and set(rets[0].annotation.alias_set) & set(args[0].annotation.alias_set) != set())


def is_view_op(f: NativeFunction) -> bool:
    """A view operator with a kernel of its own (a CompositeImplicitAutograd one decomposes
    into view operators that track themselves)."""
    return (not f.func.name.inplace and not f.func.is_out_fn and not f.is_composite_implicit
            and _aliases_self(f))


def replay_captures(f: NativeFunction) -> tuple[list[str], list[str]]:
    """(lambda captures, call arguments after the base) replaying f on another tensor."""
    captures, call = [], []
    for a in f.func.arguments[1:]:
        name = cpp.cpp_ident(a.name)
        if is_tensor_like(a.type):  # a tensor argument (slice_inverse's src) is held as its value
            listed = isinstance(a.type, ListType)
            captures.append(f"{name}_ = std::vector<Tensor>({name}.begin(), {name}.end())" if listed
                            else f"{name}_ = {name}")
            call.append(f"{name}_")
            continue
        ftype, store, load = owned_field(a)
        captures.append(f"{name}_ = {store}" if store != name else f"{name}_ = {name}")
        call.append(load)
    return captures, call


def view_kernel(f: NativeFunction, functions: tuple[NativeFunction, ...]) -> dict | None:
    if not is_view_op(f) and not ("inplace_view" in f.tags and f.func.name.inplace):
        return None
    args = cpp.dispatcher_args(f.func)
    # as_strided's views are replayed by their geometry (its backward on an intermediate view
    # would drop the elements outside that view: csrc/autograd/Views.cpp)
    common = dict(struct=cpp.struct_name(f.func), ret=cpp.return_type(f.func),
                  params=", ".join(a.decl(False) for a in args), args=", ".join(a.name for a in args),
                  self=args[0].name if args else "self", op=str(f.func.name),
                  by_geometry=f.func.name.base == "as_strided")
    if is_view_op(f):
        captures, call = replay_captures(f)
        multi = isinstance(f.func.returns[0].type, ListType)
        return dict(common, kind="view", multi=multi, captures=", ".join(captures),
                    replay_args=", ".join(["base_"] + call))
    if "inplace_view" in f.tags and f.func.name.inplace:
        twin = next((g for g in functions if not g.func.name.inplace and not g.func.is_out_fn
                     and g.func.name.base == f.func.name.base
                     and [str(a.type) for a in g.func.arguments[1:]] == [str(a.type) for a in f.func.arguments[1:]]),
                    None)
        if twin is None:
            return None
        captures, call = replay_captures(f)
        return dict(common, kind="inplace_view", captures=", ".join(captures), twin=cpp.struct_name(twin.func),
                    replay_args=", ".join(["base_"] + call))
    return None


def formula_ops(plans: list[Plan], roots: set[str]) -> set[str]:
    """Operators called in the formulas (their public headers are included)."""
    return called_operators([p.derivative for p in plans if p.derivative is not None], roots)


def called_operators(derivatives, roots: set[str]) -> set[str]:
    """The operators of `roots` that these derivatives' formulas call, by name or through a C++
    operator on tensors (`*` is mul); also what the plan's digest of an autograd shard holds."""
    called: set[str] = set()
    for d in derivatives:
        called.update(called_names(d))
    called |= {n[:-1] for n in called if n.endswith("_") and not n.endswith("__")}  # (fill_: fill's header)
    return called & roots


# entry text -> the names its formulas call: kept with the derivatives cache (derivatives.py), so a
# plan after a schema edit does not scan every formula again (0.05 s at PyTorch's scale)
_CALLS: dict[str, frozenset[str]] = {}


def remember_calls(calls: dict[str, frozenset[str]]) -> None:
    _CALLS.update(calls)


def called_names(d: Derivative) -> frozenset[str]:
    """Every name one derivative's formulas call (a plan computes it for each shard's digest)."""
    got = _CALLS.get(d.source) if d.source else None
    if got is None:
        got = _scan_calls(d)
        if d.source:
            _CALLS[d.source] = got
    return got


def _scan_calls(d: Derivative) -> frozenset[str]:
    called: set[str] = set()
    for text in [x.text for x in d.backward] + gen_forward_ad.formula_calls(d):
        text = formula.to_cpp(text)
        called.update(m.group(1) for m in _CALL.finditer(text))
        called.update(formula.operator_calls(text))
    if any(x.text.strip() == "auto_linear" for x in d.forward):
        called.add(d.schema.name.base)
    return frozenset(called)


def _never_differentiable(f: NativeFunction, derivatives: dict[str, Derivative]) -> bool:
    """A view whose output is never differentiable (view.dtype) is no view to autograd, as torch's:
    no base, no replay, and it never requires grad (storage and version counter are still shared)."""
    d = derivatives.get(str(f.func.name))
    return d is not None and non_differentiable(d)


def _clones(k: dict) -> bool:
    """Whether a kernel calls tcore::clone: an in-place one keeping its original self, or a forward
    formula copying an input's tangent (gen_forward_ad's own())."""
    fw = k.get("fw") or {}
    return bool(k.get("clone_self") or k.get("clone_element") or
                any("tcore::clone(" in line for line in fw.get("pre", []) + fw.get("body", [])))


def render_autograd(shard: int, num_shards: int, groups: dict[str, tuple[NativeFunction, ...]],
                    derivatives: dict[str, Derivative], all_roots: set[str], layout: Layout) -> str:
    plans = [p for fs in groups.values() for p in plan_for(fs, derivatives)]
    names = node_names(derivatives)
    kernels = [kernel(p, names) for p in plans]
    viewing = [(f, fs) for fs in groups.values() for f in fs if not _never_differentiable(f, derivatives)]
    views = [v for f, fs in viewing if (v := view_kernel(f, fs)) is not None]
    roots = sorted({p.function.root_name for p in plans} |
                   {f.root_name for f, fs in viewing if view_kernel(f, fs) is not None})
    headers = sorted({layout.ops_header(r) for r in roots} |
                     {layout.api_header(r) for r in formula_ops(plans, all_roots)} |
                     ({layout.api_header("clone")} if any(_clones(k) for k in kernels) else set()))
    return render("autograd_functions.cpp.j2", shard=shard, num_shards=num_shards, headers=headers, kernels=kernels,
                  views=views)
