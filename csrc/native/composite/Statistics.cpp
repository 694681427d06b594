// Order statistics of torch's API made of sort, gather and lerp (CompositeImplicitAutograd: the
// gradient reaches the gathered elements, as torch's): quantile and nanquantile (five
// interpolations), nanmedian, mode, and aminmax (amin and amax).
//   quantile:    ranks q (n - 1) of each sorted slice; a slice holding a NaN gives NaN
//   nanquantile: ranks q (k - 1) over its k values that are not NaN (NaN if there is none)
#include <string_view>
#include <vector>

#include <tcore/ops/all.h>
#include <tcore/ops/amax.h>
#include <tcore/ops/amin.h>
#include <tcore/ops/aminmax_native.h>
#include <tcore/ops/any.h>
#include <tcore/ops/arange.h>
#include <tcore/ops/argmax.h>
#include <tcore/ops/cat.h>
#include <tcore/ops/ceil.h>
#include <tcore/ops/clamp.h>
#include <tcore/ops/cummax.h>
#include <tcore/ops/div.h>
#include <tcore/ops/eq.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/flatten.h>
#include <tcore/ops/floor.h>
#include <tcore/ops/full.h>
#include <tcore/ops/full_like.h>
#include <tcore/ops/gather.h>
#include <tcore/ops/ge.h>
#include <tcore/ops/isnan.h>
#include <tcore/ops/le.h>
#include <tcore/ops/lerp.h>
#include <tcore/ops/logical_and.h>
#include <tcore/ops/logical_not.h>
#include <tcore/ops/logical_or.h>
#include <tcore/ops/mode_native.h>
#include <tcore/ops/movedim.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/nanmedian_native.h>
#include <tcore/ops/nanquantile_native.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/ne.h>
#include <tcore/ops/quantile_native.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/round.h>
#include <tcore/ops/scalar_tensor.h>
#include <tcore/ops/sort.h>
#include <tcore/ops/squeeze.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/to.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/where.h>

#include "native/TensorUtils.h"

namespace tcore::native {
namespace {

Tensor as_long(const Tensor& x) { return tcore::to(x, ScalarType::Long, false, false, std::nullopt); }

// self with `dim` moved last (or flattened for no dim), and the result's shape without q's dim
std::pair<Tensor, std::vector<int64_t>> slices_of(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  std::vector<int64_t> shape;
  if (!dim) {
    if (keepdim) shape.assign(static_cast<size_t>(self.dim()), 1);
    return {tcore::flatten(self, 0, -1), shape};
  }
  const int64_t d = wrap_dim(*dim, self.dim());
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (i != d) shape.push_back(self.sizes()[i]);
    else if (keepdim) shape.push_back(1);
  }
  const Tensor x = self.dim() == 0 ? tcore::reshape(self, {1}) : tcore::movedim(self, d, -1);
  return {x, shape};
}

// (torch's messages say quantile() for nanquantile too)
Tensor quantile_of(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation, bool ignore_nan) {
  const char* name = "quantile";
  TCORE_CHECK_VALUE(self.numel() > 0, name, "() input tensor must be non-empty");
  TCORE_CHECK_VALUE(q.dim() <= 1, name, "() q must be a scalar or 1D tensor");
  TCORE_CHECK_TYPE(self.dtype() == ScalarType::Float || self.dtype() == ScalarType::Double, name,
                   "() input tensor must be either float or double dtype");
  TCORE_CHECK_TYPE(self.dtype() == q.dtype(), name, "() q tensor must be same dtype as the input tensor");
  TCORE_CHECK_VALUE(interpolation == "linear" || interpolation == "lower" || interpolation == "higher" ||
                        interpolation == "midpoint" || interpolation == "nearest",
                    name, "() interpolation must be one of linear, lower, higher, midpoint or nearest, but got ",
                    interpolation);
  TCORE_CHECK_VALUE(q.numel() == 0 || item<bool>(tcore::all(tcore::logical_and(tcore::ge(q, Scalar(0)), tcore::le(q, Scalar(1))))),
                    name, "() q values must be in the range [0, 1]");
  auto [x, shape] = slices_of(self, dim, keepdim);
  const Tensor sorted = std::get<0>(tcore::sort(x, -1, false));  // (NaN last)
  const int64_t n = sorted.sizes()[sorted.dim() - 1];
  const Tensor qs = tcore::reshape(q, {-1});  // (Q)
  const Tensor nan = tcore::isnan(sorted);
  // ranks (..., Q): each slice's (..., 1) against q's (Q)
  Tensor ranks;
  if (ignore_nan) {  // q (k - 1) over the k values that are not NaN; 0 where there is none (a NaN)
    const std::vector<int64_t> last{-1};
    const Tensor k = tcore::sum(tcore::logical_not(nan), std::optional<ArrayRef<int64_t>>(last), true, self.dtype());
    ranks = tcore::clamp(tcore::mul(qs, tcore::sub(k, Scalar(1), 1)), std::optional<Scalar>(0.0), std::nullopt);
  } else {  // the last index (a NaN) where the slice holds one
    ranks = tcore::where(tcore::any(nan, -1, true), Scalar(static_cast<double>(n - 1)),
                         tcore::mul(qs, Scalar(static_cast<double>(n - 1))));
  }
  if (interpolation == "lower") ranks = tcore::floor(ranks);
  else if (interpolation == "higher") ranks = tcore::ceil(ranks);
  else if (interpolation == "nearest") ranks = tcore::round(ranks);  // (half to even, as torch's)
  const Tensor below = tcore::floor(ranks);
  Tensor values = tcore::gather(sorted, -1, as_long(below), false);
  if (interpolation == "linear" || interpolation == "midpoint") {
    const Tensor weights = interpolation == "midpoint" ? tcore::full_like(ranks, Scalar(0.5)) : tcore::sub(ranks, below, 1);
    values = tcore::lerp(values, tcore::gather(sorted, -1, as_long(tcore::ceil(ranks)), false), weights);
  }
  if (q.dim() == 0) return tcore::reshape(tcore::squeeze(values, -1), shape);
  std::vector<int64_t> out{qs.numel()};
  out.insert(out.end(), shape.begin(), shape.end());
  return tcore::reshape(tcore::movedim(values, -1, 0), out);
}

Tensor q_tensor(double q, const Tensor& self) {
  TCORE_CHECK_VALUE(q >= 0 && q <= 1, "quantile() q must be in the range [0, 1] but got ", q);
  return tcore::scalar_tensor(Scalar(q), self.dtype(), std::nullopt, self.device(), std::nullopt);
}

}  // namespace

Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  return quantile_of(self, q, dim, keepdim, interpolation, false);
}
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) {
  return quantile_of(self, q_tensor(q, self), dim, keepdim, interpolation, false);
}
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  return quantile_of(self, q, dim, keepdim, interpolation, true);
}
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  return quantile_of(self, q_tensor(q, self), dim, keepdim, interpolation, true);
}

