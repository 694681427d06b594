// neg, exp, log, relu and the unary math family: functional, in-place and out= overloads.
#include <cmath>
#include <limits>
#include <type_traits>

#include <tcore/ops/abs_native.h>
#include <tcore/ops/acos_native.h>
#include <tcore/ops/asin_native.h>
#include <tcore/ops/atan_native.h>
#include <tcore/ops/ceil_native.h>
#include <tcore/ops/clamp_native.h>
#include <tcore/ops/cos_native.h>
#include <tcore/ops/cosh_native.h>
#include <tcore/ops/digamma_native.h>
#include <tcore/ops/erf_native.h>
#include <tcore/ops/exp2_native.h>
#include <tcore/ops/log10_native.h>
#include <tcore/ops/acosh_native.h>
#include <tcore/ops/asinh_native.h>
#include <tcore/ops/atanh_native.h>
#include <tcore/ops/erfc_native.h>
#include <tcore/ops/erfinv_native.h>
#include <tcore/ops/exp_native.h>
#include <tcore/ops/expm1_native.h>
#include <tcore/ops/floor_native.h>
#include <tcore/ops/gelu_native.h>
#include <tcore/ops/isinf_native.h>
#include <tcore/ops/isnan_native.h>
#include <tcore/ops/lgamma_native.h>
#include <tcore/ops/log1p_native.h>
#include <tcore/ops/log2_native.h>
#include <tcore/ops/log_native.h>
#include <tcore/ops/neg_native.h>
#include <tcore/ops/polygamma_native.h>
#include <tcore/ops/i0_native.h>
#include <tcore/ops/special_i0e_native.h>
#include <tcore/ops/special_i1_native.h>
#include <tcore/ops/special_i1e_native.h>
#include <tcore/ops/special_ndtri_native.h>
#include <tcore/ops/special_log_ndtr_native.h>
#include <tcore/ops/special_erfcx_native.h>
#include <tcore/ops/reciprocal_native.h>
#include <tcore/ops/relu_native.h>
#include <tcore/ops/round_native.h>
#include <tcore/ops/rsqrt_native.h>
#include <tcore/ops/sigmoid_native.h>
#include <tcore/ops/sign_native.h>
#include <tcore/ops/sin_native.h>
#include <tcore/ops/sinh_native.h>
#include <tcore/ops/sqrt_native.h>
#include <tcore/ops/tan_native.h>
#include <tcore/ops/tanh_native.h>
#include <tcore/ops/threshold_backward_native.h>
#include <tcore/ops/trunc_native.h>

#include "native/Activation.h"
#include "native/BesselNormal.h"
#include "native/SpecialMath.h"
#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Loops.h"
#include "native/cpu/Math.h"
#include "native/cpu/Unary.h"
#include "native/cpu/VecMath.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// Floating functions (exp, log): integer inputs compute in the default float dtype.
ScalarType float_type(const Tensor& t) { return is_floating(t.dtype()) ? t.dtype() : default_float_dtype(); }

// constexpr: nothing in a kernel source may run at load time (its code may use instructions the
// CPU lacks; tests/test_cpu_capability.py checks the objects)
// A kernel whose element function g(tag) gives for each compute type T, over the floating dtypes
// or every numeric one (neg, relu, clamp, abs...), with the float32 runs of float16/bfloat16
// inputs (Unary.h).
template <bool Floating, typename G>
constexpr auto elementwise(const char* op, G g) {
  return with_float_runs(
      [op, g](ScalarType compute, const Tensor& out, const Tensor& x) {
        const auto run = [&](auto tag) {
          using T = typename decltype(tag)::type;
          unary_loop<T, T>(out, x, g(tag));
        };
        if constexpr (Floating) dispatch_floating(compute, op, run);
        else dispatch_numeric(compute, op, run);
      },
      [g](float* o, const float* x, int64_t n) {
        const auto f = g(type_tag<float>{});
        for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
      });
}
template <typename G>
constexpr auto numeric(const char* op, G g) {
  return elementwise<false>(op, g);
}
// f of each floating dtype's values, its result rounded to that dtype
template <typename F>
constexpr auto floating(const char* op, F f) {
  return elementwise<true>(op, [f](auto tag) {
    using T = typename decltype(tag)::type;
    return [f](T v) { return static_cast<T>(f(v)); };
  });
}

