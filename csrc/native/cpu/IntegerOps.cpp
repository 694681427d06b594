// gcd and lcm of integer tensors (torch's: non-negative, gcd(0, 0) = 0, lcm(a, 0) = 0; the
// magnitudes in unsigned arithmetic, so the most negative value's gives itself back, as torch's
// wrapping abs does), and nextafter / heaviside (floating and any type: the remaining binary
// operators torch defines elementwise).
#include <cmath>
#include <type_traits>

#include <tcore/ops/gcd_native.h>
#include <tcore/ops/heaviside_native.h>
#include <tcore/ops/lcm_native.h>
#include <tcore/ops/nextafter_native.h>

#include "native/cpu/Binary.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
using namespace binary;
namespace {

template <typename T>
T gcd_of(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    const auto magnitude = [](T v) { return v < 0 ? static_cast<U>(U{0} - static_cast<U>(v)) : static_cast<U>(v); };
    U x = magnitude(a), y = magnitude(b);
    while (x != 0) {
      const U r = static_cast<U>(y % x);
      y = x;
      x = r;
    }
    return static_cast<T>(y);
  } else {
    return a;  // (not reached: integral dtypes only)
  }
}

// |a / gcd * b| as torch computes it: the product in the promoted integer type (int64 for the
// narrow ones; wrapping), its magnitude cast back (an int8 lcm of 167 is -89, as torch's)
template <typename T>
T lcm_of(T a, T b) {
  const T g = gcd_of(a, b);
  if (g == 0) return 0;
  using W = std::conditional_t<(sizeof(T) < 8), int64_t, T>;
  using UW = std::make_unsigned_t<W>;
  const W m = static_cast<W>(static_cast<UW>(static_cast<W>(a / g)) * static_cast<UW>(static_cast<W>(b)));
  return static_cast<T>(m < 0 ? static_cast<UW>(UW{0} - static_cast<UW>(m)) : static_cast<UW>(m));
}

auto gcd_fn() {
  return [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x, T y) { return gcd_of(x, y); };
  };
}
auto lcm_fn() {
  return [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x, T y) { return lcm_of(x, y); };
  };
}
TCORE_BINARY_FN(nextafter_fn, static_cast<T>(std::nextafter(x, y)))
// x == 0 takes values' value; a NaN x gives 0 (neither == 0 nor > 0), as torch's
TCORE_BINARY_FN(heaviside_fn, static_cast<T>(x == 0 ? y : static_cast<T>(x > 0)))
#undef TCORE_BINARY_FN

// nextafter steps in the operands' own format: float32 and float64 (float16/bfloat16 would step
// in float32, where this kernel computes them; refused rather than wrong)
ScalarType nextafter_type(const Tensor& self, const Tensor& other) {
  const ScalarType t = promoted(self, other);
  TCORE_CHECK_AS(NotImplementedError, t == ScalarType::Float || t == ScalarType::Double,
                 "\"nextafter_cpu\" not implemented for '", to_string(t), "'");
  return t;
}

ScalarType heaviside_type(const Tensor& self, const Tensor& values) {
  TCORE_CHECK_TYPE(self.dtype() == values.dtype(), "heaviside is not yet implemented for tensors with different dtypes.");
  return self.dtype();
}

}  // namespace

Tensor gcd(const Tensor& self, const Tensor& other) {
  const ScalarType t = integral_promoted(self, other, "gcd_cpu");
  return binary_op<Kinds::Integral>(self, other, t, t, "gcd", gcd_fn());
}
Tensor gcd_(const Tensor& self, const Tensor& other) {
  const ScalarType t = integral_promoted(self, other, "gcd_cpu");
  return binary_op_inplace<Kinds::Integral>(self, other, t, t, "gcd_", gcd_fn());
}
Tensor gcd_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = integral_promoted(self, other, "gcd_cpu");
  return binary_op_into<Kinds::Integral>(out, self, other, t, t, "gcd", gcd_fn());
}

Tensor lcm(const Tensor& self, const Tensor& other) {
  const ScalarType t = integral_promoted(self, other, "lcm_cpu");
  return binary_op<Kinds::Integral>(self, other, t, t, "lcm", lcm_fn());
}
Tensor lcm_(const Tensor& self, const Tensor& other) {
  const ScalarType t = integral_promoted(self, other, "lcm_cpu");
  return binary_op_inplace<Kinds::Integral>(self, other, t, t, "lcm_", lcm_fn());
}
Tensor lcm_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = integral_promoted(self, other, "lcm_cpu");
  return binary_op_into<Kinds::Integral>(out, self, other, t, t, "lcm", lcm_fn());
}

Tensor nextafter(const Tensor& self, const Tensor& other) {
  const ScalarType t = nextafter_type(self, other);
  return binary_op<Kinds::Floating>(self, other, t, t, "nextafter", nextafter_fn());
}
Tensor nextafter_(const Tensor& self, const Tensor& other) {
  const ScalarType t = nextafter_type(self, other);
  return binary_op_inplace<Kinds::Floating>(self, other, t, t, "nextafter_", nextafter_fn());
}
Tensor nextafter_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = nextafter_type(self, other);
  return binary_op_into<Kinds::Floating>(out, self, other, t, t, "nextafter", nextafter_fn());
}

Tensor heaviside(const Tensor& self, const Tensor& values) {
  const ScalarType t = heaviside_type(self, values);
  return binary_op<Kinds::All>(self, values, t, t, "heaviside", heaviside_fn());
}
Tensor heaviside_(const Tensor& self, const Tensor& values) {
  const ScalarType t = heaviside_type(self, values);
  return binary_op_inplace<Kinds::All>(self, values, t, t, "heaviside_", heaviside_fn());
}
Tensor heaviside_out(const Tensor& self, const Tensor& values, const Tensor& out) {
  const ScalarType t = heaviside_type(self, values);
  return binary_op_into<Kinds::All>(out, self, values, t, t, "heaviside", heaviside_fn());
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
