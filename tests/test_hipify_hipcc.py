"""hipcc compiles what hipify writes: a small fixed set of CUDA sources in the style of real
projects (written for this test: error-check macros, shared-memory reductions with blockDim.z,
templates launched through <<<>>>, streams and events, half precision, a .cu that relies on
nvcc's implicit runtime include, headers of the project renamed, warp intrinsics with masks on
half2 and floats, __syncwarp, byte SIMD, bfloat16 pairs, a template kernel's attributes: the
call rules of rules.py), translated as a tree with
and without --hip-launch-kernel-ggl, then `hipcc -fsyntax-only --offload-arch=gfx90a` on every
translation (one hipcc call per mode)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hipify.mappings import Target
from hipify.tree import Options, hipify_tree

pytestmark = pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed (apt-get install hipcc)")

SOURCES = {
    "common/cuda_check.cuh": """#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CUDA_CHECK(call) do { cudaError_t err_ = (call); if (err_ != cudaSuccess) { \\
    fprintf(stderr, "%s:%d: %s\\n", __FILE__, __LINE__, cudaGetErrorString(err_)); exit(1); } } while (0)
""",
    "kernels/saxpy.cu": """// saxpy: no runtime include, as nvcc allows
#include "../common/cuda_check.cuh"
__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}
void run_saxpy(int n, float a, const float* hx, float* hy) {
  float *dx, *dy;
  CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice));
  saxpy<<<(n + 255) / 256, 256>>>(n, a, dx, dy);  // launch <<<here>>> in a comment
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  cudaFree(dx); cudaFree(dy);
}
""",
    "kernels/reduce_cuda.cu": """#include "../common/cuda_check.cuh"
template <typename T, int BLOCK>
__global__ void block_sum(const T* in, T* out, int n) {
  __shared__ T buf[BLOCK];
  int plane = threadIdx.z * blockDim.y * blockDim.x;  // blockDim.z stays a built-in
  int t = plane + threadIdx.y * blockDim.x + threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  buf[t] = i < n ? in[i] : T(0);
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, buf[0]);
  (void)blockDim.z;
}
float sum(const float* d_in, int n, cudaStream_t stream) {
  float* d_out;
  CUDA_CHECK(cudaMallocAsync(&d_out, sizeof(float), stream));
  CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(float), stream));
  block_sum<float, 256><<<dim3((n + 255) / 256), dim3(16, 4, 4), 0, stream>>>(d_in, d_out, n);
  float h = 0;
  CUDA_CHECK(cudaMemcpyAsync(&h, d_out, sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaFreeAsync(d_out, stream));
  return h;
}
""",
    "kernels/timing.cu": """#include <cuda_runtime_api.h>
#include <cuda.h>
#include "../common/cuda_check.cuh"
__global__ void busy(int* x) { x[threadIdx.x] += 1; }
float time_it(int* d, cudaStream_t s) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreateWithFlags(&start, cudaEventDefault));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start, s));
  busy<<<1, 32, 0, s>>>(d);
  CUDA_CHECK(cudaEventRecord(stop, s));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int dev = 0;
  CUresult r = cuDeviceGet(&dev, 0);
  (void)r;
  return ms * prop.multiProcessorCount;
}
#if 0
this is not C++: cudaNothing<<<
#endif
""",
    "kernels/half_ops.cu": """#include <cuda_fp16.h>
#include <cuda_runtime.h>
__global__ void scale_half(__half* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __float2half(__half2float(x[i]) * a);
}
__global__ void add_half2(__half2* x, const __half2* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __hadd2(x[i], y[i]);
}
void launch_half(__half* x, float a, int n, cudaStream_t s) {
  scale_half<<<(n + 127) / 128, 128, 0, s>>>(x, a, n);
  const char* msg = "scale_half<<<...>>> failed";
  if (cudaPeekAtLastError() != cudaSuccess) throw msg;
}
""",
    "kernels/cuda_ops.cuh": """#pragma once
__device__ inline float clampf(float v, float lo, float hi) { return fminf(fmaxf(v, lo), hi); }
""",
    "kernels/clamp.cu": """#include "cuda_ops.cuh"
__global__ void clamp_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = clampf(x[i], 0.f, 1.f);
}
void clamp(float* x, int n) { clamp_kernel<<<(n + 63) / 64, 64>>>(x, n); }
""",
    "kernels/warp.cuh": """#pragma once
