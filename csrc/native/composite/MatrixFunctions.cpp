// torch's functions of matrices built on the factorizations (Factorizations.cpp): torch.svd,
// cholesky_solve and cholesky_inverse, linalg.cond, linalg.tensorinv and tensorsolve,
// linalg.vander. torch's checks and messages; autograd through the operators they call.
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include <tcore/ops/_linalg_solve_triangular.h>
#include <tcore/ops/cat.h>
#include <tcore/ops/cholesky_inverse_native.h>
#include <tcore/ops/cholesky_solve.h>
#include <tcore/ops/cholesky_solve_native.h>
#include <tcore/ops/cumprod.h>
#include <tcore/ops/div.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/eye.h>
#include <tcore/ops/flatten.h>
#include <tcore/ops/gt.h>
#include <tcore/ops/linalg_cond_native.h>
#include <tcore/ops/linalg_inv.h>
#include <tcore/ops/linalg_inv_ex.h>
#include <tcore/ops/linalg_matrix_norm.h>
#include <tcore/ops/linalg_solve.h>
#include <tcore/ops/linalg_svd.h>
#include <tcore/ops/linalg_svdvals.h>
#include <tcore/ops/linalg_tensorinv_native.h>
#include <tcore/ops/linalg_tensorsolve_native.h>
#include <tcore/ops/linalg_vander_native.h>
#include <tcore/ops/movedim.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/nan_to_num.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/ones.h>
#include <tcore/ops/reciprocal.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/squeeze.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/svd_native.h>
#include <tcore/ops/transpose.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/where.h>
#include <tcore/ops/zeros.h>

#include "native/LinearAlgebraChecks.h"
#include "native/TensorUtils.h"

namespace tcore::native {

namespace {
Tensor mT(const Tensor& t) { return tcore::transpose(t, -2, -1); }
}  // namespace

// U S V^T = A (V, not linalg.svd's Vh); some: the reduced factors; without compute_uv, U and V are
// zeros (m x m and n x n), as torch's
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& self, bool some, bool compute_uv) {
  TCORE_CHECK_VALUE(self.dim() >= 2, "linalg.svd: The input tensor A must have at least 2 dimensions.");
  if (!compute_uv) {
    std::vector<int64_t> u(self.sizes().begin(), self.sizes().end() - 1), v = u;
    u.push_back(self.sizes()[self.dim() - 2]);
    v.back() = self.sizes()[self.dim() - 1];
    v.push_back(self.sizes()[self.dim() - 1]);
    return {tcore::zeros(u, self.dtype(), std::nullopt, self.device()), tcore::linalg_svdvals(self, std::nullopt),
            tcore::zeros(v, self.dtype(), std::nullopt, self.device())};
  }
  const auto [U, S, Vh] = tcore::linalg_svd(self, !some, std::nullopt);
  return {U, S, mT(Vh)};
}

// A = L L^T (upper: U^T U): X = L^-T (L^-1 B), two triangular solves reading the factor's triangle,
// the batches broadcast. Its gradient in the factor is the derivative of what is computed: zero
// off that triangle (torch's formula gives the full matrix's; they agree on the triangle).
Tensor cholesky_solve(const Tensor& self, const Tensor& input2, bool upper) {
  TCORE_CHECK_VALUE(self.dim() >= 2, "b should have at least 2 dimensions, but has ", self.dim(), " dimensions instead");
  TCORE_CHECK_VALUE(input2.dim() >= 2, "u should have at least 2 dimensions, but has ", input2.dim(),
                    " dimensions instead");
  TCORE_CHECK_TYPE(self.dtype() == input2.dtype(), "Expected b and A to have the same dtype, but found b of type ",
                   self.dtype(), " and A of type ", input2.dtype(), " instead.");
  const int64_t n = input2.sizes()[input2.dim() - 1];
  TCORE_CHECK_VALUE(input2.sizes()[input2.dim() - 2] == n, "A must be batches of square matrices, but they are ",
                    input2.sizes()[input2.dim() - 2], " by ", n, " matrices");
  TCORE_CHECK_VALUE(self.sizes()[self.dim() - 2] == n, "Incompatible matrix sizes for cholesky_solve: each A matrix is ",
                    n, " by ", n, " but each b matrix is ", self.sizes()[self.dim() - 2], " by ",
                    self.sizes()[self.dim() - 1]);
  check_linalg_float(input2, "cholesky_solve");
  std::vector<int64_t> batch = broadcast_shapes(IntArrayRef(self.sizes().data(), self.sizes().size() - 2),
                                                IntArrayRef(input2.sizes().data(), input2.sizes().size() - 2));
  std::vector<int64_t> a_shape = batch, b_shape = batch;
  a_shape.insert(a_shape.end(), {n, n});
  b_shape.insert(b_shape.end(), {n, self.sizes()[self.dim() - 1]});
  const Tensor factor = tcore::expand(input2, a_shape, false), b = tcore::expand(self, b_shape, false);
  const Tensor lower = upper ? mT(factor) : factor;  // A = lower lower^T
  const Tensor y = tcore::_linalg_solve_triangular(lower, b, false, false);
  return tcore::_linalg_solve_triangular(mT(lower), y, true, false);
}

