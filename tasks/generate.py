"""Every source the C++ build needs, generated in one go outside doit: the code generator's
output (python -m codegen.generate_code), tcore/version.h, and, for a ROCm build, the HIP
translation of the GPU sources. CMake runs it at configure time when scikit-build-core
drives the build (`pip install .`, `pip wheel .`: cmake/generate.cmake), and
scripts/build_libtcore.py calls generate(). doit runs the same generators as sub-tasks.

    python -m tasks.generate --out DIR [--subset libtorch] [--hip] [--cache-dir DIR]

Each file is written only when its text changes, so a rerun recompiles nothing. Bad input
is the generator's message (FILE:LINE:COL and a caret) and exit 1."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# the generator's output folders under --out (generated_dirs.txt lists them for the checkout)
GENERATED_FOLDERS = ("tcore", "dispatch", "python", "autograd", "jit", "cmake")


class GenerateError(Exception):
    pass


def generate(out: Path, *, subset: str | None = None, hip: bool = False, cache_dir: Path | None = None) -> None:
    sys.path.insert(0, str(ROOT))
    from codegen.errors import SourceError
    from codegen.file_writer import FileWriter
    from codegen.generate_code import parse_args, run

    argv = ["--native-functions-path", str(ROOT / "csrc/native/native_functions.yaml"),
            "--tags-path", str(ROOT / "csrc/native/tags.yaml"),
            "--derivatives-path", str(ROOT / "csrc/autograd/derivatives.yaml"),
            "--install-dir", str(out), "--per-operator-headers", "--kernel-source-dir", str(ROOT / "csrc/native")]
    if subset:
        argv += ["--subset", subset]
    if cache_dir is not None:
        argv += ["--cache-dir", str(cache_dir)]
    try:
        writer = run(parse_args(argv))
    except SourceError as e:
        raise GenerateError(str(e)) from None
    from .version import header_text

    version = FileWriter(out / "tcore", source="version.txt")
    version.write("version.h", header_text(ROOT))
    prune(out, set(writer.written) | set(writer.unchanged) | {"tcore/version.h"})
    if hip:
        from hipify.tree import hipify_tree

        from .hipify import CSRC_IGNORES, CSRC_INCLUDES

        hipify_tree(ROOT / "csrc", out / "hip", includes=list(CSRC_INCLUDES), ignores=list(CSRC_IGNORES))


def prune(out: Path, current: set[str]) -> list[str]:
    """Removes what an earlier run generated and this one did not (an operator deleted from the
    YAML), so a build tree that stays (pip's build-dir) never compiles or installs it. hip/ has
    hipify's own manifest; nothing outside the generator's folders is touched."""
    removed = []
    for folder in GENERATED_FOLDERS:
        for path in sorted((out / folder).rglob("*")) if (out / folder).is_dir() else ():
            rel = path.relative_to(out).as_posix()
            if path.is_file() and rel not in current and not path.name.startswith("."):
                path.unlink()
                removed.append(rel)
    return removed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tasks.generate", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, type=Path, help="root of the generated sources")
    p.add_argument("--subset", choices=("libtorch", "pybindings", "python"), default=None)
    p.add_argument("--hip", action="store_true", help="also translate the GPU sources to HIP (a ROCm build)")
    p.add_argument("--cache-dir", type=Path, default=None)
    args = p.parse_args(argv)
    try:
        generate(args.out, subset=args.subset, hip=args.hip, cache_dir=args.cache_dir)
    except GenerateError as e:
        print(e, file=sys.stderr)
        return 1
    print(f"tcore: generated the sources under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