// floating() whose contiguous float32/float64 runs go through SLEEF's vector function VecOp
// (native/cpu/VecMath.h), at this capability's vector width; strided runs use f.
template <typename VecOp, typename F>
constexpr auto floating_vec(const char* op, F f) {
  return floating_runs(op, [f](auto) { return f; }, [](auto* o, const auto* i, int64_t n, const auto& g) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(i)>>;
    if constexpr (vec::maps<T>) {
      vec::map<VecOp>(o, i, n);
    } else {
      for (int64_t k = 0; k < n; ++k) o[k] = static_cast<T>(g(i[k]));
    }
  });
}

constexpr auto exp_fn = floating_vec<vec::Exp>("exp", [](auto v) {
  if constexpr (std::is_same_v<decltype(v), float>) return exp_vectorizable(v);
  else return std::exp(v);
});
constexpr auto log_fn = floating_vec<vec::Log>("log", [](auto v) {  // (the scalar path as tanh's, below)
  if constexpr (vec::supports<decltype(v)>) return vec::one<vec::Log>(v);
  else return std::log(v);
});

// Negation of every numeric dtype (a bool tensor is refused). (Kernels made by named functions:
// their loops' symbols carry the name, which tests/test_pipeline.py's selective build looks for.)
constexpr auto neg_fn() {
  constexpr auto numbers = numeric("neg", [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T v) { return static_cast<T>(-v); };
  });
  return with_float_runs(
      [numbers](ScalarType compute, const Tensor& out, const Tensor& x) {
        TCORE_CHECK_TYPE(compute != ScalarType::Bool,
                         "Negation, the `-` operator, on a bool tensor is not supported. "
                         "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        numbers(compute, out, x);
      },
      numbers.floats);
}

constexpr auto relu_fn() {
  return numeric("relu", [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T v) { return v < T(0) ? T(0) : v; };  // NaN and -0 stay, as torch's (clamp_min: max(x, 0))
  });
}

template <typename Fn>
Tensor unary_inplace(const Tensor& self, ScalarType compute, const char* op, Fn fn) {
  return unary_into(self, self, compute, op, fn);
}

}  // namespace

// The structured operators' impls (their meta functions: native/UnaryOps.cpp).
namespace {
// float16/bfloat16 kernels on the bits, in any layout, without a conversion: out = f(bits, the
// bits of infinity) (exact: what float32 would give, rounded); false where out is not of self's
// dtype or overlaps it partially.
template <typename F>
bool bits_kernel(const Tensor& out, const Tensor& self, F f) {
  if (!is_reduced_float(self.dtype()) || out.dtype() != self.dtype() ||
      (!out.is_same(self) && out.storage().is_alias_of(self.storage()))) {
    return false;
  }
  dispatch_reduced_float(self.dtype(), [&](auto tag) {
    using H = typename decltype(tag)::type;
    const uint16_t inf = std::numeric_limits<H>::infinity().x;
    unary_loop<H, H>(out, self, [f, inf](H v) { return H::from_bits(f(v.x, inf)); });
  });
  out.bump_version();
  return true;
}
// neg and abs: the sign bit flipped (flip 0x8000) or cleared (keep 0x7fff); a NaN keeps its
// payload, as torch's vectorized abs
bool sign_bit_kernel(const Tensor& out, const Tensor& self, uint16_t keep, uint16_t flip) {
  return bits_kernel(out, self, [keep, flip](uint16_t x, uint16_t) { return static_cast<uint16_t>((x & keep) ^ flip); });
}
// relu: a negative number becomes +0; NaN (of either sign), -0 and the rest stay (v < 0 ? 0 : v,
// exactly); through float32 runs it took 1.35x torch's time at AVX2 and 40x at SSE4 (no F16C there)
bool relu_bits_kernel(const Tensor& out, const Tensor& self) {
  return bits_kernel(out, self, [](uint16_t x, uint16_t inf) {
    const uint16_t magnitude = x & 0x7fff;
    return (x & 0x8000) && magnitude != 0 && magnitude <= inf ? uint16_t{0} : x;
  });
}
}  // namespace

