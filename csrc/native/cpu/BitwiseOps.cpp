// Bitwise operators on integral and bool tensors (bool: logical); floating inputs are a TypeError.
// The shifts take integers only (torch's NotImplementedError for bool and floating operands).
#include <cmath>
#include <type_traits>

#include <tcore/ops/bitwise_and_native.h>
#include <tcore/ops/bitwise_left_shift_native.h>
#include <tcore/ops/bitwise_not_native.h>
#include <tcore/ops/bitwise_or_native.h>
#include <tcore/ops/bitwise_right_shift_native.h>
#include <tcore/ops/bitwise_xor_native.h>

#include "native/IntMath.h"
#include "native/cpu/Binary.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
using namespace binary;
namespace {

TCORE_BINARY_FN(bitwise_and_fn, static_cast<T>(x & y))
TCORE_BINARY_FN(bitwise_or_fn, static_cast<T>(x | y))
TCORE_BINARY_FN(bitwise_xor_fn, static_cast<T>(x ^ y))
TCORE_BINARY_FN(lshift_fn, shift_left(x, y))
TCORE_BINARY_FN(rshift_fn, shift_right(x, y))
#undef TCORE_BINARY_FN

}  // namespace

// ------------------------------------------------------------------ bitwise (integral and bool)
Tensor bitwise_and(const Tensor& self, const Tensor& other) {
  check_bitwise_operands(self, other, "bitwise_and");
  const ScalarType t = promoted(self, other);
  return binary_op<Kinds::Integral>(self, other, t, t, "bitwise_and", bitwise_and_fn());
}
Tensor bitwise_and_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  check_bitwise_operands(self, other, "bitwise_and");
  const ScalarType t = promoted(self, other);
  return binary_op_into<Kinds::Integral>(out, self, other, t, t, "bitwise_and", bitwise_and_fn());
}
Tensor bitwise_and_(const Tensor& self, const Tensor& other) {
  check_bitwise_operands(self, other, "bitwise_and_");
  const ScalarType t = promoted(self, other);
  return binary_op_inplace<Kinds::Integral>(self, other, t, t, "bitwise_and_", bitwise_and_fn());
}
Tensor bitwise_or(const Tensor& self, const Tensor& other) {
  check_bitwise_operands(self, other, "bitwise_or");
  const ScalarType t = promoted(self, other);
  return binary_op<Kinds::Integral>(self, other, t, t, "bitwise_or", bitwise_or_fn());
}
Tensor bitwise_or_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  check_bitwise_operands(self, other, "bitwise_or");
  const ScalarType t = promoted(self, other);
  return binary_op_into<Kinds::Integral>(out, self, other, t, t, "bitwise_or", bitwise_or_fn());
}
Tensor bitwise_or_(const Tensor& self, const Tensor& other) {
  check_bitwise_operands(self, other, "bitwise_or_");
  const ScalarType t = promoted(self, other);
  return binary_op_inplace<Kinds::Integral>(self, other, t, t, "bitwise_or_", bitwise_or_fn());
}
Tensor bitwise_xor(const Tensor& self, const Tensor& other) {
  check_bitwise_operands(self, other, "bitwise_xor");
  const ScalarType t = promoted(self, other);
  return binary_op<Kinds::Integral>(self, other, t, t, "bitwise_xor", bitwise_xor_fn());
}
Tensor bitwise_xor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  check_bitwise_operands(self, other, "bitwise_xor");
  const ScalarType t = promoted(self, other);
  return binary_op_into<Kinds::Integral>(out, self, other, t, t, "bitwise_xor", bitwise_xor_fn());
}
Tensor bitwise_xor_(const Tensor& self, const Tensor& other) {
  check_bitwise_operands(self, other, "bitwise_xor_");
  const ScalarType t = promoted(self, other);
  return binary_op_inplace<Kinds::Integral>(self, other, t, t, "bitwise_xor_", bitwise_xor_fn());
}
Tensor bitwise_left_shift(const Tensor& self, const Tensor& other) {
  const ScalarType t = integral_promoted(self, other, "lshift_cpu");
  return binary_op<Kinds::Integral>(self, other, t, t, "bitwise_left_shift", lshift_fn());
}
Tensor bitwise_left_shift_(const Tensor& self, const Tensor& other) {
  const ScalarType t = integral_promoted(self, other, "lshift_cpu");
  return binary_op_inplace<Kinds::Integral>(self, other, t, t, "bitwise_left_shift_", lshift_fn());
}
Tensor bitwise_left_shift_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = integral_promoted(self, other, "lshift_cpu");
  return binary_op_into<Kinds::Integral>(out, self, other, t, t, "bitwise_left_shift", lshift_fn());
}
Tensor bitwise_right_shift(const Tensor& self, const Tensor& other) {
  const ScalarType t = integral_promoted(self, other, "rshift_cpu");
  return binary_op<Kinds::Integral>(self, other, t, t, "bitwise_right_shift", rshift_fn());
}
Tensor bitwise_right_shift_(const Tensor& self, const Tensor& other) {
  const ScalarType t = integral_promoted(self, other, "rshift_cpu");
  return binary_op_inplace<Kinds::Integral>(self, other, t, t, "bitwise_right_shift_", rshift_fn());
}
Tensor bitwise_right_shift_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = integral_promoted(self, other, "rshift_cpu");
  return binary_op_into<Kinds::Integral>(out, self, other, t, t, "bitwise_right_shift", rshift_fn());
}

Tensor bitwise_not_out(const Tensor& self, const Tensor& out) {
  TCORE_CHECK_TYPE(!is_floating(self.dtype()), "bitwise_not: not implemented for '", to_string(self.dtype()),
                   "' (integral and bool dtypes only)");
  resize_elementwise_output(out, self.sizes(), {&self});
  const Tensor target = out.dtype() == self.dtype() && !partially_overlaps(out, self)
                            ? out
                            : empty_output(self.sizes(), self.dtype(), {&out});
  dispatch_dtype(self.dtype(), "bitwise_not", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      unary_loop<bool, bool>(target, self, [](bool v) { return !v; });
    } else if constexpr (std::is_integral_v<T>) {
      unary_loop<T, T>(target, self, [](T v) { return static_cast<T>(~v); });
    }
  });
  if (!target.is_same(out)) write_result(out, target, "bitwise_not");
  out.bump_version();
  return out;
}
Tensor bitwise_not(const Tensor& self) {
  return bitwise_not_out(self, empty_output(self.sizes(), self.dtype(), {&self}));
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
