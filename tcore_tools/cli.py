"""The console scripts of the tcore wheel. `import tcore` needs numpy only; the tools need more
(PyYAML, Jinja2; CMake and Ninja to build), which `pip install 'tcore[tools]'` brings. Without
them a script says so in one line instead of a traceback."""
from __future__ import annotations

import importlib.util
import sys

_PACKAGES = {"yaml": "PyYAML", "jinja2": "Jinja2"}


def _require(tool: str, *modules: str) -> None:
    missing = [_PACKAGES.get(m, m) for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        print(f"{tool}: error: it needs {' and '.join(missing)}: pip install 'tcore[tools]'", file=sys.stderr)
        raise SystemExit(2)


def generate_code() -> int:
    _require("tcore-generate-code", "yaml", "jinja2")
    from tcore_tools.codegen.generate_code import main

    return main()


def hipify() -> int:
    _require("tcore-hipify", "yaml")
    from tcore_tools.hipify.__main__ import main

    return main()


def build_libtcore() -> int:
    from tcore_tools.build_libtcore import main

    return main()
