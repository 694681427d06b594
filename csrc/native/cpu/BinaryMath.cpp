// maximum/minimum (NaN wins), atan2, hypot and copysign (floating), pow (integer powers by squaring),
// lerp and where.
#include <cmath>
#include <type_traits>

#include <tcore/ops/atan2_native.h>
#include <tcore/ops/copysign_native.h>
#include <tcore/ops/hypot_native.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/fill.h>
#include <tcore/ops/lerp_native.h>
#include <tcore/ops/maximum_native.h>
#include <tcore/ops/minimum_native.h>
#include <tcore/ops/pow_native.h>
#include <tcore/ops/where_native.h>

#include "native/IntMath.h"
#include "native/cpu/Binary.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
using namespace binary;
namespace {

TCORE_BINARY_FN(maximum_fn, is_nan(x) ? x : (is_nan(y) ? y : (x > y ? x : y)))
TCORE_BINARY_FN(minimum_fn, is_nan(x) ? x : (is_nan(y) ? y : (x < y ? x : y)))
TCORE_BINARY_FN(atan2_fn, static_cast<T>(std::atan2(x, y)))
TCORE_BINARY_FN(hypot_fn, static_cast<T>(std::hypot(x, y)))
TCORE_BINARY_FN(copysign_fn, static_cast<T>(std::copysign(x, y)))
#undef TCORE_BINARY_FN

auto pow_fn() {
  return [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x, T y) -> T {
      if constexpr (std::is_floating_point_v<T>) return std::pow(x, y);
      else return int_pow<T>(x, y);
    };
  };
}

// PyTorch's lerp: exact at both ends (weight 0 gives self, weight 1 gives end).
auto lerp_fn(double weight) {
  return [weight](auto tag) {
    using T = typename decltype(tag)::type;
    return [w = static_cast<T>(weight)](T x, T y) -> T {
      return (w < T(0.5)) ? x + w * (y - x) : y - (y - x) * (T(1) - w);
    };
  };
}

}  // namespace

// ------------------------------------------------------------------ maximum, minimum, atan2, pow
TCORE_IMPL_FUNC(maximum_out)(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = promoted(self, other);
  binary_op_into<Kinds::All>(out, self, other, t, t, "maximum", maximum_fn());
}
TCORE_IMPL_FUNC(minimum_out)(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = promoted(self, other);
  binary_op_into<Kinds::All>(out, self, other, t, t, "minimum", minimum_fn());
}

Tensor atan2(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_op<Kinds::Floating>(self, other, t, t, "atan2", atan2_fn());
}
Tensor atan2_(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_op_inplace<Kinds::Floating>(self, other, t, t, "atan2_", atan2_fn());
}
Tensor atan2_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_op_into<Kinds::Floating>(out, self, other, t, t, "atan2", atan2_fn());
}

// hypot: floating operands only (torch has no integer kernel); copysign: integers compute in the
// default float dtype, as atan2
Tensor hypot(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_promoted(self, other, "hypot_cpu");
  return binary_op<Kinds::Floating>(self, other, t, t, "hypot", hypot_fn());
}
Tensor hypot_(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_promoted(self, other, "hypot_cpu");
  return binary_op_inplace<Kinds::Floating>(self, other, t, t, "hypot_", hypot_fn());
}
Tensor hypot_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = floating_promoted(self, other, "hypot_cpu");
  return binary_op_into<Kinds::Floating>(out, self, other, t, t, "hypot", hypot_fn());
}
Tensor copysign(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_op<Kinds::Floating>(self, other, t, t, "copysign", copysign_fn());
}
Tensor copysign_(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_op_inplace<Kinds::Floating>(self, other, t, t, "copysign_", copysign_fn());
}
Tensor copysign_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_op_into<Kinds::Floating>(out, self, other, t, t, "copysign", copysign_fn());
}