// The lower median of the values that are not NaN (NaN where all are), and its index: the
// stable sort's position of it (torch's index for an all-NaN slice is its selection's, not matched)
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim());
  const Tensor x = self.dim() == 0 ? tcore::reshape(self, {1}) : self;
  TCORE_CHECK_INDEX(x.sizes()[d] > 0, "nanmedian(): Expected reduction dim ", d, " to have non-zero size.");
  const auto [sorted, order] = tcore::sort(x, std::optional<bool>(true), d, false);
  const Tensor k = tcore::sum(tcore::logical_not(tcore::isnan(sorted)), std::optional<ArrayRef<int64_t>>({d}), true, ScalarType::Long);
  const Tensor at = tcore::clamp(tcore::div(tcore::sub(k, Scalar(1), 1), Scalar(2), std::string_view("floor")),
                                 std::optional<Scalar>(0), std::nullopt);
  Tensor values = tcore::gather(sorted, d, at, false), indices = tcore::gather(order, d, at, false);
  if (!keepdim || self.dim() == 0) {
    values = tcore::squeeze(values, d);
    indices = tcore::squeeze(indices, d);
  }
  return {values, indices};
}

Tensor nanmedian(const Tensor& self) {
  if (self.numel() == 0) return tcore::full({}, Scalar(NAN), self.dtype(), std::nullopt, self.device());
  return std::get<0>(nanmedian(tcore::flatten(self, 0, -1), 0, false));
}

// The most frequent value of each slice (the smallest of equally frequent ones) and the index of
// its last occurrence, as torch's: in the stable sort, each run's length counted at its end
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim());
  const Tensor x = self.dim() == 0 ? tcore::reshape(self, {1}) : self;
  const int64_t n = x.sizes()[d];
  TCORE_CHECK_INDEX(n > 0, "mode(): Expected reduction dim ", d, " to have non-zero size.");
  const auto [sorted, order] = tcore::sort(x, std::optional<bool>(true), d, false);
  std::vector<int64_t> line(static_cast<size_t>(x.dim()), 1);
  line[static_cast<size_t>(d)] = n;
  const Tensor position = tcore::expand(tcore::reshape(tcore::arange(Scalar(n), ScalarType::Long, std::nullopt, x.device()), line),
                                        x.sizes(), false);
  // a run starts where the value differs from the one before it
  const Tensor before = tcore::cat({tcore::narrow(sorted, d, 0, 1), tcore::narrow(sorted, d, 0, n - 1)}, d);
  Tensor starts = tcore::ne(sorted, before);
  starts = tcore::logical_or(starts, tcore::eq(position, Scalar(0)));
  const Tensor run_start = std::get<0>(tcore::cummax(tcore::where(starts, position, Scalar(0)), d));
  const Tensor length = tcore::sub(position, run_start, 1);  // (+1 for all: the same argmax)
  // the end of the first longest run: the smallest most frequent value, its last occurrence
  const Tensor at = tcore::argmax(length, d, true);
  Tensor values = tcore::gather(sorted, d, at, false), indices = tcore::gather(order, d, at, false);
  if (!keepdim || self.dim() == 0) {
    values = tcore::squeeze(values, d);
    indices = tcore::squeeze(indices, d);
  }
  return {values, indices};
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (dim) {
    const std::vector<int64_t> dims{*dim};
    if (self.dim() > 0)
      TCORE_CHECK_INDEX(self.sizes()[wrap_dim(*dim, self.dim())] > 0,
                        "aminmax: Expected reduction dim ", *dim, " to have non-zero size.");
    return {tcore::amin(self, dims, keepdim), tcore::amax(self, dims, keepdim)};
  }
  TCORE_CHECK(self.numel() > 0, "aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                    "no identity.");
  std::vector<int64_t> all(static_cast<size_t>(self.dim()));
  for (int64_t i = 0; i < self.dim(); ++i) all[static_cast<size_t>(i)] = i;
  return {tcore::amin(self, all, keepdim), tcore::amax(self, all, keepdim)};
}

}  // namespace tcore::native
