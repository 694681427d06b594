// neg, relu, abs, sign, floor, ceil, round, trunc (keep the dtype; rounding an integer is the
// identity) and exp, log, sqrt, rsqrt, tanh, sigmoid, sin, cos, tan, asin, acos, atan, sinh, cosh,
// exp2, log2, erf, log1p, expm1, reciprocal (integer inputs compute in the default float dtype) on
// CUDA devices: the out= kernels of the structured operators (their functional and in-place forms
// are generated); relu's, clamp's and gelu's functional and in-place forms; isnan and isinf.
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
#include <tcore/ops/i0_native.h>
#include <tcore/ops/special_i0e_native.h>
#include <tcore/ops/special_i1_native.h>
#include <tcore/ops/special_i1e_native.h>
#include <tcore/ops/special_ndtri_native.h>
#include <tcore/ops/special_log_ndtr_native.h>
#include <tcore/ops/special_erfcx_native.h>
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
#include <tcore/ops/trunc_native.h>

#include "native/Activation.h"
#include "native/BesselNormal.h"
#include "native/SpecialMath.h"
#include "native/TensorUtils.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {

enum class Kind {
  // keeping the dtype
  Neg, Relu, Abs, Sign, Floor, Ceil, Round, Trunc,
  // floating
  Exp, Log, Sqrt, Rsqrt, Tanh, Sigmoid, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Exp2, Log2, Erf, Log1p, Expm1,
  Reciprocal, Gelu, GeluTanh, Lgamma, Digamma, Polygamma, Log10, Acosh, Asinh, Atanh, Erfc, Erfinv,
  I0, I0e, I1, I1e, Ndtri, LogNdtr, Erfcx
};

template <typename T, Kind kind>
struct UnaryOp {
  int64_t n;  // polygamma's order
  __device__ T operator()(T x) const {
    if constexpr (kind == Kind::Neg) return static_cast<T>(-x);
    else if constexpr (kind == Kind::Relu) {  // NaN and -0 stay, as torch's max(x, 0)
      if constexpr (std::is_unsigned_v<T>) return x;
      else return x < T(0) ? T(0) : x;
    }
    else if constexpr (kind == Kind::Abs) {
      if constexpr (std::is_unsigned_v<T>) return x;
      else return x < T(0) ? static_cast<T>(-x) : x;
    }
    else if constexpr (kind == Kind::Sign) {
      if constexpr (std::is_unsigned_v<T>) return static_cast<T>(x != T(0));
      else return static_cast<T>((T(0) < x) - (x < T(0)));  // NaN gives 0, as on the CPU
    }
    else if constexpr (std::is_integral_v<T> &&
                       (kind == Kind::Floor || kind == Kind::Ceil || kind == Kind::Round || kind == Kind::Trunc))
      return x;
    else if constexpr (kind == Kind::Floor) return ::floor(x);
    else if constexpr (kind == Kind::Ceil) return ::ceil(x);
    else if constexpr (kind == Kind::Round) return ::nearbyint(x);  // half to even
    else if constexpr (kind == Kind::Trunc) return ::trunc(x);
    else if constexpr (kind == Kind::Exp) return ::exp(x);
    else if constexpr (kind == Kind::Log) return ::log(x);
    else if constexpr (kind == Kind::Sqrt) return ::sqrt(x);
    else if constexpr (kind == Kind::Rsqrt) return T(1) / ::sqrt(x);
    else if constexpr (kind == Kind::Tanh) return ::tanh(x);
    else if constexpr (kind == Kind::Sin) return ::sin(x);
    else if constexpr (kind == Kind::Cos) return ::cos(x);
    else if constexpr (kind == Kind::Log1p) return ::log1p(x);
    else if constexpr (kind == Kind::Expm1) return ::expm1(x);
    else if constexpr (kind == Kind::Reciprocal) return T(1) / x;
    else if constexpr (kind == Kind::Tan) return ::tan(x);
    else if constexpr (kind == Kind::Asin) return ::asin(x);
    else if constexpr (kind == Kind::Acos) return ::acos(x);
    else if constexpr (kind == Kind::Atan) return ::atan(x);
    else if constexpr (kind == Kind::Sinh) return ::sinh(x);
    else if constexpr (kind == Kind::Cosh) return ::cosh(x);
    else if constexpr (kind == Kind::Exp2) return ::exp2(x);
    else if constexpr (kind == Kind::Log2) return ::log2(x);
    else if constexpr (kind == Kind::Erf) return ::erf(x);
    else if constexpr (kind == Kind::Lgamma) return ::lgamma(x);
    else if constexpr (kind == Kind::Log10) return ::log10(x);
    else if constexpr (kind == Kind::Acosh) return ::acosh(x);
    else if constexpr (kind == Kind::Asinh) return ::asinh(x);
    else if constexpr (kind == Kind::Atanh) return ::atanh(x);
    else if constexpr (kind == Kind::Erfc) return ::erfc(x);
    else if constexpr (kind == Kind::Erfinv) return ::erfinv(x);
    else if constexpr (kind == Kind::Digamma) return special::digamma<T>(x);
    else if constexpr (kind == Kind::I0) return static_cast<T>(special::bessel_i0(static_cast<double>(x), false));
    else if constexpr (kind == Kind::I0e) return static_cast<T>(special::bessel_i0(static_cast<double>(x), true));
    else if constexpr (kind == Kind::I1) return static_cast<T>(special::bessel_i1(static_cast<double>(x), false));
    else if constexpr (kind == Kind::I1e) return static_cast<T>(special::bessel_i1(static_cast<double>(x), true));
    else if constexpr (kind == Kind::Ndtri) return static_cast<T>(special::ndtri(static_cast<double>(x)));
    else if constexpr (kind == Kind::LogNdtr) return static_cast<T>(special::log_ndtr(static_cast<double>(x)));
    else if constexpr (kind == Kind::Erfcx) return static_cast<T>(special::erfcx(static_cast<double>(x)));
    else if constexpr (kind == Kind::Polygamma) return special::polygamma<T>(n, x);
    else if constexpr (kind == Kind::Gelu) return T(0.5) * x * ::erfc(x * T(-0.7071067811865476));  // no cancellation
    else if constexpr (kind == Kind::GeluTanh)
      return T(0.5) * x * (T(1) + ::tanh(T(0.7978845608028654) * (x + T(0.044715) * x * x * x)));
    else return T(1) / (T(1) + ::exp(-x));
  }
};

