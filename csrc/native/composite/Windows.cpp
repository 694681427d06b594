// Factories of torch's API made of other operators: logspace, frexp's split of a float, and the
// window functions (hann, hamming, blackman, bartlett), as torch's.
#include <cmath>

#include <tcore/ops/abs.h>
#include <tcore/ops/add.h>
#include <tcore/ops/arange.h>
#include <tcore/ops/bartlett_window_native.h>
#include <tcore/ops/blackman_window_native.h>
#include <tcore/ops/cos.h>
#include <tcore/ops/div.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/eq.h>
#include <tcore/ops/floor.h>
#include <tcore/ops/frexp_native.h>
#include <tcore/ops/ge.h>
#include <tcore/ops/hamming_window_native.h>
#include <tcore/ops/hann_window_native.h>
#include <tcore/ops/i0.h>
#include <tcore/ops/kaiser_window_native.h>
#include <tcore/ops/isfinite.h>
#include <tcore/ops/ldexp.h>
#include <tcore/ops/linspace.h>
#include <tcore/ops/log2.h>
#include <tcore/ops/logical_and.h>
#include <tcore/ops/logical_not.h>
#include <tcore/ops/logical_or.h>
#include <tcore/ops/logspace_native.h>
#include <tcore/ops/lt.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/neg.h>
#include <tcore/ops/ones.h>
#include <tcore/ops/pow.h>
#include <tcore/ops/scalar_tensor.h>
#include <tcore/ops/sqrt.h>
#include <tcore/ops/sub.h>
#include <tcore/ops/to.h>
#include <tcore/ops/where.h>

#include "native/TensorUtils.h"
#include "tcore/core/Dispatch.h"

namespace tcore::native {
namespace {

constexpr double kPi = 3.14159265358979323846;

Tensor as_type(const Tensor& x, ScalarType t) { return tcore::to(x, t, false, false, std::nullopt); }

// base^(linspace(start, end, steps)) in float64, then the dtype (the default float dtype)
Tensor logspace_of(const Scalar& start, const Scalar& end, int64_t steps, double base, ScalarType t, Device device) {
  const Tensor exponent = tcore::linspace(start, end, steps, ScalarType::Double, std::nullopt, device);
  return as_type(tcore::pow(tcore::scalar_tensor(Scalar(base), ScalarType::Double, std::nullopt, device), exponent), t);
}

// The points 2 pi n / (M - 1), n < length, M = length + 1 for a periodic window, in float64
Tensor window_angles(int64_t length, bool periodic, Device device) {
  const int64_t m = periodic ? length + 1 : length;
  const Tensor n = tcore::arange(Scalar(length), ScalarType::Double, std::nullopt, device);
  return tcore::mul(n, Scalar(2.0 * kPi / static_cast<double>(m - 1)));
}

void check_window(int64_t length, const char* name, std::optional<ScalarType> dtype) {
  TCORE_CHECK_VALUE(length >= 0, name, " requires non-negative window_length, got window_length=", length);
  TCORE_CHECK_TYPE(!dtype || is_floating(*dtype), name, " expects floating point dtypes, got: ", to_string(*dtype));
}

// a window of length 0 is empty and of length 1 is [1], as torch's
std::optional<Tensor> trivial_window(int64_t length, ScalarType t, Device device) {
  if (length == 0) return tcore::empty({0}, t, std::nullopt, device);
  if (length == 1) return tcore::ones({1}, t, std::nullopt, device);
  return std::nullopt;
}

}  // namespace

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  (void)layout;
  (void)pin_memory;
  TCORE_CHECK_VALUE(steps >= 0, "number of steps must be non-negative");
  return logspace_of(start, end, steps, base, dtype.value_or(default_float_dtype()), device.value_or(Device()));
}

// x = mantissa * 2^exponent, 0.5 <= |mantissa| < 1 (0, infinities and NaN: themselves and 0), as
// std::frexp: the exponent from log2 in float64, corrected by one where rounding put |mantissa|
// outside [0.5, 1); the mantissa by ldexp (exact, differentiable: grad / 2^exponent)
std::tuple<Tensor, Tensor> frexp(const Tensor& self) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "torch.frexp() only supports floating-point dtypes");
  // the exponent is a constant of the gradient (and log2(0) must not reach it): found untracked
  Tensor e, plain;
  {
    NoGradGuard untracked;
    const Tensor wide = as_type(self, ScalarType::Double);
    const Tensor magnitude = tcore::abs(wide);
    plain = tcore::logical_or(tcore::eq(magnitude, Scalar(0)), tcore::logical_not(tcore::isfinite(wide)));
    e = tcore::where(plain, Scalar(0.0), tcore::add(tcore::floor(tcore::log2(magnitude)), Scalar(1.0), 1));
    const Tensor scaled = tcore::ldexp(magnitude, tcore::neg(e));
    const Tensor normal = tcore::logical_not(plain);
    const Tensor up = tcore::logical_and(tcore::ge(scaled, Scalar(1.0)), normal);
    const Tensor down = tcore::logical_and(tcore::lt(scaled, Scalar(0.5)), normal);
    e = tcore::add(e, tcore::sub(as_type(up, ScalarType::Double), as_type(down, ScalarType::Double), 1), 1);
  }
  const Tensor exponent = as_type(e, ScalarType::Int);
  const Tensor mantissa = tcore::where(plain, self, tcore::ldexp(self, tcore::neg(e)));
  return {as_type(mantissa, self.dtype()), exponent};
}

