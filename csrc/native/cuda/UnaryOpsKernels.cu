// neg, relu (keep the dtype) and exp, log, sqrt, tanh, sigmoid (integer inputs compute in
// float32) on CUDA devices: functional, in-place and out= forms.
#include <tcore/ops/exp_native.h>
#include <tcore/ops/log_native.h>
#include <tcore/ops/neg_native.h>
#include <tcore/ops/relu_native.h>
#include <tcore/ops/sigmoid_native.h>
#include <tcore/ops/sqrt_native.h>
#include <tcore/ops/tanh_native.h>

#include "native/TensorUtils.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {

enum class Kind { Neg, Relu, Exp, Log, Sqrt, Tanh, Sigmoid };

template <typename T, Kind kind>
struct UnaryOp {
  __device__ T operator()(T x) const {
    if constexpr (kind == Kind::Neg) return static_cast<T>(-x);
    else if constexpr (kind == Kind::Relu) return x > T(0) ? x : T(0);
    else if constexpr (kind == Kind::Exp) return ::exp(x);
    else if constexpr (kind == Kind::Log) return ::log(x);
    else if constexpr (kind == Kind::Sqrt) return ::sqrt(x);
    else if constexpr (kind == Kind::Tanh) return ::tanh(x);
    else return T(1) / (T(1) + ::exp(-x));
  }
};

constexpr bool floating_kind(Kind k) { return k != Kind::Neg && k != Kind::Relu; }

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
Tensor sigmoid_out_cuda(const Tensor& self, const Tensor& out) { return unary_into<Kind::Sigmoid>(out, self, "sigmoid"); }

Tensor relu_cuda(const Tensor& self) { return functional<Kind::Relu>(self, "relu"); }
Tensor relu_cuda_(const Tensor& self) { return unary_into<Kind::Relu>(self, self, "relu_"); }

}  // namespace tcore::native
