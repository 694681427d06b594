// Membership and runs: isin (a binary search of the sorted test elements) and unique_consecutive
// (the first element of each run of equal values, or slices along dim; the inverse indices and
// the run lengths), as torch's.
#include <vector>

#include <tcore/ops/any.h>
#include <tcore/ops/cat.h>
#include <tcore/ops/clamp.h>
#include <tcore/ops/cumsum.h>
#include <tcore/ops/diff.h>
#include <tcore/ops/eq.h>
#include <tcore/ops/flatten.h>
#include <tcore/ops/full.h>
#include <tcore/ops/gather.h>
#include <tcore/ops/index_select.h>
#include <tcore/ops/isnan.h>
#include <tcore/ops/isin_native.h>
#include <tcore/ops/logical_not.h>
#include <tcore/ops/movedim.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/ne.h>
#include <tcore/ops/nonzero.h>
#include <tcore/ops/ones.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/scalar_tensor.h>
#include <tcore/ops/searchsorted.h>
#include <tcore/ops/sort.h>
#include <tcore/ops/squeeze.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/to.h>
#include <tcore/ops/unique_consecutive_native.h>
#include <tcore/ops/zeros.h>

#include "native/TensorUtils.h"

namespace tcore::native {
namespace {

Tensor as_type(const Tensor& x, ScalarType t) { return tcore::to(x, t, false, false, std::nullopt); }

Tensor number_tensor(const Scalar& s, const Tensor& like) {
  return tcore::scalar_tensor(s, std::nullopt, std::nullopt, like.device(), std::nullopt);
}

}  // namespace

// Each element found among test_elements (NaN never is): both in their promoted dtype, the test
// elements sorted once, each element's insertion point checked
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  (void)assume_unique;  // (a hint torch's sort-based path uses; this one needs no uniqueness)
  const ScalarType t = promoted(elements, test_elements);
  const Tensor all_sorted = std::get<0>(tcore::sort(tcore::flatten(as_type(test_elements, t), 0, -1), 0, false));
  // NaNs (sorted last) match nothing and would misguide the search: only the values before them
  const int64_t k = item<int64_t>(tcore::sum(tcore::logical_not(tcore::isnan(all_sorted)), std::optional<ScalarType>()));
  if (k == 0) return tcore::full(elements.sizes(), Scalar(invert), ScalarType::Bool, std::nullopt, elements.device());
  const Tensor sorted = tcore::narrow(all_sorted, 0, 0, k);
  const Tensor x = as_type(elements, t);
  const Tensor at = tcore::clamp(tcore::searchsorted(sorted, tcore::flatten(x, 0, -1)), std::optional<Scalar>(0),
                                 std::optional<Scalar>(sorted.numel() - 1));
  const Tensor found = tcore::reshape(tcore::eq(tcore::gather(sorted, 0, at, false), tcore::flatten(x, 0, -1)),
                                      elements.sizes());
  return invert ? tcore::logical_not(found) : found;
}

Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique, bool invert) {
  return isin(elements, number_tensor(test_element, elements), assume_unique, invert);
}

Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  return isin(number_tensor(element, test_elements), test_elements, assume_unique, invert);
}

// (values, inverse, counts); inverse and counts empty unless asked for, as torch's
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  const bool flat = !dim || self.dim() == 0;
  const int64_t d = flat ? 0 : wrap_dim(*dim, self.dim());
  const Tensor x = flat ? tcore::flatten(self, 0, -1) : self;
  const int64_t n = x.sizes()[d];
  const Tensor none = tcore::zeros({0}, ScalarType::Long, std::nullopt, self.device());
  if (n == 0) {
    const Tensor inverse = return_inverse ? tcore::zeros(flat ? self.sizes() : IntArrayRef({0}), ScalarType::Long,
                                                          std::nullopt, self.device()) : none;
    return {x, inverse, none};
  }
  // a run starts at 0 and wherever a slice differs from the one before
  Tensor differs = tcore::ne(tcore::narrow(x, d, 1, n - 1), tcore::narrow(x, d, 0, n - 1));
  if (x.dim() > 1) {
    const Tensor moved = tcore::movedim(differs, d, 0);
    differs = tcore::any(tcore::reshape(moved, {n - 1, -1}), 1, false);
  }
  const Tensor starts = tcore::cat({tcore::ones({1}, ScalarType::Bool, std::nullopt, self.device()), differs}, 0);
  const Tensor first = tcore::squeeze(tcore::nonzero(starts), 1);  // (each run's first index)
  const Tensor values = tcore::index_select(x, d, first);
  Tensor inverse = none, counts = none;
  if (return_inverse) {
    inverse = tcore::sub(tcore::cumsum(starts, 0, ScalarType::Long), Scalar(1), 1);
    if (flat) inverse = tcore::reshape(inverse, self.sizes());
  }
  if (return_counts) {
    const Tensor end = tcore::full({1}, Scalar(n), ScalarType::Long, std::nullopt, self.device());
    counts = tcore::diff(tcore::cat({first, end}, 0), 1, 0, std::nullopt, std::nullopt);
  }
  return {values, inverse, counts};
}

}  // namespace tcore::native
