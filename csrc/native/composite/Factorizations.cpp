// torch.linalg's functions over the LAPACK kernels (native/cpu/BatchLinearAlgebra.cpp), torch's
// schemas and rules: inverse, linalg.solve (broadcast batches, a vector right-hand side, left=False
// as the transposed system), solve_triangular, det, slogdet, logdet, eigvalsh, svd and svdvals,
// torch.qr, matrix_norm and norm, pinv and matrix_rank, lu_factor, lu and lu_unpack (the out=
// overloads of several outputs: ValuesIndicesOut.cpp).
// Autograd follows the kernels' derivatives (csrc/autograd/derivatives.yaml).
#include <algorithm>
#include <limits>
#include <string>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <tcore/ops/_linalg_solve_ex.h>
#include <tcore/ops/_linalg_det.h>
#include <tcore/ops/_linalg_slogdet.h>
#include <tcore/ops/linalg_det_native.h>
#include <tcore/ops/linalg_slogdet_native.h>
#include <tcore/ops/linalg_solve_ex_native.h>
#include <tcore/ops/_linalg_solve_triangular.h>
#include <tcore/ops/_linalg_svd.h>
#include <tcore/ops/linalg_qr.h>
#include <tcore/ops/qr_native.h>
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
#include <tcore/ops/abs.h>
#include <tcore/ops/amax.h>
#include <tcore/ops/amin.h>
#include <tcore/ops/linalg_matrix_norm.h>
#include <tcore/ops/linalg_matrix_norm_native.h>
#include <tcore/ops/linalg_norm_native.h>
#include <tcore/ops/linalg_svdvals.h>
#include <tcore/ops/linalg_vector_norm.h>
#include <tcore/ops/permute.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/linalg_svdvals_native.h>
#include <tcore/ops/logdet_native.h>
#include <tcore/ops/lt.h>
#include <tcore/ops/slogdet_native.h>
#include <tcore/ops/squeeze.h>
#include <tcore/ops/to.h>
#include <tcore/ops/transpose.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/where.h>
#include <tcore/ops/linalg_cholesky_native.h>
#include <tcore/ops/linalg_cholesky_ex.h>
#include <tcore/ops/linalg_inv_native.h>
#include <tcore/ops/linalg_inv_ex.h>
#include <tcore/ops/add.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/eye.h>
#include <tcore/ops/triu.h>
#include <tcore/ops/tril.h>
#include <tcore/ops/lu_solve_native.h>
#include <tcore/ops/linalg_lu_solve.h>
#include <tcore/ops/linalg_lu_native.h>
#include <tcore/ops/lu_unpack_native.h>
#include <tcore/ops/lu_unpack.h>
#include <tcore/ops/linalg_lu_factor_native.h>
#include <tcore/ops/linalg_lu_factor_ex.h>
#include <tcore/ops/linalg_svd.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/matmul.h>
#include <tcore/ops/full.h>
#include <tcore/ops/zeros.h>
#include <tcore/ops/gt.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/reciprocal.h>
#include <tcore/ops/maximum.h>
#include <tcore/ops/linalg_eigvalsh.h>
#include <tcore/ops/linalg_matrix_rank_native.h>
#include <tcore/ops/linalg_matrix_rank.h>
#include <tcore/ops/pinverse_native.h>
#include <tcore/ops/linalg_pinv_native.h>
#include <tcore/ops/linalg_pinv.h>

#include "native/LinearAlgebraChecks.h"
#include "native/TensorUtils.h"

namespace tcore::native {

Tensor inverse(const Tensor& self) { return tcore::linalg_inv(self); }

// linalg.inv and linalg.cholesky: their _ex kernels, a failure raised (LinAlgError, torch's words)
Tensor linalg_inv(const Tensor& A) {
  const auto [inverse, info] = tcore::linalg_inv_ex(A, false);
  raise_first_failure(info, "linalg.inv", A, singular_inverse);
  return inverse;
}

Tensor linalg_cholesky(const Tensor& A, bool upper) {
  const auto [L, info] = tcore::linalg_cholesky_ex(A, upper, false);
  raise_first_failure(info, "linalg.cholesky", A, not_positive_definite);
  return L;
}

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

// The solution and info of _linalg_solve_ex (its LU factors are for the derivatives).
std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  const auto [result, LU, pivots, info] = tcore::_linalg_solve_ex(A, B, left, check_errors);
  return {result, info};
}

Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  const auto [result, LU, pivots, info] = tcore::_linalg_solve_ex(A, B, left, false);
  raise_first_failure(info, "torch.linalg.solve", A, singular_solve);
  return result;
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

