// lerp with a Tensor weight: PyTorch's two-sided formula (exact at weight 0 and 1), and
// threshold, in terms of other operators, so autograd records what they call.
#include <tcore/ops/add.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/lerp_native.h>
#include <tcore/ops/le.h>
#include <tcore/ops/lt.h>
#include <tcore/ops/scalar_tensor.h>
#include <tcore/ops/threshold.h>
#include <tcore/ops/threshold_native.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/where.h>

#include "native/TensorUtils.h"

namespace tcore::native {

Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()) && is_floating(end.dtype()) && is_floating(weight.dtype()),
                   "lerp: expected floating point tensors, got ", self.dtype(), ", ", end.dtype(), " and ",
                   weight.dtype());
  const Tensor diff = tcore::sub(end, self);
  const Tensor low = tcore::add(self, tcore::mul(weight, diff));
  const Tensor high = tcore::sub(end, tcore::mul(diff, tcore::sub(wrapped_scalar_tensor(Scalar(1.0)), weight)));
  return tcore::where(tcore::lt(weight, Scalar(0.5)), low, high);
}

Tensor lerp_(const Tensor& self, const Tensor& end, const Tensor& weight) {
  return tcore::copy_(self, lerp(self, end, weight));
}

// torch.threshold: value where self <= threshold, self elsewhere (NaN kept). value and threshold
// are converted to self's dtype, the threshold of a float16/bfloat16 self to float32 (one out of its
// range refused, as torch's kernel converts them: 1e40 for float32; an integer self's threshold
// truncated, -0.5 is 0 for int64); float16/bfloat16 compare in float32, as torch's kernel (a
// threshold between two float16 values rounded to one of them moved the boundary).
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  TCORE_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Bool,
                 "\"threshold_cpu\" not implemented for 'Bool'");
  check_scalar_fits(value, self.dtype());
  check_scalar_fits(threshold, opmath_type(self.dtype()));  // (float16's in float32: 70000 fits)
  Scalar th = threshold;
  if (!is_floating(self.dtype()) && threshold.is_floating_point()) {
    th = Scalar(static_cast<int64_t>(threshold.to_double()));
  }
  const Tensor fill = tcore::scalar_tensor(value, self.dtype(), std::nullopt, self.device());
  const Tensor seen = cast(self, opmath_type(self.dtype()));  // (compared only: no gradient through it)
  return tcore::where(tcore::le(seen, th), fill, self);
}

Tensor threshold_(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  return tcore::copy_(self, tcore::threshold(self, threshold, value));
}

}  // namespace tcore::native