TCORE_IMPL_FUNC(neg_out)(const Tensor& self, const Tensor& out) {
  if (sign_bit_kernel(out, self, 0xffff, 0x8000)) return;
  unary_into(out, self, self.dtype(), "neg", neg_fn());
}
TCORE_IMPL_FUNC(exp_out)(const Tensor& self, const Tensor& out) { unary_into(out, self, float_type(self), "exp", exp_fn); }
TCORE_IMPL_FUNC(log_out)(const Tensor& self, const Tensor& out) { unary_into(out, self, float_type(self), "log", log_fn); }

Tensor relu(const Tensor& self) {
  const Tensor out = empty_output(self.sizes(), self.dtype(), {&self});
  if (relu_bits_kernel(out, self)) return out;
  return unary_into(out, self, self.dtype(), "relu", relu_fn());
}
Tensor relu_(const Tensor& self) {
  if (relu_bits_kernel(self, self)) return self;
  return unary_inplace(self, self.dtype(), "relu_", relu_fn());
}


// The unary math family, structured: one line each, the impl of the out= kernel (the kernel
// names are spelled out, so that a search for a dispatch entry's kernel, and codegen's check
// that it exists, find them; their meta functions are in native/UnaryOps.cpp). FLOATING: integer and bool inputs compute in the
// default float dtype (as PyTorch's sqrt, sin, sigmoid...); KEEPING: the result has the
// input's dtype (integers: abs/sign computed, rounding is the identity; bool: TypeError).
namespace {
template <typename T>
T int_abs(T v) {
  if constexpr (std::is_signed_v<T>) return v < T(0) ? T(-v) : v;
  else return v;
}
template <typename T>
T int_sign(T v) {
  if constexpr (std::is_signed_v<T>) return T((T(0) < v) - (v < T(0)));
  else return T(v != T(0));
}
}  // namespace

#define TCORE_FLOATING_UNARY(name, name_, name_out, ...)                                                              \
  TCORE_FLOATING_UNARY_WITH(floating, name, name_, name_out, __VA_ARGS__)
// VecOp: SLEEF's vector function for contiguous float32/float64 runs (native/cpu/VecMath.h)
#define TCORE_FLOATING_UNARY_VEC(VecOp, name, name_, name_out, ...)                                                   \
  TCORE_FLOATING_UNARY_WITH(floating_vec<vec::VecOp>, name, name_, name_out, __VA_ARGS__)
#define TCORE_FLOATING_UNARY_WITH(make, name, name_, name_out, ...)                                                   \
  namespace {                                                                                                         \
  constexpr auto name##_fn = make(#name, [](auto v) { using T [[maybe_unused]] = decltype(v); return __VA_ARGS__; });  \
  }                                                                                                                   \
  TCORE_IMPL_FUNC(name_out)(const Tensor& self, const Tensor& out) {                                                  \
    unary_into(out, self, float_type(self), #name, name##_fn);                                                        \
  }

#define TCORE_KEEPING_UNARY(name, name_, name_out, integral, floating_point)                                          \
  TCORE_KEEPING_UNARY_FN(name, integral, floating_point)                                                              \
  TCORE_IMPL_FUNC(name_out)(const Tensor& self, const Tensor& out) {                                                  \
    unary_into(out, self, self.dtype(), #name, name##_fn);                                                            \
  }
#define TCORE_KEEPING_UNARY_FN(name, integral, floating_point)                                                        \
  namespace {                                                                                                         \
  constexpr auto name##_fn = numeric(#name, [](auto tag) {                                                            \
    using T = typename decltype(tag)::type;                                                                           \
    if constexpr (std::is_integral_v<T>) {                                                                            \
      return [](T v) { return static_cast<T>(integral); };                                                            \
    } else {                                                                                                          \
      return [](T v) { return static_cast<T>(floating_point); };                                                      \
    }                                                                                                                 \
  });                                                                                                                 \
  }

