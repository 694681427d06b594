#pragma once
// The matrix products of the CPU kernels (LinearAlgebra.cpp), for kernels built on them (Im2Col.cpp).
#include "tcore/core/CPUCapability.h"
#include "tcore/core/Tensor.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

// out = alpha * (self @ mat2) + beta * out (out contiguous, of their dtype, sharing memory with
// neither): two matrices, or two batches of as many. beta 0 in out's dtype: out's values are not
// read (NaN included), as BLAS's. float16/bfloat16 compute in float32 (products, sums, scaling and
// out's share), rounded once into out. Inside a parallel region BLAS runs on the calling thread
// alone.
void products_into(const Tensor& self, const Tensor& mat2, const Tensor& out, const Scalar& alpha = Scalar(int64_t{1}),
                   const Scalar& beta = Scalar(int64_t{0}));

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
