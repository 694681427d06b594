// where, threshold_backward, masked_fill, the logical and bitwise operators, pow, atan2, hypot, copysign,
// remainder, fmod and div with a rounding mode on CUDA devices, over the shared launcher (Loops.cuh), with the CPU
// kernels' rules (native/cpu/BinaryMath.cpp, BitwiseOps.cpp, CompareOps.cpp, DivModes.cpp,
// AdvancedIndex.cpp): operands computed in the promoted dtype (float16/bfloat16 in float32),
// broadcasting, out= and in-place forms, a Python number as a scalar operand, integer division
// by zero a ZeroDivisionError.
#include <cstring>
#include <type_traits>

#include <tcore/ops/any.h>
#include <tcore/ops/atan2_native.h>
#include <tcore/ops/copysign_native.h>
#include <tcore/ops/hypot_native.h>
#include <tcore/ops/bitwise_and_native.h>
#include <tcore/ops/bitwise_left_shift_native.h>
#include <tcore/ops/bitwise_not_native.h>
#include <tcore/ops/bitwise_or_native.h>
#include <tcore/ops/bitwise_right_shift_native.h>
#include <tcore/ops/bitwise_xor_native.h>
#include <tcore/ops/div.h>
#include <tcore/ops/div_native.h>
#include <tcore/ops/eq.h>
#include <tcore/ops/fmod_native.h>
#include <tcore/ops/logical_and_native.h>
#include <tcore/ops/logical_not_native.h>
#include <tcore/ops/logical_or_native.h>
#include <tcore/ops/logical_xor_native.h>
#include <tcore/ops/masked_fill_native.h>
#include <tcore/ops/pow_native.h>
#include <tcore/ops/remainder_native.h>
#include <tcore/ops/threshold_backward_native.h>
#include <tcore/ops/where_native.h>

#include "native/IntMath.h"
#include "native/TensorUtils.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace {



// ------------------------------------------------------------------ the device functions
template <typename T>
__device__ bool truthy(T v) {
  if constexpr (std::is_same_v<T, bool>) return v;
  else return v != T(0);
}

enum class Op { LogicalAnd, LogicalOr, LogicalXor, BitAnd, BitOr, BitXor, Lshift, Rshift, Pow, Atan2, Hypot, Copysign,
                Remainder, Fmod, DivTrunc, DivFloor };

constexpr Kinds kinds_of(Op op) {
  if (op == Op::LogicalAnd || op == Op::LogicalOr || op == Op::LogicalXor) return Kinds::All;
  if (op == Op::BitAnd || op == Op::BitOr || op == Op::BitXor || op == Op::Lshift || op == Op::Rshift)
    return Kinds::Integral;
  if (op == Op::Atan2 || op == Op::Hypot || op == Op::Copysign) return Kinds::Floating;
  return Kinds::Numeric;
}

template <typename T, Op op>
struct BinaryFn {
  __device__ auto operator()(T x, T y) const {
    if constexpr (op == Op::LogicalAnd) return truthy(x) && truthy(y);
    else if constexpr (op == Op::LogicalOr) return truthy(x) || truthy(y);
    else if constexpr (op == Op::LogicalXor) return truthy(x) != truthy(y);
    else if constexpr (op == Op::BitAnd) return static_cast<T>(x & y);
    else if constexpr (op == Op::BitOr) return static_cast<T>(x | y);
    else if constexpr (op == Op::BitXor) return static_cast<T>(x ^ y);
    else if constexpr (op == Op::Lshift) return shift_left(x, y);
    else if constexpr (op == Op::Rshift) return shift_right(x, y);
    else if constexpr (op == Op::Pow) {
      if constexpr (std::is_floating_point_v<T>) return static_cast<T>(::pow(x, y));
      else return int_pow<T>(x, y);
    } else if constexpr (op == Op::Atan2) return static_cast<T>(::atan2(x, y));
    else if constexpr (op == Op::Hypot) return static_cast<T>(::hypot(x, y));
    else if constexpr (op == Op::Copysign) return static_cast<T>(::copysign(x, y));
    else if constexpr (op == Op::Remainder) {  // Python's %: the sign of the divisor
      if constexpr (std::is_floating_point_v<T>) {
        T r = ::fmod(x, y);
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        return r;
      } else {
        return y == 0 ? T(0) : int_rem_floor(x, y);  // a zero divisor is refused before the launch
      }
    } else if constexpr (op == Op::Fmod) {  // C's fmod: the sign of the dividend
      if constexpr (std::is_floating_point_v<T>) return static_cast<T>(::fmod(x, y));
      else return y == 0 ? T(0) : int_rem_trunc(x, y);
    } else if constexpr (op == Op::DivTrunc) {
      if constexpr (std::is_floating_point_v<T>) return static_cast<T>(::trunc(x / y));
      else return y == 0 ? T(0) : int_div_trunc(x, y);
    } else {  // DivFloor: Python's //
      if constexpr (std::is_floating_point_v<T>) return float_floor_div(x, y);
      else return y == 0 ? T(0) : int_div_floor(x, y);
    }
  }
};

