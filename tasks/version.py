"""doit version: generated/tcore/version.h from version.txt and the git revision."""
from __future__ import annotations

from pathlib import Path

from .config import LIVE_OUTPUT, Paths


def header_text(root: Path) -> str:
    """version.h's text for the checkout at root (scripts/gen_version_header.py: version.txt
    and the git revision, no timestamp)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("tcore_gen_version_header", root / "scripts" / "gen_version_header.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.current_header(root)


def header_path(p: Paths):
    return p.gen_dir / "tcore" / "version.h"


def _write(p: Paths, text: str) -> None:
    from codegen.file_writer import FileWriter

    FileWriter(header_path(p).parent, source="version.txt").write("version.h", text)


def task_version(p: Paths):
    """Write tcore/version.h (version.txt + git revision; changes only when they do)."""
    from doit.tools import config_changed

    text = header_text(p.root)
    return {
        "actions": [(_write, [p, text])],
        "targets": [str(header_path(p))],
        "uptodate": [config_changed(text)],
        **LIVE_OUTPUT,
        "clean": True,
    }
