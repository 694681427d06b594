#!/usr/bin/env python3
"""Fetch a corpus of real CUDA code for scripts/bench_hipify.py: the source archives (sdists)
of CUDA-bearing Python packages, taken from the package registry's simple index in its JSON
form (PEP 691) with urllib, checked against the index's sha256, and unpacked (C/C++/CUDA
sources only) into build/hipify-corpus/<project>/. Never committed (build/ is ignored).

    python scripts/fetch_hipify_corpus.py [--dest DIR] [--index URL] [--only NAME ...] [--toolchain-headers]

Each project is pinned to one version, so two fetches give the same corpus. An archive
already downloaded (same sha256) is not fetched again. Archive members with absolute
paths, '..' components, links or device entries are skipped, never extracted.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INDEX = "https://pypi.org/simple/"

# project -> pinned sdist version. Chosen for CUDA code that stands on its own (runtime,
# cuBLAS/cuRAND/CUB/cuSPARSE) as well as PyTorch extensions.
PROJECTS = {
    "llama-cpp-python": "0.3.36",  # ggml's CUDA backend (vendor/llama.cpp/ggml/src/ggml-cuda)
    "cupy": "14.2.0",  # CuPy's device headers and CUB/Thrust glue
    "deepspeed": "0.19.8",  # training kernels (PyTorch extensions)
    "mamba-ssm": "2.3.2.post1",  # selective scan (PyTorch extension, CUB)
    "causal-conv1d": "1.7.0",  # PyTorch extension
    "gsplat": "1.5.3",  # Gaussian splatting rasterizer (PyTorch extension)
}
SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hh", ".inl", ".cpp", ".cc", ".c", ".cxx")
MAX_MEMBER = 8 << 20  # larger "sources" are generated tables or binaries: skipped
# NVIDIA's own libraries vendored by a project (CUB, Thrust, libcu++, CUTLASS): ROCm replaces them
# (hipCUB, rocThrust), nobody translates them; they are left out of the corpus
VENDORED = ("/_cccl/", "/cccl/", "/cutlass/", "/cub/cub/", "/thrust/thrust/", "/libcudacxx/")


# --toolchain-headers: library headers that the compilers here lack, for scripts/bench_hipify.py.
# nvcc (CUDA 13.0 from the registry's nvidia-cuda-* wheels) has no cuBLAS/cuRAND/cuFFT headers: taken from
# the wheels of those libraries (pip download; only include/ is kept). hipcc 5.2 (Debian 12) has rocPRIM,
# rocRAND, hipRAND, rocSPARSE and hipSPARSE; hipBLAS, hipCUB, rocThrust, hipFFT, hipSOLVER and rocBLAS come
# from Debian 13's packages (apt-get download with a source list and package lists of its own, so nothing
# of the system's apt state changes), unpacked with dpkg -x. Nothing is installed system-wide.
CUDA_WHEELS = ["nvidia-cublas==13.0.*", "nvidia-curand==10.4.0.*", "nvidia-cufft==12.0.*"]
ROCM_DEBS = ["libhipblas-dev", "libhipcub-dev", "librocthrust-dev", "librocprim-dev", "libhipfft-dev",
             "librocblas-dev", "libhipsolver-dev"]
DEBIAN_SOURCE = "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main\n"


class FetchError(Exception):
    pass


def _run(cmd: list[str], cwd: Path | None = None) -> None:
    import subprocess

    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise FetchError(f"{' '.join(cmd[:3])} ... failed: {(r.stderr or r.stdout).strip()[-500:]}")


def cuda_headers(work: Path, dest: Path) -> int:
    """The include/ files of CUDA_WHEELS into dest; returns how many."""
    import zipfile

    wheels = work / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    wheels.mkdir(parents=True)
    _run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(wheels), *CUDA_WHEELS])
    n = 0
    for wheel in sorted(wheels.glob("*.whl")):
        with zipfile.ZipFile(wheel) as z:
            for name in z.namelist():
                rel = name.split("/include/", 1)[1] if "/include/" in name else ""
                if rel and rel.endswith((".h", ".hpp")) and safe_name("x/" + rel) is not None:
                    (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                    (dest / rel).write_bytes(z.read(name))
                    n += 1
    shutil.rmtree(wheels, ignore_errors=True)  # hundreds of MB of libraries: only the headers are kept
    return n


def rocm_headers(work: Path, dest: Path) -> int:
    """ROCM_DEBS from Debian 13, unpacked into dest (dest/usr/include/...); returns how many packages."""
    apt = work / "apt"
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "debs").mkdir(exist_ok=True)
    (apt / "sources.list").write_text(DEBIAN_SOURCE)
    opts = ["-o", f"Dir::State::Lists={apt / 'lists'}", "-o", f"Dir::Etc::SourceList={apt / 'sources.list'}",
            "-o", "Dir::Etc::SourceParts=/dev/null", "-o", f"Dir::Cache={apt / 'cache'}"]
    _run(["apt-get", *opts, "update"])
    _run(["apt-get", *opts, "download", *ROCM_DEBS], cwd=apt / "debs")
    debs = sorted((apt / "debs").glob("*.deb"))
    for deb in debs:
        _run(["dpkg", "-x", str(deb), str(dest)])
    return len(debs)


def sdist_url(index: str, project: str, version: str) -> tuple[str, str, str]:
    """(filename, url, sha256) of the project's sdist of that version, from the JSON simple index."""
    req = urllib.request.Request(index.rstrip("/") + f"/{project}/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            data = json.load(r)
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise FetchError(f"{project}: the index at {index} did not answer: {e}") from None
    norm = project.replace("-", "_").lower()
    for f in data.get("files", []):
        name = f["filename"]
        if name.lower() in (f"{norm}-{version}.tar.gz", f"{project.lower()}-{version}.tar.gz"):
            return name, f["url"], f.get("hashes", {}).get("sha256", "")
    raise FetchError(f"{project}: no sdist {version} in the index (pinned in scripts/fetch_hipify_corpus.py)")


def download(url: str, sha256: str, target: Path) -> Path:
    if target.exists() and (not sha256 or hashlib.sha256(target.read_bytes()).hexdigest() == sha256):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".part")
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=300) as r, open(tmp, "wb") as out:
            while chunk := r.read(1 << 20):
                digest.update(chunk)
                out.write(chunk)
    except (urllib.error.URLError, OSError) as e:
        tmp.unlink(missing_ok=True)
        raise FetchError(f"{url}: download failed: {e}") from None
    if sha256 and digest.hexdigest() != sha256:
        tmp.unlink(missing_ok=True)
        raise FetchError(f"{url}: sha256 {digest.hexdigest()} is not the index's {sha256}")
    os.replace(tmp, target)
    return target