// Integer division by zero is an error, as on the CPU (one reduction on the device, read back).
void check_nonzero_divisor(const Tensor& divisor) {
  // (bool is refused by the dtype check after this: a TypeError, as on the CPU)
  if (is_floating(divisor.dtype()) || divisor.dtype() == ScalarType::Bool || divisor.numel() == 0) return;
  const Tensor zero = on_device(tcore::any(tcore::eq(divisor, Scalar(0))), Device());
  TCORE_CHECK_VALUE(!*zero.data_ptr<bool>(), "ZeroDivisionError");
}

// out = op(a, b) computed in `compute` with a result of dtype `result`.
template <Op op>
Tensor binary_into(const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute, ScalarType result,
                   const char* name) {
  const ScalarType kernel = opmath_type(compute);  // float16/bfloat16: float32, rounded on store
  const cuda::BinaryTarget t = cuda::binary_target(out, a, b, kernel, result, name);
  if constexpr (op == Op::Remainder || op == Op::Fmod || op == Op::DivTrunc || op == Op::DivFloor)
    check_nonzero_divisor(t.y);
  dispatch_dtype(kernel, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!accepts<T>(kinds_of(op))) {
      throw TypeError(detail::str_cat(name, ": not implemented for '", to_string(compute), "'",
                                      kinds_of(op) == Kinds::Integral   ? " (integral and bool dtypes only)"
                                      : kinds_of(op) == Kinds::Floating ? " (floating dtypes only)"
                                                                        : ""));
    } else {
      using R = decltype(BinaryFn<T, op>{}(T{}, T{}));
      if constexpr (std::is_same_v<R, bool>) {
        cuda::launch_binary<bool, T>(t.target, t.x, t.y, BinaryFn<T, op>{});
      } else {
        cuda::with_store_type<T>(t.target.dtype(), [&](auto store) {
          cuda::launch_binary<typename decltype(store)::type, T>(t.target, t.x, t.y, BinaryFn<T, op>{});
        });
      }
    }
  });
  return t.finish(out, name);
}

template <Op op>
Tensor binary_new(const Tensor& a, const Tensor& b, ScalarType compute, ScalarType result, const char* name) {
  cuda::check_same_device(a, b, name);
  const Tensor out = empty_on(broadcast_shapes(a.sizes(), b.sizes()), result, cuda::device_of(a, b));
  return binary_into<op>(out, a, b, compute, result, name);
}

template <Op op>
Tensor binary_inplace(const Tensor& self, const Tensor& other, ScalarType compute, const char* name) {
  const auto shape = broadcast_shapes(self.sizes(), other.sizes());
  TCORE_CHECK_VALUE(numel_of(shape) == self.numel() && shape.size() == self.sizes().size(), name,
                    ": output with shape ", shape_str(self.sizes()), " doesn't match the broadcast shape ",
                    shape_str(shape));
  return binary_into<op>(self, self, other, compute, compute, name);
}

// ------------------------------------------------------------------ where, threshold_backward, masked_fill
template <typename T>
struct SelectOp {
  __device__ T operator()(bool c, T x, T y) const { return c ? x : y; }
};