constexpr bool floating_kind(Kind k) { return k >= Kind::Exp; }

// min(max(x, lo), hi): a NaN element stays NaN, and lo > hi gives hi, as on the CPU.
template <typename T>
struct ClampOp {
  T lo, hi;  // a NaN bound makes every element NaN, as on the CPU
  __device__ T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (lo != lo || hi != hi) return lo != lo ? lo : hi;
    }
    const T r = x < lo ? lo : x;
    return r > hi ? hi : r;
  }
};

template <typename T, bool Inf>
struct FloatTestOp {
  __device__ bool operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) return Inf ? ::isinf(x) : ::isnan(x);
    else return false;
  }
};

// The floating functions compute integer inputs in the default float dtype.
template <Kind kind>
ScalarType compute_type(const Tensor& self) {
  return floating_kind(kind) && !is_floating(self.dtype()) ? default_float_dtype() : self.dtype();
}

template <Kind kind>
Tensor unary_into(const Tensor& out, const Tensor& self, const char* op, int64_t n = 0) {
  const ScalarType compute = compute_type<kind>(self);
  TCORE_CHECK_TYPE(can_cast(compute, out.dtype()), op, ": result type ", compute,
                   " can't be cast to the desired output type ", out.dtype());
  TCORE_CHECK_VALUE(out.device() == self.device(), op, ": the out= tensor is on ", out.device().str(),
                    " but the input is on ", self.device().str());
  resize_output(out, self.sizes());
  const ScalarType kernel = opmath_type(compute);  // float16/bfloat16 in float32
  const Tensor x = cast(self, kernel);
  const bool direct = out.dtype() == compute && !partially_overlaps(out, x);
  const Tensor target = direct ? out : empty_on(self.sizes(), compute, self.device());
  const auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::with_store_type<T>(target.dtype(), [&](auto store) {
      cuda::launch_unary<typename decltype(store)::type, T>(target, x, UnaryOp<T, kind>{n});
    });
  };
  if constexpr (floating_kind(kind)) dispatch_floating(kernel, op, run);
  else dispatch_numeric(kernel, op, run);
  if (!direct) write_result(out, target, op);
  out.bump_version();
  return out;
}

