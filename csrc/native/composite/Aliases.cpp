// torch's alias names: arccos, arcsin, arctan, arccosh, arcsinh, arctanh, arctan2, absolute,
// negative, positive, multiply, subtract, divide, true_divide_, clip, ravel, msort, greater,
// greater_equal, less, less_equal and not_equal, each (with
// its out= and in-place forms) the operator it names, so that errors, dtypes and derivatives are
// that operator's.
#include <optional>
#include <string_view>
#include <tuple>

#include <tcore/ops/abs.h>
#include <tcore/ops/acos.h>
#include <tcore/ops/acosh.h>
#include <tcore/ops/asin.h>
#include <tcore/ops/asinh.h>
#include <tcore/ops/atan.h>
#include <tcore/ops/atan2.h>
#include <tcore/ops/atanh.h>
#include <tcore/ops/clamp.h>
#include <tcore/ops/div.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/neg.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/sort.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/absolute_native.h>
#include <tcore/ops/arccos_native.h>
#include <tcore/ops/arccosh_native.h>
#include <tcore/ops/arcsin_native.h>
#include <tcore/ops/arcsinh_native.h>
#include <tcore/ops/arctan_native.h>
#include <tcore/ops/arctan2_native.h>
#include <tcore/ops/arctanh_native.h>
#include <tcore/ops/clip_native.h>
#include <tcore/ops/divide_native.h>
#include <tcore/ops/msort_native.h>
#include <tcore/ops/multiply_native.h>
#include <tcore/ops/negative_native.h>
#include <tcore/ops/positive_native.h>
#include <tcore/ops/ravel_native.h>
#include <tcore/ops/subtract_native.h>
#include <tcore/ops/true_divide_native.h>

#include <tcore/ops/gt.h>
#include <tcore/ops/ge.h>
#include <tcore/ops/lt.h>
#include <tcore/ops/le.h>
#include <tcore/ops/ne.h>
#include <tcore/ops/greater_native.h>
#include <tcore/ops/greater_equal_native.h>
#include <tcore/ops/less_native.h>
#include <tcore/ops/less_equal_native.h>
#include <tcore/ops/not_equal_native.h>

#include "native/TensorUtils.h"

namespace tcore::native {

Tensor arccos(const Tensor& self) {
  return tcore::acos(self);
}

Tensor arccos_(const Tensor& self) {
  return tcore::acos_(self);
}

Tensor arccos_out(const Tensor& self, const Tensor& out) {
  return tcore::acos_out(out, self);
}

Tensor arcsin(const Tensor& self) {
  return tcore::asin(self);
}

Tensor arcsin_(const Tensor& self) {
  return tcore::asin_(self);
}

Tensor arcsin_out(const Tensor& self, const Tensor& out) {
  return tcore::asin_out(out, self);
}

Tensor arctan(const Tensor& self) {
  return tcore::atan(self);
}

Tensor arctan_(const Tensor& self) {
  return tcore::atan_(self);
}

Tensor arctan_out(const Tensor& self, const Tensor& out) {
  return tcore::atan_out(out, self);
}

Tensor arccosh(const Tensor& self) {
  return tcore::acosh(self);
}

Tensor arccosh_(const Tensor& self) {
  return tcore::acosh_(self);
}

Tensor arccosh_out(const Tensor& self, const Tensor& out) {
  return tcore::acosh_out(out, self);
}

Tensor arcsinh(const Tensor& self) {
  return tcore::asinh(self);
}

Tensor arcsinh_(const Tensor& self) {
  return tcore::asinh_(self);
}

Tensor arcsinh_out(const Tensor& self, const Tensor& out) {
  return tcore::asinh_out(out, self);
}

Tensor arctanh(const Tensor& self) {
  return tcore::atanh(self);
}

Tensor arctanh_(const Tensor& self) {
  return tcore::atanh_(self);
}

Tensor arctanh_out(const Tensor& self, const Tensor& out) {
  return tcore::atanh_out(out, self);
}

Tensor absolute(const Tensor& self) {
  return tcore::abs(self);
}

Tensor absolute_(const Tensor& self) {
  return tcore::abs_(self);
}

Tensor absolute_out(const Tensor& self, const Tensor& out) {
  return tcore::abs_out(out, self);
}

Tensor negative(const Tensor& self) {
  return tcore::neg(self);
}

Tensor negative_(const Tensor& self) {
  return tcore::neg_(self);
}

Tensor negative_out(const Tensor& self, const Tensor& out) {
  return tcore::neg_out(out, self);
}

Tensor arctan2(const Tensor& self, const Tensor& other) {
  return tcore::atan2(self, other);
}

Tensor arctan2_(const Tensor& self, const Tensor& other) {
  return tcore::atan2_(self, other);
}

Tensor arctan2_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return tcore::atan2_out(out, self, other);
}

Tensor positive(const Tensor& self) {
  TCORE_CHECK_TYPE(self.dtype() != ScalarType::Bool, "The `+` operator, on a bool tensor is not supported.");
  return self;
}

Tensor multiply(const Tensor& self, const Tensor& other) {
  return tcore::mul(self, other);
}

Tensor multiply(const Tensor& self, const Scalar& other) {
  return tcore::mul(self, other);
}

Tensor multiply_(const Tensor& self, const Tensor& other) {
  return tcore::mul_(self, other);
}

Tensor multiply_(const Tensor& self, const Scalar& other) {
  return tcore::mul_(self, other);
}