template <typename T>
struct ThresholdBackwardOp {
  T threshold;
  __device__ T operator()(T g, T v) const { return v <= threshold ? T(0) : g; }  // NaN: g, as torch's
};

template <typename T>
struct MaskedFillOp {
  T value;
  __device__ T operator()(bool m, T x, T) const { return m ? value : x; }
};

template <typename T>
struct NotOp {
  __device__ T operator()(T v) const {
    if constexpr (std::is_same_v<T, bool>) return !v;
    else return static_cast<T>(~v);
  }
};

template <typename T>
struct LogicalNotOp {
  __device__ bool operator()(T v) const { return !truthy(v); }
};

// where's device: the first operand's that is not a Python number (a CPU 0-dim tensor)
Device where_device(const Tensor& condition, const Tensor& self, const Tensor& other) {
  return self.device().is_cpu() ? (other.device().is_cpu() ? condition.device() : other.device()) : self.device();
}

std::vector<int64_t> where_shape(const Tensor& c, const Tensor& a, const Tensor& b) {
  return broadcast_shapes(c.sizes(), broadcast_shapes(a.sizes(), b.sizes()));
}

}  // namespace

Tensor where_out_cuda(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  check_where_condition(condition);
  cuda::check_same_device(self, other, "where");
  cuda::check_same_device(condition, self, "where");
  const Device device = where_device(condition, self, other);
  TCORE_CHECK(condition.device() == device || (condition.device().is_cpu() && condition.dim() == 0),
              "where: Expected all tensors to be on the same device, but found at least two devices, ",
              device.str(), " and ", condition.device().str(), "!");
  const ScalarType t = promoted(self, other);
  TCORE_CHECK_TYPE(can_cast(t, out.dtype()), "where: result type ", t, " can't be cast to the desired output type ",
                   out.dtype());
  TCORE_CHECK_VALUE(out.device() == device, "where: the out= tensor is on ", out.device().str(),
                    " but the inputs are on ", device.str());
  const std::vector<int64_t> shape = where_shape(condition, self, other);
  resize_output(out, shape);
  const ScalarType kernel = opmath_type(t);
  const Tensor c = cast(on_device(condition, device), ScalarType::Bool);
  const Tensor x = cast(on_device(self, device), kernel), y = cast(on_device(other, device), kernel);
  const bool direct = out.dtype() == t && !partially_overlaps(out, x) && !partially_overlaps(out, y) &&
                      !partially_overlaps(out, c);
  const Tensor target = direct ? out : empty_on(shape, t, device);
  dispatch_all_types(kernel, "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::with_store_type<T>(target.dtype(), [&](auto store) {
      cuda::launch_ternary<typename decltype(store)::type, bool, T, T>(target, c, x, y, SelectOp<T>{});
    });
  });
  if (!direct) write_result(out, target, "where");
  out.bump_version();
  return out;
}
Tensor where_cuda(const Tensor& condition, const Tensor& self, const Tensor& other) {
  check_where_condition(condition);
  const Device device = where_device(condition, self, other);
  return where_out_cuda(condition, self, other,
                        empty_on(where_shape(condition, self, other), promoted(self, other), device));
}

// grad where self > threshold, else 0 (the backward of relu and threshold).
Tensor threshold_backward_cuda(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  TCORE_CHECK_VALUE(grad_output.sizes().vec() == self.sizes().vec(),
                    "threshold_backward: grad_output and self must have the same shape");
  cuda::check_same_device(grad_output, self, "threshold_backward");
  const ScalarType t = grad_output.dtype();
  const ScalarType kernel = opmath_type(t);
  Tensor out = empty_on(self.sizes(), t, grad_output.device());
  const Tensor g = cast(grad_output, kernel), x = cast(self, kernel);
  dispatch_numeric(kernel, "threshold_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::with_store_type<T>(t, [&](auto store) {
      cuda::launch_binary<typename decltype(store)::type, T>(out, g, x, ThresholdBackwardOp<T>{threshold.to<T>()});
    });
  });
  return out;
}

