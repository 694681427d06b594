// The nn activations leaky_relu, silu, softplus and elu and their backwards, in the forms
// PyTorch's CPU kernels compute them (float16/bfloat16 in float32): contiguous float32/float64
// runs through SLEEF's vector functions (native/cpu/VecMath.h), strided runs element by element.
// They were compositions of 2-10 operators: forward 2-23x torch's time for a 2048^2 float32
// tensor, forward and backward 2-5x.
#include <cmath>

#include <tcore/ops/elu_backward_native.h>
#include <tcore/ops/elu_native.h>
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

// out = f(self) for a floating self: make(tag) gives the scalar function of T and the vector one
// (a function of VecOf<T>) for contiguous runs.
template <typename Make>
void activation_into(const Tensor& out, const Tensor& self, const char* op, Make make) {
  unary_into(out, self, self.dtype(), op, [&](ScalarType compute, const Tensor& target, const Tensor& x) {
    dispatch_floating(compute, op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto fns = make(tag);
      const auto& scalar = fns.first;
      const auto& vector = fns.second;
      if constexpr (vec::supports<T>) {
        unary_loop_runs<T, T>(target, x, scalar, [&vector](T* o, const T* i, int64_t n) { vec::map_with(o, i, n, vector); });
      } else {
        unary_loop<T, T>(target, x, scalar);
      }
    });
  });
}

// the same formula for a T and for a vector of T (GCC's vector extensions: a comparison gives a
// mask, `mask ? a : b` selects by lane)
template <typename F>
auto both(F f) {
  return std::make_pair(f, f);
}

// A backward kernel's function of (grad, x): the scalar form, and for float32/float64 with SLEEF
// the vector form of contiguous runs too (binary_loop_to's runs hook, x contiguous or one value).
template <typename T, typename S, typename V>
struct WithRuns {
  S scalar;
  V vector;
  T operator()(T g, T x) const { return scalar(g, x); }
  void runs(T* o, const T* g, const T* x, int64_t n, int64_t x_step) const { vec::map2_with(o, g, x, n, x_step, vector); }
};
template <typename T, typename S, typename V>
auto with_runs(S scalar, V vector) {
  if constexpr (vec::supports<T>) return WithRuns<T, S, V>{scalar, vector};
  else return scalar;
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
    const T s = negative_slope.to<T>();
    return both([s](auto v) { return v > T(0) ? v : v * s; });
  });
}

// self / (1 + e^-self)
TCORE_IMPL_FUNC(silu_out)(const Tensor& self, const Tensor& out) {
  activation_into(out, self, "silu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto scalar = [](T v) { return v / (T(1) + std::exp(-v)); };
    if constexpr (vec::supports<T>) return std::make_pair(scalar, [](auto v) { return vec::Silu::apply(v); });
    else return std::make_pair(scalar, scalar);
  });
}

// self * beta > threshold ? self : log1p(e^(self * beta)) / beta
TCORE_IMPL_FUNC(softplus_out)(const Tensor& self, const Scalar& beta, const Scalar& threshold, const Tensor& out) {
  activation_into(out, self, "softplus", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T b = beta.to<T>(), th = threshold.to<T>();
    const auto scalar = [b, th](T v) { return v * b > th ? v : static_cast<T>(std::log1p(std::exp(v * b)) / b); };
    if constexpr (vec::supports<T>) {
      return std::make_pair(scalar, [b, th](auto v) {
        const auto z = v * b;
        return z > th ? v : vec::Log1p::apply(vec::Exp::apply(z)) / b;
      });
    } else {
      return std::make_pair(scalar, scalar);
    }
  });
}

// self <= 0 ? expm1(self * input_scale) * alpha * scale : self * scale
TCORE_IMPL_FUNC(elu_out)(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                         const Tensor& out) {
  activation_into(out, self, "elu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T neg = alpha.to<T>() * scale.to<T>(), pos = scale.to<T>(), in = input_scale.to<T>();  // torch's coefficients
    const auto scalar = [=](T v) { return v <= T(0) ? static_cast<T>(std::expm1(v * in) * neg) : v * pos; };
    if constexpr (vec::supports<T>) {
      return std::make_pair(scalar, [=](auto v) { return v <= T(0) ? vec::Expm1::apply(v * in) * neg : v * pos; });
    } else {
      return std::make_pair(scalar, scalar);
    }
  });
}

// ------------------------------------------------------------------ backwards (torch's formulas)
Tensor leaky_relu_backward(const Tensor& grad_output, const Tensor& self, const Scalar& negative_slope,
                           bool self_is_result) {
  check_leaky_relu_backward(self_is_result, negative_slope);
  return backward_op(grad_output, self, "leaky_relu_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // the vector form too: GCC keeps a branch in the scalar loop (20 ms for 4M random signs, 9x torch's)
    const auto f = [s = negative_slope.to<T>()](auto g, auto x) { return x > T(0) ? g : g * s; };
    return with_runs<T>(f, f);
  });
}

// grad * s * (1 + x * (1 - s)), s = 1 / (1 + e^-x)
Tensor silu_backward(const Tensor& grad_output, const Tensor& self) {
  return backward_op(grad_output, self, "silu_backward", [](auto tag) {
    using T = typename decltype(tag)::type;
    return with_runs<T>(
        [](T g, T x) {
          const T s = T(1) / (T(1) + std::exp(-x));
          return g * s * (T(1) + x * (T(1) - s));
        },
        [](auto g, auto x) {
          const auto s = T(1) / (T(1) + vec::Exp::apply(-x));
          return g * s * (T(1) + x * (T(1) - s));
        });
  });
}

// x * beta > threshold ? grad : grad * z / (z + 1), z = e^(x * beta)
Tensor softplus_backward(const Tensor& grad_output, const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  return backward_op(grad_output, self, "softplus_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T b = beta.to<T>(), th = threshold.to<T>();
    return with_runs<T>(
        [b, th](T g, T x) {
          const T z = std::exp(x * b);
          return x * b > th ? g : g * z / (z + T(1));
        },
        [b, th](auto g, auto x) {
          const auto z = vec::Exp::apply(x * b);
          return x * b > th ? g : g * z / (z + T(1));
        });
  });
}

// x <= 0 ? grad * input_scale * (x + alpha * scale) (x the result) or grad * input_scale * alpha *
// scale * e^(x * input_scale) (x the input) : grad * scale
Tensor elu_backward(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                    bool is_result, const Tensor& self_or_result) {
  check_elu_backward(is_result, alpha);
  if (is_result) {
    return backward_op(grad_output, self_or_result, "elu_backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T neg = alpha.to<T>() * scale.to<T>(), pos = scale.to<T>(), in = input_scale.to<T>();
      return [=](T g, T x) { return x <= T(0) ? g * in * (x + neg) : g * pos; };
    });
  }
  return backward_op(grad_output, self_or_result, "elu_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T neg = alpha.to<T>() * scale.to<T>(), pos = scale.to<T>(), in = input_scale.to<T>();
    return with_runs<T>([=](T g, T x) { return x <= T(0) ? g * in * neg * std::exp(x * in) : g * pos; },
                        [=](auto g, auto x) { return x <= T(0) ? g * in * neg * vec::Exp::apply(x * in) : g * pos; });
  });
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
