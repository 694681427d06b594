// The nn activations leaky_relu, silu, softplus and elu and their backwards (and gelu's), in the forms
// PyTorch's CPU kernels compute them (float16/bfloat16 in float32): contiguous float32/float64
// runs through SLEEF's vector functions (native/cpu/VecMath.h), strided runs element by element.
// They were compositions of 2-10 operators: forward 2-23x torch's time for a 2048^2 float32
// tensor, forward and backward 2-5x.
#include <cmath>
#include <type_traits>

#include <tcore/ops/elu_backward_native.h>
#include <tcore/ops/elu_native.h>
#include <tcore/ops/gelu_backward_native.h>
#include <tcore/ops/leaky_relu_backward_native.h>
#include <tcore/ops/leaky_relu_native.h>
#include <tcore/ops/silu_backward_native.h>
#include <tcore/ops/silu_native.h>
#include <tcore/ops/softplus_backward_native.h>
#include <tcore/ops/softplus_native.h>

#include "native/Activation.h"
#include "native/cpu/Binary.h"
#include "native/cpu/Unary.h"
#include "native/cpu/VecMath.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
using namespace binary;
namespace {

// e^v, e^v - 1, log(1 + e^v), tanh(v) of a T (libm) or of a vector of T (SLEEF): each kernel writes
// its formula once, for the elements of strided runs and for the vectors of contiguous ones (GCC's
// vector extensions: a comparison gives a mask, `mask ? a : b` selects by lane).
template <typename Op, typename V, typename Libm>
V libm_or(V v, Libm libm) {
  if constexpr (std::is_floating_point_v<V>) return libm(v);
  else return Op::apply(v);
}
template <typename V>
V exp_of(V v) { return libm_or<vec::Exp>(v, [](auto x) { return std::exp(x); }); }
template <typename V>
V expm1_of(V v) { return libm_or<vec::Expm1>(v, [](auto x) { return std::expm1(x); }); }
// log(1 + e^v) as max(v, 0) + log1p(e^-|v|): no overflow, the same form at every width and layout
// (log1p(e^v) of a strided or single element was inf past 88.7 where the vectors gave v)
template <typename V>
V log1p_exp_of(V v) {
  return libm_or<vec::Log1pExp>(v, [](auto x) { return (x > 0 ? x : decltype(x)(0)) + std::log1p(std::exp(0 - std::abs(x))); });
}
template <typename V>
V tanh_of(V v) { return libm_or<vec::Tanh>(v, [](auto x) { return std::tanh(x); }); }
// Phi(v), the standard normal distribution function, through erfc (no cancellation in the tail)
template <typename V>
V normal_cdf_of(V v) {
  // float: in double (erfcf of the rounded v / sqrt 2 was 73 ulp off at -9)
  if constexpr (std::is_floating_point_v<V>) return static_cast<V>(0.5 * std::erfc(static_cast<double>(v) * -0.70710678118654752440));
  else return vec::NormalCdf::cdf(v);
}

// out = f(self) for a floating self: make(tag) gives f, a function of T and of VecOf<T> (the
// vectors of contiguous runs, with SLEEF).
template <typename Make>
void activation_into(const Tensor& out, const Tensor& self, const char* op, Make make) {
  unary_into(out, self, self.dtype(), op, floating_runs(op, make, [](auto* o, const auto* i, int64_t n, const auto& f) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(i)>>;
    if constexpr (vec::maps<T>) {
      vec::map_with(o, i, n, f);
    } else {
      for (int64_t k = 0; k < n; ++k) o[k] = f(i[k]);
    }
  }));
}

// A backward kernel's function f(grad, x) of T, and for float32/float64 with SLEEF of vectors too,
// for contiguous runs (binary_loop_to's runs hook, grad and x each contiguous or one value).
template <typename T, typename F>
struct WithRuns {
  F f;
  T operator()(T g, T x) const { return f(g, x); }
  void runs(T* o, const T* g, const T* x, int64_t n, int64_t g_step, int64_t x_step) const {
    vec::map2_with(o, g, x, n, g_step, x_step, f);
  }
};
template <typename T, typename F>
auto with_runs(F f) {
  if constexpr (vec::supports<T>) return WithRuns<T, F>{f};
  else return [f](T g, T x) { return f(g, x); };
}

// grad_output and self broadcast, computed in their promoted floating dtype
template <typename Make>
Tensor backward_op(const Tensor& grad_output, const Tensor& self, const char* op, Make make) {
  const ScalarType t = promoted(grad_output, self);
  return binary_op<Kinds::Floating>(grad_output, self, t, t, op, make);
}

}  // namespace

// self > 0 ? self : self * negative_slope (NaN stays NaN, -0. stays -0.)
TCORE_IMPL_FUNC(leaky_relu_out)(const Tensor& self, const Scalar& negative_slope, const Tensor& out) {
  activation_into(out, self, "leaky_relu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return [s = negative_slope.to<T>()](auto v) { return v > T(0) ? v : v * s; };
  });
}

