// mm on CUDA devices: 16x16 tiles of A and B staged in shared memory, each thread
// accumulating one element of C (in double for float64, int64 for integers).
#include <type_traits>

#include <tcore/ops/mm_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/IntoOutput.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {

constexpr int kTile = 16;

template <typename T, typename Acc>
__global__ void mm_kernel(const T* A, const T* B, T* C, int64_t n, int64_t k, int64_t m) {
  __shared__ T a_tile[kTile][kTile];
  __shared__ T b_tile[kTile][kTile];
  const int64_t row = blockIdx.y * int64_t(kTile) + threadIdx.y;
  const int64_t col = blockIdx.x * int64_t(kTile) + threadIdx.x;
  Acc acc = 0;
  for (int64_t t = 0; t < k; t += kTile) {
    a_tile[threadIdx.y][threadIdx.x] = (row < n && t + threadIdx.x < k) ? A[row * k + t + threadIdx.x] : T(0);
    b_tile[threadIdx.y][threadIdx.x] = (t + threadIdx.y < k && col < m) ? B[(t + threadIdx.y) * m + col] : T(0);
    __syncthreads();
    for (int i = 0; i < kTile; ++i)
      acc += static_cast<Acc>(a_tile[threadIdx.y][i]) * static_cast<Acc>(b_tile[i][threadIdx.x]);
    __syncthreads();
  }
  if (row < n && col < m) C[row * m + col] = static_cast<T>(acc);
}

// self @ mat2 into `out`: contiguous, of their dtype, on their device.
void mm_into(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  const int64_t n = self.sizes()[0], k = self.sizes()[1], m = mat2.sizes()[1];
  if (n == 0 || m == 0) return;
  const Tensor a = contiguous_copy(self), b = contiguous_copy(mat2);
  dispatch_numeric(self.dtype(), "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_same_v<T, double>, double,
                                   std::conditional_t<std::is_floating_point_v<T>, float, int64_t>>;
    const dim3 block(kTile, kTile);
    const dim3 grid(static_cast<unsigned>((m + kTile - 1) / kTile), static_cast<unsigned>((n + kTile - 1) / kTile));
    const cuda::OnDevice on(out);
    mm_kernel<T, Acc><<<grid, block, 0, on.stream>>>(a.template data_ptr<T>(), b.template data_ptr<T>(),
                                                     out.template data_ptr<T>(), n, k, m);
    cuda::check(cudaGetLastError(), "mm_kernel launch");
  });
}

}  // namespace

// The impl of the structured mm.out (meta function: native/LinearAlgebra.cpp); an out that is
// strided or aliases an operand gets the product through a fresh tensor.
TCORE_IMPL_FUNC(mm_out_cuda)(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  into_output(out, out.dtype(), {self, mat2}, [&](const Tensor& result) { mm_into(self, mat2, result); });
}

}  // namespace tcore::native
