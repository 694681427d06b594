#!/usr/bin/env python3
"""Generate hipify/mappings.yaml from AMD's published HIPIFY tables (../shared/data/hipify-tables/,
MIT) and the hand-kept part (hipify/mappings_manual.yaml: headers, a few names the tables lack).

    python scripts/gen_hipify_mappings.py [--tables DIR] [--manual FILE] [--output FILE] [--check]

Every table row `|`cudaX`|A|D|C|R|`hipX`|A|D|C|R|E|[`rocX`|A|D|C|R|E]` becomes one entry of
its kind (runtime, driver, device, rtc, blas, rand, fft, sparse, solver, dnn, cub, complex):

    cudaX: [hipX, HIP_ADDED, HIP_REMOVED, ALT, ALT_ADDED, ALT_REMOVED]

ALT is the ROC library's name (rocBLAS, rocSPARSE, rocRAND, rocSOLVER) or MIOpen's (cuDNN);
trailing empty fields are dropped, and `[]` is a name with no HIP equivalent. --check exits 1
when the file on disk differs from what the tables give (for CI and reviews).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
TABLES = ROOT.parent / "shared" / "data" / "hipify-tables"
MANUAL = ROOT / "hipify" / "mappings_manual.yaml"
OUTPUT = ROOT / "hipify" / "mappings.yaml"

# table file stem (without _supported_by_*) -> kind; the earlier kind wins when two tables hold a name
KINDS = {
    "CUDA_Runtime_API_functions": "runtime",
    "CUDA_Driver_API_functions": "driver",
    "CUDA_Device_API": "device",
    "CUDA_RTC_API": "rtc",
    "cuComplex_API": "complex",
    "CUBLAS_API": "blas",
    "CURAND_API": "rand",
    "CUFFT_API": "fft",
    "CUSPARSE_API": "sparse",
    "CUSOLVER_API": "solver",
    "CUDNN_API": "dnn",
    "CUB_API": "cub",
}
_VERSION = re.compile(r"^\d+\.\d+(?:\.\d+)?$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_REPLACEMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_:<>*]*$")  # a HIP side may be a type: void*, ns::engine<false>


class TableError(Exception):
    pass


def _version(cell: str, where: str) -> str:
    cell = cell.strip()
    if not cell:
        return ""
    if not _VERSION.match(cell):
        raise TableError(f"{where}: not a version: {cell!r}")
    return cell if cell.count(".") == 2 else cell + ".0"


def _name(cell: str, where: str, pattern: re.Pattern = _NAME) -> str:
    cell = cell.strip()
    if not cell:
        return ""
    if not (cell.startswith("`") and cell.endswith("`")) or not pattern.match(cell[1:-1]):
        raise TableError(f"{where}: not a `name`: {cell!r}")
    return cell[1:-1]


def parse_row(line: str, where: str) -> tuple[str, list[str]]:
    """One table row -> (CUDA name, entry). 11 cells: CUDA + its A/D/C/R, HIP + A/D/C/R/E;
    17 cells: the same plus the ROC or MIOpen column and its A/D/C/R/E."""
    cells = line.strip().strip("|").split("|")
    if len(cells) not in (11, 17):
        raise TableError(f"{where}: {len(cells)} cells, expected 11 or 17")
    cuda = _name(cells[0], where)
    if not cuda:
        raise TableError(f"{where}: no CUDA name")
    entry = [_name(cells[5], where, _REPLACEMENT), _version(cells[6], where), _version(cells[9], where)]
    if not entry[0]:
        entry[1:] = ["", ""]
    if len(cells) == 17:
        alt = _name(cells[11], where, _REPLACEMENT)
        entry += [alt, _version(cells[12], where) if alt else "", _version(cells[15], where) if alt else ""]
    while entry and entry[-1] == "":
        entry.pop()
    return cuda, entry


def parse_table(path: Path) -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("|`"):
            continue
        name, entry = parse_row(line, f"{path.name}:{n}")
        if name in rows and rows[name] != entry:
            raise TableError(f"{path.name}:{n}: {name} appears twice with different entries")
        rows[name] = entry
    return rows


def table_files(tables: Path) -> list[tuple[str, Path]]:
    """(kind, file) in KINDS order: the file with both the HIP and the ROC/MIOpen columns where there is one."""
    out = []
    for stem, kind in KINDS.items():
        both = sorted(tables.glob(f"{stem}_supported_by_HIP_and_*.md"))
        plain = tables / f"{stem}_supported_by_HIP.md"
        path = both[0] if both else plain
        if not path.exists():
            raise TableError(f"{tables}: {plain.name} is missing")
        out.append((kind, path))
    return out


def generate(tables: Path, manual_path: Path) -> tuple[str, list[str]]:
    """The text of mappings.yaml and notes (names that two tables map differently)."""
    manual = yaml.safe_load(manual_path.read_text(encoding="utf-8"))
    identifiers: dict[str, dict[str, list[str]]] = {}
    owner: dict[str, str] = {}
    notes = []
    for kind, path in table_files(tables):
        section = identifiers.setdefault(kind, {})
        for name, entry in parse_table(path).items():
            if name in owner:
                first = identifiers[owner[name]][name]
                if first[:1] != entry[:1]:
                    notes.append(f"{name}: {owner[name]} gives {first[:1]}, {kind} gives {entry[:1]}; kept {owner[name]}'s")
                continue
            owner[name] = kind
            section[name] = entry
    for kind, extra in (manual.get("identifiers") or {}).items():
        for name, entry in extra.items():
            if name not in owner:
                owner[name] = kind
                identifiers.setdefault(kind, {})[name] = [str(x) for x in entry]
    return render(manual, identifiers), notes


def _scalar(s: str) -> str:
    return s if s and re.match(r"^[A-Za-z_][A-Za-z0-9_./]*$", s) and s not in ("null", "true", "false", "yes", "no",
                                                                                   "on", "off", "y", "n") else f'"{s}"'


def render(manual: dict, identifiers: dict[str, dict[str, list[str]]]) -> str:
    count = sum(len(v) for v in identifiers.values())
    lines = [
        "# GENERATED by scripts/gen_hipify_mappings.py from AMD's HIPIFY API tables",
        "# (../shared/data/hipify-tables/, MIT) and hipify/mappings_manual.yaml. Do not edit: rerun the script.",
        "#",
        "# identifiers: kind -> CUDA name -> [HIP name, HIP version that added it, HIP version that removed it,",
        "#              ROC library's / MIOpen's name, its added, its removed]; [] = no HIP equivalent",
        f"# {count} identifiers",
        "format: 2",
        "headers:",
    ]
    for name, h in manual["headers"].items():
        fields = ", ".join(f"{k}: {_scalar(str(v))}" for k, v in h.items())
        lines.append(f"  {_scalar(name)}: {{{fields}}}")
    lines.append("header_prefixes:")
    for name, h in (manual.get("header_prefixes") or {}).items():
        fields = ", ".join(f"{k}: {_scalar(str(v))}" for k, v in h.items())
        lines.append(f"  {_scalar(name)}: {{{fields}}}")
    lines.append("cuda_like:")
    lines += [f'  - "{p}"' for p in manual.get("cuda_like", [])]
    lines.append("identifiers:")
    for kind in [*KINDS.values(), *[k for k in identifiers if k not in KINDS.values()]]:
        if not identifiers.get(kind):
            continue
        lines.append(f"  {kind}:")
        for name in sorted(identifiers[kind]):
            entry = identifiers[kind][name]
            lines.append(f"    {name}: [{', '.join(_scalar(x) for x in entry)}]")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", default=str(TABLES))
    p.add_argument("--manual", default=str(MANUAL))
    p.add_argument("--output", default=str(OUTPUT))
    p.add_argument("--check", action="store_true", help="compare with the file on disk instead of writing it")
    args = p.parse_args(argv)
    tables, output = Path(args.tables), Path(args.output)
    if not tables.is_dir():
        print(f"gen_hipify_mappings: error: no tables folder at {tables}", file=sys.stderr)
        return 1
    try:
        text, notes = generate(tables, Path(args.manual))
    except (TableError, OSError, yaml.YAMLError, KeyError, TypeError) as e:
        print(f"gen_hipify_mappings: error: {e}", file=sys.stderr)
        return 1
    for note in notes:
        print(f"note: {note}")
    if args.check:
        current = output.read_text(encoding="utf-8") if output.exists() else ""
        if current != text:
            print(f"gen_hipify_mappings: {output} is stale: rerun scripts/gen_hipify_mappings.py", file=sys.stderr)
            return 1
        print(f"{output} is up to date")
        return 0
    sys.path.insert(0, str(ROOT))
    from hipify.mappings import MappingsError, parse

    try:
        parse(text.encode(), str(output))  # what the translator will accept
    except MappingsError as e:
        print(f"gen_hipify_mappings: error: the generated data does not load: {e}", file=sys.stderr)
        return 1
    if not output.exists() or output.read_text(encoding="utf-8") != text:
        tmp = output.with_name(output.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(output)
    print(f"{output}: {text.count(chr(10))} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