// self / (1 + e^-self) (-inf gives NaN, as in torch)
TCORE_IMPL_FUNC(silu_out)(const Tensor& self, const Tensor& out) {
  activation_into(out, self, "silu", [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](auto v) { return v / (T(1) + exp_of(-v)); };
  });
}

// self * beta > threshold ? self : log1p(e^(self * beta)) / beta
TCORE_IMPL_FUNC(softplus_out)(const Tensor& self, const Scalar& beta, const Scalar& threshold, const Tensor& out) {
  activation_into(out, self, "softplus", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return [b = beta.to<T>(), th = threshold.to<T>()](auto v) {
      const auto z = v * b;
      if (b == T(1)) return z > th ? v : log1p_exp_of(z);  // the same, without a division
      return z > th ? v : log1p_exp_of(z) / b;
    };
  });
}

// self <= 0 ? expm1(self * input_scale) * alpha * scale : self * scale
TCORE_IMPL_FUNC(elu_out)(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                         const Tensor& out) {
  activation_into(out, self, "elu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T neg = alpha.to<T>() * scale.to<T>(), pos = scale.to<T>(), in = input_scale.to<T>();  // torch's coefficients
    return [=](auto v) { return v <= T(0) ? expm1_of(v * in) * neg : v * pos; };
  });
}

// ------------------------------------------------------------------ backwards (torch's formulas)
Tensor leaky_relu_backward(const Tensor& grad_output, const Tensor& self, const Scalar& negative_slope,
                           bool self_is_result) {
  check_leaky_relu_backward(self_is_result, negative_slope);
  return backward_op(grad_output, self, "leaky_relu_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // the vector form too: GCC keeps a branch in the scalar loop (20 ms for 4M random signs, 9x torch's)
    return with_runs<T>([s = negative_slope.to<T>()](auto g, auto x) { return x > T(0) ? g : g * s; });
  });
}

// grad * s * (1 + x * (1 - s)), s = 1 / (1 + e^-x)
Tensor silu_backward(const Tensor& grad_output, const Tensor& self) {
  return backward_op(grad_output, self, "silu_backward", [](auto tag) {
    using T = typename decltype(tag)::type;
    return with_runs<T>([](auto g, auto x) {
      const auto s = T(1) / (T(1) + exp_of(-x));
      return g * s * (T(1) + x * (T(1) - s));
    });
  });
}

// x * beta > threshold ? grad : grad * z / (z + 1), z = e^(x * beta)
Tensor softplus_backward(const Tensor& grad_output, const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  return backward_op(grad_output, self, "softplus_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return with_runs<T>([b = beta.to<T>(), th = threshold.to<T>()](auto g, auto x) {
      const auto z = exp_of(x * b);
      return x * b > th ? g : g * z / (z + T(1));
    });
  });
}

// grad * (Phi(x) + x phi(x)), or the derivative of PyTorch's tanh approximation
// 0.5 x (1 + tanh(u)), u = sqrt(2 / pi) (x + 0.044715 x^3): a composite of 12 operators before
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  check_gelu_approximate(approximate);
  if (approximate == "tanh") {
    return backward_op(grad_output, self, "gelu_backward", [](auto tag) {
      using T = typename decltype(tag)::type;
      return with_runs<T>([](auto g, auto x) {
        const T beta = T(0.7978845608028654), kappa = T(0.044715);
        const auto x2 = x * x;
        const auto t = tanh_of(beta * (x + kappa * x2 * x));
        return g * (T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * beta * (T(1) + T(3) * kappa * x2));
      });
    });
  }
  return backward_op(grad_output, self, "gelu_backward", [](auto tag) {
    using T = typename decltype(tag)::type;
    return with_runs<T>([](auto g, auto x) {
      return g * (normal_cdf_of(x) + x * exp_of(T(-0.5) * x * x) * T(0.3989422804014327));
    });
  });
}

// x <= 0 ? grad * input_scale * (x + alpha * scale) (x the result) or grad * input_scale * alpha *
// scale * e^(x * input_scale) (x the input) : grad * scale
Tensor elu_backward(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                    bool is_result, const Tensor& self_or_result) {
  check_elu_backward(is_result, alpha);
  // two kernels (a vector select computes both sides: e^x only in the form that uses it)
  if (is_result) {
    return backward_op(grad_output, self_or_result, "elu_backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T neg = alpha.to<T>() * scale.to<T>(), pos = scale.to<T>(), in = input_scale.to<T>();
      return with_runs<T>([=](auto g, auto x) { return x <= T(0) ? g * in * (x + neg) : g * pos; });
    });
  }
  return backward_op(grad_output, self_or_result, "elu_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T neg = alpha.to<T>() * scale.to<T>(), pos = scale.to<T>(), in = input_scale.to<T>();
    return with_runs<T>([=](auto g, auto x) { return x <= T(0) ? g * in * neg * exp_of(x * in) : g * pos; });
  });
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