TCORE_FLOATING_UNARY(sqrt, sqrt_, sqrt_out, std::sqrt(v))
TCORE_FLOATING_UNARY(rsqrt, rsqrt_, rsqrt_out, T(1) / std::sqrt(v))
TCORE_FLOATING_UNARY_VEC(Sin, sin, sin_, sin_out, std::sin(v))
TCORE_FLOATING_UNARY_VEC(Cos, cos, cos_, cos_out, std::cos(v))
TCORE_FLOATING_UNARY_VEC(Tan, tan, tan_, tan_out, std::tan(v))
// (the scalar path through the vector function: tcore's tanh is within 2 ulp, not libm's)
TCORE_FLOATING_UNARY_VEC(Tanh, tanh, tanh_, tanh_out, [](auto x) {
  if constexpr (vec::supports<decltype(x)>) return vec::one<vec::Tanh>(x);
  else return std::tanh(x);
}(v))
TCORE_FLOATING_UNARY_VEC(Asin, asin, asin_, asin_out, std::asin(v))
TCORE_FLOATING_UNARY_VEC(Acos, acos, acos_, acos_out, std::acos(v))
TCORE_FLOATING_UNARY_VEC(Atan, atan, atan_, atan_out, std::atan(v))
TCORE_FLOATING_UNARY_VEC(Sinh, sinh, sinh_, sinh_out, std::sinh(v))
TCORE_FLOATING_UNARY_VEC(Cosh, cosh, cosh_, cosh_out, std::cosh(v))
TCORE_FLOATING_UNARY_VEC(Sigmoid, sigmoid, sigmoid_, sigmoid_out, T(1) / (T(1) + std::exp(-v)))
TCORE_FLOATING_UNARY_VEC(Exp2, exp2, exp2_, exp2_out, std::exp2(v))
TCORE_FLOATING_UNARY_VEC(Log2, log2, log2_, log2_out, std::log2(v))
TCORE_FLOATING_UNARY_VEC(Log1p, log1p, log1p_, log1p_out, std::log1p(v))
TCORE_FLOATING_UNARY_VEC(Expm1, expm1, expm1_, expm1_out, std::expm1(v))
TCORE_FLOATING_UNARY_VEC(Erf, erf, erf_, erf_out, std::erf(v))
namespace {
// erf^-1(y): Giles' single-precision approximation ("Approximating the erfinv function", 2010) as the
// start, then Newton steps in double until they stop moving (at most 8); +-1: +-inf,
// outside [-1, 1] and NaN: NaN
double erfinv_of(double y) {
  if (!(y > -1.0 && y < 1.0)) {
    if (y == 1.0) return std::numeric_limits<double>::infinity();
    if (y == -1.0) return -std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
  }
  double w = -std::log((1.0 - y) * (1.0 + y)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
                     0.246640727, 1.50140941})
      p = c + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                     1.00167406, 2.83297682})
      p = c + p * w;
  }
  // Newton on erf(x) = y for |y| <= 1/2; beyond, on log(erfc(|x|)) = log(1 - |y|) (1 - |y| exact
  // there, and log erfc nearly linear in the tail: erf(x) - y near 1 would lose the tail's digits)
  const double a = std::abs(y), c = 1.0 - a;
  double x = std::abs(p * y);
  for (int i = 0; i < 8; ++i) {
    const double slope = 1.1283791670955126 * std::exp(-x * x);
    double step;
    if (a <= 0.5) {
      step = -(std::erf(x) - a) / slope;
    } else {
      const double e = std::erfc(x);
      step = (std::log(e) - std::log(c)) * e / slope;
    }
    x += step;
    if (std::abs(step) <= 1e-16 * x) break;
  }
  return std::copysign(x, y);  // (odd: -0 gives -0, as torch's)
}
}  // namespace
TCORE_FLOATING_UNARY(log10, log10_, log10_out, std::log10(v))
TCORE_FLOATING_UNARY(acosh, acosh_, acosh_out, std::acosh(v))
TCORE_FLOATING_UNARY(asinh, asinh_, asinh_out, std::asinh(v))
TCORE_FLOATING_UNARY(atanh, atanh_, atanh_out, std::atanh(v))
TCORE_FLOATING_UNARY(erfc, erfc_, erfc_out, std::erfc(v))
TCORE_FLOATING_UNARY(erfinv, erfinv_, erfinv_out, static_cast<T>(erfinv_of(static_cast<double>(v))))
// the Bessel and normal-distribution functions of native/BesselNormal.h, in double for every dtype
TCORE_FLOATING_UNARY(i0, i0_, i0_out, static_cast<T>(special::bessel_i0(static_cast<double>(v), false)))
TCORE_FLOATING_UNARY(special_i0e, special_i0e_, special_i0e_out, static_cast<T>(special::bessel_i0(static_cast<double>(v), true)))
TCORE_FLOATING_UNARY(special_i1, special_i1_, special_i1_out, static_cast<T>(special::bessel_i1(static_cast<double>(v), false)))
TCORE_FLOATING_UNARY(special_i1e, special_i1e_, special_i1e_out, static_cast<T>(special::bessel_i1(static_cast<double>(v), true)))
TCORE_FLOATING_UNARY(special_ndtri, special_ndtri_, special_ndtri_out, static_cast<T>(special::ndtri(static_cast<double>(v))))
TCORE_FLOATING_UNARY(special_log_ndtr, special_log_ndtr_, special_log_ndtr_out, static_cast<T>(special::log_ndtr(static_cast<double>(v))))
TCORE_FLOATING_UNARY(special_erfcx, special_erfcx_, special_erfcx_out, static_cast<T>(special::erfcx(static_cast<double>(v))))
TCORE_FLOATING_UNARY(reciprocal, reciprocal_, reciprocal_out, T(1) / v)
TCORE_FLOATING_UNARY(lgamma, lgamma_, lgamma_out, std::lgamma(v))
TCORE_FLOATING_UNARY(digamma, digamma_, digamma_out, special::digamma<T>(v))
TCORE_IMPL_FUNC(polygamma_out)(int64_t n, const Tensor& self, const Tensor& out) {
  unary_into(out, self, float_type(self), "polygamma",
             floating("polygamma", [n](auto v) { return special::polygamma<decltype(v)>(n, v); }));
}
TCORE_KEEPING_UNARY_FN(abs, int_abs(v), std::abs(v))
TCORE_IMPL_FUNC(abs_out)(const Tensor& self, const Tensor& out) {
  if (sign_bit_kernel(out, self, 0x7fff, 0)) return;
  unary_into(out, self, self.dtype(), "abs", abs_fn);
}
TCORE_KEEPING_UNARY(sign, sign_, sign_out, int_sign(v), T((T(0) < v) - (v < T(0))))
TCORE_KEEPING_UNARY(floor, floor_, floor_out, v, std::floor(v))
TCORE_KEEPING_UNARY(ceil, ceil_, ceil_out, v, std::ceil(v))
TCORE_KEEPING_UNARY(round, round_, round_out, v, std::nearbyint(v))
TCORE_KEEPING_UNARY(trunc, trunc_, trunc_out, v, std::trunc(v))

