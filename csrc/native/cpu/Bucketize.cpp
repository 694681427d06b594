// searchsorted and bucketize (binary searches into sorted boundaries) and bincount (counts of
// non-negative integers): torch's rules, checks and messages. Not differentiable.
#include <tcore/ops/bincount_native.h>
#include <tcore/ops/histc_native.h>
#include <tcore/ops/bucketize_native.h>
#include <tcore/ops/searchsorted_native.h>
#include <tcore/ops/zeros.h>

#include <algorithm>
#include <cmath>
#include <vector>
#include <string_view>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// The first of n sorted boundaries (seen through `order` when given) that is >= v (left) or > v
// (right), torch's comparisons: a NaN boundary is passed over, a NaN value goes past every boundary.
template <typename T>
int64_t search(const T* boundaries, const int64_t* order, int64_t n, T v, bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const T b = boundaries[order ? order[mid] : mid];
    if (right ? !(b > v) : !(b >= v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

bool searches_right(bool right, std::optional<std::string_view> side) {
  if (!side) return right;
  TCORE_CHECK(*side == "left" || *side == "right", "torch.searchsorted(): side can only be 'left' or 'right' but got ",
              *side);
  TCORE_CHECK(!(*side == "left" && right), "torch.searchsorted(): side and right can't be set to opposites, got side "
              "of left while right was True");
  return *side == "right";
}

void check_searchsorted(const Tensor& boundaries, const Tensor& self, const std::optional<Tensor>& sorter) {
  TCORE_CHECK(boundaries.dim() > 0, "torch.searchsorted(): boundaries tensor should have positive dimension, but got "
              "0 dimension");
  const bool rows_match = boundaries.dim() == self.dim() &&
                          std::equal(boundaries.sizes().begin(), boundaries.sizes().end() - 1, self.sizes().begin());
  TCORE_CHECK(boundaries.dim() == 1 || rows_match, "torch.searchsorted(): boundaries tensor should be 1 dimension or "
              "the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries "
              "tensor ", shape_str(boundaries.sizes()), " and input value tensor ", shape_str(self.sizes()));
  if (sorter && sorter->defined()) {
    TCORE_CHECK(sorter->dtype() == ScalarType::Long, "torch.searchsorted(): sorter must be a tensor of long dtype but "
                "got dtype ", to_string(sorter->dtype()));
    TCORE_CHECK(sorter->sizes().vec() == boundaries.sizes().vec(), "torch.searchsorted(): boundary and sorter must "
                "have the same size, but got boundary tensor ", shape_str(boundaries.sizes()), "and got sorter tensor ",
                shape_str(sorter->sizes()));
  }
}

// The searches of every element of self, row by row when the boundaries have several rows.
Tensor search_all(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                  const std::optional<Tensor>& sorter) {
  // a Python number (a wrapped one) takes the boundaries' dtype, as in any promotion
  const ScalarType common = result_type({&sorted_sequence, &self});
  TCORE_CHECK_AS(NotImplementedError, common != ScalarType::Bool,
                 "\"searchsorted_out_cpu\" not implemented for 'Bool'");
  // float16/bfloat16: rounded to the type, compared in float32 (exactly the same order)
  const ScalarType compare = opmath_type(common);
  const Tensor b = contiguous_copy(cast(cast(sorted_sequence, common), compare));
  const Tensor v = contiguous_copy(cast(cast(self, common), compare));
  const int64_t n = b.sizes().back(), numel = v.numel();
  const int64_t per_row = b.dim() == 1 || v.dim() == 0 ? numel : v.sizes().back();
  Tensor order;
  if (sorter && sorter->defined()) {
    order = contiguous_copy(*sorter);
    const int64_t* o = order.data_ptr<int64_t>();
    TCORE_CHECK(std::all_of(o, o + order.numel(), [n](int64_t k) { return k >= 0 && k < n; }),
                "torch.searchsorted(): sorter index out of range");
  }
  Tensor out = empty_cpu(self.sizes(), out_int32 ? ScalarType::Int : ScalarType::Long);
  dispatch_dtype(compare, "searchsorted", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* bp = b.template data_ptr<T>();
    const T* vp = v.template data_ptr<T>();
    const int64_t* op = order.defined() ? order.template data_ptr<int64_t>() : nullptr;
    for (int64_t i = 0; i < numel; ++i) {
      const int64_t row = per_row == 0 ? 0 : (b.dim() == 1 ? 0 : i / per_row);
      const int64_t k = search(bp + row * n, op ? op + row * n : nullptr, n, vp[i], right);
      if (out_int32) out.data_ptr<int32_t>()[i] = static_cast<int32_t>(k);
      else out.data_ptr<int64_t>()[i] = k;
    }
  });
  return out;
}

}  // namespace

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  const bool r = searches_right(right, side);
  check_searchsorted(sorted_sequence, self, sorter);
  return search_all(sorted_sequence, self, out_int32, r, sorter);
}

Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  TCORE_CHECK(sorted_sequence.dim() == 1, "torch.searchsorted(): input value can be a scalar only when boundaries "
              "tensor dimension is 1, but we got boundaries tensor dim(", sorted_sequence.dim(),
              ") and input value's dim(0) numel(1)");
  return searchsorted(sorted_sequence, wrapped_scalar_tensor(self), out_int32, right, side, sorter);
}

Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  TCORE_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return searchsorted(boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}

Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return bucketize(wrapped_scalar_tensor(self), boundaries, out_int32, right);
}

