// torch.linalg's functions over the LAPACK kernels (native/cpu/BatchLinearAlgebra.cpp), torch's
// schemas and rules: inverse, linalg.solve (broadcast batches, a vector right-hand side, left=False
// as the transposed system), solve_triangular, det, slogdet, logdet, eigvalsh, svd and svdvals (slogdet's and eigh's out=
// overloads: ValuesIndicesOut.cpp).
// Autograd follows the kernels' derivatives (csrc/autograd/derivatives.yaml).
#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <tcore/ops/_linalg_solve.h>
#include <tcore/ops/_linalg_solve_triangular.h>
#include <tcore/ops/_linalg_svd.h>
#include <tcore/ops/det_native.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/full_like.h>
#include <tcore/ops/inverse_native.h>
#include <tcore/ops/linalg_det.h>
#include <tcore/ops/linalg_eigh.h>
#include <tcore/ops/linalg_eigvalsh_native.h>
#include <tcore/ops/linalg_inv.h>
#include <tcore/ops/linalg_slogdet.h>
#include <tcore/ops/linalg_solve_native.h>
#include <tcore/ops/linalg_solve_triangular_native.h>
#include <tcore/ops/linalg_svd_native.h>
#include <tcore/ops/linalg_svdvals_native.h>
#include <tcore/ops/logdet_native.h>
#include <tcore/ops/lt.h>
#include <tcore/ops/slogdet_native.h>
#include <tcore/ops/squeeze.h>
#include <tcore/ops/to.h>
#include <tcore/ops/transpose.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/where.h>

#include "native/LinearAlgebraChecks.h"
#include "native/TensorUtils.h"

namespace tcore::native {

Tensor inverse(const Tensor& self) { return tcore::linalg_inv(self); }

namespace {
// A (*, n, n) and b (*, rows, cols) checked for A X = B (left) or X A = B and expanded to their
// broadcast batch, as torch's solvers do; `op` names the function in the message.
std::pair<Tensor, Tensor> system_of(const Tensor& A, const Tensor& b, bool left, const char* op) {
  const IntArrayRef as = A.sizes(), bs = b.sizes();
  const int64_t n = as[as.size() - 1], rows = bs[bs.size() - 2], cols = bs[bs.size() - 1];
  TCORE_CHECK_VALUE(left ? rows == n : cols == n, op, ": Incompatible shapes of A and B for the equation ",
                    left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", rows, "x", cols, ")");
  std::vector<int64_t> a_shape = broadcast_shapes(IntArrayRef(as.data(), as.size() - 2), IntArrayRef(bs.data(), bs.size() - 2));
  std::vector<int64_t> b_shape = a_shape;
  a_shape.insert(a_shape.end(), {n, n});
  b_shape.insert(b_shape.end(), {rows, cols});
  return {tcore::expand(A, a_shape), tcore::expand(b, b_shape)};
}
Tensor mT(const Tensor& t) { return tcore::transpose(t, -2, -1); }
}  // namespace

// B is a vector (or a batch of them) when it is 1-D or A's shape without its last dim (torch's
// rule); X A = B is solved as A^T X^T = B^T.
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  check_linalg_square(A, "linalg.solve");
  check_linalg_float(A, "linalg.solve");
  TCORE_CHECK_TYPE(A.dtype() == B.dtype(), "linalg.solve: Expected A and B to have the same dtype, but found A of type ",
                   A.dtype(), " and B of type ", B.dtype(), " instead");
  TCORE_CHECK_VALUE(B.dim() >= 1, "linalg.solve: The input tensor B must have at least 1 dimensions.");
  const IntArrayRef as = A.sizes();
  const bool vector = B.dim() == 1 || (B.dim() == A.dim() - 1 && std::equal(as.begin(), as.end() - 1, B.sizes().begin()));
  const auto [a, b] = system_of(A, vector ? tcore::unsqueeze(B, -1) : B, left, "linalg.solve");
  const Tensor x = left ? tcore::_linalg_solve(a, b) : mT(tcore::_linalg_solve(mT(a), mT(b)));
  return vector ? tcore::squeeze(x, -1) : x;
}

// B a matrix or a batch (no vector case, as torch's) taken in A's dtype (torch's result has it);
// X A = B as A^T X^T = B^T, A^T the other triangle.
Tensor linalg_solve_triangular(const Tensor& self, const Tensor& B, bool upper, bool left, bool unitriangular) {
  TCORE_CHECK_VALUE(B.dim() >= 2, "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.");
  check_linalg_square(self, "linalg.solve_triangular");
  check_linalg_float(self, "linalg.solve_triangular");
  const Tensor same = B.dtype() == self.dtype() ? B : tcore::to(B, self.dtype(), false, false, std::nullopt);  // (differentiable)
  const auto [a, b] = system_of(self, same, left, "linalg.solve_triangular");
  if (left) return tcore::_linalg_solve_triangular(a, b, upper, unitriangular);
  return mT(tcore::_linalg_solve_triangular(mT(a), mT(b), !upper, unitriangular));
}

Tensor det(const Tensor& self) { return tcore::linalg_det(self); }

std::tuple<Tensor, Tensor> slogdet(const Tensor& self) { return tcore::linalg_slogdet(self); }

// log(det): NaN where the determinant is negative, -inf where it is 0 (slogdet's gradient).
Tensor logdet(const Tensor& self) {
  const auto [sign, logabsdet] = tcore::linalg_slogdet(self);
  return tcore::where(tcore::lt(sign, Scalar(0)),
                      tcore::full_like(logabsdet, Scalar(std::numeric_limits<double>::quiet_NaN())), logabsdet);
}

// eigh's eigenvalues (its eigenvectors give their gradient)
Tensor linalg_eigvalsh(const Tensor& self, std::string_view UPLO) { return std::get<0>(tcore::linalg_eigh(self, UPLO)); }

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices, std::optional<std::string_view> driver) {
  return tcore::_linalg_svd(A, full_matrices, true, driver);
}

// the singular values; with their factors where A requires grad (the gradient is U diag(gS) Vh)
Tensor linalg_svdvals(const Tensor& A, std::optional<std::string_view> driver) {
  return std::get<1>(tcore::_linalg_svd(A, false, A.requires_grad(), driver));
}

}  // namespace tcore::native