// warp-level code as llama.cpp and CUB-style kernels write it for CUDA >= 9
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define FULL_MASK 0xffffffff
template <int width = 32, typename T>
__device__ __forceinline__ T warp_sum(T x) {
#pragma unroll
  for (int offset = width / 2; offset > 0; offset >>= 1) x += __shfl_xor_sync(FULL_MASK, x, offset, width);
  return x;
}
__device__ __forceinline__ half2 warp_sum_h2(half2 x) {
  for (int offset = 16; offset > 0; offset >>= 1) x = __hadd2(x, __shfl_xor_sync(FULL_MASK, x, offset, 32));
  return x;
}
__device__ __forceinline__ bool warp_all(bool p) { return __all_sync(FULL_MASK, p) && !__any_sync(FULL_MASK, !p); }
__device__ __forceinline__ int byte_diff(int a, int b) { return __vsub4(a, b) | __vcmpne4(a, b); }
__device__ __forceinline__ unsigned char lane0_byte(unsigned char c) { return __shfl_sync(FULL_MASK, c, 0); }
""",
    "kernels/warp_reduce.cu": """#include "warp.cuh"
__global__ void reduce_rows(const float* x, float* y, const half2* h, half2* hy, int n) {
  __shared__ float part[32];
  const int lane = threadIdx.x % 32;
  float v = warp_sum(x[blockIdx.x * n + threadIdx.x]);
  if (lane == 0) part[threadIdx.x / 32] = v;
  __syncwarp();
  v = __shfl_sync(FULL_MASK, v, 0);
  const unsigned int active = __ballot_sync(FULL_MASK, v > 0.f);
  if (!warp_all(active != 0u)) __trap();
  y[blockIdx.x] = v + part[0] + __popc(__activemask()) + byte_diff(threadIdx.x, 7) + lane0_byte(lane);
  hy[threadIdx.x] = warp_sum_h2(h[threadIdx.x]);
  const nv_bfloat16 b = __float2bfloat16(v);
  nv_bfloat162 pair = {__bfloat162float(b), 1.0f};
  y[threadIdx.x] += __bfloat162float(__low2bfloat16(pair)) + __bfloat1622float2(pair).y;
  __syncwarp(FULL_MASK);
}
template <int N> __global__ void big_shared(float* x) { extern __shared__ float s[]; s[threadIdx.x] = x[N]; }
void launch_rows(const float* x, float* y, const half2* h, half2* hy, int n, cudaStream_t st) {
  const char* name = nullptr;
  CUresult r = CUDA_SUCCESS;
  cuGetErrorString(r, &name);
  cudaFuncSetAttribute(big_shared<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);
  reduce_rows<<<n, 256, 0, st>>>(x, y, h, hy, n);
  big_shared<4><<<1, 64, 65536, st>>>(y);
}
""",
}


@pytest.mark.parametrize("ggl", [False, True], ids=["launch-kept", "hipLaunchKernelGGL"])
def test_translations_compile_with_hipcc(tmp_path, ggl):
    src, out = tmp_path / "src", tmp_path / "out"
    for rel, text in SOURCES.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    summary = hipify_tree(src, out, options=Options(launch_ggl=ggl, target=Target((5, 2, 0))), jobs=1)
    assert not summary.warnings and not summary.errors, summary.report()
    units = sorted(p for p in out.rglob("*.hip"))
    assert [p.relative_to(out).as_posix() for p in units] == [
        "kernels/clamp.hip", "kernels/half_ops.hip", "kernels/reduce_hip.hip", "kernels/saxpy.hip", "kernels/timing.hip",
        "kernels/warp_reduce.hip"]
    assert '#include "hip_ops.cuh"' in (out / "kernels/clamp.hip").read_text()
    saxpy = (out / "kernels/saxpy.hip").read_text()
    assert ("hipLaunchKernelGGL(saxpy" in saxpy) == ggl and "<<<here>>>" in saxpy
    assert "cudaNothing<<<" in (out / "kernels/timing.hip").read_text()
    r = subprocess.run(["hipcc", "-std=c++17", "-fsyntax-only", "--offload-arch=gfx90a", "-Wno-unused-command-line-argument",
                        *map(str, units)], capture_output=True, text=True,
                       env={**os.environ, "HIP_PLATFORM": "amd", "TMPDIR": str(tmp_path)},  # its temp folders stay here
                       timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
