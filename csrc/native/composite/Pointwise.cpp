// lerp with a Tensor weight: PyTorch's two-sided formula (exact at weight 0 and 1) in
// terms of other operators, so autograd records what it calls.
#include <tcore/ops/add.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/lerp_native.h>
#include <tcore/ops/lt.h>
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

}  // namespace tcore::native
