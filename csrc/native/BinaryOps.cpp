// Meta functions of the structured add, sub, mul and div (tcore/core/Structured.h): the
// argument checks, the broadcast shape and PyTorch's type promotion (true division computes in
// floating point). The kernels are native/cpu/BinaryOps.cpp and native/cuda/BinaryOpsKernels.cu.
#include <tcore/ops/add_native.h>
#include <tcore/ops/div_native.h>
#include <tcore/ops/mul_native.h>
#include <tcore/ops/sub_native.h>

#include "native/TensorUtils.h"

namespace tcore::meta {
namespace {

// sub's kernel takes -alpha, so that is what must fit (sub(int8, int8, alpha=128) is fine, as torch's)
void check_alpha(ScalarType compute, const Scalar& alpha, const char* op, bool negated = false) {
  TCORE_CHECK_TYPE(is_floating(compute) || !alpha.is_floating_point(), op,
                   ": for integral input tensors, argument alpha must not be a floating point number.");
  TCORE_CHECK_TYPE(compute == ScalarType::Bool || !alpha.is_bool(), "Boolean alpha only supported for Boolean results.");
  native::check_scalar_fits(negated ? native::negated(alpha) : alpha, compute);
}

}  // namespace

TCORE_META_FUNC2(add, Tensor)(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  const ScalarType t = native::result_type({&self, &other});
  check_alpha(t, alpha, "add");
  native::set_binary_output(*this, self, other, t, "add");
}

TCORE_META_FUNC2(sub, Tensor)(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  TCORE_CHECK_TYPE(!(self.dtype() == ScalarType::Bool && other.dtype() == ScalarType::Bool),
                   "Subtraction, the `-` operator, with two bool tensors is not supported. "
                   "Use the `^` or `logical_xor()` operator instead.");
  TCORE_CHECK_TYPE(self.dtype() != ScalarType::Bool && other.dtype() != ScalarType::Bool,
                   "Subtraction, the `-` operator, with a bool tensor is not supported. "
                   "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  const ScalarType t = native::result_type({&self, &other});
  check_alpha(t, alpha, "sub", /*negated=*/true);
  native::set_binary_output(*this, self, other, t, "sub");
}

TCORE_META_FUNC2(mul, Tensor)(const Tensor& self, const Tensor& other) {
  native::set_binary_output(*this, self, other, native::result_type({&self, &other}), "mul");
}

TCORE_META_FUNC2(div, Tensor)(const Tensor& self, const Tensor& other) {
  const ScalarType t = native::result_type({&self, &other});
  native::set_binary_output(*this, self, other, is_floating(t) ? t : default_float_dtype(), "div");
}

}  // namespace tcore::meta