def safe_name(name: str) -> str | None:
    """The member's path without its top folder, or None when it could escape the destination."""
    parts = name.replace("\\", "/").split("/")
    if name.startswith("/") or any(p in ("..", "") for p in parts[1:]) or len(parts) < 2:
        return None
    return "/".join(parts[1:])


def unpack(archive: Path, dest: Path) -> int:
    """The C/C++/CUDA sources of the archive into dest (replaced); returns how many .cu/.cuh."""
    tmp = dest.with_name(dest.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    cuda = 0
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar:
            rel = safe_name(member.name)
            if rel is None or not member.isreg() or not rel.endswith(SUFFIXES) or member.size > MAX_MEMBER \
                    or any(v in "/" + rel for v in VENDORED):
                continue
            out = tmp / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(tar.extractfile(member).read())
            cuda += rel.endswith((".cu", ".cuh"))
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(tmp, dest)
    return cuda


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dest", default=str(ROOT / "build" / "hipify-corpus"))
    p.add_argument("--index", default=INDEX)
    p.add_argument("--only", nargs="*", default=None, help="projects to fetch (default: all pinned ones)")
    p.add_argument("--toolchain-headers", action="store_true",
                   help="also fetch the CUDA and ROCm library headers the bench compiles against "
                        "(build/cuda-extra, build/rocm-extra)")
    args = p.parse_args(argv)
    dest = Path(args.dest)
    if dest.exists() and not dest.is_dir():
        print(f"fetch_hipify_corpus: error: {dest} is not a folder", file=sys.stderr)
        return 1
    chosen = args.only or list(PROJECTS)
    unknown = [n for n in chosen if n not in PROJECTS]
    if unknown:
        print(f"fetch_hipify_corpus: error: not pinned: {', '.join(unknown)} (known: {', '.join(PROJECTS)})",
              file=sys.stderr)
        return 2
    total, failed = 0, []
    for project in chosen:
        try:
            name, url, sha = sdist_url(args.index, project, PROJECTS[project])
            archive = download(url, sha, dest / ".archives" / name)
            n = unpack(archive, dest / project)
        except (FetchError, tarfile.TarError, OSError) as e:
            print(f"fetch_hipify_corpus: {e}", file=sys.stderr)
            failed.append(project)
            continue
        total += n
        print(f"{project:20s} {PROJECTS[project]:14s} {n:5d} .cu/.cuh files")
    print(f"{total} .cu/.cuh files under {dest}")
    if args.toolchain_headers:
        work = ROOT / "build" / "toolchain-downloads"
        try:
            print(f"{cuda_headers(work, ROOT / 'build' / 'cuda-extra' / 'include')} CUDA library headers "
                  f"under build/cuda-extra/include")
            print(f"{rocm_headers(work, ROOT / 'build' / 'rocm-extra')} ROCm packages unpacked under build/rocm-extra")
        except (FetchError, OSError) as e:
            print(f"fetch_hipify_corpus: {e}", file=sys.stderr)
            failed.append("toolchain headers")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