// The count of each value of a 1-d non-negative integer tensor (or the sum of its weights), at
// least minlength of them: int64 counts, the weights' dtype when float32/float64, else float64.
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  TCORE_CHECK(minlength >= 0, "minlength should be >= 0");
  TCORE_CHECK_AS(NotImplementedError, is_integral(self.dtype(), /*include_bool=*/false), "\"bincount_cpu\" not "
                 "implemented for '", to_string(self.dtype()), "'");
  TCORE_CHECK(self.dim() == 1, "bincount only supports 1-d non-negative integral inputs.");
  if (self.numel() == 0) return tcore::zeros({minlength}, ScalarType::Long);  // torch's: weights not looked at
  const bool weighted = weights && weights->defined();
  if (weighted) {
    TCORE_CHECK(weights->dim() == 1 && weights->numel() == self.numel(),
                "weights should be 1-d and have the same length as input");
  }
  const Tensor values = contiguous_copy(cast(self, ScalarType::Long));
  const int64_t* v = values.data_ptr<int64_t>();
  const int64_t n = values.numel();
  TCORE_CHECK(std::all_of(v, v + n, [](int64_t k) { return k >= 0; }),
              "bincount only supports 1-d non-negative integral inputs.");
  const int64_t bins = std::max(minlength, n == 0 ? 0 : *std::max_element(v, v + n) + 1);
  const ScalarType w = weighted ? weights->dtype() : ScalarType::Long;
  const ScalarType t = !weighted ? ScalarType::Long
                       : w == ScalarType::Float || w == ScalarType::Double ? w : ScalarType::Double;
  Tensor out = empty_cpu({bins}, t);
  dispatch_all_types(t, "bincount", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.template data_ptr<T>();
    std::fill(o, o + bins, T(0));
    if (!weighted) {
      for (int64_t i = 0; i < n; ++i) o[v[i]] = static_cast<T>(o[v[i]] + T(1));
      return;
    }
    const Tensor w = contiguous_copy(cast(*weights, t));
    const T* wp = w.template data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) o[v[i]] = static_cast<T>(o[v[i]] + wp[i]);
  });
  return out;
}

// The counts of self's values in `bins` equal bins over [min, max] (self's range when min == max, one
// more on each side when that is a point), as torch's: values outside it and NaNs are not counted, a
// value equal to max goes to the last bin; the bin is (x - min) / (max - min) * bins, moved by one
// where rounding put it across an edge min + i (max - min) / bins. The counts in self's dtype.
Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  TCORE_CHECK_AS(NotImplementedError, is_floating(self.dtype()), "\"histogram_cpu\" not implemented for '",
                 to_string(self.dtype()), "'");
  TCORE_CHECK_VALUE(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  const Tensor values = contiguous_copy(cast(self, ScalarType::Double));
  const double* v = values.data_ptr<double>();
  const int64_t n = values.numel();
  double lo = min.to<double>(), hi = max.to<double>();
  if (lo == hi && n > 0) {
    lo = *std::min_element(v, v + n, [](double a, double b) { return a < b || std::isnan(b); });
    hi = *std::max_element(v, v + n, [](double a, double b) { return a < b || std::isnan(a); });
    for (int64_t i = 0; i < n; ++i) {  // (a NaN makes the range NaN, as torch's min and max)
      if (std::isnan(v[i])) lo = hi = v[i];
    }
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TCORE_CHECK_VALUE(!(lo > hi), "torch.histc: max must be larger than min");
  TCORE_CHECK_VALUE(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi, "] is not finite");
  // the counts straight into the result (tcore's checked allocation: 2^40 bins is a clear
  // error, where a std::vector of them threw std::bad_alloc)
  Tensor out = empty_cpu({bins}, ScalarType::Double);
  double* counts = out.data_ptr<double>();
  std::fill(counts, counts + bins, 0.0);
  const double width = hi - lo;
  const auto edge = [&](int64_t i) { return lo + static_cast<double>(i) * width / static_cast<double>(bins); };
  for (int64_t i = 0; i < n; ++i) {
    const double x = v[i];
    if (!(x >= lo && x <= hi)) continue;  // (NaN too)
    int64_t b = static_cast<int64_t>((x - lo) / width * static_cast<double>(bins));
    b = std::min(b, bins - 1);
    if (b + 1 < bins && x >= edge(b + 1)) ++b;
    else if (b > 0 && x < edge(b)) --b;
    counts[b] += 1;
  }
  return cast(out, self.dtype());
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