Tensor linalg_det(const Tensor& A) { return std::get<0>(tcore::_linalg_det(A)); }

Tensor det(const Tensor& self) { return tcore::linalg_det(self); }

std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  const auto [sign, logabsdet, LU, pivots] = tcore::_linalg_slogdet(A);
  return {sign, logabsdet};
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& self) { return tcore::linalg_slogdet(self); }

// log(det): NaN where the determinant is negative, -inf where it is 0 (slogdet's gradient).
Tensor logdet(const Tensor& self) {
  const auto [sign, logabsdet] = tcore::linalg_slogdet(self);
  return tcore::where(tcore::lt(sign, Scalar(0)),
                      tcore::full_like(logabsdet, Scalar(std::numeric_limits<double>::quiet_NaN())), logabsdet);
}

// eigh's eigenvalues (its eigenvectors give their gradient)
Tensor linalg_eigvalsh(const Tensor& self, std::string_view UPLO) { return std::get<0>(tcore::linalg_eigh(self, UPLO)); }

// torch.qr (deprecated there): linalg.qr's reduced or complete factors
std::tuple<Tensor, Tensor> qr(const Tensor& self, bool some) { return tcore::linalg_qr(self, some ? "reduced" : "complete"); }

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices, std::optional<std::string_view> driver) {
  return tcore::_linalg_svd(A, full_matrices, true, driver);
}

// the singular values; with their factors where A requires grad (the gradient is U diag(gS) Vh)
Tensor linalg_svdvals(const Tensor& A, std::optional<std::string_view> driver) {
  return std::get<1>(tcore::_linalg_svd(A, false, A.requires_grad(), driver));
}

namespace {
// matrix_norm's input in its dtype (a floating one), and its two dims, checked as torch's
struct NormInput {
  Tensor x;
  int64_t d0, d1;
};
NormInput norm_input(const Tensor& self, IntArrayRef dim, std::optional<ScalarType> dtype) {
  TCORE_CHECK_VALUE(self.dim() >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "linalg.matrix_norm: Expected a floating point or complex tensor as "
                   "input. Got ", self.dtype());
  TCORE_CHECK_TYPE(!dtype || is_floating(*dtype), "linalg.matrix_norm: dtype should be floating point or complex, but got ",
                   *dtype);
  std::string shown;
  for (size_t i = 0; i < dim.size(); ++i) shown += (i ? " " : "") + std::to_string(dim[i]);
  TCORE_CHECK_VALUE(dim.size() == 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ", shown);
  const int64_t d0 = wrap_dim(dim[0], self.dim()), d1 = wrap_dim(dim[1], self.dim());
  TCORE_CHECK_VALUE(d0 != d1, "linalg.matrix_norm: dims must be different. Got (", dim[0], ", ", dim[1], ")");
  const Tensor x = dtype && *dtype != self.dtype() ? tcore::to(self, *dtype, false, false, std::nullopt) : self;
  return {x, d0, d1};
}

// ord 2, -2 and nuc: the largest, the smallest or the sum of the singular values of the matrices
// in dims d0, d1 (moved last); keepdim puts those dims back as 1s
enum class Singular { kLargest, kSmallest, kSum };
Tensor spectral_norm(const NormInput& in, Singular which, bool keepdim) {
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < in.x.dim(); ++d)
    if (d != in.d0 && d != in.d1) perm.push_back(d);
  perm.push_back(in.d0);
  perm.push_back(in.d1);
  const Tensor s = tcore::linalg_svdvals(tcore::permute(in.x, perm), std::nullopt);
  Tensor r;
  if (s.sizes()[s.dim() - 1] == 0) {  // an empty matrix: 0, as torch's
    r = tcore::sum(s, IntArrayRef({-1}), false, std::nullopt);
  } else if (which == Singular::kSum) {
    r = tcore::sum(s, IntArrayRef({-1}), false, std::nullopt);
  } else {
    r = which == Singular::kLargest ? tcore::amax(s, IntArrayRef({-1}), false) : tcore::amin(s, IntArrayRef({-1}), false);
  }
  if (keepdim) {
    r = tcore::unsqueeze(r, std::min(in.d0, in.d1));
    r = tcore::unsqueeze(r, std::max(in.d0, in.d1));
  }
  return r;
}
}  // namespace