Tensor masked_fill_cuda_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_masked_fill(self, mask);
  TCORE_CHECK(mask.device() == self.device() || (mask.device().is_cpu() && mask.dim() == 0),
              "masked_fill_: Expected all tensors to be on the same device, but found at least two devices, ",
              self.device().str(), " and ", mask.device().str(), "!");
  const Tensor m = on_device(mask, self.device());
  dispatch_all_types(self.dtype(), "masked_fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::launch_ternary<T, bool, T, T>(self, m, self, self, MaskedFillOp<T>{value.to<T>()});
  });
  self.bump_version();
  return self;
}
Tensor masked_fill_cuda_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return masked_fill_cuda_(self, mask, masked_fill_value(value));
}
Tensor masked_fill_cuda(const Tensor& self, const Tensor& mask, const Scalar& value) {
  Tensor out = empty_on(broadcast_shapes(self.sizes(), mask.sizes()), self.dtype(), self.device());
  copy_kernel(out, self);  // broadcast to the mask's shape
  return masked_fill_cuda_(out, mask, value);
}
Tensor masked_fill_cuda(const Tensor& self, const Tensor& mask, const Tensor& value) {
  Tensor out = empty_on(broadcast_shapes(self.sizes(), mask.sizes()), self.dtype(), self.device());
  copy_kernel(out, self);  // broadcast to the mask's shape
  return masked_fill_cuda_(out, mask, value);
}

// ------------------------------------------------------------------ logical (-> bool), bitwise
Tensor logical_and_cuda(const Tensor& self, const Tensor& other) {
  return binary_new<Op::LogicalAnd>(self, other, promoted(self, other), ScalarType::Bool, "logical_and");
}
Tensor logical_and_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_into<Op::LogicalAnd>(out, self, other, promoted(self, other), ScalarType::Bool, "logical_and");
}
Tensor logical_or_cuda(const Tensor& self, const Tensor& other) {
  return binary_new<Op::LogicalOr>(self, other, promoted(self, other), ScalarType::Bool, "logical_or");
}
Tensor logical_or_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_into<Op::LogicalOr>(out, self, other, promoted(self, other), ScalarType::Bool, "logical_or");
}
Tensor logical_xor_cuda(const Tensor& self, const Tensor& other) {
  return binary_new<Op::LogicalXor>(self, other, promoted(self, other), ScalarType::Bool, "logical_xor");
}
Tensor logical_xor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_into<Op::LogicalXor>(out, self, other, promoted(self, other), ScalarType::Bool, "logical_xor");
}
Tensor bitwise_left_shift_cuda(const Tensor& self, const Tensor& other) {
  const ScalarType t = integral_promoted(self, other, "lshift_cuda");
  return binary_new<Op::Lshift>(self, other, t, t, "bitwise_left_shift");
}
Tensor bitwise_left_shift_cuda_(const Tensor& self, const Tensor& other) {
  return binary_inplace<Op::Lshift>(self, other, integral_promoted(self, other, "lshift_cuda"), "bitwise_left_shift_");
}
Tensor bitwise_left_shift_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = integral_promoted(self, other, "lshift_cuda");
  return binary_into<Op::Lshift>(out, self, other, t, t, "bitwise_left_shift");
}
Tensor bitwise_right_shift_cuda(const Tensor& self, const Tensor& other) {
  const ScalarType t = integral_promoted(self, other, "rshift_cuda");
  return binary_new<Op::Rshift>(self, other, t, t, "bitwise_right_shift");
}
Tensor bitwise_right_shift_cuda_(const Tensor& self, const Tensor& other) {
  return binary_inplace<Op::Rshift>(self, other, integral_promoted(self, other, "rshift_cuda"), "bitwise_right_shift_");
}
Tensor bitwise_right_shift_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = integral_promoted(self, other, "rshift_cuda");
  return binary_into<Op::Rshift>(out, self, other, t, t, "bitwise_right_shift");
}

