// The nn activations leaky_relu, silu, softplus and elu on CUDA devices: the out= kernels of the
// structured operators (their meta functions: native/Activation.cpp) and their backwards (and
// gelu's), in the
// forms the CPU kernels compute (native/cpu/Activation.cpp); float16/bfloat16 compute in float32.
#include <tcore/ops/elu_backward_native.h>
#include <tcore/ops/elu_native.h>
#include <tcore/ops/gelu_backward_native.h>
#include <tcore/ops/leaky_relu_backward_native.h>
#include <tcore/ops/leaky_relu_native.h>
#include <tcore/ops/silu_backward_native.h>
#include <tcore/ops/silu_native.h>
#include <tcore/ops/softplus_backward_native.h>
#include <tcore/ops/softplus_native.h>

#include <array>

#include "native/Activation.h"
#include "native/TensorUtils.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {

template <typename T>
struct LeakyReluOp {
  T slope;
  __device__ T operator()(T x) const { return x > T(0) ? x : x * slope; }
};

template <typename T>
struct SiluOp {
  __device__ T operator()(T x) const { return x / (T(1) + ::exp(-x)); }
};

template <typename T>
struct SoftplusOp {
  T beta, threshold;
  __device__ T operator()(T x) const { return x * beta > threshold ? x : ::log1p(::exp(x * beta)) / beta; }
};

template <typename T>
struct EluOp {
  T neg, pos, in;  // alpha * scale, scale, input_scale
  __device__ T operator()(T x) const { return x <= T(0) ? ::expm1(x * in) * neg : x * pos; }
};

// out = op(self) (the meta function checked the dtypes and sized out); make(tag) gives the functor.
template <typename Make>
void activation_into(const Tensor& out, const Tensor& self, const char* op, Make make) {
  TCORE_CHECK_VALUE(out.device() == self.device(), op, ": the out= tensor is on ", out.device().str(),
                    " but the input is on ", self.device().str());
  const ScalarType kernel = opmath_type(self.dtype());
  const Tensor x = cast(self, kernel);
  const bool direct = !partially_overlaps(out, x);
  const Tensor target = direct ? out : empty_on(self.sizes(), out.dtype(), self.device());
  dispatch_floating(kernel, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::with_store_type<T>(target.dtype(), [&](auto store) {
      cuda::launch_unary<typename decltype(store)::type, T>(target, x, make(tag));
    });
  });
  if (!direct) write_result(out, target, op);
  out.bump_version();
}

// The backwards: f(grad, x).
template <typename T>
struct LeakyReluBackwardOp {
  T slope;
  __device__ T operator()(T g, T x) const { return x > T(0) ? g : g * slope; }
};

template <typename T>
struct SiluBackwardOp {
  __device__ T operator()(T g, T x) const {
    const T s = T(1) / (T(1) + ::exp(-x));
    return g * s * (T(1) + x * (T(1) - s));
  }
};

template <typename T>
struct GeluBackwardOp {  // grad * (Phi(x) + x phi(x))
  __device__ T operator()(T g, T x) const {
    return g * (T(0.5) * ::erfc(x * T(-0.7071067811865476)) + x * ::exp(T(-0.5) * x * x) * T(0.3989422804014327));
  }
};

template <typename T>
struct GeluTanhBackwardOp {  // the derivative of 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
  __device__ T operator()(T g, T x) const {
    const T beta = T(0.7978845608028654), kappa = T(0.044715), x2 = x * x;
    const T t = ::tanh(beta * (x + kappa * x2 * x));
    return g * (T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * beta * (T(1) + T(3) * kappa * x2));
  }
};

template <typename T>
struct SoftplusBackwardOp {
  T beta, threshold;
  __device__ T operator()(T g, T x) const {
    const T z = ::exp(x * beta);
    return x * beta > threshold ? g : g * z / (z + T(1));
  }
};

template <typename T, bool is_result>
struct EluBackwardOp {
  T neg, pos, in;
  __device__ T operator()(T g, T x) const {
    if constexpr (is_result) return x <= T(0) ? g * in * (x + neg) : g * pos;
    else return x <= T(0) ? g * in * neg * ::exp(x * in) : g * pos;
  }
};

