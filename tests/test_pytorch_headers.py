"""Per-operator headers for PyTorch's whole operator set: generated, and a sample of
200 operators (fixed seed) compiled against tcore's core headers, every schema type
included (types the core lacks are opaque structs the generator declares)."""
from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def generated(pytorch_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("pytorch-gen")
    r = subprocess.run([sys.executable, "-m", "codegen.generate_code",
                        "--native-functions-path", str(pytorch_dir / "native_functions.yaml"),
                        "--tags-path", str(pytorch_dir / "tags.yaml"),
                        "--derivatives-path", str(pytorch_dir / "derivatives.yaml"),
                        "--install-dir", str(out), "--per-operator-headers", "--subset", "libtorch",
                        "--disable-autograd"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


def test_every_operator_has_headers(generated):
    roots = {p.name[: -len("_ops.h")] for p in (generated / "tcore/ops").glob("*_ops.h")}
    assert len(roots) > 1300
    for root in ("add", "convolution", "_foreach_add", "linalg_svd", "std"):
        for suffix in (".h", "_ops.h", "_native.h"):
            assert (generated / "tcore/ops" / f"{root}{suffix}").exists()
    assert not list((generated).glob("python/*"))  # --subset libtorch: no bindings


def test_sample_compiles(generated, tmp_path):
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    roots = sorted(p.name[: -len("_ops.h")] for p in (generated / "tcore/ops").glob("*_ops.h"))
    sample = random.Random(2584).sample(roots, 200)
    source = tmp_path / "sample.cpp"
    source.write_text("".join(f"#include <tcore/ops/{r}.h>\n#include <tcore/ops/{r}_native.h>\n" for r in sample))
    r = subprocess.run([cxx, "-std=c++17", "-fsyntax-only", "-I", str(ROOT / "csrc/include"), "-I", str(generated),
                        str(source)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]


def test_every_schema_type_is_declared(generated):
    """Each base type of the grammar appears in some declaration (so the sample above can meet it)."""
    from codegen.api.cpp import BASE_CPP

    text = "".join(p.read_text() for p in (generated / "tcore/ops").glob("*_ops.h"))
    unused_by_pytorch = {"Any", "GraphModule", "Dimname", "ConstQuantizerPtr"}  # not in 2.13's schemas
    for name, (spelled, _) in BASE_CPP.items():
        if name not in unused_by_pytorch:
            assert spelled in text, name