namespace {
// x ** e for floats, by a special exponent's form (pow_into)
template <typename F>
auto float_pow(F f) {
  return [f](auto tag) {
    using T = typename decltype(tag)::type;
    return [f](T x, T) -> T { return f(x); };
  };
}

// out = self ** exponent: PyTorch's special exponents (a number, as in x ** 2, raising floats; a
// 0-dim tensor exponent takes std::pow, as in torch) in the forms torch computes them, x * x,
// x * x * x, sqrt, 1 / sqrt, 1 / x, 1 / (x * x), x (sqrt(-0.) is -0. where pow(-0., 0.5) is +0.);
// other exponents, integers and complex numbers pow_fn. A 4M-element float32 x ** 2 through
// std::pow: 35 ms, 46x torch's. (One function for pow, pow_ and pow.out: each form's loops are
// compiled once.)
Tensor pow_into(const Tensor& out, const Tensor& self, const Tensor& exponent, const char* op) {
  const ScalarType compute = promoted(self, exponent), et = exponent.dtype();
  const auto general = [&] { return binary_op_into<Kinds::Numeric>(out, self, exponent, compute, compute, op, pow_fn()); };
  if (!exponent.impl()->is_wrapped_number || exponent.dim() != 0 || is_reduced_float(et)) return general();
  const double e = dispatch_dtype(et, "pow", [&](auto tag) {
    using E = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<E>) return static_cast<double>(*exponent.template data_ptr<E>());
    else return std::nan("");  // not reached: the dtypes above
  });
  // torch's x ** 0 and x ** 1 for every dtype, bool included: ones, a copy (an overlapping
  // output goes the general way, whose checks refuse it)
  if ((e == 0.0 || e == 1.0) && !partially_overlaps(out, self)) {
    resize_elementwise_output(out, self.sizes(), {&self});
    assert_no_internal_overlap(out);
    TCORE_CHECK_TYPE(can_cast(compute, out.dtype()), op, ": result type ", compute,
                     " can't be cast to the desired output type ", out.dtype());
    if (e == 0.0) return tcore::fill_(out, 1);
    if (out.is_same(self)) out.bump_version();  // pow_(1): written, as torch's copy_
    else tcore::copy_(out, self);
    return out;
  }
  if (!is_floating(compute)) return general();
  const auto special = [&](auto f) {
    return binary_op_into<Kinds::Floating>(out, self, exponent, compute, compute, op, float_pow(f));
  };
  if (e == 2.0) return special([](auto x) { return x * x; });
  if (e == 3.0) return special([](auto x) { return x * x * x; });
  if (compute != ScalarType::Half) {  // torch's float16 takes pow there: pow(-0., 0.5) is +0., pow(-inf, -0.5) is 0.
    if (e == 0.5) return special([](auto x) { return std::sqrt(x); });
    if (e == -0.5) return special([](auto x) { return decltype(x)(1) / std::sqrt(x); });
  }
  if (e == -1.0) return special([](auto x) { return decltype(x)(1) / x; });
  if (e == -2.0) return special([](auto x) { return decltype(x)(1) / (x * x); });
  if (e == 1.0) return special([](auto x) { return x; });
  return general();
}
}  // namespace

Tensor pow(const Tensor& self, const Tensor& exponent) {
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), exponent.sizes());
  // a number exponent (pow.Tensor_Scalar) is a unary operator in torch: self's layout alone
  const Tensor out = exponent.impl()->is_wrapped_number
                         ? empty_output(shape, promoted(self, exponent), {&self})
                         : empty_output(shape, promoted(self, exponent), {&self, &exponent});
  return pow_into(out, self, exponent, "pow");
}
Tensor pow_(const Tensor& self, const Tensor& exponent) {
  check_inplace_shape(self, exponent, "pow_");
  return pow_into(self, self, exponent, "pow_");
}
Tensor pow_out(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  return pow_into(out, self, exponent, "pow");
}

// ------------------------------------------------------------------ lerp (the Scalar weight; lerp.Tensor composes)
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) {
  const ScalarType t = promoted(self, end);
  return binary_op<Kinds::Floating>(self, end, t, t, "lerp", lerp_fn(weight.to_double()));
}
Tensor lerp_(const Tensor& self, const Tensor& end, const Scalar& weight) {
  const ScalarType t = promoted(self, end);
  return binary_op_inplace<Kinds::Floating>(self, end, t, t, "lerp_", lerp_fn(weight.to_double()));
}
Tensor lerp_out(const Tensor& self, const Tensor& end, const Scalar& weight, const Tensor& out) {
  const ScalarType t = promoted(self, end);
  return binary_op_into<Kinds::Floating>(out, self, end, t, t, "lerp", lerp_fn(weight.to_double()));
}

// ------------------------------------------------------------------ where
Tensor where_out(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  check_where_condition(condition);
  const ScalarType t = promoted(self, other);
  TCORE_CHECK_TYPE(can_cast(t, out.dtype()), "where: result type ", t, " can't be cast to the desired output type ",
                   out.dtype());
  const std::vector<int64_t> shape = broadcast_shapes(condition.sizes(), broadcast_shapes(self.sizes(), other.sizes()));
  resize_elementwise_output(out, shape, {&condition, &self, &other});
  const Tensor c = cast(condition, ScalarType::Bool), x = cast(self, t), y = cast(other, t);
  const bool direct = out.dtype() == t && !partially_overlaps(out, x) && !partially_overlaps(out, y) &&
                      !partially_overlaps(out, c);
  const Tensor target = direct ? out : empty_output(shape, t, {&out});
  dispatch_all_types(t, "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    select_loop<T>(target, c, x, y);
  });
  if (!direct) write_result(out, target, "where");
  out.bump_version();
  return out;
}
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  check_where_condition(condition);
  const std::vector<int64_t> shape = broadcast_shapes(condition.sizes(), broadcast_shapes(self.sizes(), other.sizes()));
  return where_out(condition, self, other, empty_output(shape, promoted(self, other), {&condition, &self, &other}));
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
