// add, sub, mul, div: functional, in-place and out= overloads over one helper.
#include <tcore/ops/add_native.h>
#include <tcore/ops/div_native.h>
#include <tcore/ops/mul_native.h>
#include <tcore/ops/sub_native.h>

#include "native/IntMath.h"
#include "native/cpu/Binary.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// out = f(a, b) computed (and returned) in `compute`: Binary.h's loop with result == compute.
template <typename Make>
Tensor binary_into(const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute, const char* op,
                   Make make) {
  return binary::binary_op_into<binary::Kinds::All>(out, a, b, compute, compute, op, make);
}

template <typename Make>
Tensor binary_result(const Tensor& a, const Tensor& b, ScalarType compute, const char* op, Make make) {
  return binary::binary_op<binary::Kinds::All>(a, b, compute, compute, op, make);
}

// In place: the result type must fit in self.
template <typename Make>
Tensor binary_inplace(const Tensor& self, const Tensor& other, ScalarType compute, const char* op, Make make) {
  return binary::binary_op_inplace<binary::Kinds::All>(self, other, compute, compute, op, make);
}

auto add_fn(const Scalar& alpha) {
  return [alpha](auto tag) {
    using T = typename decltype(tag)::type;
    const T a = alpha.to<T>();
    return [a](T x, T y) {
      if constexpr (is_int_v<T>) return wrapping_add(x, wrapping_mul(a, y));
      else return static_cast<T>(x + a * y);
    };
  };
}

auto sub_fn(const Scalar& alpha) {
  return [alpha](auto tag) {
    using T = typename decltype(tag)::type;
    const T a = alpha.to<T>();
    return [a](T x, T y) {
      if constexpr (is_int_v<T>) return wrapping_sub(x, wrapping_mul(a, y));
      else return static_cast<T>(x - a * y);
    };
  };
}

auto mul_fn() {
  return [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x, T y) {
      if constexpr (is_int_v<T>) return wrapping_mul(x, y);
      else return static_cast<T>(x * y);
    };
  };
}

auto div_fn() {
  return [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x, T y) {
      if constexpr (is_int_v<T>) return y == 0 ? T(0) : int_div_trunc(x, y);
      else return static_cast<T>(x / y);
    };
  };
}

void check_alpha(ScalarType compute, const Scalar& alpha, const char* op) {
  TCORE_CHECK_TYPE(is_floating(compute) || !alpha.is_floating_point(), op,
                   ": for integral input tensors, argument alpha must not be a floating point number.");
}

void check_sub(const Tensor& a, const Tensor& b) {
  TCORE_CHECK_TYPE(!(a.dtype() == ScalarType::Bool && b.dtype() == ScalarType::Bool),
                   "Subtraction, the `-` operator, with two bool tensors is not supported. "
                   "Use the `^` or `logical_xor()` operator instead.");
}

// True division computes in floating point.
ScalarType div_type(const Tensor& a, const Tensor& b) {
  const ScalarType t = result_type({&a, &b});
  return is_floating(t) ? t : default_float_dtype();
}

}  // namespace

Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  const ScalarType t = result_type({&self, &other});
  check_alpha(t, alpha, "add");
  return binary_result(self, other, t, "add", add_fn(alpha));
}
Tensor add_(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  const ScalarType t = result_type({&self, &other});
  check_alpha(t, alpha, "add_");
  return binary_inplace(self, other, t, "add_", add_fn(alpha));
}
Tensor add_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  const ScalarType t = result_type({&self, &other});
  check_alpha(t, alpha, "add");
  return binary_into(out, self, other, t, "add", add_fn(alpha));
}

Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_sub(self, other);
  return binary_result(self, other, result_type({&self, &other}), "sub", sub_fn(alpha));
}
Tensor sub_(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_sub(self, other);
  return binary_inplace(self, other, result_type({&self, &other}), "sub_", sub_fn(alpha));
}
Tensor sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  check_sub(self, other);
  return binary_into(out, self, other, result_type({&self, &other}), "sub", sub_fn(alpha));
}

Tensor mul(const Tensor& self, const Tensor& other) {
  return binary_result(self, other, result_type({&self, &other}), "mul", mul_fn());
}
Tensor mul_(const Tensor& self, const Tensor& other) {
  return binary_inplace(self, other, result_type({&self, &other}), "mul_", mul_fn());
}
Tensor mul_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_into(out, self, other, result_type({&self, &other}), "mul", mul_fn());
}

Tensor div(const Tensor& self, const Tensor& other) {
  return binary_result(self, other, div_type(self, other), "div", div_fn());
}
Tensor div_(const Tensor& self, const Tensor& other) {
  return binary_inplace(self, other, div_type(self, other), "div_", div_fn());
}
Tensor div_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_into(out, self, other, div_type(self, other), "div", div_fn());
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
