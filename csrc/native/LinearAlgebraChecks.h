#pragma once
// The checks torch.linalg's functions share, with torch's messages (native/cpu/BatchLinearAlgebra.cpp,
// native/composite/LinearAlgebra.cpp).
#include "tcore/core/Tensor.h"

namespace tcore::native {

// A is a matrix or a batch of square matrices.
inline void check_linalg_square(const Tensor& A, const char* op, const char* name = "A") {
  TCORE_CHECK_VALUE(A.dim() >= 2, op, ": The input tensor ", name, " must have at least 2 dimensions.");
  TCORE_CHECK_VALUE(A.sizes()[A.dim() - 1] == A.sizes()[A.dim() - 2], op, ": ", name,
                    " must be batches of square matrices, but they are ", A.sizes()[A.dim() - 2], " by ",
                    A.sizes()[A.dim() - 1], " matrices");
}

// float32 or float64 (tcore has no complex dtype; torch refuses float16 and bfloat16 too).
inline void check_linalg_float(const Tensor& A, const char* op) {
  TCORE_CHECK_TYPE(is_floating(A.dtype()), op, ": Expected a floating point or complex tensor as input. Got ",
                   A.dtype());
  TCORE_CHECK_TYPE(A.dtype() == ScalarType::Float || A.dtype() == ScalarType::Double, op,
                   ": Low precision dtypes not supported. Got ", A.dtype());
}

}  // namespace tcore::native
