// Composites of the mask operators: masked_select and argwhere through index/nonzero, and
// _causal_softmax on devices without a kernel of their own (a masked_fill then softmax), and
// where with Python numbers (a number is a 0-dim "wrapped" tensor in type promotion, as in
// PyTorch: where(cond, x_float32, 0.0) stays float32; the number is converted to the result's
// dtype as torch's scalar_tensor converts it). Autograd records what they call.
#include <tcore/ops/_causal_softmax_native.h>
#include <tcore/ops/argwhere_native.h>
#include <tcore/ops/expand.h>
#include <tcore/ops/index.h>
#include <tcore/ops/masked_fill.h>
#include <tcore/ops/masked_select_native.h>
#include <tcore/ops/nonzero.h>
#include <tcore/ops/ones.h>
#include <tcore/ops/scalar_tensor.h>
#include <tcore/ops/softmax.h>
#include <tcore/ops/triu.h>
#include <tcore/ops/where.h>
#include <tcore/ops/where_native.h>

#include <limits>

#include "native/TensorUtils.h"

namespace tcore::native {

Tensor argwhere(const Tensor& self) { return tcore::nonzero(self); }

Tensor _causal_softmax_composite(const Tensor& self) {
  check_causal_softmax(self);
  const int64_t L = self.sizes()[self.dim() - 2], S = self.sizes().back();
  const Tensor above = tcore::triu(tcore::ones({L, S}, ScalarType::Bool, std::nullopt, self.device()), 1);
  return tcore::softmax(tcore::masked_fill(self, above, -std::numeric_limits<double>::infinity()), -1);
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  TCORE_CHECK(mask.dtype() == ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes());
  const Tensor s = self.sizes().vec() == shape ? self : tcore::expand(self, shape);
  const Tensor m = mask.sizes().vec() == shape ? mask : tcore::expand(mask, shape);
  if (shape.empty()) {  // a 0-dim mask: self[mask] of one element is a 1-element or empty vector
    return tcore::index(tcore::expand(s, {1}), {std::optional<Tensor>(tcore::expand(m, {1}))});
  }
  return tcore::index(s, {std::optional<Tensor>(m)});
}

namespace {
// A number beside a tensor, made a 0-dim tensor of the dtype the two promote to as torch's
// scalar_tensor makes it (300 beside int8 is refused, 1e5 beside float16 is inf).
Tensor number_beside(const Scalar& s, const Tensor& other) {
  return tcore::scalar_tensor(s, promoted(other, wrapped_scalar_tensor(s)), std::nullopt, other.device());
}
}  // namespace

Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return tcore::where(condition, number_beside(self, other), other);
}

Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return tcore::where(condition, self, number_beside(other, self));
}

Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  // two numbers: the result's dtype is that of the numbers (long, or the default float)
  const ScalarType t = promote_types(self.dtype(), other.dtype());
  Tensor a = wrapped_scalar_tensor(self), b = wrapped_scalar_tensor(other);
  a.impl()->is_wrapped_number = false;  // both numbers: neither gives way to the other
  b.impl()->is_wrapped_number = false;
  return tcore::where(condition, cast(a, t), cast(b, t));
}

}  // namespace tcore::native
