#pragma once
// The matrix products of the CPU kernels (LinearAlgebra.cpp), for kernels built on them (Im2Col.cpp).
#include "tcore/core/CPUCapability.h"
#include "tcore/core/Tensor.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

// self @ mat2 into `out` (contiguous, of their dtype, sharing memory with neither): two matrices,
// or two batches of as many. float16/bfloat16 compute in float32 (products and sums), rounded once
// on the copy into out. Inside a parallel region BLAS runs on the calling thread alone.
void products_into(const Tensor& self, const Tensor& mat2, const Tensor& out);

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