// alpha - beta cos(2 pi n / (M - 1)); hann: alpha = beta = 1/2
Tensor hamming_window(int64_t window_length, bool periodic, double alpha, double beta, std::optional<ScalarType> dtype,
                      std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  (void)layout;
  (void)pin_memory;
  check_window(window_length, "hamming_window", dtype);
  const ScalarType t = dtype.value_or(default_float_dtype());
  const Device on = device.value_or(Device());
  if (auto w = trivial_window(window_length, t, on)) return *w;
  const Tensor c = tcore::cos(window_angles(window_length, periodic, on));
  return as_type(tcore::sub(tcore::scalar_tensor(Scalar(alpha), ScalarType::Double, std::nullopt, on), tcore::mul(c, Scalar(beta)), 1), t);
}
Tensor hamming_window(int64_t window_length, bool periodic, double alpha, std::optional<ScalarType> dtype,
                      std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return hamming_window(window_length, periodic, alpha, 0.46, dtype, layout, device, pin_memory);
}
Tensor hamming_window(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                      std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return hamming_window(window_length, periodic, 0.54, 0.46, dtype, layout, device, pin_memory);
}
Tensor hamming_window(int64_t window_length, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                      std::optional<Device> device, std::optional<bool> pin_memory) {
  return hamming_window(window_length, true, 0.54, 0.46, dtype, layout, device, pin_memory);
}

Tensor hann_window(int64_t window_length, bool periodic, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                   std::optional<Device> device, std::optional<bool> pin_memory) {
  check_window(window_length, "hann_window", dtype);
  return hamming_window(window_length, periodic, 0.5, 0.5, dtype, layout, device, pin_memory);
}
Tensor hann_window(int64_t window_length, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                   std::optional<Device> device, std::optional<bool> pin_memory) {
  return hann_window(window_length, true, dtype, layout, device, pin_memory);
}

// 0.42 - 0.5 cos(x) + 0.08 cos(2 x), x = 2 pi n / (M - 1)
Tensor blackman_window(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                       std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  (void)layout;
  (void)pin_memory;
  check_window(window_length, "blackman_window", dtype);
  const ScalarType t = dtype.value_or(default_float_dtype());
  const Device on = device.value_or(Device());
  if (auto w = trivial_window(window_length, t, on)) return *w;
  const Tensor x = window_angles(window_length, periodic, on);
  const Tensor w = tcore::add(tcore::sub(tcore::scalar_tensor(Scalar(0.42), ScalarType::Double, std::nullopt, on),
                                         tcore::mul(tcore::cos(x), Scalar(0.5)), 1),
                              tcore::mul(tcore::cos(tcore::mul(x, Scalar(2.0))), Scalar(0.08)), 1);
  return as_type(w, t);
}
Tensor blackman_window(int64_t window_length, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                       std::optional<Device> device, std::optional<bool> pin_memory) {
  return blackman_window(window_length, true, dtype, layout, device, pin_memory);
}

// I0(beta sqrt(|1 - ((n - a) / a)^2|)) / I0(beta), a = (M - 1) / 2 (torch's |.|: no NaN from rounding)
Tensor kaiser_window(int64_t window_length, bool periodic, double beta, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  (void)layout;
  (void)pin_memory;
  check_window(window_length, "kaiser_window", dtype);
  const ScalarType t = dtype.value_or(default_float_dtype());
  const Device on = device.value_or(Device());
  if (auto w = trivial_window(window_length, t, on)) return *w;
  const double alpha = static_cast<double>((periodic ? window_length + 1 : window_length) - 1) / 2.0;
  const Tensor r = tcore::div(tcore::sub(tcore::arange(Scalar(window_length), ScalarType::Double, std::nullopt, on),
                                         Scalar(alpha), 1),
                              Scalar(alpha));
  const Tensor inside = tcore::sqrt(tcore::abs(tcore::sub(tcore::scalar_tensor(Scalar(1.0), ScalarType::Double,
                                                                                std::nullopt, on),
                                                          tcore::mul(r, r), 1)));
  const Tensor peak = tcore::i0(tcore::scalar_tensor(Scalar(beta), ScalarType::Double, std::nullopt, on));
  return as_type(tcore::div(tcore::i0(tcore::mul(inside, Scalar(beta))), peak), t);
}
Tensor kaiser_window(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return kaiser_window(window_length, periodic, 12.0, dtype, layout, device, pin_memory);
}
Tensor kaiser_window(int64_t window_length, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                     std::optional<Device> device, std::optional<bool> pin_memory) {
  return kaiser_window(window_length, true, 12.0, dtype, layout, device, pin_memory);
}

// 1 - |2 n / (M - 1) - 1|
Tensor bartlett_window(int64_t window_length, bool periodic, std::optional<ScalarType> dtype,
                       std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  (void)layout;
  (void)pin_memory;
  check_window(window_length, "bartlett_window", dtype);
  const ScalarType t = dtype.value_or(default_float_dtype());
  const Device on = device.value_or(Device());
  if (auto w = trivial_window(window_length, t, on)) return *w;
  const Tensor ramp = tcore::sub(tcore::div(window_angles(window_length, periodic, on), Scalar(kPi)), Scalar(1.0), 1);
  return as_type(tcore::sub(tcore::scalar_tensor(Scalar(1.0), ScalarType::Double, std::nullopt, on), tcore::abs(ramp), 1), t);
}
Tensor bartlett_window(int64_t window_length, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                       std::optional<Device> device, std::optional<bool> pin_memory) {
  return bartlett_window(window_length, true, dtype, layout, device, pin_memory);
}

}  // namespace tcore::native