Tensor bitwise_and_cuda(const Tensor& self, const Tensor& other) {
  check_bitwise_operands(self, other, "bitwise_and");
  return binary_new<Op::BitAnd>(self, other, promoted(self, other), promoted(self, other), "bitwise_and");
}
Tensor bitwise_and_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  check_bitwise_operands(self, other, "bitwise_and");
  return binary_into<Op::BitAnd>(out, self, other, promoted(self, other), promoted(self, other), "bitwise_and");
}
Tensor bitwise_and_cuda_(const Tensor& self, const Tensor& other) {
  check_bitwise_operands(self, other, "bitwise_and_");
  return binary_inplace<Op::BitAnd>(self, other, promoted(self, other), "bitwise_and_");
}
Tensor bitwise_or_cuda(const Tensor& self, const Tensor& other) {
  check_bitwise_operands(self, other, "bitwise_or");
  return binary_new<Op::BitOr>(self, other, promoted(self, other), promoted(self, other), "bitwise_or");
}
Tensor bitwise_or_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  check_bitwise_operands(self, other, "bitwise_or");
  return binary_into<Op::BitOr>(out, self, other, promoted(self, other), promoted(self, other), "bitwise_or");
}
Tensor bitwise_or_cuda_(const Tensor& self, const Tensor& other) {
  check_bitwise_operands(self, other, "bitwise_or_");
  return binary_inplace<Op::BitOr>(self, other, promoted(self, other), "bitwise_or_");
}
Tensor bitwise_xor_cuda(const Tensor& self, const Tensor& other) {
  check_bitwise_operands(self, other, "bitwise_xor");
  return binary_new<Op::BitXor>(self, other, promoted(self, other), promoted(self, other), "bitwise_xor");
}
Tensor bitwise_xor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  check_bitwise_operands(self, other, "bitwise_xor");
  return binary_into<Op::BitXor>(out, self, other, promoted(self, other), promoted(self, other), "bitwise_xor");
}
Tensor bitwise_xor_cuda_(const Tensor& self, const Tensor& other) {
  check_bitwise_operands(self, other, "bitwise_xor_");
  return binary_inplace<Op::BitXor>(self, other, promoted(self, other), "bitwise_xor_");
}

Tensor logical_not_out_cuda(const Tensor& self, const Tensor& out) {
  TCORE_CHECK_VALUE(out.device() == self.device(), "logical_not: the out= tensor is on ", out.device().str(),
                    " but the input is on ", self.device().str());
  resize_output(out, self.sizes());
  const Tensor x = cast(self, opmath_type(self.dtype()));
  const bool direct = out.dtype() == ScalarType::Bool && !partially_overlaps(out, x);
  const Tensor target = direct ? out : empty_on(self.sizes(), ScalarType::Bool, self.device());
  dispatch_all_types(x.dtype(), "logical_not", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::launch_unary<bool, T>(target, x, LogicalNotOp<T>{});
  });
  if (!direct) write_result(out, target, "logical_not");
  out.bump_version();
  return out;
}
Tensor logical_not_cuda(const Tensor& self) {
  return logical_not_out_cuda(self, empty_on(self.sizes(), ScalarType::Bool, self.device()));
}

Tensor bitwise_not_out_cuda(const Tensor& self, const Tensor& out) {
  TCORE_CHECK_TYPE(!is_floating(self.dtype()), "bitwise_not: not implemented for '", to_string(self.dtype()),
                   "' (integral and bool dtypes only)");
  TCORE_CHECK_VALUE(out.device() == self.device(), "bitwise_not: the out= tensor is on ", out.device().str(),
                    " but the input is on ", self.device().str());
  resize_output(out, self.sizes());
  const bool direct = out.dtype() == self.dtype() && !partially_overlaps(out, self);
  const Tensor target = direct ? out : empty_on(self.sizes(), self.dtype(), self.device());
  dispatch_dtype(self.dtype(), "bitwise_not", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) cuda::launch_unary<T, T>(target, self, NotOp<T>{});
  });
  if (!direct) write_result(out, target, "bitwise_not");
  out.bump_version();
  return out;
}
Tensor bitwise_not_cuda(const Tensor& self) {
  return bitwise_not_out_cuda(self, empty_on(self.sizes(), self.dtype(), self.device()));
}

// ------------------------------------------------------------------ pow, atan2, remainder, fmod
namespace {
ScalarType same(ScalarType t) { return t; }
}  // namespace

