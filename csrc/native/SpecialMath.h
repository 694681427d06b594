#pragma once
// The gamma family's derivatives, shared by the CPU and GPU kernels:
// digamma (psi), trigamma, the Hurwitz zeta function and polygamma. Each follows the textbook
// method (reflection for small or negative arguments, the recurrence up to x >= 10, then the
// asymptotic series from the Euler-Maclaurin formula); the values at poles, negative integers,
// infinities and NaN are torch's (its CPU kernels document them after SciPy's). T is the type
// computed in: float for float32, float16 and bfloat16 (as torch's, whose float32 poles are finite
// where a double's would overflow), double for float64; digamma in double for every type.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "native/IntMath.h"  // TCORE_HOST_DEVICE

namespace tcore::native::special {

template <typename T>
constexpr T kPi = T(3.14159265358979323846);

// psi(x) = d/dx log(gamma(x)): +-inf at +-0 (the sign of the approach), NaN at a negative integer and
// at -inf (SciPy's choices, which torch follows).
template <typename T>
TCORE_HOST_DEVICE inline T digamma(T x) {
  if constexpr (!std::is_same_v<T, double>) {  // float32 in double: its reflection lost up to 40 ulp
    return static_cast<T>(digamma<double>(static_cast<double>(x)));
  }
  if (x == 0) return std::copysign(T(HUGE_VAL), -x);
  if (x < 0) {
    if (x == std::trunc(x)) return T(NAN);
    // psi(x) = psi(1 - x) - pi / tan(pi x), with tan of the fractional part (exact) rather than of x
    const T frac = x - std::trunc(x);
    return digamma(T(1) - x) - kPi<T> / std::tan(kPi<T> * frac);
  }
  T shift = 0;  // psi(x) = psi(x + 1) - 1 / x
  while (x < 10) {
    shift -= 1 / x;
    x += 1;
  }
  if (x == 10) return shift + T(2.25175258906672110764);  // psi(10) = H_9 - gamma: integers exact, as torch's
  if (x >= T(1e17)) return shift + std::log(x);  // the series' terms are below an ulp
  // log(x) - 1/(2x) - sum B_2k / (2k x^2k), B_2k the Bernoulli numbers (1/6, -1/30, 1/42, ...)
  const T z = 1 / (x * x);
  const T series = z * T(1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 -
                                                                                          z * (691.0 / 32760 - z / 12))))));
  return shift + std::log(x) - T(0.5) / x - series;
}

// psi'(x): the reflection psi'(x) + psi'(1 - x) = pi^2 / sin^2(pi x) below 1/2, the recurrence
// psi'(x) = psi'(x + 1) + 1 / x^2 up to 10, then 1/x + 1/(2x^2) + sum B_2k / x^(2k+1).
template <typename T>
TCORE_HOST_DEVICE inline T trigamma(T x) {
  T sign = 1, result = 0;
  if (x < T(0.5)) {
    const T s = std::sin(kPi<T> * x);
    result = -kPi<T> * kPi<T> / (s * s);
    sign = -1;
    x = 1 - x;
  }
  while (x < 10) {
    result += 1 / (x * x);
    x += 1;
  }
  const T z = 1 / (x * x);
  const T tail = (1 + T(0.5) / x +
                  z * T(1.0 / 6 - z * (1.0 / 30 - z * (1.0 / 42 - z * (1.0 / 30 - z * (5.0 / 66 - z * (691.0 / 2730 -
                                                                                                    z * (7.0 / 6)))))))) /
                 x;
  return sign * (result + tail);
}

// The Hurwitz zeta function sum_{k>=0} (k + q)^-s for s > 1: inf at s == 1 and at a pole q a
// non-positive integer, NaN for s < 1 and for a negative q with a fractional s. Direct sums until
// q + n > 9, then the Euler-Maclaurin tail with the coefficients (2j)! / B_2j.
template <typename T>
TCORE_HOST_DEVICE inline T zeta(T s, T q) {
  constexpr T kEps = 1.11022302462515654042e-16;
  constexpr T kCoef[12] = {12.0,
                                -720.0,
                                30240.0,
                                -1209600.0,
                                47900160.0,
                                -1.8924375803183791606e9,
                                7.47242496e10,
                                -2.950130727918164224e12,
                                1.1646782814350067249e14,
                                -4.5979787224074726105e15,
                                1.8152105401943546773e17,
                                -7.1661652561756670113e18};
  if (s == 1) return T(HUGE_VAL);
  if (s < 1) return T(NAN);
  if (q <= 0) {
    if (q == std::floor(q)) return T(HUGE_VAL);
    if (s != std::floor(s)) return T(NAN);
  }
  T sum = std::pow(q, -s), a = q, term = 0;
  for (int i = 0; i < 9 || a <= 9;) {
    ++i;
    a += 1;
    term = std::pow(a, -s);
    sum += term;
    if (std::fabs(term / sum) < kEps) return sum;
  }
  const T w = a;
  sum += term * w / (s - 1) - T(0.5) * term;
  T rising = 1, k = 0;
  for (int j = 0; j < 12; ++j) {
    rising *= s + k;
    term /= w;
    const T t = rising * term / kCoef[j];
    sum += t;
    if (std::fabs(t / sum) < kEps) break;
    k += 1;
    rising *= s + k;
    term /= w;
    k += 1;
  }
  return sum;
}

// The n-th derivative of psi: (-1)^(n+1) n! zeta(n + 1, x) for n >= 2 (n >= 0 is the caller's check).
template <typename T>
TCORE_HOST_DEVICE inline T polygamma(int64_t n, T x) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  // in double whatever T (torch's CPU kernel accumulates zeta in double: a float sum cancels badly
  // at a negative x, and underflows at a large one)
  const double sign = n % 2 ? 1.0 : -1.0;
  return static_cast<T>(sign * std::exp(std::lgamma(static_cast<double>(n) + 1)) *
                        zeta(static_cast<double>(n + 1), static_cast<double>(x)));
}

}  // namespace tcore::native::special
