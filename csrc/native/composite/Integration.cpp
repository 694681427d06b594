// torch's composites along a dim: logcumsumexp (over the _logcumsumexp kernel), trapezoid, trapz
// and cumulative_trapezoid, renorm and pdist. torch's formulas, checks and messages; autograd
// through the operators they call.
#include <limits>
#include <optional>
#include <vector>

#include <tcore/ops/_logcumsumexp.h>
#include <tcore/ops/add.h>
#include <tcore/ops/cat.h>
#include <tcore/ops/clone.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/cumsum.h>
#include <tcore/ops/cumulative_trapezoid_native.h>
#include <tcore/ops/div.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/full_like.h>
#include <tcore/ops/gt.h>
#include <tcore/ops/linalg_vector_norm.h>
#include <tcore/ops/logcumsumexp_native.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/pdist_native.h>
#include <tcore/ops/renorm.h>
#include <tcore/ops/renorm_native.h>
#include <tcore/ops/select.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/trapezoid.h>
#include <tcore/ops/trapezoid_native.h>
#include <tcore/ops/trapz_native.h>
#include <tcore/ops/view.h>
#include <tcore/ops/where.h>
#include <tcore/ops/zeros.h>

#include "native/TensorUtils.h"

namespace tcore::native {

Tensor logcumsumexp(const Tensor& self, int64_t dim) { return tcore::_logcumsumexp(self, dim); }

namespace {
// y's shape without dim, zeros: the integral over no samples (numpy's)
Tensor zeros_except(const Tensor& y, int64_t dim) {
  std::vector<int64_t> sizes(y.sizes().begin(), y.sizes().end());
  sizes.erase(sizes.begin() + dim);
  return tcore::zeros(sizes, y.dtype(), std::nullopt, y.device());
}
Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end_from_back) {
  const int64_t n = t.sizes()[dim];
  return tcore::narrow(t, dim, start, n - start - end_from_back);
}
// x's differences along dim, x viewed so that they broadcast with y's (numpy's: a 1-D x along dim,
// a lower-dimensional x padded in front)
Tensor spacings(const Tensor& y, const Tensor& x, int64_t dim, const char* op) {
  Tensor viewed = x;
  if (x.dim() == 1) {
    TCORE_CHECK_VALUE(x.sizes()[0] == y.sizes()[dim], op, ": There must be one `x` value for each sample point");
    std::vector<int64_t> sizes(static_cast<size_t>(y.dim()), 1);
    sizes[static_cast<size_t>(dim)] = x.sizes()[0];
    viewed = tcore::view(x, sizes);
  } else if (x.dim() < y.dim()) {
    std::vector<int64_t> sizes(static_cast<size_t>(y.dim() - x.dim()), 1);
    sizes.insert(sizes.end(), x.sizes().begin(), x.sizes().end());
    viewed = tcore::view(x, sizes);
  }
  return tcore::sub(slice(viewed, dim, 1, 0), slice(viewed, dim, 0, 1));
}
void check_not_bool(const Tensor& t, const char* op, const char* what) {
  TCORE_CHECK_TYPE(t.dtype() != ScalarType::Bool, op, ": received a bool input for `", what,
                   "`, but bool is not supported");
}
void check_real(const Scalar& dx, const char* op) {
  TCORE_CHECK_TYPE(!dx.is_bool(), op, ": Currently, we only support dx as a real number.");
}
}  // namespace

Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  const int64_t d = wrap_dim(dim, y.dim(), /*allow_scalar=*/false);  // (a 0-D y: IndexError)
  if (y.sizes()[d] == 0) return zeros_except(y, d);
  TCORE_CHECK_TYPE(y.dtype() != ScalarType::Bool && x.dtype() != ScalarType::Bool,
                   "trapezoid: received a bool input for `x` or `y`, but bool is not supported");
  const Tensor dx = spacings(y, x, d, "trapezoid");
  return tcore::div(tcore::sum(tcore::mul(dx, tcore::add(slice(y, d, 1, 0), slice(y, d, 0, 1))), IntArrayRef({d}), false,
                               std::nullopt),
                    Scalar(2.0));
}