// ord 1 / -1: the largest / smallest column sum of |A|; inf / -inf: of row sums; 2 / -2: of the
// singular values
Tensor linalg_matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const double o = ord.to<double>();
  const double inf = std::numeric_limits<double>::infinity();
  const NormInput in = norm_input(self, dim, dtype);
  TCORE_CHECK_VALUE(o == 1 || o == -1 || o == 2 || o == -2 || o == inf || o == -inf, "linalg.matrix_norm: Order ", o,
                    " not supported.");
  if (o == 2 || o == -2) return spectral_norm(in, o > 0 ? Singular::kLargest : Singular::kSmallest, keepdim);
  // sum over the dim that runs along the lines (rows for 1, columns for inf), then extreme over the other
  const int64_t along = std::abs(o) == 1 ? in.d0 : in.d1, across = std::abs(o) == 1 ? in.d1 : in.d0;
  const Tensor sums = tcore::sum(tcore::abs(in.x), IntArrayRef({along}), true, std::nullopt);
  Tensor r = o > 0 ? tcore::amax(sums, IntArrayRef({across}), true) : tcore::amin(sums, IntArrayRef({across}), true);
  if (!keepdim) r = tcore::squeeze(r, IntArrayRef({std::max(in.d0, in.d1)})), r = tcore::squeeze(r, IntArrayRef({std::min(in.d0, in.d1)}));
  return r;
}

Tensor linalg_matrix_norm(const Tensor& self, std::string_view ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const NormInput in = norm_input(self, dim, dtype);
  TCORE_CHECK_VALUE(ord == "fro" || ord == "nuc", "linalg.matrix_norm: Order ", ord, " not supported.");
  if (ord == "nuc") return spectral_norm(in, Singular::kSum, keepdim);
  return tcore::linalg_vector_norm(in.x, Scalar(2.0), std::vector<int64_t>{in.d0, in.d1}, keepdim, std::nullopt);
}

namespace {
void check_norm_dims(IntArrayRef dim) {
  std::string shown = "[";
  for (size_t i = 0; i < dim.size(); ++i) shown += (i ? ", " : "") + std::to_string(dim[i]);
  TCORE_CHECK_VALUE(dim.size() == 1 || dim.size() == 2, "linalg.norm: If dim is specified, it must be of length 1 or 2. Got ",
                    shown, "]");
}
}  // namespace

// a vector norm over one dim (or every element when neither ord nor dim is given), a matrix norm
// over two; ord without dim: of a 1-D or 2-D input
Tensor linalg_norm(const Tensor& self, const std::optional<Scalar>& ord, OptionalIntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  if (dim) {
    check_norm_dims(*dim);
    if (dim->size() == 1) return tcore::linalg_vector_norm(self, ord.value_or(Scalar(2.0)), *dim, keepdim, dtype);
    return ord ? tcore::linalg_matrix_norm(self, *ord, *dim, keepdim, dtype)
               : tcore::linalg_matrix_norm(self, std::string_view("fro"), *dim, keepdim, dtype);
  }
  if (!ord) return tcore::linalg_vector_norm(self, Scalar(2.0), std::nullopt, keepdim, dtype);
  TCORE_CHECK_VALUE(self.dim() == 1 || self.dim() == 2, "linalg.norm: If dim is not specified but ord is, the input must "
                    "be 1D or 2D. Got ", self.dim(), "D.");
  if (self.dim() == 1) return tcore::linalg_vector_norm(self, *ord, std::nullopt, keepdim, dtype);
  return tcore::linalg_matrix_norm(self, *ord, std::vector<int64_t>{-2, -1}, keepdim, dtype);
}

Tensor linalg_norm(const Tensor& self, std::string_view ord, OptionalIntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  if (dim) {
    check_norm_dims(*dim);
    return tcore::linalg_matrix_norm(self, ord, *dim, keepdim, dtype);
  }
  return tcore::linalg_matrix_norm(self, ord, std::vector<int64_t>{-2, -1}, keepdim, dtype);
}

namespace {
// torch's tolerances of pinv and matrix_rank, float64 tensors: atol (0 when absent) and rtol (when
// absent: eps * max(m, n), or 0 where a given atol is positive)
std::pair<Tensor, Tensor> tolerances(const Tensor& A, const std::optional<Tensor>& atol,
                                     const std::optional<Tensor>& rtol) {
  const Tensor zero = tcore::zeros({}, ScalarType::Double);
  if (rtol) return {atol ? *atol : zero, *rtol};
  const double eps = A.dtype() == ScalarType::Float ? std::numeric_limits<float>::epsilon()
                                                    : std::numeric_limits<double>::epsilon();
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1];
  const Tensor fallback = tcore::full({}, eps * static_cast<double>(std::max(m, n)), ScalarType::Double);
  return {atol ? *atol : zero, atol ? tcore::where(tcore::gt(*atol, Scalar(0)), zero, fallback) : fallback};
}
std::optional<Tensor> tensor_of(std::optional<double> v) {
  return v ? std::optional<Tensor>(tcore::full({}, *v, ScalarType::Double)) : std::nullopt;
}
// the singular values above max(atol, rtol * the largest), per matrix (a trailing dim of 1)
Tensor cutoff(const Tensor& atol, const Tensor& rtol, const Tensor& largest) {
  return tcore::maximum(tcore::unsqueeze(atol, -1), tcore::mul(tcore::unsqueeze(rtol, -1), largest));
}
}  // namespace