template <Kind kind>
Tensor functional(const Tensor& self, const char* op) {
  return unary_into<kind>(empty_on(self.sizes(), compute_type<kind>(self), self.device()), self, op);
}

// clamp into out (in place when out is self): the dtype t is clamp_type's, NaN bounds give NaN.
Tensor clamp_into(const Tensor& out, const Tensor& self, ScalarType t, const std::optional<Scalar>& lo,
                  const std::optional<Scalar>& hi, const char* op) {
  TCORE_CHECK_VALUE(lo || hi, "clamp: At least one of 'min' or 'max' must not be None");
  TCORE_CHECK_TYPE(can_cast(t, out.dtype()), op, ": result type ", t, " can't be cast to the desired output type ",
                   out.dtype());
  TCORE_CHECK_TYPE(t != ScalarType::Bool, op, ": not implemented for 'bool'");
  TCORE_CHECK_VALUE(out.device() == self.device(), op, ": the out= tensor is on ", out.device().str(),
                    " but the input is on ", self.device().str());
  resize_output(out, self.sizes());
  const ScalarType kernel = opmath_type(t);
  const Tensor x = cast(self, kernel);
  const bool direct = out.dtype() == t && !partially_overlaps(out, x);
  const Tensor target = direct ? out : empty_on(self.sizes(), t, self.device());
  dispatch_numeric(kernel, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T l = lo ? lo->to<T>() : unbounded<T>(false);
    T h = hi ? hi->to<T>() : unbounded<T>(true);
    if constexpr (std::is_floating_point_v<T>) {
      if (l != l || h != h) l = h = std::numeric_limits<T>::quiet_NaN();  // every element NaN
    }
    cuda::with_store_type<T>(target.dtype(), [&](auto store) {
      cuda::launch_unary<typename decltype(store)::type, T>(target, x, ClampOp<T>{l, h});
    });
  });
  if (!direct) write_result(out, target, op);
  out.bump_version();
  return out;
}

template <bool Inf>
Tensor float_test(const Tensor& self) {
  const Tensor x = cast(self, opmath_type(self.dtype()));
  Tensor out = empty_on(self.sizes(), ScalarType::Bool, self.device());
  dispatch_dtype(x.dtype(), Inf ? "isinf" : "isnan", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::launch_unary<bool, T>(out, x, FloatTestOp<T, Inf>{});
  });
  return out;
}

}  // namespace

