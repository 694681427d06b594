"""Selective build: keep only the operators a model needs.

`--selected-op-list-path` is a YAML list of names ("add.Tensor", or a root name
"add" meaning every overload); `--operators-yaml-path` is PyTorch's model
operators shape: a mapping of "aten::add.Tensor"-style names to
{is_used_for_training, is_root_operator, include_all_overloads, ...}.
An unknown operator is an error naming it.
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from .autogen import AUTOGEN_KERNEL
from .errors import Location, SourceError
from .yaml_source import load_document


def _strip_namespace(name: str) -> str:
    return name.split("::", 1)[1] if "::" in name else name


def read_selection(list_path: str | None, operators_path: str | None) -> tuple[set[str], set[str]] | None:
    """(exact overload names, root names whose every overload is selected), or None for all."""
    if list_path is None and operators_path is None:
        return None
    exact: set[str] = set()
    roots: set[str] = set()
    if list_path is not None:
        data = load_document(list_path) or []
        if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
            raise SourceError("the selected operator list must be a YAML list of names", Location(list_path, 1))
        for name in data:
            name = _strip_namespace(name)
            (exact if "." in name else roots).add(name)
    if operators_path is not None:
        data = load_document(operators_path) or {}
        ops = data.get("operators", data) if isinstance(data, dict) else None
        if not isinstance(ops, dict):
            raise SourceError("operators YAML must map operator names to their info", Location(operators_path, 1))
        for name, info in ops.items():
            name = _strip_namespace(str(name))
            info = info or {}
            if not isinstance(info, dict):
                raise SourceError(f"operators YAML: the info of {name!r} must be a mapping", Location(operators_path, 1))
            if info.get("include_all_overloads", False) or "." not in name:
                roots.add(name.split(".")[0])
            else:
                exact.add(name)
    return exact, roots


def _names(f) -> tuple[str, str, str]:
    """(name.overload, root, name) of a NativeFunction or a LazyFunction."""
    full = f.name if isinstance(f.name, str) else str(f.func.name)
    root = f.root if hasattr(f, "root") else f.root_name
    return full, root, full.split(".")[0]


def select_operators(opset, list_path: str | None, operators_path: str | None):
    """The operator set (OperatorSet or LazySet) restricted to the selection (no closure)."""
    selected = selected_names(opset, list_path, operators_path)
    if selected is None:
        return opset
    return replace(opset, functions=tuple(f for f in opset.functions if _names(f)[0] in selected))


def selected_names(opset, list_path: str | None, operators_path: str | None,
                   composite_dirs: list[str] = ()) -> frozenset[str] | None:
    """The overload names a selection keeps (None: no selection). With composite_dirs,
    a composite operator pulls in every operator its kernel calls, transitively."""
    selection = read_selection(list_path, operators_path)
    if selection is None:
        return None
    exact, roots = selection
    names = [_names(f) for f in opset.functions]
    all_full = {n[0] for n in names}
    all_roots = {n[1] for n in names} | {n[2] for n in names}
    where = list_path or operators_path or ""
    for name in sorted(exact):
        if name not in all_full and name.removesuffix(".default") not in all_full:
            raise SourceError(f"selected operator {name!r} is not in native_functions.yaml", Location(where, 1))
    for root in sorted(roots):
        if root not in all_roots:
            raise SourceError(f"selected operator {root!r} is not in native_functions.yaml", Location(where, 1))
    keep = {full for full, root, base in names
            if full in exact or root in roots or base in roots or ("." not in full and f"{full}.default" in exact)}
    return frozenset(close_over_composites(opset, keep, composite_dirs) if composite_dirs else keep)


def close_over_composites(opset, keep: set[str], composite_dirs) -> set[str]:
    """keep, plus every operator a kept composite kernel calls, transitively."""
    calls = composite_calls(composite_dirs)
    names = [_names(f) for f in opset.functions]
    by_root: dict[str, set[str]] = {}
    for full, root, base in names:
        by_root.setdefault(root, set()).add(full)
        by_root.setdefault(base, set()).add(full)
    dispatch = {_names(f)[0]: f.dispatch for f in opset.functions}
    root_of = {full: root for full, root, _ in names}
    keep = set(keep)
    todo = list(keep)
    while todo:
        name = todo.pop()
        for key, kernel in dispatch[name]:
            if kernel == AUTOGEN_KERNEL:  # an autogen: out= kernel calls its root's entry, clone, copy_
                roots = (root_of[name], "clone", "copy")
            elif key.startswith("Composite"):
                roots = calls.get(kernel.split("::")[-1], ())
            else:
                roots = ()
            for root in roots:
                for full in by_root.get(root, ()):
                    if full not in keep:
                        keep.add(full)
                        todo.append(full)
    return keep


_KERNEL_DEF = re.compile(r"^Tensor\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.MULTILINE)
_PUBLIC_CALL = re.compile(r"tcore::([a-z_][a-z0-9_]*)\s*\(")


def composite_calls(dirs) -> dict[str, set[str]]:
    """Composite kernel name -> the public operators (root names) its body calls."""
    calls: dict[str, set[str]] = {}
    for d in dirs:
        for f in sorted(Path(d).glob("*.cpp")):
            text = f.read_text()
            starts = [(m.start(), m.group(1)) for m in _KERNEL_DEF.finditer(text)] + [(len(text), "")]
            for (start, name), (end, _) in zip(starts, starts[1:]):
                calls.setdefault(name, set()).update(_PUBLIC_CALL.findall(text[start:end]))
    return calls