// The pseudo-inverse through the SVD (V diag(1/S where S > tol) U^T), or for a symmetric A through
// its eigendecomposition (|eigenvalues| as singular values), as torch's; its derivative is torch's
// pinv_backward (derivatives.yaml), which the SVD's would not give where singular values repeat.
Tensor linalg_pinv(const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol, bool hermitian) {
  TCORE_CHECK_VALUE(A.dim() >= 2 && (A.dtype() == ScalarType::Float || A.dtype() == ScalarType::Double),
                    "linalg.pinv(", A.dtype(), "{", shape_str(A.sizes()), "}): expected a tensor with 2 or more dimensions of "
                    "float, double, cfloat or cdouble types");
  if (A.numel() == 0) {  // (n x m zeros, as torch's)
    std::vector<int64_t> shape(A.sizes().begin(), A.sizes().end());
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    return tcore::zeros(shape, A.dtype());
  }
  const auto [a, r] = tolerances(A, atol, rtol);
  if (!hermitian) {
    const auto [U, S, Vh] = tcore::linalg_svd(A, false, std::nullopt);
    const Tensor tol = cutoff(a, r, tcore::narrow(S, -1, 0, 1));  // (S descending)
    const Tensor inverse = tcore::where(tcore::gt(S, tol), tcore::reciprocal(S), Scalar(0));
    return tcore::matmul(tcore::mul(mT(Vh), tcore::unsqueeze(inverse, -2)), mT(U));
  }
  const auto [L, V] = tcore::linalg_eigh(A, "L");
  const Tensor magnitude = tcore::abs(L);
  const Tensor tol = cutoff(a, r, tcore::amax(magnitude, -1, true));
  const Tensor inverse = tcore::where(tcore::gt(magnitude, tol), tcore::reciprocal(L), Scalar(0));
  return tcore::matmul(tcore::mul(V, tcore::unsqueeze(inverse, -2)), mT(V));
}

Tensor linalg_pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return tcore::linalg_pinv(A, tensor_of(atol), tensor_of(rtol), hermitian);
}

Tensor linalg_pinv(const Tensor& A, double rcond, bool hermitian) {
  return tcore::linalg_pinv(A, tcore::zeros({}, ScalarType::Double), tcore::full({}, rcond, ScalarType::Double), hermitian);
}

Tensor linalg_pinv(const Tensor& A, const Tensor& rcond, bool hermitian) {
  return tcore::linalg_pinv(A, tcore::zeros({}, ScalarType::Double), rcond, hermitian);
}

Tensor pinverse(const Tensor& self, double rcond) { return tcore::linalg_pinv(self, rcond, false); }

// The number of singular values (|eigenvalues| when hermitian) above the tolerance, int64.
Tensor linalg_matrix_rank(const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                          bool hermitian) {
  TCORE_CHECK_VALUE(A.dim() >= 2, "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.");
  check_linalg_float(A, "torch.linalg.matrix_rank");
  if (A.numel() == 0)
    return tcore::zeros(IntArrayRef(A.sizes().data(), A.sizes().size() - 2), ScalarType::Long);
  const auto [a, r] = tolerances(A, atol, rtol);
  const Tensor S = hermitian ? tcore::abs(tcore::linalg_eigvalsh(A, "L")) : tcore::linalg_svdvals(A, std::nullopt);
  const Tensor tol = cutoff(a, r, hermitian ? tcore::amax(S, -1, true) : tcore::narrow(S, -1, 0, 1));
  return tcore::sum(tcore::gt(S, tol), std::vector<int64_t>{-1}, false, ScalarType::Long);
}

Tensor linalg_matrix_rank(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return tcore::linalg_matrix_rank(A, tensor_of(atol), tensor_of(rtol), hermitian);
}