// a constant spacing: (sum(y) - (y_0 + y_last) / 2) dx
Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  const int64_t d = wrap_dim(dim, y.dim(), /*allow_scalar=*/false);  // (a 0-D y: IndexError)
  if (y.sizes()[d] == 0) return zeros_except(y, d);
  check_not_bool(y, "trapezoid", "y");
  check_real(dx, "trapezoid");
  const Tensor ends = tcore::add(tcore::select(y, d, 0), tcore::select(y, d, -1));
  return tcore::mul(tcore::sub(tcore::sum(y, IntArrayRef({d}), false, std::nullopt), tcore::mul(ends, Scalar(0.5))),
                    Scalar(dx.to<double>()));
}

Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim) { return tcore::trapezoid(y, x, dim); }
Tensor trapz(const Tensor& y, double dx, int64_t dim) { return tcore::trapezoid(y, Scalar(dx), dim); }

Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  const int64_t d = wrap_dim(dim, y.dim(), /*allow_scalar=*/false);  // (a 0-D y: IndexError)
  TCORE_CHECK_TYPE(y.dtype() != ScalarType::Bool && x.dtype() != ScalarType::Bool,
                   "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported");
  const Tensor dx = spacings(y, x, d, "cumulative_trapezoid");
  const Tensor sums = tcore::add(slice(y, d, 0, 1), slice(y, d, 1, 0));
  return tcore::div(tcore::cumsum(tcore::mul(sums, dx), d, std::nullopt), Scalar(2.0));
}

Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  const int64_t d = wrap_dim(dim, y.dim(), /*allow_scalar=*/false);  // (a 0-D y: IndexError)
  check_not_bool(y, "cumulative_trapezoid", "y");
  check_real(dx, "cumulative_trapezoid");
  if (y.sizes()[d] == 0) return tcore::cumsum(tcore::mul(y, Scalar(1.0)), d, std::nullopt);
  const Tensor sums = tcore::add(slice(y, d, 0, 1), slice(y, d, 1, 0));
  return tcore::cumsum(tcore::mul(sums, Scalar(dx.to<double>() / 2.0)), d, std::nullopt);
}

// each slice along dim (the other dims' p-norm) scaled by maxnorm / (norm + 1e-7) where its norm
// exceeds maxnorm, as torch's (the factor differentiable through the norm)
Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  TCORE_CHECK_VALUE(p.to<double>() > 0.0, "renorm: non-positive-norm not supported");
  TCORE_CHECK_VALUE(maxnorm.to<double>() >= 0.0, "renorm: expected maxnorm to be >= 0 but got ", maxnorm.to<double>());
  TCORE_CHECK_VALUE(self.dim() > 1, "renorm: input needs at least 2 dimensions, got ", self.dim(), " dimensions");
  const int64_t d = wrap_dim(dim, self.dim());
  std::vector<int64_t> others;
  for (int64_t i = 0; i < self.dim(); ++i)
    if (i != d) others.push_back(i);
  const Tensor norm = tcore::linalg_vector_norm(self, p, IntArrayRef(others), true, std::nullopt);
  const double m = maxnorm.to<double>();
  const Tensor scaled = tcore::div(tcore::full_like(norm, Scalar(m)), tcore::add(norm, Scalar(1e-7)));
  const Tensor factor = tcore::where(tcore::gt(norm, Scalar(m)), scaled, Scalar(1.0));
  return tcore::mul(self, factor);
}

// (of a copy: renorm saves its input for the norm's gradient, which the write would invalidate)
Tensor renorm_(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  return tcore::copy_(self, tcore::renorm(tcore::clone(self, std::nullopt), p, dim, maxnorm));
}

// |x_i - x_j|_p for the pairs i < j of the rows, row by row (n small products of the rows after
// row i: memory of one row's pairs at a time, not of all n^2 / 2 differences)
Tensor pdist(const Tensor& self, double p) {
  TCORE_CHECK_VALUE(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "pdist only supports floating-point dtypes");
  TCORE_CHECK_VALUE(p >= 0, "pdist only supports non-negative p values");
  const int64_t n = self.sizes()[0];
  if (n < 2) return tcore::empty({0}, self.dtype(), std::nullopt, self.device(), std::nullopt, std::nullopt);
  std::vector<Tensor> rows;
  rows.reserve(static_cast<size_t>(n - 1));
  for (int64_t i = 0; i + 1 < n; ++i) {
    const Tensor diff = tcore::sub(tcore::narrow(self, 0, i + 1, n - i - 1), tcore::narrow(self, 0, i, 1));
    rows.push_back(tcore::linalg_vector_norm(diff, Scalar(p), IntArrayRef({1}), false, std::nullopt));
  }
  return tcore::cat(rows, 0);
}

}  // namespace tcore::native
