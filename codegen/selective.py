"""Selective build: keep only the operators a model needs.

`--selected-op-list-path` is a YAML list of names ("add.Tensor", or a root name
"add" meaning every overload); `--operators-yaml-path` is PyTorch's model
operators shape: a mapping of "aten::add.Tensor"-style names to
{is_used_for_training, is_root_operator, include_all_overloads, ...}.
An unknown operator is an error naming it.
"""
from __future__ import annotations

from dataclasses import replace

from .errors import Location, SourceError
from .load import OperatorSet
from .yaml_source import read_source

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _strip_namespace(name: str) -> str:
    return name.split("::", 1)[1] if "::" in name else name


def read_selection(list_path: str | None, operators_path: str | None) -> tuple[set[str], set[str]] | None:
    """(exact overload names, root names whose every overload is selected), or None for all."""
    if list_path is None and operators_path is None:
        return None
    exact: set[str] = set()
    roots: set[str] = set()
    if list_path is not None:
        data = yaml.load(read_source(list_path), Loader=_Loader) or []
        if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
            raise SourceError("the selected operator list must be a YAML list of names", Location(list_path, 1))
        for name in data:
            name = _strip_namespace(name)
            (exact if "." in name else roots).add(name)
    if operators_path is not None:
        data = yaml.load(read_source(operators_path), Loader=_Loader) or {}
        ops = data.get("operators", data) if isinstance(data, dict) else None
        if not isinstance(ops, dict):
            raise SourceError("operators YAML must map operator names to their info", Location(operators_path, 1))
        for name, info in ops.items():
            name = _strip_namespace(str(name))
            info = info or {}
            if info.get("include_all_overloads", False) or "." not in name:
                roots.add(name.split(".")[0])
            else:
                exact.add(name)
    return exact, roots


def select_operators(opset: OperatorSet, list_path: str | None, operators_path: str | None) -> OperatorSet:
    selection = read_selection(list_path, operators_path)
    if selection is None:
        return opset
    exact, roots = selection
    by_name = opset.lookup()
    by_root = opset.by_root()
    where = list_path or operators_path or ""
    for name in sorted(exact):
        if name not in by_name and name.replace(".default", "") not in by_name:
            raise SourceError(f"selected operator {name!r} is not in native_functions.yaml", Location(where, 1))
    for root in sorted(roots):
        if root not in by_root and root not in by_name:
            raise SourceError(f"selected operator {root!r} is not in native_functions.yaml", Location(where, 1))
    keep = tuple(
        f for f in opset.functions
        if str(f.func.name) in exact or f.root_name in roots or f.func.name.name in roots
        or (not f.func.name.overload and f"{f.func.name.name}.default" in exact)
    )
    return replace(opset, functions=keep)
