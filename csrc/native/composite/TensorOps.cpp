// Composites torch users reach for: argsort, isclose/allclose/equal, repeat,
// repeat_interleave, unbind, roll, fliplr/flipud, clamp with tensor bounds, and the
// two-tensor max/min. Autograd records the operators they call.
#include <tcore/ops/abs.h>
#include <tcore/ops/add.h>
#include <tcore/ops/all.h>
#include <tcore/ops/allclose_native.h>
#include <tcore/ops/argsort_native.h>
#include <tcore/ops/cat.h>
#include <tcore/ops/clamp_native.h>
#include <tcore/ops/clone.h>
#include <tcore/ops/eq.h>
#include <tcore/ops/equal_native.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/flatten.h>
#include <tcore/ops/flip.h>
#include <tcore/ops/fliplr_native.h>
#include <tcore/ops/flipud_native.h>
#include <tcore/ops/full.h>
#include <tcore/ops/gt.h>
#include <tcore/ops/index_select.h>
#include <tcore/ops/isclose_native.h>
#include <tcore/ops/isinf.h>
#include <tcore/ops/isnan.h>
#include <tcore/ops/le.h>
#include <tcore/ops/logical_and.h>
#include <tcore/ops/logical_not.h>
#include <tcore/ops/logical_or.h>
#include <tcore/ops/lt.h>
#include <tcore/ops/max_native.h>
#include <tcore/ops/maximum.h>
#include <tcore/ops/min_native.h>
#include <tcore/ops/minimum.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/repeat_interleave.h>
#include <tcore/ops/repeat_native.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/roll_native.h>
#include <tcore/ops/select.h>
#include <tcore/ops/sort.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/unbind_native.h>
#include <tcore/ops/view.h>
#include <tcore/ops/where.h>

#include "native/TensorUtils.h"

namespace tcore::native {
Tensor argsort(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(tcore::sort(self, stable, dim, descending));
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending) { return argsort(self, true, dim, descending); }

// ------------------------------------------------------------------ closeness
// PyTorch's rule: equal, or |self - other| <= atol + rtol * |other| and finite; NaNs are
// close to each other only with equal_nan.
Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  TCORE_CHECK_TYPE(self.dtype() == other.dtype(), to_string(self.dtype()), " did not match ", to_string(other.dtype()));
  TCORE_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got ", rtol);
  TCORE_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got ", atol);
  Tensor close = tcore::eq(self, other);
  if (equal_nan && is_floating(self.dtype()))
    close = tcore::logical_or(close, tcore::logical_and(tcore::isnan(self), tcore::isnan(other)));
  if (rtol == 0 && atol == 0) return close;
  const Tensor a = self.dtype() == ScalarType::Bool ? cast(self, default_float_dtype()) : self;
  const Tensor b = other.dtype() == ScalarType::Bool ? cast(other, default_float_dtype()) : other;
  const Tensor allowed = tcore::add(tcore::abs(tcore::mul(b, Scalar(rtol))), Scalar(atol));
  const Tensor actual = tcore::abs(tcore::sub(a, b));
  Tensor within = tcore::le(actual, allowed);
  if (is_floating(actual.dtype()))
    within = tcore::logical_and(within, tcore::logical_not(tcore::logical_or(tcore::isnan(actual), tcore::isinf(actual))));
  return tcore::logical_or(close, within);
}

bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return item<bool>(tcore::all(native::isclose(self, other, rtol, atol, equal_nan)));
}

bool equal(const Tensor& self, const Tensor& other) {
  TCORE_CHECK(self.device() == other.device(), "Expected all tensors to be on the same device, but found ",
              self.device(), " and ", other.device());
  if (self.sizes().vec() != other.sizes().vec()) return false;
  return item<bool>(tcore::all(tcore::eq(self, other)));
}

