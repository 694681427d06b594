#!/usr/bin/env python3
"""Finds PyTorch's own operator YAML (native_functions.yaml, tags.yaml,
derivatives.yaml, deprecated.yaml) at run time, for tests and benchmarks.

It is never committed: it comes from an installed torchgen, or from the torch
2.13.0 wheel (pip download takes it from the local disk here), unpacked under
build/pytorch-yaml/. Prints the folder, or exits 1 when there is no wheel.
"""
from __future__ import annotations

import glob
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TORCH_VERSION = "2.13.0"
MEMBERS = {
    "native_functions.yaml": "torchgen/packaged/ATen/native/native_functions.yaml",
    "tags.yaml": "torchgen/packaged/ATen/native/tags.yaml",
    "derivatives.yaml": "torchgen/packaged/autograd/derivatives.yaml",
    "deprecated.yaml": "torchgen/packaged/autograd/deprecated.yaml",
}


def _find_wheel(download_dir: Path) -> Path | None:
    candidates = sorted(glob.glob(str(download_dir / "torch-*.whl"))) + sorted(glob.glob("/opt/wheels/torch-*.whl"))
    if candidates:
        return Path(candidates[0])
    download_dir.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "pip", "download", f"torch=={TORCH_VERSION}", "--no-deps",
                        "-d", str(download_dir)], capture_output=True, text=True)
    found = sorted(glob.glob(str(download_dir / "torch-*.whl")))
    return Path(found[0]) if r.returncode == 0 and found else None


def pytorch_yaml_dir(cache: Path | None = None) -> Path | None:
    """A folder holding the four YAML files, or None when they cannot be had."""
    cache = cache or ROOT / "build" / "pytorch-yaml"
    if all((cache / name).exists() for name in MEMBERS):
        return cache
    try:
        import torchgen  # noqa: F401 - an installed torch carries them

        packaged = Path(torchgen.__file__).parent / "packaged"
        cache.mkdir(parents=True, exist_ok=True)
        for name, member in MEMBERS.items():
            (cache / name).write_bytes((packaged.parent / member.split("/", 1)[1]).read_bytes())
        return cache
    except ImportError:
        pass
    wheel = _find_wheel(ROOT / "build" / "wheels")
    if wheel is None:
        return None
    cache.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as z:
        for name, member in MEMBERS.items():
            tmp = cache / f".{name}.tmp"
            tmp.write_bytes(z.read(member))
            os.replace(tmp, cache / name)
    return cache


def torchgen_dir(cache: Path | None = None) -> Path | None:
    """The wheel's torchgen/ package unpacked (it runs with PyYAML alone), for benchmarks."""
    cache = cache or ROOT / "build" / "torchgen-src"
    if (cache / "torchgen" / "gen.py").exists():
        return cache
    wheel = _find_wheel(ROOT / "build" / "wheels")
    if wheel is None:
        return None
    with zipfile.ZipFile(wheel) as z:
        for member in z.namelist():
            if member.startswith("torchgen/"):
                z.extract(member, cache)
    return cache


if __name__ == "__main__":
    folder = pytorch_yaml_dir()
    if folder is None:
        sys.exit("no torch wheel found (pip download torch==2.13.0 --no-deps failed)")
    print(folder)
