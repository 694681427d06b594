#!/usr/bin/env python3
"""The operators graph files use, as a YAML operator list for selective build
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


def ops_in_graph(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for line in text.splitlines():
        for m in _OP.finditer(line.split("#", 1)[0]):
            seen.setdefault(m.group(1), None)
    return list(seen)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("graphs", nargs="+")
    p.add_argument("--out", default=None)
    p.add_argument("--native-functions-path", default=str(REPO / "csrc/native/native_functions.yaml"))
    p.add_argument("--tags-path", default=str(REPO / "csrc/native/tags.yaml"))
    args = p.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from codegen.load import load_operator_set
    from codegen.selective import close_over_composites

    opset = load_operator_set(args.native_functions_path, args.tags_path)
    known = {str(f.func.name) for f in opset.functions}
    used: list[str] = []
    for g in args.graphs:
        for name in ops_in_graph(Path(g).read_text()):
            name = name.removesuffix(".default")
            if name not in known:
                print(f"gen_op_list: {g}: unknown operator tcore::{name}", file=sys.stderr)
                return 1
            used.append(name)
    names = sorted(close_over_composites(opset, set(used), [REPO / "csrc/native/composite"]))
    text = "".join(f"- {n}\n" for n in names)
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
