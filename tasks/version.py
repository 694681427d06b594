"""doit version: generated/tcore/version.h from version.txt and the git revision."""
from __future__ import annotations

from doit.tools import config_changed

from .config import LIVE_OUTPUT, Paths


def _helper(p: Paths):
    import importlib.util

    spec = importlib.util.spec_from_file_location("tcore_gen_version_header", p.root / "scripts" / "gen_version_header.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def header_path(p: Paths):
    return p.gen_dir / "tcore" / "version.h"


def _write(p: Paths, text: str) -> None:
    from codegen.file_writer import FileWriter

    FileWriter(header_path(p).parent, source="version.txt").write("version.h", text)


def task_version(p: Paths):
    """Write tcore/version.h (version.txt + git revision; changes only when they do)."""
    text = _helper(p).current_header(p.root)
    return {
        "actions": [(_write, [p, text])],
        "targets": [str(header_path(p))],
        "uptodate": [config_changed(text)],
        **LIVE_OUTPUT,
        "clean": True,
    }
