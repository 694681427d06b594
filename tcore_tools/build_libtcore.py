"""tcore-build-libtcore: build the C++ library of a tcore checkout without Python, as
`python scripts/build_libtcore.py` in that checkout does (same options and settings).

The sources are not in the wheel: the checkout is --source-dir, else the one holding the
current folder. The installed wheel already holds a built libtcore with its headers and CMake
package (find_package(tcore) with CMAKE_PREFIX_PATH set to the folder of the tcore package)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MARKERS = ("csrc/native/native_functions.yaml", "scripts/build_libtcore.py", "CMakeLists.txt")


def find_checkout(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if all((folder / m).is_file() for m in MARKERS):
            return folder
    return None


def installed_prefix() -> str:
    import importlib.util

    spec = importlib.util.find_spec("tcore")
    if spec is None or not spec.submodule_search_locations:
        return "(tcore is not installed)"
    return str(Path(list(spec.submodule_search_locations)[0]))


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    source = None
    if "--source-dir" in args:
        i = args.index("--source-dir")
        if i + 1 >= len(args):
            print("tcore-build-libtcore: error: --source-dir needs a folder", file=sys.stderr)
            return 2
        source = Path(args[i + 1])
        del args[i:i + 2]
        if find_checkout(source.resolve()) != source.resolve():
            print(f"tcore-build-libtcore: error: --source-dir {source}: not a tcore checkout "
                  f"(it lacks {', '.join(m for m in MARKERS if not (source / m).is_file())})", file=sys.stderr)
            return 2
    else:
        source = find_checkout(Path.cwd().resolve())
        if source is None:
            print("tcore-build-libtcore: error: no tcore checkout holds the current folder; run it inside one or "
                  "pass --source-dir DIR.\nThe installed wheel already holds libtcore, its headers and its CMake "
                  f"package: CMAKE_PREFIX_PATH={installed_prefix()}", file=sys.stderr)
            return 2
    script = source / "scripts" / "build_libtcore.py"
    return subprocess.call([sys.executable, str(script), *args], env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


if __name__ == "__main__":
    sys.exit(main())