// The structured operators' impls (their meta functions: native/UnaryOps.cpp).
TCORE_IMPL_FUNC(neg_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Neg>(out, self, "neg"); }
TCORE_IMPL_FUNC(exp_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Exp>(out, self, "exp"); }
TCORE_IMPL_FUNC(log_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Log>(out, self, "log"); }
TCORE_IMPL_FUNC(sqrt_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Sqrt>(out, self, "sqrt"); }
TCORE_IMPL_FUNC(tanh_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Tanh>(out, self, "tanh"); }
TCORE_IMPL_FUNC(sigmoid_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Sigmoid>(out, self, "sigmoid"); }
TCORE_IMPL_FUNC(abs_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Abs>(out, self, "abs"); }
TCORE_IMPL_FUNC(rsqrt_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Rsqrt>(out, self, "rsqrt"); }
TCORE_IMPL_FUNC(sin_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Sin>(out, self, "sin"); }
TCORE_IMPL_FUNC(cos_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Cos>(out, self, "cos"); }
TCORE_IMPL_FUNC(log1p_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Log1p>(out, self, "log1p"); }
TCORE_IMPL_FUNC(expm1_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Expm1>(out, self, "expm1"); }
TCORE_IMPL_FUNC(tan_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Tan>(out, self, "tan"); }
TCORE_IMPL_FUNC(asin_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Asin>(out, self, "asin"); }
TCORE_IMPL_FUNC(acos_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Acos>(out, self, "acos"); }
TCORE_IMPL_FUNC(atan_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Atan>(out, self, "atan"); }
TCORE_IMPL_FUNC(sinh_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Sinh>(out, self, "sinh"); }
TCORE_IMPL_FUNC(cosh_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Cosh>(out, self, "cosh"); }
TCORE_IMPL_FUNC(exp2_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Exp2>(out, self, "exp2"); }
TCORE_IMPL_FUNC(log2_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Log2>(out, self, "log2"); }
TCORE_IMPL_FUNC(erf_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Erf>(out, self, "erf"); }
TCORE_IMPL_FUNC(lgamma_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Lgamma>(out, self, "lgamma"); }
TCORE_IMPL_FUNC(digamma_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Digamma>(out, self, "digamma"); }
TCORE_IMPL_FUNC(i0_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::I0>(out, self, "i0"); }
TCORE_IMPL_FUNC(special_i0e_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::I0e>(out, self, "special_i0e"); }
TCORE_IMPL_FUNC(special_i1_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::I1>(out, self, "special_i1"); }
TCORE_IMPL_FUNC(special_i1e_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::I1e>(out, self, "special_i1e"); }
TCORE_IMPL_FUNC(special_ndtri_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Ndtri>(out, self, "special_ndtri"); }
TCORE_IMPL_FUNC(special_log_ndtr_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::LogNdtr>(out, self, "special_log_ndtr"); }
TCORE_IMPL_FUNC(special_erfcx_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Erfcx>(out, self, "special_erfcx"); }
TCORE_IMPL_FUNC(polygamma_out_cuda)(int64_t n, const Tensor& self, const Tensor& out) {
  unary_into<Kind::Polygamma>(out, self, "polygamma", n);
}
TCORE_IMPL_FUNC(sign_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Sign>(out, self, "sign"); }
TCORE_IMPL_FUNC(floor_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Floor>(out, self, "floor"); }
TCORE_IMPL_FUNC(ceil_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Ceil>(out, self, "ceil"); }
TCORE_IMPL_FUNC(round_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Round>(out, self, "round"); }
TCORE_IMPL_FUNC(trunc_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Trunc>(out, self, "trunc"); }
TCORE_IMPL_FUNC(log10_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Log10>(out, self, "log10"); }
TCORE_IMPL_FUNC(acosh_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Acosh>(out, self, "acosh"); }
TCORE_IMPL_FUNC(asinh_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Asinh>(out, self, "asinh"); }
TCORE_IMPL_FUNC(atanh_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Atanh>(out, self, "atanh"); }
TCORE_IMPL_FUNC(erfc_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Erfc>(out, self, "erfc"); }
TCORE_IMPL_FUNC(erfinv_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Erfinv>(out, self, "erfinv"); }
TCORE_IMPL_FUNC(reciprocal_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Reciprocal>(out, self, "reciprocal"); }

Tensor relu_cuda(const Tensor& self) { return functional<Kind::Relu>(self, "relu"); }
Tensor relu_cuda_(const Tensor& self) { return unary_into<Kind::Relu>(self, self, "relu_"); }

Tensor clamp_cuda(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  const ScalarType t = clamp_type(self, min, max);
  return clamp_into(empty_on(self.sizes(), t, self.device()), self, t, min, max, "clamp");
}
Tensor clamp_cuda_(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return clamp_into(self, self, clamp_type(self, min, max), min, max, "clamp_");
}
Tensor clamp_out_cuda(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                      const Tensor& out) {
  return clamp_into(out, self, clamp_type(self, min, max), min, max, "clamp");
}

// x * Phi(x) (exact, through erfc) or PyTorch's tanh approximation.
Tensor gelu_cuda(const Tensor& self, std::string_view approximate) {
  check_gelu(self, approximate);
  return approximate == "tanh" ? functional<Kind::GeluTanh>(self, "gelu") : functional<Kind::Gelu>(self, "gelu");
}
Tensor gelu_out_cuda(const Tensor& self, std::string_view approximate, const Tensor& out) {
  check_gelu(self, approximate, &out);
  return approximate == "tanh" ? unary_into<Kind::GeluTanh>(out, self, "gelu") : unary_into<Kind::Gelu>(out, self, "gelu");
}

Tensor isnan_cuda(const Tensor& self) { return float_test<false>(self); }
Tensor isinf_cuda(const Tensor& self) { return float_test<true>(self); }

}  // namespace tcore::native