// f(grad_output, self) broadcast, in their promoted floating dtype; make(tag) gives the functor.
template <typename Make>
Tensor backward_op(const Tensor& grad_output, const Tensor& self, const char* op, Make make) {
  cuda::check_same_device(grad_output, self, op);
  const ScalarType t = result_type({&grad_output, &self});
  TCORE_CHECK_TYPE(is_floating(t), op, ": not implemented for '", to_string(t), "' (floating dtypes only)");
  const Tensor out = empty_on(broadcast_shapes(grad_output.sizes(), self.sizes()), t, cuda::device_of(grad_output, self));
  const ScalarType kernel = opmath_type(t);
  const cuda::BinaryTarget b = cuda::binary_target(out, grad_output, self, kernel, t, op);
  dispatch_floating(kernel, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::with_store_type<T>(b.target.dtype(), [&](auto store) {
      cuda::launch_binary<typename decltype(store)::type, T>(b.target, b.x, b.y, make(tag));
    });
  });
  return b.finish(out, op);
}

}  // namespace

TCORE_IMPL_FUNC(leaky_relu_out_cuda)(const Tensor& self, const Scalar& negative_slope, const Tensor& out) {
  activation_into(out, self, "leaky_relu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return LeakyReluOp<T>{negative_slope.to<T>()};
  });
}
TCORE_IMPL_FUNC(silu_out_cuda)(const Tensor& self, const Tensor& out) {
  activation_into(out, self, "silu", [](auto tag) { return SiluOp<typename decltype(tag)::type>{}; });
}
TCORE_IMPL_FUNC(softplus_out_cuda)(const Tensor& self, const Scalar& beta, const Scalar& threshold, const Tensor& out) {
  activation_into(out, self, "softplus", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return SoftplusOp<T>{beta.to<T>(), threshold.to<T>()};
  });
}
TCORE_IMPL_FUNC(elu_out_cuda)(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                              const Tensor& out) {
  activation_into(out, self, "elu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return EluOp<T>{alpha.to<T>() * scale.to<T>(), scale.to<T>(), input_scale.to<T>()};
  });
}

Tensor leaky_relu_backward_cuda(const Tensor& grad_output, const Tensor& self, const Scalar& negative_slope,
                                bool self_is_result) {
  check_leaky_relu_backward(self_is_result, negative_slope);
  return backward_op(grad_output, self, "leaky_relu_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return LeakyReluBackwardOp<T>{negative_slope.to<T>()};
  });
}
Tensor silu_backward_cuda(const Tensor& grad_output, const Tensor& self) {
  return backward_op(grad_output, self, "silu_backward",
                     [](auto tag) { return SiluBackwardOp<typename decltype(tag)::type>{}; });
}
Tensor gelu_backward_cuda(const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  check_gelu_approximate(approximate);
  if (approximate == "tanh") {
    return backward_op(grad_output, self, "gelu_backward",
                       [](auto tag) { return GeluTanhBackwardOp<typename decltype(tag)::type>{}; });
  }
  return backward_op(grad_output, self, "gelu_backward",
                     [](auto tag) { return GeluBackwardOp<typename decltype(tag)::type>{}; });
}
Tensor softplus_backward_cuda(const Tensor& grad_output, const Tensor& self, const Scalar& beta,
                              const Scalar& threshold) {
  return backward_op(grad_output, self, "softplus_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return SoftplusBackwardOp<T>{beta.to<T>(), threshold.to<T>()};
  });
}
Tensor elu_backward_cuda(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                         bool is_result, const Tensor& self_or_result) {
  check_elu_backward(is_result, alpha);
  const auto coefficients = [&](auto tag) {
    using T = typename decltype(tag)::type;
    return std::array<T, 3>{alpha.to<T>() * scale.to<T>(), scale.to<T>(), input_scale.to<T>()};
  };
  if (is_result) {
    return backward_op(grad_output, self_or_result, "elu_backward", [&](auto tag) {
      const auto c = coefficients(tag);
      return EluBackwardOp<typename decltype(tag)::type, true>{c[0], c[1], c[2]};
    });
  }
  return backward_op(grad_output, self_or_result, "elu_backward", [&](auto tag) {
    const auto c = coefficients(tag);
    return EluBackwardOp<typename decltype(tag)::type, false>{c[0], c[1], c[2]};
  });
}

}  // namespace tcore::native