#undef TCORE_FLOATING_UNARY
#undef TCORE_FLOATING_UNARY_VEC
#undef TCORE_FLOATING_UNARY_WITH
#undef TCORE_KEEPING_UNARY
#undef TCORE_KEEPING_UNARY_FN

// grad where self > threshold, else 0 (the backward of relu and threshold).
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  const ScalarType t = grad_output.dtype();
  TCORE_CHECK_VALUE(grad_output.sizes().size() == self.sizes().size() &&
                        std::equal(self.sizes().begin(), self.sizes().end(), grad_output.sizes().begin()),
                    "threshold_backward: grad_output and self must have the same shape");
  if (is_reduced_float(t)) {  // (bfloat16, float16: compared and selected in float32, exact)
    return cast(threshold_backward(cast(grad_output, ScalarType::Float), cast(self, ScalarType::Float), threshold), t);
  }
  Tensor out = empty_output(self.sizes(), t, {&grad_output, &self});
  const Tensor x = cast(self, t);
  dispatch_numeric(t, "threshold_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T th = threshold.to<T>();
    binary_loop<T>(out, grad_output, x, [th](T g, T v) { return v <= th ? T(0) : g; });  // NaN: g, as torch's
  });
  return out;
}

// ---------------------------------------------------------------- clamp, gelu, isnan, isinf

