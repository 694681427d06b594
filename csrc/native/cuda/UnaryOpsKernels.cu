// neg, relu, abs (keep the dtype) and exp, log, sqrt, rsqrt, tanh, sigmoid, sin, cos, log1p,
// expm1, reciprocal (integer inputs compute in the default float dtype) on CUDA devices:
// the out= kernels of the structured operators (their functional and in-place forms are
// generated), and relu's functional and in-place forms.
#include <type_traits>

#include <tcore/ops/abs_native.h>
#include <tcore/ops/cos_native.h>
#include <tcore/ops/exp_native.h>
#include <tcore/ops/expm1_native.h>
#include <tcore/ops/log1p_native.h>
#include <tcore/ops/log_native.h>
#include <tcore/ops/neg_native.h>
#include <tcore/ops/reciprocal_native.h>
#include <tcore/ops/relu_native.h>
#include <tcore/ops/rsqrt_native.h>
#include <tcore/ops/sigmoid_native.h>
#include <tcore/ops/sin_native.h>
#include <tcore/ops/sqrt_native.h>
#include <tcore/ops/tanh_native.h>

#include "native/TensorUtils.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {

enum class Kind { Neg, Relu, Abs, Exp, Log, Sqrt, Rsqrt, Tanh, Sigmoid, Sin, Cos, Log1p, Expm1, Reciprocal };

template <typename T, Kind kind>
struct UnaryOp {
  __device__ T operator()(T x) const {
    if constexpr (kind == Kind::Neg) return static_cast<T>(-x);
    else if constexpr (kind == Kind::Relu) return !(x <= T(0)) ? x : T(0);  // NaN stays NaN
    else if constexpr (kind == Kind::Abs) {
      if constexpr (std::is_unsigned_v<T>) return x;
      else return x < T(0) ? static_cast<T>(-x) : x;
    }
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
    else return T(1) / (T(1) + ::exp(-x));
  }
};

constexpr bool floating_kind(Kind k) { return k != Kind::Neg && k != Kind::Relu && k != Kind::Abs; }

// The floating functions compute integer inputs in the default float dtype.
template <Kind kind>
ScalarType compute_type(const Tensor& self) {
  return floating_kind(kind) && !is_floating(self.dtype()) ? default_float_dtype() : self.dtype();
}

template <Kind kind>
Tensor unary_into(const Tensor& out, const Tensor& self, const char* op) {
  const ScalarType compute = compute_type<kind>(self);
  TCORE_CHECK_TYPE(can_cast(compute, out.dtype()), op, ": result type ", compute,
                   " can't be cast to the desired output type ", out.dtype());
  TCORE_CHECK_VALUE(out.device() == self.device(), op, ": the out= tensor is on ", out.device().str(),
                    " but the input is on ", self.device().str());
  resize_output(out, self.sizes());
  const ScalarType kernel = cuda::kernel_compute_type(compute);  // float16/bfloat16 in float32
  const Tensor x = cast(self, kernel);
  const bool direct = out.dtype() == compute && !partially_overlaps(out, x);
  const Tensor target = direct ? out : empty_on(self.sizes(), compute, self.device());
  const auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::with_store_type<T>(target.dtype(), [&](auto store) {
      cuda::launch_unary<typename decltype(store)::type, T>(target, x, UnaryOp<T, kind>{});
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
TCORE_IMPL_FUNC(reciprocal_out_cuda)(const Tensor& self, const Tensor& out) { unary_into<Kind::Reciprocal>(out, self, "reciprocal"); }

Tensor relu_cuda(const Tensor& self) { return functional<Kind::Relu>(self, "relu"); }
Tensor relu_cuda_(const Tensor& self) { return unary_into<Kind::Relu>(self, self, "relu_"); }

}  // namespace tcore::native