Tensor multiply_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return tcore::mul_out(out, self, other);
}

Tensor subtract(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return tcore::sub(self, other, alpha);
}

Tensor subtract(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tcore::sub(self, other, alpha);
}

Tensor subtract_(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return tcore::sub_(self, other, alpha);
}

Tensor subtract_(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tcore::sub_(self, other, alpha);
}

Tensor subtract_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  return tcore::sub_out(out, self, other, alpha);
}

Tensor divide(const Tensor& self, const Tensor& other) {
  return tcore::div(self, other);
}

Tensor divide(const Tensor& self, const Scalar& other) {
  return tcore::div(self, other);
}

Tensor divide(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  return tcore::div(self, other, rounding_mode);
}

Tensor divide(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  return tcore::div(self, other, rounding_mode);
}

Tensor divide_(const Tensor& self, const Tensor& other) {
  return tcore::div_(self, other);
}

Tensor divide_(const Tensor& self, const Scalar& other) {
  return tcore::div_(self, other);
}

Tensor divide_(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  return tcore::div_(self, other, rounding_mode);
}

Tensor divide_(const Tensor& self, const Scalar& other, std::optional<std::string_view> rounding_mode) {
  return tcore::div_(self, other, rounding_mode);
}

Tensor divide_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return tcore::div_out(out, self, other);
}

Tensor divide_out(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode, const Tensor& out) {
  return tcore::div_out(out, self, other, rounding_mode);
}

Tensor true_divide_(const Tensor& self, const Tensor& other) {
  return tcore::div_(self, other);
}

Tensor true_divide_(const Tensor& self, const Scalar& other) {
  return tcore::div_(self, other);
}

Tensor clip(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return tcore::clamp(self, min, max);
}

Tensor clip(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return tcore::clamp(self, min, max);
}

Tensor clip_(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return tcore::clamp_(self, min, max);
}

Tensor clip_out(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max, const Tensor& out) {
  return tcore::clamp_out(out, self, min, max);
}

Tensor clip_out(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max, const Tensor& out) {
  return tcore::clamp_out(out, self, min, max);
}

Tensor ravel(const Tensor& self) {
  return tcore::reshape(self, {-1});
}

Tensor msort(const Tensor& self) {
  return std::get<0>(tcore::sort(self, 0, false));
}

Tensor msort_out(const Tensor& self, const Tensor& out) {
  const Tensor indices = tcore::empty({0}, ScalarType::Long, std::nullopt, out.device(), std::nullopt, std::nullopt);
  return std::get<0>(tcore::sort_out(out, indices, self, 0, false));
}

Tensor greater(const Tensor& self, const Scalar& other) {
  return tcore::gt(self, other);
}

Tensor greater(const Tensor& self, const Tensor& other) {
  return tcore::gt(self, other);
}

Tensor greater_out(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tcore::gt_out(out, self, other);
}

Tensor greater_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return tcore::gt_out(out, self, other);
}

Tensor greater_(const Tensor& self, const Scalar& other) {
  return tcore::gt_(self, other);
}

Tensor greater_(const Tensor& self, const Tensor& other) {
  return tcore::gt_(self, other);
}

Tensor greater_equal(const Tensor& self, const Scalar& other) {
  return tcore::ge(self, other);
}

Tensor greater_equal(const Tensor& self, const Tensor& other) {
  return tcore::ge(self, other);
}

Tensor greater_equal_out(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tcore::ge_out(out, self, other);
}

Tensor greater_equal_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return tcore::ge_out(out, self, other);
}

Tensor greater_equal_(const Tensor& self, const Scalar& other) {
  return tcore::ge_(self, other);
}

Tensor greater_equal_(const Tensor& self, const Tensor& other) {
  return tcore::ge_(self, other);
}

Tensor less(const Tensor& self, const Scalar& other) {
  return tcore::lt(self, other);
}

Tensor less(const Tensor& self, const Tensor& other) {
  return tcore::lt(self, other);
}

Tensor less_out(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tcore::lt_out(out, self, other);
}

Tensor less_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return tcore::lt_out(out, self, other);
}

Tensor less_(const Tensor& self, const Scalar& other) {
  return tcore::lt_(self, other);
}

Tensor less_(const Tensor& self, const Tensor& other) {
  return tcore::lt_(self, other);
}

Tensor less_equal(const Tensor& self, const Scalar& other) {
  return tcore::le(self, other);
}

Tensor less_equal(const Tensor& self, const Tensor& other) {
  return tcore::le(self, other);
}

Tensor less_equal_out(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tcore::le_out(out, self, other);
}

Tensor less_equal_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return tcore::le_out(out, self, other);
}

Tensor less_equal_(const Tensor& self, const Scalar& other) {
  return tcore::le_(self, other);
}

Tensor less_equal_(const Tensor& self, const Tensor& other) {
  return tcore::le_(self, other);
}

Tensor not_equal(const Tensor& self, const Scalar& other) {
  return tcore::ne(self, other);
}

Tensor not_equal(const Tensor& self, const Tensor& other) {
  return tcore::ne(self, other);
}

Tensor not_equal_out(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tcore::ne_out(out, self, other);
}

Tensor not_equal_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return tcore::ne_out(out, self, other);
}

Tensor not_equal_(const Tensor& self, const Scalar& other) {
  return tcore::ne_(self, other);
}

Tensor not_equal_(const Tensor& self, const Tensor& other) {
  return tcore::ne_(self, other);
}

}  // namespace tcore::native
