// neg, relu, abs (keep the dtype) and exp, log, sqrt, rsqrt, tanh, sigmoid, sin, cos, log1p,
// expm1, reciprocal (integer inputs compute in the default float dtype) on CUDA devices:
// functional, in-place and out= forms.
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
  const Tensor x = cast(self, compute);
  const bool direct = out.dtype() == compute && !partially_overlaps(out, x);
  const Tensor target = direct ? out : empty_on(self.sizes(), compute, self.device());
  if constexpr (floating_kind(kind)) {
    dispatch_floating(compute, op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      cuda::launch_unary<T, T>(target, x, UnaryOp<T, kind>{});
    });
  } else {
    dispatch_numeric(compute, op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      cuda::launch_unary<T, T>(target, x, UnaryOp<T, kind>{});
    });
  }
  if (!direct) write_result(out, target, op);
  out.bump_version();
  return out;
}

template <Kind kind>
Tensor functional(const Tensor& self, const char* op) {
  return unary_into<kind>(empty_on(self.sizes(), compute_type<kind>(self), self.device()), self, op);
}

}  // namespace

Tensor neg_cuda(const Tensor& self) { return functional<Kind::Neg>(self, "neg"); }
Tensor neg_cuda_(const Tensor& self) { return unary_into<Kind::Neg>(self, self, "neg_"); }
Tensor neg_out_cuda(const Tensor& self, const Tensor& out) { return unary_into<Kind::Neg>(out, self, "neg"); }

Tensor exp_cuda(const Tensor& self) { return functional<Kind::Exp>(self, "exp"); }
Tensor exp_cuda_(const Tensor& self) { return unary_into<Kind::Exp>(self, self, "exp_"); }
Tensor exp_out_cuda(const Tensor& self, const Tensor& out) { return unary_into<Kind::Exp>(out, self, "exp"); }

Tensor log_cuda(const Tensor& self) { return functional<Kind::Log>(self, "log"); }
Tensor log_cuda_(const Tensor& self) { return unary_into<Kind::Log>(self, self, "log_"); }
Tensor log_out_cuda(const Tensor& self, const Tensor& out) { return unary_into<Kind::Log>(out, self, "log"); }

Tensor sqrt_cuda(const Tensor& self) { return functional<Kind::Sqrt>(self, "sqrt"); }
Tensor sqrt_cuda_(const Tensor& self) { return unary_into<Kind::Sqrt>(self, self, "sqrt_"); }
Tensor sqrt_out_cuda(const Tensor& self, const Tensor& out) { return unary_into<Kind::Sqrt>(out, self, "sqrt"); }

Tensor tanh_cuda(const Tensor& self) { return functional<Kind::Tanh>(self, "tanh"); }
Tensor tanh_cuda_(const Tensor& self) { return unary_into<Kind::Tanh>(self, self, "tanh_"); }
Tensor tanh_out_cuda(const Tensor& self, const Tensor& out) { return unary_into<Kind::Tanh>(out, self, "tanh"); }

Tensor sigmoid_cuda(const Tensor& self) { return functional<Kind::Sigmoid>(self, "sigmoid"); }
Tensor sigmoid_cuda_(const Tensor& self) { return unary_into<Kind::Sigmoid>(self, self, "sigmoid_"); }
Tensor sigmoid_out_cuda(const Tensor& self, const Tensor& out) {
  return unary_into<Kind::Sigmoid>(out, self, "sigmoid");
}

Tensor abs_cuda(const Tensor& self) { return functional<Kind::Abs>(self, "abs"); }
Tensor abs_cuda_(const Tensor& self) { return unary_into<Kind::Abs>(self, self, "abs_"); }
Tensor abs_out_cuda(const Tensor& self, const Tensor& out) { return unary_into<Kind::Abs>(out, self, "abs"); }

Tensor rsqrt_cuda(const Tensor& self) { return functional<Kind::Rsqrt>(self, "rsqrt"); }
Tensor rsqrt_cuda_(const Tensor& self) { return unary_into<Kind::Rsqrt>(self, self, "rsqrt_"); }
Tensor rsqrt_out_cuda(const Tensor& self, const Tensor& out) { return unary_into<Kind::Rsqrt>(out, self, "rsqrt"); }

Tensor sin_cuda(const Tensor& self) { return functional<Kind::Sin>(self, "sin"); }
Tensor sin_cuda_(const Tensor& self) { return unary_into<Kind::Sin>(self, self, "sin_"); }
Tensor sin_out_cuda(const Tensor& self, const Tensor& out) { return unary_into<Kind::Sin>(out, self, "sin"); }

Tensor cos_cuda(const Tensor& self) { return functional<Kind::Cos>(self, "cos"); }
Tensor cos_cuda_(const Tensor& self) { return unary_into<Kind::Cos>(self, self, "cos_"); }
Tensor cos_out_cuda(const Tensor& self, const Tensor& out) { return unary_into<Kind::Cos>(out, self, "cos"); }

Tensor log1p_cuda(const Tensor& self) { return functional<Kind::Log1p>(self, "log1p"); }
Tensor log1p_cuda_(const Tensor& self) { return unary_into<Kind::Log1p>(self, self, "log1p_"); }
Tensor log1p_out_cuda(const Tensor& self, const Tensor& out) { return unary_into<Kind::Log1p>(out, self, "log1p"); }

Tensor expm1_cuda(const Tensor& self) { return functional<Kind::Expm1>(self, "expm1"); }
Tensor expm1_cuda_(const Tensor& self) { return unary_into<Kind::Expm1>(self, self, "expm1_"); }
Tensor expm1_out_cuda(const Tensor& self, const Tensor& out) { return unary_into<Kind::Expm1>(out, self, "expm1"); }

Tensor reciprocal_cuda(const Tensor& self) { return functional<Kind::Reciprocal>(self, "reciprocal"); }
Tensor reciprocal_cuda_(const Tensor& self) { return unary_into<Kind::Reciprocal>(self, self, "reciprocal_"); }
Tensor reciprocal_out_cuda(const Tensor& self, const Tensor& out) {
  return unary_into<Kind::Reciprocal>(out, self, "reciprocal");
}

Tensor relu_cuda(const Tensor& self) { return functional<Kind::Relu>(self, "relu"); }
Tensor relu_cuda_(const Tensor& self) { return unary_into<Kind::Relu>(self, self, "relu_"); }

}  // namespace tcore::native
