// mm, bmm and addmm on CUDA devices: 16x16 tiles of A and B staged in shared memory, each thread
// accumulating one element of C (in double for float64, int64 for integers, float otherwise) and
// storing alpha * acc + beta * C rounded once; a batch's products are the grid's third dimension
// (mm is a batch of one).
#include <algorithm>
#include <type_traits>

#include <tcore/ops/addmm_native.h>
#include <tcore/ops/bmm_native.h>
#include <tcore/ops/mm_native.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/zero.h>

#include "native/TensorUtils.h"
#include "native/cpu/IntoOutput.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {

constexpr int kTile = 16;

constexpr unsigned kMaxGridZ = 65535;  // CUDA's limit on gridDim.z: larger batches loop

// C[i] = alpha * A[i] @ B[i] + beta * C[i] for i in [0, batch): contiguous, C[i] n x m; beta 0:
// C is not read.
template <typename T, typename Acc>
__global__ void mm_kernel(const T* A, const T* B, T* C, int64_t batch, int64_t n, int64_t k, int64_t m, Acc alpha,
                          Acc beta) {
  __shared__ T a_tile[kTile][kTile];
  __shared__ T b_tile[kTile][kTile];
  const int64_t row = blockIdx.y * int64_t(kTile) + threadIdx.y;
  const int64_t col = blockIdx.x * int64_t(kTile) + threadIdx.x;
  for (int64_t i = blockIdx.z; i < batch; i += gridDim.z) {  // the same for every thread of the block
    const T* a = A + i * n * k;
    const T* b = B + i * k * m;
    Acc acc = 0;
    for (int64_t t = 0; t < k; t += kTile) {
      a_tile[threadIdx.y][threadIdx.x] = (row < n && t + threadIdx.x < k) ? a[row * k + t + threadIdx.x] : T(0);
      b_tile[threadIdx.y][threadIdx.x] = (t + threadIdx.y < k && col < m) ? b[(t + threadIdx.y) * m + col] : T(0);
      __syncthreads();
      for (int j = 0; j < kTile; ++j)
        acc += static_cast<Acc>(a_tile[threadIdx.y][j]) * static_cast<Acc>(b_tile[j][threadIdx.x]);
      __syncthreads();
    }
    if (row < n && col < m) {
      T& c = C[i * n * m + row * m + col];
      c = beta == Acc(0) ? static_cast<T>(alpha * acc) : static_cast<T>(alpha * acc + beta * static_cast<Acc>(c));
    }
  }
}

// A batch of products into `out` (batch x n x m): contiguous, of their dtype, on their device;
// out = alpha * products + beta * out.
void bmm_into(const Tensor& self, const Tensor& mat2, const Tensor& out, int64_t batch, int64_t n, int64_t k,
              int64_t m, const Scalar& alpha = Scalar(int64_t{1}), const Scalar& beta = Scalar(int64_t{0})) {
  if (batch == 0 || n == 0 || m == 0) return;
  const Tensor a = contiguous_copy(self), b = contiguous_copy(mat2);
  dispatch_numeric(self.dtype(), self.dim() == 3 ? "bmm" : "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_same_v<T, double>, double,
                                   std::conditional_t<std::is_floating_point_v<T>, float, int64_t>>;
    const dim3 block(kTile, kTile);
    const dim3 grid(static_cast<unsigned>((m + kTile - 1) / kTile), static_cast<unsigned>((n + kTile - 1) / kTile),
                    static_cast<unsigned>(std::min<int64_t>(batch, kMaxGridZ)));
    const cuda::OnDevice on(out);
    mm_kernel<T, Acc><<<grid, block, 0, on.stream>>>(a.template data_ptr<T>(), b.template data_ptr<T>(),
                                                     out.template data_ptr<T>(), batch, n, k, m,
                                                     alpha.to<Acc>(), beta.to<Acc>());
    cuda::check(cudaGetLastError(), "mm_kernel launch");
  });
}

}  // namespace

// The impls of the structured mm.out and bmm.out (meta functions: native/LinearAlgebra.cpp); an
// out that is strided or aliases an operand gets the product through a fresh tensor.
TCORE_IMPL_FUNC(mm_out_cuda)(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  into_output(out, out.dtype(), {self, mat2}, [&](const Tensor& result) {
    bmm_into(self, mat2, result, 1, self.sizes()[0], self.sizes()[1], mat2.sizes()[1]);
  });
}

TCORE_IMPL_FUNC(bmm_out_cuda)(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  into_output(out, out.dtype(), {self, mat2}, [&](const Tensor& result) {
    bmm_into(self, mat2, result, self.sizes()[0], self.sizes()[1], self.sizes()[2], mat2.sizes()[2]);
  });
}

// as the CPU kernel's (native/cpu/LinearAlgebra.cpp), in the kernel's accumulator type
TCORE_IMPL_FUNC(addmm_out_cuda)(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                                const Scalar& alpha, const Tensor& out) {
  into_addmm_output(out, self, mat1, mat2, beta, [&](const Tensor& result, const Scalar& b) {
    // alpha 0 in float32/float64: the operands not read, as cuBLAS's and the CPU kernel's
    const bool wide = result.dtype() == ScalarType::Float || result.dtype() == ScalarType::Double;
    if (wide && alpha.to_double() == 0.0) {
      if (b.to_double() == 0.0) tcore::zero_(result);
      else tcore::mul_(result, b);
      return;
    }
    bmm_into(mat1, mat2, result, 1, mat1.sizes()[0], mat1.sizes()[1], mat2.sizes()[1], alpha, b);
  });
}

}  // namespace tcore::native
