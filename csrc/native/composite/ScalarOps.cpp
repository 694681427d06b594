// The Scalar overloads: the number becomes a wrapped 0-dim tensor (so it takes
// part in type promotion as a Python number) and the Tensor overload runs.
#include <tcore/ops/add.h>
#include <tcore/ops/add_native.h>
#include <tcore/ops/bitwise_and.h>
#include <tcore/ops/bitwise_and_native.h>
#include <tcore/ops/bitwise_left_shift.h>
#include <tcore/ops/bitwise_left_shift_native.h>
#include <tcore/ops/bitwise_right_shift.h>
#include <tcore/ops/bitwise_right_shift_native.h>
#include <tcore/ops/bitwise_or.h>
#include <tcore/ops/bitwise_or_native.h>
#include <tcore/ops/bitwise_xor.h>
#include <tcore/ops/bitwise_xor_native.h>
#include <tcore/ops/div.h>
#include <tcore/ops/div_native.h>
#include <tcore/ops/eq.h>
#include <tcore/ops/eq_native.h>
#include <tcore/ops/fmod.h>
#include <tcore/ops/fmod_native.h>
#include <tcore/ops/ge.h>
#include <tcore/ops/ge_native.h>
#include <tcore/ops/gt.h>
#include <tcore/ops/gt_native.h>
#include <tcore/ops/le.h>
#include <tcore/ops/le_native.h>
#include <tcore/ops/lt.h>
#include <tcore/ops/lt_native.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/mul_native.h>
#include <tcore/ops/ne.h>
#include <tcore/ops/ne_native.h>
#include <tcore/ops/pow.h>
#include <tcore/ops/pow_native.h>
#include <tcore/ops/remainder.h>
#include <tcore/ops/remainder_native.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/sub_native.h>

#include "native/TensorUtils.h"

namespace tcore::native {

Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tcore::add(self, wrapped_scalar_tensor(other), alpha);
}
Tensor add_(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tcore::add_(self, wrapped_scalar_tensor(other), alpha);
}
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tcore::sub(self, wrapped_scalar_tensor(other), alpha);
}
Tensor sub_(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tcore::sub_(self, wrapped_scalar_tensor(other), alpha);
}
Tensor mul(const Tensor& self, const Scalar& other) { return tcore::mul(self, wrapped_scalar_tensor(other)); }
Tensor mul_(const Tensor& self, const Scalar& other) { return tcore::mul_(self, wrapped_scalar_tensor(other)); }
Tensor div(const Tensor& self, const Scalar& other) { return tcore::div(self, wrapped_scalar_tensor(other)); }
Tensor div_(const Tensor& self, const Scalar& other) { return tcore::div_(self, wrapped_scalar_tensor(other)); }

