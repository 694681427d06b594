#!/usr/bin/env python3
"""The operators graph files use, as a YAML operator list for selective build
(`--selected-op-list-path`, TCORE_SELECTED_OP_LIST_PATH). Composite operators pull in
what their kernels call (found in csrc/native/composite/), transitively.

    python scripts/gen_op_list.py model.ir [more.ir ...] [--out ops.yaml]

A graph or YAML that cannot be read, an unknown operator (FILE:LINE:COL and a caret) or an
--out that cannot be written is one message and exit 1; --out is written atomically and
only when its text changes.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_OP = re.compile(r"tcore::([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\s*\(")


class OpListError(Exception):
    pass


def ops_in_graph(text: str) -> list[str]:
    return list(dict.fromkeys(name for name, _, _ in ops_with_places(text)))


def ops_with_places(text: str) -> list[tuple[str, int, int]]:
    """(operator, line, column) of every tcore::op( call, outside comments."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for m in _OP.finditer(line.split("#", 1)[0]):
            found.append((m.group(1), number, m.start(1) + 1))
    return found


def read_graph(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise OpListError(f"{path}: not a text IR file (byte {e.start} is not UTF-8)") from None
    except OSError as e:
        raise OpListError(f"{path}: {e.strerror or e}") from None


def used_operators(graphs: list[str], known: set[str]) -> list[str]:
    from codegen.errors import Location, SourceError

    used: list[str] = []
    for g in graphs:
        text = read_graph(g)
        lines = text.splitlines()
        for name, line, col in ops_with_places(text):
            name = name.removesuffix(".default")
            if name not in known:
                raise SourceError(f"unknown operator tcore::{name}", Location(g, line, col, lines[line - 1]))
            used.append(name)
    return used


def write_if_changed(path: Path, text: str) -> None:
    from codegen.file_writer import atomic_write

    blocker = next((d for d in path.parents if d.exists() and not d.is_dir()), None)
    if blocker is not None:
        raise OpListError(f"--out {path}: {blocker} is a file, not a folder")
    try:
        if path.is_file() and path.read_text(encoding="utf-8", errors="replace") == text:
            return
        atomic_write(path, text.encode())
    except OSError as e:
        raise OpListError(f"--out {path}: {e.strerror or e}") from None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("graphs", nargs="+")
    p.add_argument("--out", default=None)
    p.add_argument("--native-functions-path", default=str(REPO / "csrc/native/native_functions.yaml"))
    p.add_argument("--tags-path", default=str(REPO / "csrc/native/tags.yaml"))
    args = p.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from codegen.errors import SourceError
    from codegen.load import load_operator_set
    from codegen.selective import close_over_composites

    try:
        opset = load_operator_set(args.native_functions_path, args.tags_path)
        used = used_operators(args.graphs, {str(f.func.name) for f in opset.functions})
        names = sorted(close_over_composites(opset, set(used), [REPO / "csrc/native/composite"]))
        text = "".join(f"- {n}\n" for n in names)
        if args.out:
            write_if_changed(Path(args.out), text)
        else:
            sys.stdout.write(text)
    except SourceError as e:  # FILE:LINE:COL: error: ... with a caret, or a message without a place
        print(str(e) if e.location else f"gen_op_list: error: {e}", file=sys.stderr)
        return 1
    except OpListError as e:
        print(f"gen_op_list: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
