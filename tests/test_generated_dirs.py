"""generated_dirs.txt and the git-diff workflow scripts (from any folder, names with spaces)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_generated_dirs_are_ignored_and_listed():
    lines = [l.split("#")[0].strip() for l in (ROOT / "generated_dirs.txt").read_text().splitlines()]
    dirs = [l for l in lines if l]
    assert dirs and all(d.endswith("/") for d in dirs)
    from codegen.plan import Options, make_plan
    from codegen.load import load_operator_set

    opset = load_operator_set(str(ROOT / "csrc/native/native_functions.yaml"), str(ROOT / "csrc/native/tags.yaml"))
    outputs = {"generated/" + o for u in make_plan(opset, Options()) for o in u.outputs}
    for out in outputs:  # every generated file is in a listed folder, and that folder is ignored by git
        folder = out.rsplit("/", 1)[0] + "/"
        assert folder in dirs, out
    r = subprocess.run(["git", "check-ignore", "-q", "generated/tcore/ops/add.h"], cwd=ROOT)
    assert r.returncode == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_add_and_reset_scripts(tmp_path):
    repo = tmp_path / "my repo"
    (repo / "scripts").mkdir(parents=True)
    for name in ("generated_dirs.sh", "git_add_generated_dirs.sh", "git_reset_generated_dirs.sh"):
        shutil.copy2(ROOT / "scripts" / name, repo / "scripts" / name)
    (repo / "generated_dirs.txt").write_text("# comment\ngen out/\n\n  other/   # trailing comment\nmissing/\n")
    (repo / ".gitignore").write_text("gen out/\nother/\n")
    (repo / "gen out" / "sub dir").mkdir(parents=True)
    (repo / "gen out" / "sub dir" / "a file.h").write_text("x\n")
    (repo / "other").mkdir()
    (repo / "other" / "b.cpp").write_text("y\n")
    (repo / "src").mkdir()
    git = lambda *a: subprocess.run(["git", *a], cwd=repo, capture_output=True, text=True, check=True).stdout
    git("init", "-q")
    git("add", ".gitignore", "generated_dirs.txt", "scripts")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    out = subprocess.run(["bash", str(repo / "scripts/git_add_generated_dirs.sh")], cwd=repo / "src",
                         capture_output=True, text=True, check=True).stdout
    assert "skipped missing/" in out
    staged = git("diff", "--cached", "--name-only").splitlines()
    assert sorted(staged) == ["gen out/sub dir/a file.h", "other/b.cpp"]
    subprocess.run(["bash", str(repo / "scripts/git_reset_generated_dirs.sh")], cwd=repo / "gen out",
                   capture_output=True, text=True, check=True)
    assert git("diff", "--cached", "--name-only") == ""
    assert (repo / "gen out" / "sub dir" / "a file.h").exists()