Tensor pow_cuda(const Tensor& self, const Tensor& other) {
  const ScalarType t = same(promoted(self, other));
  return binary_new<Op::Pow>(self, other, t, t, "pow");
}
Tensor pow_cuda_(const Tensor& self, const Tensor& other) {
  return binary_inplace<Op::Pow>(self, other, same(promoted(self, other)), "pow_");
}
Tensor pow_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = same(promoted(self, other));
  return binary_into<Op::Pow>(out, self, other, t, t, "pow");
}
Tensor atan2_cuda(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_new<Op::Atan2>(self, other, t, t, "atan2");
}
Tensor atan2_cuda_(const Tensor& self, const Tensor& other) {
  return binary_inplace<Op::Atan2>(self, other, floating_of(promoted(self, other)), "atan2_");
}
Tensor atan2_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_into<Op::Atan2>(out, self, other, t, t, "atan2");
}
Tensor hypot_cuda(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_promoted(self, other, "hypot_cuda");
  return binary_new<Op::Hypot>(self, other, t, t, "hypot");
}
Tensor hypot_cuda_(const Tensor& self, const Tensor& other) {
  return binary_inplace<Op::Hypot>(self, other, floating_promoted(self, other, "hypot_cuda"), "hypot_");
}
Tensor hypot_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = floating_promoted(self, other, "hypot_cuda");
  return binary_into<Op::Hypot>(out, self, other, t, t, "hypot");
}
Tensor copysign_cuda(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_new<Op::Copysign>(self, other, t, t, "copysign");
}
Tensor copysign_cuda_(const Tensor& self, const Tensor& other) {
  return binary_inplace<Op::Copysign>(self, other, floating_of(promoted(self, other)), "copysign_");
}
Tensor copysign_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_into<Op::Copysign>(out, self, other, t, t, "copysign");
}
Tensor remainder_cuda(const Tensor& self, const Tensor& other) {
  const ScalarType t = same(promoted(self, other));
  return binary_new<Op::Remainder>(self, other, t, t, "remainder");
}
Tensor remainder_cuda_(const Tensor& self, const Tensor& other) {
  return binary_inplace<Op::Remainder>(self, other, same(promoted(self, other)), "remainder_");
}
Tensor remainder_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = same(promoted(self, other));
  return binary_into<Op::Remainder>(out, self, other, t, t, "remainder");
}
Tensor fmod_cuda(const Tensor& self, const Tensor& other) {
  const ScalarType t = same(promoted(self, other));
  return binary_new<Op::Fmod>(self, other, t, t, "fmod");
}
Tensor fmod_cuda_(const Tensor& self, const Tensor& other) {
  return binary_inplace<Op::Fmod>(self, other, same(promoted(self, other)), "fmod_");
}
Tensor fmod_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = same(promoted(self, other));
  return binary_into<Op::Fmod>(out, self, other, t, t, "fmod");
}


// div with rounding_mode: "trunc" and "floor" keep integers integers; none is true division.

Tensor div_mode_cuda(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  const RoundingMode r = rounding_mode_of(rounding_mode);
  if (r == RoundingMode::True) return tcore::div(self, other);
  const ScalarType t = promoted(self, other);
  return r == RoundingMode::Trunc ? binary_new<Op::DivTrunc>(self, other, t, t, "div")
                              : binary_new<Op::DivFloor>(self, other, t, t, "div");
}
Tensor div_mode_out_cuda(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                         const Tensor& out) {
  const RoundingMode r = rounding_mode_of(rounding_mode);
  if (r == RoundingMode::True) return tcore::div_out(out, self, other);
  const ScalarType t = promoted(self, other);
  return r == RoundingMode::Trunc ? binary_into<Op::DivTrunc>(out, self, other, t, t, "div")
                              : binary_into<Op::DivFloor>(out, self, other, t, t, "div");
}
Tensor div_mode_cuda_(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  const RoundingMode r = rounding_mode_of(rounding_mode);
  if (r == RoundingMode::True) return tcore::div_(self, other);
  const ScalarType t = promoted(self, other);
  return r == RoundingMode::Trunc ? binary_inplace<Op::DivTrunc>(self, other, t, "div_")
                              : binary_inplace<Op::DivFloor>(self, other, t, "div_");
}

}  // namespace tcore::native
