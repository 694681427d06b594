#!/usr/bin/env python3
"""Linker script with a function order (as PyTorch's tools/setup_helpers/generate_linker_script.py):
takes the toolchain's default script from `ld --verbose` and puts the listed functions
first in .text, so that hot code sits together. Used with -ffunction-sections
(CMake: -DTCORE_LINKER_SCRIPT=path).

    python scripts/gen_linker_script.py --symbols order.txt --out build/tcore.ld
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path


def default_script(ld: str = "ld") -> str:
    out = subprocess.run([ld, "--verbose"], capture_output=True, text=True, check=True).stdout
    parts = out.split("=" * 50)
    if len(parts) < 3:
        raise RuntimeError(f"`{ld} --verbose` printed no default linker script")
    return parts[1].strip("\n") + "\n"


def with_function_order(script: str, symbols: list[str]) -> str:
    """Inserts `*(.text.SYMBOL)` lines at the start of the .text output section."""
    lines = script.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.lstrip().startswith(".text") and ":" in line:
            j = i + 1
            while j < len(lines) and "{" not in lines[i] + lines[j - 1]:
                j += 1
            order = "".join(f"    *(.text.{s})\n" for s in symbols)
            return "".join(lines[:j]) + order + "".join(lines[j:])
    raise ValueError("the linker script has no .text output section")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--symbols", required=True, help="file with one (mangled) symbol per line")
    parser.add_argument("--out", required=True)
    parser.add_argument("--ld", default="ld")
    args = parser.parse_args()
    symbols = [s.strip() for s in Path(args.symbols).read_text().splitlines() if s.strip() and not s.startswith("#")]
    try:
        script = with_function_order(default_script(args.ld), symbols)
    except (OSError, subprocess.CalledProcessError, RuntimeError, ValueError) as e:
        print(f"gen_linker_script: {e}", file=sys.stderr)
        return 1
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(script)
    print(f"{args.out}: {len(symbols)} functions ordered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
