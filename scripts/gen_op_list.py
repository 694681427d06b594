#!/usr/bin/env python3
"""The operators a graph file uses, as a YAML operator list for selective build
(`--selected-op-list-path`, TCORE_SELECTED_OP_LIST_PATH). Composite operators pull in
what their kernels call (found in csrc/native/composite/), transitively.

    python scripts/gen_op_list.py model.ir [more.ir ...] [--out ops.yaml]
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_OP = re.compile(r"tcore::([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\s*\(")
_FUNC = re.compile(r"^Tensor\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.MULTILINE)


def ops_in_graph(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        for m in _OP.finditer(line):
            seen.setdefault(m.group(1), None)
    return list(seen)


def composite_calls(source_dir: Path) -> dict[str, set[str]]:
    """kernel name -> the public operators (root names) its body calls."""
    calls: dict[str, set[str]] = {}
    for f in sorted(source_dir.glob("*.cpp")):
        text = f.read_text()
        starts = [(m.start(), m.group(1)) for m in _FUNC.finditer(text)] + [(len(text), "")]
        for (start, name), (end, _) in zip(starts, starts[1:]):
            body = text[start:end]
            calls.setdefault(name, set()).update(re.findall(r"tcore::([a-z_][a-z0-9_]*)\s*\(", body))
    return calls


def closure(ops: list[str], native_yaml: Path, composite_dir: Path) -> list[str]:
    sys.path.insert(0, str(REPO))
    from codegen.load import load_native_functions

    functions = load_native_functions(str(native_yaml))
    by_root: dict[str, list] = {}
    for f in functions:
        by_root.setdefault(f.func.name.name, []).append(f)
        by_root.setdefault(f.root_name, []).append(f)
    kernels = composite_calls(composite_dir)
    selected: dict[str, None] = {}
    todo = list(ops)
    lookup = {str(f.func.name): f for f in functions}
    while todo:
        name = todo.pop()
        if name in selected:
            continue
        f = lookup.get(name) or lookup.get(name.removesuffix(".default"))
        if f is None:
            raise SystemExit(f"gen_op_list: unknown operator tcore::{name}")
        selected[str(f.func.name)] = None
        for key, kernel in f.dispatch:
            if key.startswith("Composite"):
                for root in kernels.get(kernel, ()):
                    todo.extend(str(g.func.name) for g in by_root.get(root, ()))
    return sorted(selected)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("graphs", nargs="+")
    p.add_argument("--out", default=None)
    p.add_argument("--native-functions-path", default=str(REPO / "csrc/native/native_functions.yaml"))
    args = p.parse_args(argv)
    ops: list[str] = []
    for g in args.graphs:
        ops += ops_in_graph(Path(g).read_text())
    names = closure(ops, Path(args.native_functions_path), REPO / "csrc/native/composite")
    text = "".join(f"- {n}\n" for n in names)
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