Tensor cholesky_inverse(const Tensor& self, bool upper) {
  check_linalg_square(self, "cholesky_inverse");
  const int64_t n = self.sizes()[self.dim() - 1];
  const Tensor identity = tcore::eye(n, self.dtype(), std::nullopt, self.device(), std::nullopt);
  return tcore::cholesky_solve(tcore::expand(identity, self.sizes(), false), self, upper);
}

namespace {
// torch's norms for cond: +-1, +-2, +-inf, 'fro', 'nuc'
void check_cond_ord(const std::variant<Scalar, std::string_view>& ord) {
  if (const auto* s = std::get_if<Scalar>(&ord)) {
    const double p = s->to<double>();
    TCORE_CHECK_VALUE(std::abs(p) == 1 || std::abs(p) == 2 || std::isinf(p), "linalg.cond got an invalid norm type: ",
                      s->is_floating_point() ? detail::str_cat(p) : detail::str_cat(s->to<int64_t>()));
  } else {
    const std::string_view p = std::get<std::string_view>(ord);
    TCORE_CHECK_VALUE(p == "fro" || p == "nuc", "linalg.cond got an invalid norm type: ", p);
  }
}

// an empty matrix's condition number is 0 (numpy does not define it)
Tensor empty_cond(const Tensor& self) {
  std::vector<int64_t> batch(self.sizes().begin(), self.sizes().end() - 2);
  return tcore::zeros(batch, self.dtype(), std::nullopt, self.device());
}

// |A| |A^-1| in the norm ord, inf where A is singular (torch's in-place fill of the inverse breaks
// its own backward; where keeps this one differentiable)
Tensor cond_by_inverse(const Tensor& self, const std::variant<Scalar, std::string_view>& ord) {
  const auto [inverse, info] = tcore::linalg_inv_ex(self, false);
  const Tensor singular = tcore::unsqueeze(tcore::unsqueeze(tcore::gt(info, Scalar(0)), -1), -1);
  const Tensor inv = tcore::where(singular, Scalar(std::numeric_limits<double>::infinity()), inverse);
  const std::vector<int64_t> dims{-2, -1};
  const auto norm = [&](const Tensor& x) {
    if (const auto* s = std::get_if<Scalar>(&ord)) return tcore::linalg_matrix_norm(x, *s, dims, false, std::nullopt);
    return tcore::linalg_matrix_norm(x, std::get<std::string_view>(ord), dims, false, std::nullopt);
  };
  constexpr double inf = std::numeric_limits<double>::infinity();
  return tcore::nan_to_num(tcore::mul(norm(self), norm(inv)), inf, inf, -inf);  // (0 inf: inf, as numpy)
}
}  // namespace

// p None or +-2: the ratio of the extreme singular values (any matrix); +-1, +-inf and 'fro': |A|
// |A^-1| (square matrices); 'nuc': sum(s) sum(1 / s)
Tensor linalg_cond(const Tensor& self, const std::optional<Scalar>& p) {
  TCORE_CHECK_VALUE(self.dim() >= 2, "linalg.cond: The input tensor must have at least 2 dimensions.");
  const Scalar ord = p.value_or(Scalar(int64_t{2}));
  check_cond_ord(ord);
  if (self.numel() == 0) return empty_cond(self);
  if (std::abs(ord.to<double>()) == 2.0) {
    const Tensor s = tcore::linalg_svdvals(self, std::nullopt);
    const int64_t k = s.sizes()[s.dim() - 1];
    const Tensor largest = tcore::narrow(s, -1, 0, 1), smallest = tcore::narrow(s, -1, k - 1, 1);
    const Tensor r = ord.to<double>() == -2.0 ? tcore::div(smallest, largest) : tcore::div(largest, smallest);
    return tcore::squeeze(r, -1);
  }
  const std::string name = ord.is_floating_point() ? detail::str_cat(ord.to<double>()) : detail::str_cat(ord.to<int64_t>());
  check_linalg_square(self, ("linalg.cond(ord=" + name + ")").c_str());
  return cond_by_inverse(self, ord);
}