Tensor eq(const Tensor& self, const Scalar& other) { return tcore::eq(self, wrapped_scalar_tensor(other)); }
Tensor ne(const Tensor& self, const Scalar& other) { return tcore::ne(self, wrapped_scalar_tensor(other)); }
Tensor lt(const Tensor& self, const Scalar& other) { return tcore::lt(self, wrapped_scalar_tensor(other)); }
Tensor le(const Tensor& self, const Scalar& other) { return tcore::le(self, wrapped_scalar_tensor(other)); }
Tensor gt(const Tensor& self, const Scalar& other) { return tcore::gt(self, wrapped_scalar_tensor(other)); }
Tensor ge(const Tensor& self, const Scalar& other) { return tcore::ge(self, wrapped_scalar_tensor(other)); }
Tensor bitwise_and(const Tensor& self, const Scalar& other) { return tcore::bitwise_and(self, wrapped_scalar_tensor(other)); }
Tensor bitwise_and(const Scalar& self, const Tensor& other) {
  return tcore::bitwise_and(wrapped_scalar_tensor(self), other);
}
Tensor bitwise_and_(const Tensor& self, const Scalar& other) {
  return tcore::bitwise_and_(self, wrapped_scalar_tensor(other));
}
Tensor bitwise_left_shift(const Tensor& self, const Scalar& other) {
  return tcore::bitwise_left_shift(self, wrapped_scalar_tensor(other));
}
Tensor bitwise_left_shift_(const Tensor& self, const Scalar& other) {
  return tcore::bitwise_left_shift_(self, wrapped_scalar_tensor(other));
}
Tensor bitwise_left_shift(const Scalar& self, const Tensor& other) {
  return tcore::bitwise_left_shift(wrapped_scalar_tensor(self), other);
}
Tensor bitwise_right_shift(const Tensor& self, const Scalar& other) {
  return tcore::bitwise_right_shift(self, wrapped_scalar_tensor(other));
}
Tensor bitwise_right_shift_(const Tensor& self, const Scalar& other) {
  return tcore::bitwise_right_shift_(self, wrapped_scalar_tensor(other));
}
Tensor bitwise_right_shift(const Scalar& self, const Tensor& other) {
  return tcore::bitwise_right_shift(wrapped_scalar_tensor(self), other);
}
Tensor bitwise_or(const Tensor& self, const Scalar& other) { return tcore::bitwise_or(self, wrapped_scalar_tensor(other)); }
Tensor bitwise_or(const Scalar& self, const Tensor& other) {
  return tcore::bitwise_or(wrapped_scalar_tensor(self), other);
}
Tensor bitwise_or_(const Tensor& self, const Scalar& other) {
  return tcore::bitwise_or_(self, wrapped_scalar_tensor(other));
}
Tensor bitwise_xor(const Tensor& self, const Scalar& other) { return tcore::bitwise_xor(self, wrapped_scalar_tensor(other)); }
Tensor bitwise_xor(const Scalar& self, const Tensor& other) {
  return tcore::bitwise_xor(wrapped_scalar_tensor(self), other);
}
Tensor bitwise_xor_(const Tensor& self, const Scalar& other) {
  return tcore::bitwise_xor_(self, wrapped_scalar_tensor(other));
}
namespace {
// The exponent as a wrapped number, checked as torch's: an integer tensor refuses a negative integer
// exponent (a Tensor exponent truncates), and the exponent must fit the result's dtype unless that is
// float32 or float64 (torch's kernel takes those exponents as a double, the others as the element type).
Tensor pow_exponent(const Tensor& self, const Scalar& exponent) {
  TCORE_CHECK(is_floating(self.dtype()) || exponent.is_floating_point() || exponent.is_bool() ||
                  exponent.to_long() >= 0,
              "Integers to negative integer powers are not allowed.");
  Tensor e = wrapped_scalar_tensor(exponent);
  const ScalarType t = promoted(self, e);
  if (t != ScalarType::Float && t != ScalarType::Double) check_scalar_fits(exponent, t);
  return e;
}
}  // namespace

Tensor pow(const Tensor& self, const Scalar& exponent) { return tcore::pow(self, pow_exponent(self, exponent)); }
Tensor pow_(const Tensor& self, const Scalar& exponent) { return tcore::pow_(self, pow_exponent(self, exponent)); }

// division with a rounding mode, remainder and fmod by a number
Tensor div_mode(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  return tcore::div(self, wrapped_scalar_tensor(other), rounding_mode);
}
Tensor div_mode_(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  return tcore::div_(self, wrapped_scalar_tensor(other), rounding_mode);
}
Tensor remainder(const Tensor& self, const Scalar& other) { return tcore::remainder(self, wrapped_scalar_tensor(other)); }
Tensor remainder_(const Tensor& self, const Scalar& other) { return tcore::remainder_(self, wrapped_scalar_tensor(other)); }
Tensor remainder(const Scalar& self, const Tensor& other) { return tcore::remainder(wrapped_scalar_tensor(self), other); }
Tensor fmod(const Tensor& self, const Scalar& other) { return tcore::fmod(self, wrapped_scalar_tensor(other)); }
Tensor fmod_(const Tensor& self, const Scalar& other) { return tcore::fmod_(self, wrapped_scalar_tensor(other)); }

}  // namespace tcore::native
