#pragma once
// bfloat16 and float16 matrix products through oneDNN's matmul (PyTorch's CPU path for them): on
// CPUs with AVX512_BF16 its bfloat16 kernels multiply in bfloat16 pairs and accumulate in float32,
// at twice float32's rate. Compiled once, like Conv.cpp. Without oneDNN, with TCORE_USE_ONEDNN=0,
// or where oneDNN has only its reference kernels for the dtype on this CPU, false: the caller's
// float32 products (native/cpu/LinearAlgebra.cpp).
#include "tcore/core/Tensor.h"

namespace tcore::native::onednn {

// out = alpha * (self @ mat2) + beta * out for two matrices or two batches of as many (3-D), all
// three of one reduced float dtype, in float32 and rounded once (beta 0: out is not read); self and
// mat2 in any strides oneDNN reads (a transposed matrix included), out allocated and contiguous.
// false: not taken (too small to be worth it, a dtype or layout oneDNN refuses here) and nothing
// written.
bool reduced_float_matmul(const Tensor& self, const Tensor& mat2, const Tensor& out, float alpha = 1.0f,
                          float beta = 0.0f);

}  // namespace tcore::native::onednn
