"""hipify's translation rules, one test each, with the exact output (hipify/translate.py on the
data generated from AMD's tables)."""
from __future__ import annotations

import time

import pytest

from hipify.mappings import Target, load
from hipify.translate import RUNTIME_INCLUDE, translate

NEW = load(Target())  # the newest HIP of the tables
HIP52 = load(Target((5, 2, 0)))
ROC = load(Target(roc=True))
MIOPEN = load(Target(miopen=True))


def tr(src: str, m=NEW, **kw) -> str:
    return translate(src, m, **kw).text


@pytest.mark.parametrize("cuda,hip", [
    ("cudaMalloc(&p, n); cudaFree(p); cudaDeviceSynchronize();", "hipMalloc(&p, n); hipFree(p); hipDeviceSynchronize();"),
    ("cudaDeviceProp prop; cudaStream_t s;", "hipDeviceProp_t prop; hipStream_t s;"),
    ("cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);", "hipMemcpy(d, h, n, hipMemcpyHostToDevice);"),
    ("CUresult r = cuInit(0); CUdevice d; cuDeviceGet(&d, 0);", "hipError_t r = hipInit(0); hipDevice_t d; hipDeviceGet(&d, 0);"),
    ("nvrtcProgram p; nvrtcCompileProgram(p, 0, nullptr);", "hiprtcProgram p; hiprtcCompileProgram(p, 0, nullptr);"),
    ("__nv_bfloat16 x;", "hip_bfloat16 x;"),
    ("cuComplex z = make_cuComplex(1, 2);", "hipComplex z = make_hipComplex(1, 2);"),
    ("cublasHandle_t h; cublasSgemm(h, CUBLAS_OP_N);", "hipblasHandle_t h; hipblasSgemm(h, HIPBLAS_OP_N);"),
    ("curandState_t st; curand_init(1, 0, 0, &st);", "hiprandState_t st; hiprand_init(1, 0, 0, &st);"),
    ("cufftHandle plan; cufftPlan1d(&plan, n, CUFFT_C2C, 1);", "hipfftHandle plan; hipfftPlan1d(&plan, n, HIPFFT_C2C, 1);"),
    ("cusparseHandle_t h; cusparseCreate(&h);", "hipsparseHandle_t h; hipsparseCreate(&h);"),
    ("cusolverDnHandle_t h; cusolverDnCreate(&h);", "hipsolverHandle_t h; hipsolverDnCreate(&h);"),
    ("cub::DeviceReduce::Sum(t, b, i, o, n);", "hipcub::DeviceReduce::Sum(t, b, i, o, n);"),
    ("#ifdef __CUDACC__\nx\n#endif", "#ifdef __HIPCC__\nx\n#endif"),
])
def test_identifiers_from_the_tables(cuda, hip):
    assert tr(cuda) == hip
    assert tr(hip) == hip  # a translation translates to itself


def test_user_names_are_left_alone():
    src = "void cuda_helper(); int cube = 3; DeviceType::CUDA; struct cudaish {}; my_cudaMalloc();"
    assert tr(src) == src


def test_device_builtins_stay_as_hip_spells_them():
    src = "int z = blockDim.z * gridDim.y + threadIdx.x + blockIdx.z; __syncthreads(); int w = warpSize;"
    assert tr(src) == src


def test_hip_version_leaves_newer_names_and_reports_them():
    src = "int x;\n  cudaDeviceSetLimit(cudaLimitStackSize, 0);\n"
    r = translate(src, HIP52)
    assert r.text == src  # hipDeviceSetLimit and hipLimitStackSize came with HIP 5.3
    assert [w.format("k.cu") for w in r.warnings] == [
        "k.cu:2:3: warning: cudaDeviceSetLimit has no HIP equivalent (HIP 5.2)",
        "k.cu:2:22: warning: cudaLimitStackSize has no HIP equivalent (HIP 5.2)"]
    assert tr(src) == "int x;\n  hipDeviceSetLimit(hipLimitStackSize, 0);\n"


def test_name_without_any_equivalent_is_reported_once_with_its_position():
    r = translate("a();\nb(); cudaInitDevice(0); cudaInitDevice(1);", NEW)
    assert r.text == "a();\nb(); cudaInitDevice(0); cudaInitDevice(1);"
    assert [(w.line, w.col, w.name, w.reason) for w in r.warnings] == [(2, 6, "cudaInitDevice", "no HIP equivalent")]


def test_unknown_cuda_looking_names_are_counted():
    assert translate("cudaNotAnApi(); CUDA_CHECK(x);", NEW).unsupported == {"cudaNotAnApi": 1, "CUDA_CHECK": 1}


def test_roc_targets_the_roc_libraries():
    src = "#include <cublas_v2.h>\ncublasHandle_t h; cublasSgemm(h); cusparseCreate(&s); curandCreateGenerator(&g, 0);"
    assert tr(src, ROC) == ("#include <rocblas/rocblas.h>\nrocblas_handle h; rocblas_sgemm(h); "
                            "rocsparse_create_handle(&s); rocrand_create_generator(&g, 0);")


def test_miopen_targets_miopen_and_default_is_hipdnn():
    src = '#include "cudnn.h"\ncudnnHandle_t h; cudnnCreate(&h);'
    assert tr(src, MIOPEN) == '#include "miopen/miopen.h"\nmiopenHandle_t h; miopenCreate(&h);'
    assert tr(src) == '#include "hipDNN.h"\nhipdnnHandle_t h; hipdnnCreate(&h);'