Tensor linalg_matrix_rank(const Tensor& A, double tol, bool hermitian) {
  return tcore::linalg_matrix_rank(A, tcore::full({}, tol, ScalarType::Double), tcore::zeros({}, ScalarType::Double),
                                   hermitian);
}

Tensor linalg_matrix_rank(const Tensor& A, const Tensor& tol, bool hermitian) {
  return tcore::linalg_matrix_rank(A, tol, tcore::zeros({}, ScalarType::Double), hermitian);
}

namespace {
// The permutation P (*, m, m) of LAPACK's row interchanges (pivots (*, k), 1-based: row i was
// swapped with row pivots[i]) in the factors' dtype: A = P L U.
Tensor permutation_of(const Tensor& pivots, int64_t m, ScalarType dtype) {
  TCORE_CHECK_TYPE(pivots.dtype() == ScalarType::Int, "torch.lu_unpack: LU_pivots is expected to be a contiguous "
                   "tensor of torch.int32 dtype. Note: this function is intended to be used with the output produced "
                   "by torch.linalg.lu_factor");
  std::vector<int64_t> shape(pivots.sizes().begin(), pivots.sizes().end() - 1);
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  shape.insert(shape.end(), {m, m});
  const Tensor p = contiguous_copy(pivots);
  const int64_t k = pivots.sizes()[pivots.dim() - 1];
  const int* piv = p.data_ptr<int>();
  TCORE_CHECK_VALUE(std::all_of(piv, piv + p.numel(), [m](int v) { return v >= 1 && v <= m; }),
                    "torch.lu_unpack: pivots must be between 1 and ", m, " (LAPACK's row interchanges)");
  Tensor P = tcore::zeros(shape, dtype);
  std::vector<int64_t> perm(static_cast<size_t>(m));
  const auto fill = [&](auto* out) {
    for (int64_t b = 0; b < count; ++b) {
      for (int64_t i = 0; i < m; ++i) perm[i] = i;
      for (int64_t i = 0; i < k; ++i) std::swap(perm[i], perm[piv[b * k + i] - 1]);
      for (int64_t i = 0; i < m; ++i) out[b * m * m + perm[i] * m + i] = 1;  // (P^T A)[i] = A[perm[i]]
    }
  };
  if (dtype == ScalarType::Float) fill(P.data_ptr<float>());
  else fill(P.data_ptr<double>());
  return P;
}

}  // namespace

// The LU factors of torch.linalg.lu_factor: a zero pivot raises (lu_factor_ex reports it in info).
std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot) {
  const auto [LU, pivots, info] = tcore::linalg_lu_factor_ex(A, pivot, false);
  raise_first_failure(info, "torch.linalg.lu_factor", A, zero_lu_pivot);
  return {LU, pivots};
}

// P (*, m, m), L (*, m, k) with ones on its diagonal and U (*, k, n) out of LU and its pivots; the
// ones not asked for are empty, as torch's. L and U are differentiable operators of LU.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots, bool unpack_data,
                                             bool unpack_pivots) {
  TCORE_CHECK_VALUE(LU.dim() >= 2, "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: ",
                    shape_str(LU.sizes()), " instead");
  const int64_t m = LU.sizes()[LU.dim() - 2], n = LU.sizes()[LU.dim() - 1], k = std::min(m, n);
  TCORE_CHECK_VALUE(pivots.dim() == LU.dim() - 1 && pivots.sizes()[pivots.dim() - 1] == k,
                    "torch.lu_unpack: LU_pivots should be of shape (*, min(m, n)) for LU_data (*, m, n)");
  Tensor P = tcore::empty({0}, LU.dtype()), L = P, U = P;
  if (unpack_data) {
    U = tcore::triu(tcore::narrow(LU, -2, 0, k));
    L = tcore::add(tcore::tril(tcore::narrow(LU, -1, 0, k), -1), tcore::eye(m, k, LU.dtype(), std::nullopt, LU.device(), std::nullopt));
  }
  if (unpack_pivots) P = permutation_of(pivots, m, LU.dtype());
  return {P, L, U};
}

// A = P L U (torch.linalg.lu): lu_factor_ex's factors unpacked; a singular A does not raise.
std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot) {
  const auto [LU, pivots, info] = tcore::linalg_lu_factor_ex(A, pivot, false);
  return tcore::lu_unpack(LU, pivots, true, true);
}

// torch.lu_solve (deprecated there): linalg.lu_solve with B first
Tensor lu_solve(const Tensor& self, const Tensor& LU_data, const Tensor& LU_pivots) {
  return tcore::linalg_lu_solve(LU_data, LU_pivots, self, true, false);
}

}  // namespace tcore::native
