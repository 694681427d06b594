// torch's functions of matrices built on the factorizations (Factorizations.cpp): torch.svd,
// cholesky_solve and cholesky_inverse, linalg.cond, linalg.tensorinv and tensorsolve,
// linalg.vander. torch's checks and messages; autograd through the operators they call.
#include <algorithm>
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
#include <tcore/ops/linalg_vector_norm.h>
#include <tcore/ops/frobenius_norm_native.h>
#include <tcore/ops/nuclear_norm_native.h>
#include <tcore/ops/triangular_solve_native.h>
#include <tcore/ops/linalg_solve_triangular.h>
#include <tcore/ops/to.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/add.h>
#include <tcore/ops/matmul.h>
#include <tcore/ops/matrix_exp_native.h>
#include <tcore/ops/linalg_matrix_exp_native.h>
#include <tcore/ops/linalg_matrix_exp.h>
#include <tcore/ops/exp.h>
#include <tcore/ops/clone.h>
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

// e^A of each matrix: scaling and squaring with the degree-13 Pade approximant (Higham, "The scaling
// and squaring method for the matrix exponential revisited", 2005): A / 2^s with |A|_1 / 2^s <=
// theta_13 = 5.37 (each matrix its own s), r13 = (V - U)^-1 (V + U), squared s times (a matrix of
// smaller s keeps its value through where). Autograd differentiates the approximant.
Tensor linalg_matrix_exp(const Tensor& self) {
  check_linalg_square(self, "linalg.matrix_exp");
  check_linalg_float(self, "linalg.matrix_exp");
  const int64_t n = self.sizes()[self.dim() - 1];
  if (self.numel() == 0) return tcore::clone(self, std::nullopt);
  if (n == 1) return tcore::exp(self);
  const std::vector<int64_t> batch(self.sizes().begin(), self.sizes().end() - 2);
  // (the 1-norms of a plain float64 copy: values only, no autograd graph)
  const Tensor norms = contiguous_copy(tcore::linalg_matrix_norm(copy_of(self, ScalarType::Double), Scalar(int64_t{1}),
                                                                 std::vector<int64_t>{-2, -1}, false, std::nullopt));
  const int64_t count = norms.numel();
  std::vector<int64_t> squarings(static_cast<size_t>(count), 0);
  std::vector<int64_t> scale_shape = batch;
  scale_shape.insert(scale_shape.end(), {1, 1});
  Tensor scale = empty_cpu(scale_shape, ScalarType::Double);
  int64_t most = 0;
  for (int64_t i = 0; i < count; ++i) {
    const double norm = norms.data_ptr<double>()[i];
    constexpr double theta13 = 5.371920351148152;
    // (a NaN or an infinity: no scaling; the result is NaN or inf there, as torch's)
    const int64_t s = std::isfinite(norm) && norm > theta13 ? static_cast<int64_t>(std::ceil(std::log2(norm / theta13))) : 0;
    squarings[static_cast<size_t>(i)] = s;
    scale.data_ptr<double>()[i] = std::ldexp(1.0, static_cast<int>(-s));
    most = std::max(most, s);
  }
  const Tensor a = tcore::mul(self, on_device(cast(scale, self.dtype()), self.device()));
  const Tensor identity = tcore::expand(tcore::eye(n, self.dtype(), std::nullopt, self.device(), std::nullopt),
                                        self.sizes(), false);
  static constexpr double b[] = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
                                 129060195264000.0,   10559470521600.0,    670442572800.0,     33522128640.0,
                                 1323241920.0,        40840800.0,          960960.0,           16380.0,
                                 182.0,               1.0};
  const auto sum3 = [](const Tensor& x, double cx, const Tensor& y, double cy, const Tensor& z, double cz) {
    return tcore::add(tcore::add(tcore::mul(x, Scalar(cx)), tcore::mul(y, Scalar(cy))), tcore::mul(z, Scalar(cz)));
  };
  const Tensor a2 = tcore::matmul(a, a), a4 = tcore::matmul(a2, a2), a6 = tcore::matmul(a4, a2);
  const Tensor u_inner = tcore::add(tcore::matmul(a6, sum3(a6, b[13], a4, b[11], a2, b[9])),
                                    tcore::add(sum3(a6, b[7], a4, b[5], a2, b[3]), tcore::mul(identity, Scalar(b[1]))));
  const Tensor u = tcore::matmul(a, u_inner);
  const Tensor v = tcore::add(tcore::matmul(a6, sum3(a6, b[12], a4, b[10], a2, b[8])),
                              tcore::add(sum3(a6, b[6], a4, b[4], a2, b[2]), tcore::mul(identity, Scalar(b[0]))));
  Tensor r = tcore::linalg_solve(tcore::sub(v, u), tcore::add(v, u), true);
  for (int64_t step = 0; step < most; ++step) {
    bool all = true;
    Tensor squaring = empty_cpu(scale_shape, ScalarType::Bool);
    for (int64_t i = 0; i < count; ++i) {
      squaring.data_ptr<bool>()[i] = step < squarings[static_cast<size_t>(i)];
      all = all && squaring.data_ptr<bool>()[i];
    }
    const Tensor squared = tcore::matmul(r, r);
    r = all ? squared : tcore::where(on_device(squaring, self.device()), squared, r);
  }
  return r;
}

Tensor matrix_exp(const Tensor& self) { return tcore::linalg_matrix_exp(self); }

// X op(A) = B solved for X with op(A) = A or A^T (transpose), A's triangle `upper` read; A copied
// to the broadcast batch, as torch's
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& self, const Tensor& A, bool upper, bool transpose,
                                            bool unitriangular) {
  warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a "
       "future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a copy "
       "of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
       "torch.linalg.solve_triangular(A, B).");
  TCORE_CHECK_VALUE(self.dim() >= 2, "torch.triangular_solve: The input tensor B must have at least 2 dimensions.");
  TCORE_CHECK_VALUE(A.dim() >= 2, "torch.triangular_solve: The input tensor A must have at least 2 dimensions.");
  const std::vector<int64_t> batch = broadcast_shapes(IntArrayRef(self.sizes().data(), self.sizes().size() - 2),
                                                      IntArrayRef(A.sizes().data(), A.sizes().size() - 2));
  std::vector<int64_t> a_shape = batch;
  a_shape.insert(a_shape.end(), A.sizes().end() - 2, A.sizes().end());
  const Tensor op = transpose ? mT(A) : A;
  const Tensor x = tcore::linalg_solve_triangular(op, self, transpose ? !upper : upper, true, unitriangular);
  return {x, tcore::clone(tcore::expand(A, a_shape, false), MemoryFormat::Contiguous)};
}

Tensor nuclear_norm(const Tensor& self, bool keepdim) {
  return nuclear_norm(self, IntArrayRef({-2, -1}), keepdim);
}

Tensor nuclear_norm(const Tensor& self, IntArrayRef dim, bool keepdim) {
  warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
       "PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead");
  return tcore::linalg_matrix_norm(self, std::string_view("nuc"), dim, keepdim, std::nullopt);
}

Tensor frobenius_norm(const Tensor& self, IntArrayRef dim, bool keepdim) {
  warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
       "PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead");
  TCORE_CHECK_VALUE(dim.size() <= 2, "Expected at most 2 dimensions, but got ", dim.size(), " dimensions instead.");
  return tcore::linalg_vector_norm(self, Scalar(2.0), dim, keepdim, std::nullopt);
}

}  // namespace tcore::native
