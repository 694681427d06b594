#!/usr/bin/env python3
"""Version header: tcore/version.h from version.txt and the git revision (when the
tree is a git checkout). No timestamp, so the header changes only when they do.

    python scripts/gen_version_header.py [--out generated/tcore/version.h]
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def git_revision(repo: Path = REPO) -> str | None:
    """HEAD's commit, read from .git directly (fast enough for every doit run)."""
    git = repo / ".git"
    if git.is_file():  # a worktree: "gitdir: PATH"
        git = Path(git.read_text().split(":", 1)[1].strip())
    head = git / "HEAD"
    if not head.exists():
        return None
    ref = head.read_text().strip()
    if not ref.startswith("ref: "):
        return ref or None
    name = ref[5:]
    if (git / name).exists():
        return (git / name).read_text().strip()
    packed = git / "packed-refs"
    if packed.exists():
        for line in packed.read_text().splitlines():
            if line.endswith(" " + name):
                return line.split()[0]
    return None  # a branch with no commit yet


def version_header(version: str, revision: str | None) -> str:
    m = re.match(r"^(\d+)\.(\d+)\.(\d+)", version)
    if m is None:
        raise ValueError(f"version.txt must start with MAJOR.MINOR.PATCH, got {version!r}")
    major, minor, patch = m.groups()
    full = version if revision is None else f"{version}+git{revision[:7]}"
    return (
        "#pragma once\n"
        "// The tcore version (version.txt) and the git revision it was built from.\n"
        f'#define TCORE_VERSION "{full}"\n'
        f"#define TCORE_VERSION_MAJOR {major}\n"
        f"#define TCORE_VERSION_MINOR {minor}\n"
        f"#define TCORE_VERSION_PATCH {patch}\n"
        f'#define TCORE_GIT_REVISION "{revision or "unknown"}"\n'
    )


def current_header(repo: Path = REPO) -> str:
    return version_header((repo / "version.txt").read_text().strip(), git_revision(repo))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(REPO / "generated" / "tcore" / "version.h"))
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from codegen.file_writer import FileWriter

    out = Path(args.out)
    writer = FileWriter(out.parent, source="version.txt")
    changed = writer.write(out.name, current_header())
    print(f"{out}: {'written' if changed else 'unchanged'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
