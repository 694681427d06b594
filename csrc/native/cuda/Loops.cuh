#pragma once
// The CUDA elementwise launcher: broadcasting and non-contiguous operands through the
// same offset calculation as the CPU loop (strides in bytes, up to kMaxDims dims),
// one thread per output element, grid-stride loop.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tcore::native::cuda {

constexpr int kMaxDims = 8;

template <int N>
struct OffsetCalculator {
  int dims;
  int64_t sizes[kMaxDims];
  int64_t strides[N][kMaxDims];  // bytes, 0 for broadcast dims

  __host__ __device__ void offsets(int64_t linear, int64_t (&out)[N]) const {
    for (int k = 0; k < N; ++k) out[k] = 0;
    for (int d = dims - 1; d >= 0; --d) {
      const int64_t i = linear % sizes[d];
      linear /= sizes[d];
      for (int k = 0; k < N; ++k) out[k] += i * strides[k][d];
    }
  }
};

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

template <typename T, typename F>
__global__ void binary_kernel(char* out, const char* a, const char* b, OffsetCalculator<3> calc, int64_t n, F f) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    int64_t off[3];
    calc.offsets(i, off);
    *reinterpret_cast<T*>(out + off[0]) =
        f(*reinterpret_cast<const T*>(a + off[1]), *reinterpret_cast<const T*>(b + off[2]));
  }
}

template <typename T, typename F>
void launch_binary(char* out, const char* a, const char* b, const OffsetCalculator<3>& calc, int64_t n, F f,
                   cudaStream_t stream) {
  if (n == 0) return;
  constexpr int threads = 256;
  const int64_t blocks = (n + threads - 1) / threads;
  binary_kernel<T><<<static_cast<unsigned>(blocks < 65535 ? blocks : 65535), threads, 0, stream>>>(out, a, b, calc, n, f);
  check(cudaGetLastError(), "binary_kernel launch");
}

}  // namespace tcore::native::cuda