@pytest.mark.parametrize("cuda,hip", [
    ("#include <cuda_runtime.h>", "#include <hip/hip_runtime.h>"),
    ('#include "cuda_fp16.h"', '#include "hip/hip_fp16.h"'),
    ("#include <cublas_v2.h>", "#include <hipblas/hipblas.h>"),
    ("#include <cufft.h>", "#include <hipfft/hipfft.h>"),
    ("#include <curand_kernel.h>", "#include <hiprand/hiprand_kernel.h>"),
    ("#include <cusparse.h>", "#include <hipsparse/hipsparse.h>"),
    ("#include <cusolverDn.h>", "#include <hipsolver/hipsolver.h>"),
    ("#include <cub/block/block_reduce.cuh>", "#include <hipcub/hipcub.hpp>"),
    ("#include <thrust/system/cuda/execution_policy.h>", "#include <thrust/system/hip/execution_policy.h>"),
    ("#  include <nvrtc.h>", "#  include <hip/hiprtc.h>"),
])
def test_library_headers_map_to_the_rocm_package_paths(cuda, hip):
    assert tr(cuda) == hip


def test_headers_follow_the_hip_version():
    assert tr("#include <cuda_bf16.h>", HIP52) == "#include <hip/hip_bfloat16.h>"
    assert tr("#include <cuda_bf16.h>") == "#include <hip/hip_bf16.h>"
    r = translate("#include <cuda_fp8.h>", HIP52)
    assert r.text == "#include <cuda_fp8.h>" and r.warnings[0].name == "cuda_fp8.h"


def test_project_headers_get_their_translated_names():
    mapped = {"util_cuda.cuh": "util_hip.cuh"}
    assert tr('#include "util_cuda.cuh"\n#include <vector>', include_map=mapped.get) == \
        '#include "util_hip.cuh"\n#include <vector>'


def test_comments_and_strings_are_copied_as_they_are():
    src = ('// cudaMalloc here <<<x>>>\n/* cudaFree\n k<<<1,1>>>(); */ puts("cudaMalloc <<<1, 1>>>()");\n'
           "auto r = R\"x(cudaFree <<<a,b>>>())x\"; char c = 'c';\n")
    assert tr(src) == src
    assert tr(src, launch_ggl=True) == src


def test_if0_blocks_are_untouched_and_their_else_is_translated():
    src = ("#if 0\ncudaMalloc(p);\n#if FOO\ncudaFree(p);\n#endif\n#include <cuda.h>\n#else\ncudaFree(q);\n#endif\n"
           "#if 0 // disabled\ncudaFree(r);\n#endif\ncudaFree(s);\n#if 00\n#endif")
    assert tr(src) == ("#if 0\ncudaMalloc(p);\n#if FOO\ncudaFree(p);\n#endif\n#include <cuda.h>\n#else\nhipFree(q);\n"
                       "#endif\n#if 0 // disabled\ncudaFree(r);\n#endif\nhipFree(s);\n#if 00\n#endif")
    assert tr("#if 0 || FOO\ncudaFree(p);\n#endif") == "#if 0 || FOO\nhipFree(p);\n#endif"


def test_launches_are_kept_by_default():
    src = "k<<<grid, block, 0, stream>>>(a, b);"
    assert tr(src) == src


@pytest.mark.parametrize("cuda,hip", [
    ("k<<<g, b>>>(x, y);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x, y);"),
    ("k<<<g, b, 8, s>>>();", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 8, s);"),
    ("ns::k<float, 4><<<(n + 255) / 256, 256, 0, cudaStreamPerThread>>>(f(a, b), \"x)\");",
     "hipLaunchKernelGGL(HIP_KERNEL_NAME(ns::k<float, 4>), dim3((n + 255) / 256), dim3(256), 0, hipStreamPerThread, "
     "f(a, b), \"x)\");"),
    ("k <<< dim3(1, 2), 32 >>> (\n    cudaMalloc, /* ) */ v);", "hipLaunchKernelGGL(k, dim3(dim3(1, 2)), dim3(32), 0, 0, "
     "hipMalloc, /* ) */ v);"),
])
def test_launch_ggl_writes_what_hipify_clang_writes(cuda, hip):
    assert tr(cuda, launch_ggl=True) == hip


def test_launch_ggl_is_linear():
    src = "void f() {\n" + "  kernel<<<grid, block, 0, stream>>>(a, cudaMemcpyHostToDevice); // <<<x>>>\n" * 20000 + "}\n"
    start = time.perf_counter()
    out = tr(src, launch_ggl=True)
    elapsed = time.perf_counter() - start
    assert out.count("hipLaunchKernelGGL(kernel, dim3(grid), dim3(block), 0, stream, a, hipMemcpyHostToDevice);") == 20000
    assert out.count("// <<<x>>>") == 20000
    assert elapsed < 5, f"20,000 launches took {elapsed:.1f} s"


def test_runtime_header_is_added_where_nvcc_adds_it_implicitly():
    cu = "// Copyright\n/* licence */\n#pragma once\n__global__ void k() { threadIdx.x; }\n"
    assert tr(cu, runtime_header="always") == \
        "// Copyright\n/* licence */\n#pragma once\n" + RUNTIME_INCLUDE + "__global__ void k() { threadIdx.x; }\n"
    has = "#include <cuda_runtime.h>\n__global__ void k() {}\n"
    assert tr(has, runtime_header="always") == "#include <hip/hip_runtime.h>\n__global__ void k() {}\n"
    assert tr("inline int f() { return 1; }\n", runtime_header="kernels") == "inline int f() { return 1; }\n"
    assert tr("__device__ int f();\n", runtime_header="kernels") == RUNTIME_INCLUDE + "__device__ int f();\n"
    assert tr("__device__ int f();\n", runtime_header="never") == "__device__ int f();\n"