Tensor linalg_cond(const Tensor& self, std::string_view p) {
  TCORE_CHECK_VALUE(self.dim() >= 2, "linalg.cond: The input tensor must have at least 2 dimensions.");
  check_cond_ord(p);
  check_linalg_square(self, ("linalg.cond(ord=" + std::string(p) + ")").c_str());
  if (self.numel() == 0) return empty_cond(self);
  if (p == "nuc") {
    const Tensor s = tcore::linalg_svdvals(self, std::nullopt);
    return tcore::mul(tcore::sum(s, IntArrayRef({-1}), false, std::nullopt),
                      tcore::sum(tcore::reciprocal(s), IntArrayRef({-1}), false, std::nullopt));
  }
  return cond_by_inverse(self, p);
}

// the inverse of self's first `ind` dims against the rest, as a matrix (prod of each the same)
Tensor linalg_tensorinv(const Tensor& self, int64_t ind) {
  TCORE_CHECK_VALUE(ind > 0, "Expected a strictly positive integer for 'ind', but got ", ind);
  TCORE_CHECK_VALUE(ind <= self.dim(), "Expected 'ind' to be at most self.dim(), but got ", ind);
  const IntArrayRef sizes = self.sizes();
  const int64_t start = numel_of(std::vector<int64_t>(sizes.begin(), sizes.begin() + ind));
  const int64_t end = numel_of(std::vector<int64_t>(sizes.begin() + ind, sizes.end()));
  TCORE_CHECK_VALUE(end == start, "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                    "prod(self.shape[:ind]), but got ", end, " != ", start);
  std::vector<int64_t> shape(sizes.begin() + ind, sizes.end());
  shape.insert(shape.end(), sizes.begin(), sizes.begin() + ind);
  return tcore::reshape(tcore::linalg_inv(tcore::reshape(self, {start, end})), shape);
}

// X with tensordot(self, X, X.dim()) = other: self's dims (those in `dims` moved last) as a square
// matrix over other's elements
Tensor linalg_tensorsolve(const Tensor& self, const Tensor& other, std::optional<IntArrayRef> dims) {
  Tensor a = self;
  if (dims) {
    std::vector<int64_t> dest(dims->size());
    std::iota(dest.begin(), dest.end(), self.dim() - static_cast<int64_t>(dims->size()));
    a = tcore::movedim(self, *dims, dest);
  }
  TCORE_CHECK_VALUE(other.dim() <= a.dim(), "Expected other.dim() to be at most self.dim(), but got ", other.dim());
  const std::vector<int64_t> shape(a.sizes().begin() + other.dim(), a.sizes().end());
  const int64_t product = numel_of(shape), rhs = other.numel();
  TCORE_CHECK_VALUE(product == rhs, "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                    "prod(self.shape[:other.ndim]), but got ", product, " != ", rhs);
  const Tensor x = tcore::linalg_solve(tcore::reshape(a, {product, product}), tcore::flatten(other, 0, -1), true);
  return tcore::reshape(x, shape);
}

// x's powers 0 .. N-1 along a new last dim (N defaults to x's last size), by cumulative products
Tensor linalg_vander(const Tensor& x, std::optional<int64_t> N) {
  const ScalarType t = x.dtype();
  TCORE_CHECK_TYPE(t == ScalarType::Float || t == ScalarType::Double || is_integral(t, false),
                   "linalg.vander supports floating point, complex, and integer tensors, but got ", t);
  const Tensor x1 = x.dim() == 0 ? tcore::unsqueeze(x, -1) : x;
  std::vector<int64_t> shape(x1.sizes().begin(), x1.sizes().end());
  const int64_t n = N.value_or(shape.back());
  TCORE_CHECK_VALUE(n > 1, "N must be greater than 1.");
  shape.push_back(n - 1);
  const Tensor powers = tcore::cumprod(tcore::expand(tcore::unsqueeze(x1, -1), shape, false), -1, std::nullopt);
  shape.back() = 1;
  return tcore::cat({tcore::ones(shape, t, std::nullopt, x.device()), powers}, -1);
}

}  // namespace tcore::native
