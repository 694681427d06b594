// neg, exp, log, relu: functional, in-place and out= overloads.
#include <cmath>

#include <tcore/ops/exp_native.h>
#include <tcore/ops/log_native.h>
#include <tcore/ops/neg_native.h>
#include <tcore/ops/relu_native.h>
#include <tcore/ops/threshold_backward_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Loops.h"

namespace tcore::native {
namespace {

template <typename Make>
Tensor unary_into(const Tensor& out, const Tensor& self, ScalarType compute, const char* op, Make make) {
  TCORE_CHECK_TYPE(can_cast(compute, out.dtype()), op, ": result type ", compute,
                   " can't be cast to the desired output type ", out.dtype());
  resize_output(out, self.sizes());
  const Tensor x = cast(self, compute);
  const bool direct = out.dtype() == compute && !partially_overlaps(out, x);
  const Tensor target = direct ? out : empty_cpu(self.sizes(), compute);
  make(compute, target, x);
  if (!direct) write_result(out, target, op);
  out.bump_version();
  return out;
}

// Floating functions (exp, log): integer inputs compute in the default float dtype.
ScalarType float_type(const Tensor& t) { return is_floating(t.dtype()) ? t.dtype() : default_float_dtype(); }

template <typename F>
auto floating(const char* op, F f) {
  return [op, f](ScalarType compute, const Tensor& out, const Tensor& x) {
    dispatch_floating(compute, op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      unary_loop<T, T>(out, x, [f](T v) { return static_cast<T>(f(v)); });
    });
  };
}

auto exp_fn = floating("exp", [](auto v) { return std::exp(v); });
auto log_fn = floating("log", [](auto v) { return std::log(v); });

void neg_fn(ScalarType compute, const Tensor& out, const Tensor& x) {
  TCORE_CHECK_TYPE(compute != ScalarType::Bool,
                   "Negation, the `-` operator, on a bool tensor is not supported. "
                   "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  dispatch_numeric(compute, "neg", [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_loop<T, T>(out, x, [](T v) { return static_cast<T>(-v); });
  });
}

void relu_fn(ScalarType compute, const Tensor& out, const Tensor& x) {
  dispatch_numeric(compute, "relu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_loop<T, T>(out, x, [](T v) { return v > T(0) ? v : T(0); });
  });
}

Tensor unary(const Tensor& self, ScalarType compute, const char* op, void (*fn)(ScalarType, const Tensor&, const Tensor&)) {
  return unary_into(empty_cpu(self.sizes(), compute), self, compute, op, fn);
}

template <typename Fn>
Tensor unary_inplace(const Tensor& self, ScalarType compute, const char* op, Fn fn) {
  return unary_into(self, self, compute, op, fn);
}

}  // namespace

Tensor neg(const Tensor& self) { return unary(self, self.dtype(), "neg", neg_fn); }
Tensor neg_(const Tensor& self) { return unary_inplace(self, self.dtype(), "neg_", neg_fn); }
Tensor neg_out(const Tensor& self, const Tensor& out) { return unary_into(out, self, self.dtype(), "neg", neg_fn); }

Tensor exp(const Tensor& self) { return unary_into(empty_cpu(self.sizes(), float_type(self)), self, float_type(self), "exp", exp_fn); }
Tensor exp_(const Tensor& self) { return unary_inplace(self, float_type(self), "exp_", exp_fn); }
Tensor exp_out(const Tensor& self, const Tensor& out) { return unary_into(out, self, float_type(self), "exp", exp_fn); }

Tensor log(const Tensor& self) { return unary_into(empty_cpu(self.sizes(), float_type(self)), self, float_type(self), "log", log_fn); }
Tensor log_(const Tensor& self) { return unary_inplace(self, float_type(self), "log_", log_fn); }
Tensor log_out(const Tensor& self, const Tensor& out) { return unary_into(out, self, float_type(self), "log", log_fn); }

Tensor relu(const Tensor& self) { return unary(self, self.dtype(), "relu", relu_fn); }
Tensor relu_(const Tensor& self) { return unary_inplace(self, self.dtype(), "relu_", relu_fn); }

// grad where self > threshold, else 0 (the backward of relu and threshold).
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  const ScalarType t = grad_output.dtype();
  TCORE_CHECK_VALUE(grad_output.sizes().size() == self.sizes().size() &&
                        std::equal(self.sizes().begin(), self.sizes().end(), grad_output.sizes().begin()),
                    "threshold_backward: grad_output and self must have the same shape");
  Tensor out = empty_cpu(self.sizes(), t);
  const Tensor x = cast(self, t);
  dispatch_numeric(t, "threshold_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T th = threshold.to<T>();
    binary_loop<T>(out, grad_output, x, [th](T g, T v) { return v > th ? g : T(0); });
  });
  return out;
}

}  // namespace tcore::native