namespace {
auto clamp_fn(std::optional<Scalar> lo, std::optional<Scalar> hi) {
  TCORE_CHECK_VALUE(lo || hi, "clamp: At least one of 'min' or 'max' must not be None");
  return numeric("clamp", [lo, hi](auto tag) {
    using T = typename decltype(tag)::type;
    const T l = lo ? lo->to<T>() : unbounded<T>(false);
    const T h = hi ? hi->to<T>() : unbounded<T>(true);
    bool nan_bound = false;
    if constexpr (std::is_floating_point_v<T>) nan_bound = std::isnan(l) || std::isnan(h);
    // min(max(v, l), h): a NaN element stays NaN, and min > max gives max, as in PyTorch; a NaN
    // bound makes every element NaN, as in PyTorch
    return [l, h, nan_bound](T v) {
      const T r = v < l ? l : v;
      const T c = r > h ? h : r;
      if constexpr (std::is_floating_point_v<T>) return nan_bound ? std::numeric_limits<T>::quiet_NaN() : c;
      else return c;
    };
  });
}

template <bool Inf>
Tensor float_test(const Tensor& self) {
  if (is_reduced_float(self.dtype())) return float_test<Inf>(cast(self, ScalarType::Float));
  Tensor out = empty_output(self.sizes(), ScalarType::Bool, {&self});
  dispatch_dtype(self.dtype(), Inf ? "isinf" : "isnan", [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_loop<bool, T>(out, self, [](T v) {
      if constexpr (std::is_floating_point_v<T>) return Inf ? std::isinf(v) : std::isnan(v);
      else return false;
    });
  });
  return out;
}
}  // namespace

Tensor clamp(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  const ScalarType t = clamp_type(self, min, max);
  return unary_into(empty_output(self.sizes(), t, {&self}), self, t, "clamp", clamp_fn(min, max));
}
Tensor clamp_(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return unary_inplace(self, clamp_type(self, min, max), "clamp_", clamp_fn(min, max));
}
Tensor clamp_out(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                 const Tensor& out) {
  return unary_into(out, self, clamp_type(self, min, max), "clamp", clamp_fn(min, max));
}

namespace {
// x * Phi(x) (exact, with erf) or PyTorch's tanh approximation.
auto gelu_fn(bool tanh_form) {
  const auto scalar = [tanh_form](auto v) {
    using T = decltype(v);
    if (tanh_form) {
      const T inner = static_cast<T>(0.7978845608028654) * (v + static_cast<T>(0.044715) * v * v * v);
      return static_cast<T>(0.5) * v * (T(1) + std::tanh(inner));
    }
    // no cancellation; a float in double (erfcf of the rounded v / sqrt 2 was 73 ulp off at -9)
    using C = std::conditional_t<std::is_same_v<T, float>, double, T>;
    return static_cast<T>(0.5 * static_cast<C>(v) * std::erfc(static_cast<C>(v) * static_cast<C>(-0.70710678118654752440)));
  };
  return floating_runs("gelu", [scalar](auto) { return scalar; }, [tanh_form](auto* o, const auto* i, int64_t n, const auto& f) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(i)>>;
    if constexpr (vec::maps<T>) {
      tanh_form ? vec::map<vec::GeluTanh>(o, i, n) : vec::map<vec::Gelu>(o, i, n);
    } else {
      for (int64_t k = 0; k < n; ++k) o[k] = f(i[k]);
    }
  });
}
}  // namespace

Tensor gelu(const Tensor& self, std::string_view approximate) {
  check_gelu(self, approximate);
  return unary_into(empty_output(self.sizes(), self.dtype(), {&self}), self, self.dtype(), "gelu",
                    gelu_fn(approximate == "tanh"));
}
// (generated, it computed into a new tensor and copied: twice the functional's time)
Tensor gelu_out(const Tensor& self, std::string_view approximate, const Tensor& out) {
  check_gelu(self, approximate, &out);
  return unary_into(out, self, self.dtype(), "gelu", gelu_fn(approximate == "tanh"));
}

Tensor isnan(const Tensor& self) { return float_test<false>(self); }
Tensor isinf(const Tensor& self) { return float_test<true>(self); }

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
