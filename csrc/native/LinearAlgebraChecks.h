#pragma once
// The checks torch.linalg's functions share, with torch's messages (native/cpu/BatchLinearAlgebra.cpp,
// native/composite/LinearAlgebra.cpp).
#include <algorithm>
#include <string>

#include "tcore/core/Tensor.h"
#include "native/TensorUtils.h"

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

// Whether B is a vector right-hand side of A X = B (torch's rule): 1-D, or A's shape without its
// last dim (a batch of vectors).
inline bool solve_vector_rhs(const Tensor& A, const Tensor& B) {
  return B.dim() == 1 ||
         (B.dim() == A.dim() - 1 && std::equal(B.sizes().begin(), B.sizes().end(), A.sizes().begin()));
}

// "(Batch element 3): " where A is a batch, as torch's messages name the failing matrix.
inline std::string batch_prefix(const Tensor& A, int64_t i) {
  return A.dim() > 2 ? "(Batch element " + std::to_string(i) + "): " : "";
}

// The messages of a factorization that failed at LAPACK's info (> 0) for matrix i of A, torch's
// words, `op` the function's name (linalg.cholesky, linalg.cholesky_ex...).
inline std::string not_positive_definite(const char* op, const Tensor& A, int64_t i, int info) {
  return std::string(op) + ": " + batch_prefix(A, i) + "The factorization could not be completed because the input "
         "is not positive-definite (the leading minor of order " + std::to_string(info) + " is not positive-definite).";
}
inline std::string singular_inverse(const char* op, const Tensor& A, int64_t i, int info) {
  return std::string(op) + ": " + batch_prefix(A, i) + "The diagonal element " + std::to_string(info) +
         " is zero, the inversion could not be completed because the input matrix is singular.";
}
inline std::string singular_solve(const char* op, const Tensor& A, int64_t i, int) {
  return std::string(op) + ": " + batch_prefix(A, i) + "The solver failed because the input matrix is singular.";
}
inline std::string zero_lu_pivot(const char* op, const Tensor& A, int64_t i, int info) {
  return std::string(op) + ": " + batch_prefix(A, i) + "U[" + std::to_string(info) + "," + std::to_string(info) +
         "] is zero and using it on lu_solve would result in a division by zero. If you still want to perform the "
         "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)";
}

// Raises LinAlgError with message(op, A, i, info) for the first matrix whose info (an int32 tensor,
// one per matrix of A) is positive, as torch's checks of an _ex function's info.
template <typename Message>
void raise_first_failure(const Tensor& info, const char* op, const Tensor& A, const Message& message) {
  const Tensor flat = contiguous_copy(info);
  const int* v = flat.data_ptr<int>();
  for (int64_t i = 0; i < flat.numel(); ++i) TCORE_CHECK_LINALG(v[i] <= 0, message(op, A, i, v[i]));
}

}  // namespace tcore::native