// ------------------------------------------------------------------ repeat, repeat_interleave
Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  const int64_t k = static_cast<int64_t>(repeats.size()), n = self.dim();
  TCORE_CHECK(k >= n, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  for (int64_t r : repeats)
    TCORE_CHECK(r >= 0, "Trying to create tensor with negative dimension ", r, ": ", shape_str(repeats));
  std::vector<int64_t> spread, expanded, result;  // [1, s0, 1, s1, ...] -> [r0, s0, r1, s1, ...]
  for (int64_t d = 0; d < k; ++d) {
    const int64_t s = d < k - n ? 1 : self.sizes()[d - (k - n)];
    spread.insert(spread.end(), {1, s});
    expanded.insert(expanded.end(), {repeats[d], s});
    result.push_back(repeats[d] * s);
  }
  return tcore::reshape(tcore::expand(tcore::reshape(self, spread), expanded), result);
}

Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  const Tensor input = dim ? self : tcore::flatten(self);
  const int64_t d = dim ? wrap_dim(*dim, self.dim()) : 0;
  const int64_t n = input.dim() == 0 ? 1 : input.sizes()[d];
  Tensor reps = repeats;
  if (repeats.numel() == 1 && n != 1) reps = tcore::expand(tcore::reshape(repeats, {1}), {n});
  TCORE_CHECK(reps.dim() <= 1 && reps.numel() == n, "repeats must have the same size as input along dim, but got "
              "repeats.size(0) = ", reps.numel(), " and input.size(", d, ") = ", n);
  const Tensor index = tcore::repeat_interleave(tcore::reshape(reps, {n}), output_size);
  return tcore::index_select(input.dim() == 0 ? tcore::reshape(input, {1}) : input, d, index);
}

Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  return native::repeat_interleave(self, tcore::full({}, Scalar(repeats), ScalarType::Long), dim, output_size);
}

// ------------------------------------------------------------------ unbind, roll, flips
std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  TCORE_CHECK_INDEX(self.dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, self.dim());
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.sizes()[d]; ++i) out.push_back(tcore::select(self, d, i));
  return out;
}

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  if (dims.empty()) {  // over the flattened tensor, then back to the shape
    TCORE_CHECK(shifts.size() == 1, "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", 0);
    const int64_t s = shifts[0];
    return tcore::view(roll(tcore::flatten(self), IntArrayRef(s), IntArrayRef(int64_t{0})), self.sizes());
  }
  TCORE_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:",
              dims.size());
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], self.dim());
    const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    out = tcore::cat({tcore::narrow(out, d, n - s, s), tcore::narrow(out, d, 0, n - s)}, d);
  }
  return out.is_same(self) ? tcore::clone(self, std::nullopt) : out;
}

Tensor fliplr(const Tensor& self) {
  TCORE_CHECK(self.dim() >= 2, "Input must be >= 2-d.");
  return tcore::flip(self, {int64_t{1}});
}

Tensor flipud(const Tensor& self) {
  TCORE_CHECK(self.dim() >= 1, "Input must be >= 1-d.");
  return tcore::flip(self, {int64_t{0}});
}

// ------------------------------------------------------------------ clamp, max/min of two tensors
// where() keeps PyTorch's gradients: self gets it where it is within the bounds (ties
// included), a bound where it wins; a NaN bound gives NaN, as min(max(x, lo), hi) does.
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  TCORE_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  Tensor out = self;
  if (min) {
    Tensor below = tcore::lt(out, *min);
    if (is_floating(min->dtype())) below = tcore::logical_or(below, tcore::isnan(*min));
    out = tcore::where(below, *min, out);
  }
  if (max) {
    Tensor above = tcore::gt(out, *max);
    if (is_floating(max->dtype())) above = tcore::logical_or(above, tcore::isnan(*max));
    out = tcore::where(above, *max, out);
  }
  return out;
}

Tensor max(const Tensor& self, const Tensor& other) { return tcore::maximum(self, other); }
Tensor min(const Tensor& self, const Tensor& other) { return tcore::minimum(self, other); }

}  // namespace tcore::native
