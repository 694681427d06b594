"""hipify: translation table (one row per mapping family and construct), the tree
tool (out of place, idempotent, incremental, odd inputs), and nvcc on csrc/'s CUDA
sources when the build did not compile them. hipcc compiles every translation of csrc/
in tests/test_rocm_pipeline.py (the ROCm backend built through doit)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hipify.mappings import load
from hipify.translate import translate
from hipify.paths import hip_path
from hipify.tree import hipify_tree

ROOT = Path(__file__).resolve().parent.parent
M = load()

CASES = [
    ("runtime API", "cudaMalloc(&p, n); cudaFree(p); cudaDeviceSynchronize();",
     "hipMalloc(&p, n); hipFree(p); hipDeviceSynchronize();"),
    ("types", "cudaStream_t s; cudaEvent_t e; cudaError_t err; cudaDeviceProp prop;",
     "hipStream_t s; hipEvent_t e; hipError_t err; hipDeviceProp_t prop;"),
    ("enums", "cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);", "hipMemcpy(d, h, n, hipMemcpyHostToDevice);"),
    ("error codes", "if (e != cudaSuccess) return cudaErrorInvalidValue;",
     "if (e != hipSuccess) return hipErrorInvalidValue;"),
    ("driver API", "CUresult r = cuInit(0); CUdevice d; cuDeviceGet(&d, 0);",
     "hipError_t r = hipInit(0); hipDevice_t d; hipDeviceGet(&d, 0);"),
    ("cuBLAS", "cublasHandle_t h; cublasCreate(&h); cublasSgemm(h, CUBLAS_OP_N);",
     "hipblasHandle_t h; hipblasCreate(&h); hipblasSgemm(h, HIPBLAS_OP_N);"),
    ("cuRAND", "curandState_t st; curand_init(1, 0, 0, &st); curandGenerateUniform(g, p, n);",
     "hiprandState_t st; hiprand_init(1, 0, 0, &st); hiprandGenerateUniform(g, p, n);"),
    ("cuFFT", "cufftHandle plan; cufftPlan1d(&plan, n, CUFFT_C2C, 1);",
     "hipfftHandle plan; hipfftPlan1d(&plan, n, HIPFFT_C2C, 1);"),
    ("cuSPARSE", "cusparseHandle_t h; cusparseCreate(&h);", "hipsparseHandle_t h; hipsparseCreate(&h);"),
    ("cuSOLVER", "cusolverDnHandle_t h; cusolverDnCreate(&h);", "hipsolverHandle_t h; hipsolverDnCreate(&h);"),
    ("CUB", "cub::DeviceReduce::Sum(tmp, bytes, in, out, n);", "hipcub::DeviceReduce::Sum(tmp, bytes, in, out, n);"),
    ("cuDNN to hipDNN (MIOpen with --miopen)", "cudnnHandle_t h; cudnnCreate(&h);", "hipdnnHandle_t h; hipdnnCreate(&h);"),
    ("system include", "#include <cuda_runtime.h>\n#include <cublas_v2.h>",
     "#include <hip/hip_runtime.h>\n#include <hipblas/hipblas.h>"),
    ("quoted include kept quoted", '#include "cuda_fp16.h"', '#include "hip/hip_fp16.h"'),
    ("launch kept", "k<<<grid, block, 0, stream>>>(a, b);", "k<<<grid, block, 0, stream>>>(a, b);"),
    ("comments and strings", '// cudaMalloc here\n/* cudaFree */ puts("cudaMalloc failed");',
     '// cudaMalloc here\n/* cudaFree */ puts("cudaMalloc failed");'),
    ("macros", "#ifdef __CUDACC__\n#define CHECK(x) cudaGetLastError()\n#endif",
     "#ifdef __HIPCC__\n#define CHECK(x) hipGetLastError()\n#endif"),
    ("templates", "template <typename T> __global__ void k(T* x);\nstd::vector<cudaStream_t> streams;",
     "template <typename T> __global__ void k(T* x);\nstd::vector<hipStream_t> streams;"),
    ("user names untouched", "void cuda_helper(); int cube = 3; DeviceType::CUDA;",
     "void cuda_helper(); int cube = 3; DeviceType::CUDA;"),
    ("already HIP is left alone", "hipMalloc(&p, n); #include <hip/hip_runtime.h>", "hipMalloc(&p, n); #include <hip/hip_runtime.h>"),
]


@pytest.mark.parametrize("name,cuda,hip", CASES, ids=[c[0] for c in CASES])
def test_translation_table(name, cuda, hip):
    assert translate(cuda, M).text == hip
    assert translate(hip, M).text == hip  # idempotent


def test_launch_ggl_and_unsupported_report():
    r = translate("k<T><<<g, b>>>(x, y);\nkernel<<<g, b, 8, s>>>();\ncudaGraphExecKernelNodeSetParams(a);", M,
                  launch_ggl=True)
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<T>), dim3(g), dim3(b), 0, 0, x, y);" in r.text
    assert "hipLaunchKernelGGL(kernel, dim3(g), dim3(b), 8, s);" in r.text
    assert "hipGraphExecKernelNodeSetParams(a);" in r.text and not r.unsupported


def test_path_mapping():
    assert hip_path("native/cuda/Add_cuda.cu") == "native/hip/Add_hip.hip"
    assert hip_path("CUDAHooks.cpp") == "HIPHooks.cpp"
    assert hip_path(hip_path("native/cuda/x.cu")) == "native/hip/x.hip"


def make_tree(root: Path) -> None:
    (root / "cuda").mkdir(parents=True)
    (root / "cuda" / "util.cuh").write_text("#pragma once\n#include <cuda_runtime.h>\ninline cudaError_t ok() { return cudaSuccess; }\n")
    (root / "cuda" / "kernel.cu").write_text('#include "util.cuh"\n__global__ void k() {}\nvoid f() { k<<<1, 1>>>(); ok(); }\n')
    (root / "plain.h").write_text("int x;\n")


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
            for p in folder.rglob("*") if p.is_file()}


def test_tree_out_of_place_idempotent_incremental(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    make_tree(src)
    before = snapshot(src)
    s = hipify_tree(src, out)
    assert sorted(s.translated) == ["cuda/kernel.cu", "cuda/util.cuh"] and s.copied == ["plain.h"]
    kernel = (out / "hip" / "kernel.hip").read_text()
    assert '#include "util.cuh"' in kernel  # a project header keeps its (translated) name
    assert snapshot(src) == before, "the source tree is never written"
    first = snapshot(out)
    s = hipify_tree(src, out)
    assert not s.translated and not s.copied and len(s.unchanged) == 3
    assert snapshot(out) == first, "a second run rewrites nothing"
    (src / "cuda" / "kernel.cu").write_text('#include "util.cuh"\nvoid g() { cudaDeviceReset(); }\n')
    s = hipify_tree(src, out)
    assert s.translated == ["cuda/kernel.cu"] and len(s.unchanged) == 2
    (src / "plain.h").unlink()
    s = hipify_tree(src, out)
    assert s.removed == ["plain.h"] and not (out / "plain.h").exists()


def test_tree_on_its_own_output_changes_nothing(tmp_path):
    src, out, again = tmp_path / "src", tmp_path / "out", tmp_path / "again"
    make_tree(src)
    hipify_tree(src, out)
    s = hipify_tree(out, again)
    assert not s.translated
    for f in ("hip/kernel.hip", "hip/util.cuh"):
        assert (again / f).read_text() == (out / f).read_text()


def test_read_only_source_tree(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    make_tree(src)
    paths = sorted(src.rglob("*"), reverse=True) + [src]  # files before their folders
    for p in paths:
        p.chmod(0o555 if p.is_dir() else 0o444)
    try:
        before = snapshot(src)
        s = hipify_tree(src, out)
        assert sorted(s.translated) == ["cuda/kernel.cu", "cuda/util.cuh"] and not s.skipped
        assert snapshot(src) == before
        assert all(p.stat().st_mode & 0o222 == 0 for p in paths), "permissions are left as they were"
    finally:
        for p in reversed(paths):
            p.chmod(0o755 if p.is_dir() else 0o644)


def test_odd_inputs(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "latin1.cu").write_bytes(b"// caf\xe9\ncudaMalloc(p, 1);\n")
    s = hipify_tree(src, out)
    assert s.non_utf8 == ["latin1.cu"]
    assert (out / "latin1.hip").read_bytes() == b'// caf\xe9\n#include "hip/hip_runtime.h"\nhipMalloc(p, 1);\n'
    empty = tmp_path / "empty"
    empty.mkdir()
    r = subprocess.run([sys.executable, "-m", "hipify", "--project-directory", str(empty), "--output-directory",
                        str(tmp_path / "o2")], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0 and "no source files" in r.stdout
    r = subprocess.run([sys.executable, "-m", "hipify", "--project-directory", str(tmp_path / "nope"),
                        "--output-directory", str(tmp_path / "o3")], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 1 and "does not exist" in r.stderr and "Traceback" not in r.stderr
    (tmp_path / "blocker").write_text("a file")
    r = subprocess.run([sys.executable, "-m", "hipify", "--project-directory", str(src), "--output-directory",
                        str(tmp_path / "blocker" / "out")], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 1 and "cannot write to the output directory" in r.stderr


def test_large_file(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    line = "cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, stream); // copy\n"
    (src / "big.cu").write_text(line * (50 * 1024 * 1024 // len(line)))
    s = hipify_tree(src, out)
    assert s.translated == ["big.cu"]
    text = (out / "big.hip").read_text()
    assert text.count("hipMemcpyAsync") == text.count("\n") - 1 and text.startswith('#include "hip/hip_runtime.h"') and "cudaMemcpy" not in text.replace("// copy", "")


def _include_flags() -> list[str]:
    """The kernels include the core headers and the generated operator headers (a build has
    written them)."""
    gen = Path(os.environ.get("TCORE_GEN_DIR", ROOT / "generated"))
    if not (gen / "tcore" / "ops").is_dir():
        pytest.skip("the generated operator headers are missing (run `doit codegen`)")
    dirs = [ROOT / "csrc", ROOT / "csrc" / "include", gen]
    return [f"-I{d}" for d in dirs]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_cuda_sources_compile_with_nvcc(tcore, tmp_path):
    if tcore.cuda.is_built():
        pytest.skip("the build compiled every csrc/ .cu file with nvcc already (the CUDA backend is built)")
    sources = sorted((ROOT / "csrc").rglob("*.cu"))
    assert sources
    for s in sources:
        r = subprocess.run(["nvcc", "-std=c++17", "-c", str(s), *_include_flags(), "-o", str(tmp_path / "x.o")],
                           capture_output=True, text=True)
        assert r.returncode == 0, f"{s}:\n" + r.stderr[-3000:]


def test_worker_processes_give_the_same_tree(tmp_path):
    src = tmp_path / "src"
    for i in range(40):
        (src / f"d{i % 3}").mkdir(parents=True, exist_ok=True)
        (src / f"d{i % 3}" / f"k{i}_cuda.cu").write_text(f'#include "../d0/k0_cuda.cu"\n// cudaFree {i}\n'
                                                        f"void f{i}() {{ cudaFree(nullptr); cuRandomName{i}(); }}\n")
    serial, parallel = hipify_tree(src, tmp_path / "one", jobs=1), hipify_tree(src, tmp_path / "two", jobs=2)
    assert serial.translated == parallel.translated and len(serial.translated) == 40
    assert serial.unsupported == parallel.unsupported and serial.unsupported
    one = {p.relative_to(tmp_path / "one"): p.read_bytes() for p in (tmp_path / "one").rglob("*.hip")}
    two = {p.relative_to(tmp_path / "two"): p.read_bytes() for p in (tmp_path / "two").rglob("*.hip")}
    assert one == two and len(one) == 40
    assert hipify_tree(src, tmp_path / "two", jobs=2).unchanged == serial.translated  # a rerun reads nothing
