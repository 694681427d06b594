#pragma once
// The binary kernels' shared machinery (BinaryOps.cpp, CompareOps.cpp, BitwiseOps.cpp, BinaryMath.cpp):
// inputs cast to the compute dtype, the result of a given dtype, out= and in-place handling.
#include "tcore/core/CPUCapability.h"
#include <cmath>
#include <type_traits>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Loops.h"
#include "native/cpu/Parallel.h"
#include "native/cpu/ReducedFloatLoops.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {
namespace binary {


using native::Kinds;  // native/TensorUtils.h
using native::accepts;

// How a one-element second operand meets float16/bfloat16 operands: rounded to the compute dtype
// first, as torch's TensorIterator casts its inputs to the common dtype (add, sub, comparisons,
// fmod...: x - 0.7 is 0 for x = bfloat16(0.7)), or at its own precision, as torch's mul and div
// read such an operand as a float32 scalar.
enum class ScalarOperand { Rounded, AsIs };

// out = f(x, y) with x, y cast to `compute` and the result of type `result`; `make(tag)` gives f.
template <Kinds kinds, typename Make>
Tensor binary_op_into(const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute, ScalarType result,
                      const char* op, Make make, ScalarOperand scalar = ScalarOperand::Rounded) {
  const std::vector<int64_t> shape = broadcast_shapes(a.sizes(), b.sizes());
  TCORE_CHECK_TYPE(can_cast(result, out.dtype()), op, ": result type ", result,
                   " can't be cast to the desired output type ", out.dtype());
  resize_elementwise_output(out, shape, {&a, &b});
  assert_no_partial_overlap(out, a);  // (torch's TensorIterator check, for in-place and out= alike)
  assert_no_partial_overlap(out, b);
  if (is_reduced_float(compute)) {  // float16/bfloat16: computed in float32, rounded on store
    // each operand first in the compute dtype, as torch's TensorIterator casts its inputs to the
    // common dtype: a Python number or an integer tensor is rounded to it (x == 0.7 holds for
    // x = bfloat16(0.7), whose value is 0.69921875); a one-element b kept AsIs where asked (read
    // as float32, as torch's mul and div read such an operand)
    const Tensor ra = cast(a, compute);
    const bool as_is = scalar == ScalarOperand::AsIs && b.numel() == 1;
    const Tensor rb = as_is ? cast(b, ScalarType::Float) : cast(b, compute);
    if constexpr (accepts<float>(kinds)) {
      // in float32 chunks of the loop's runs (ReducedFloatLoops.h)
      const auto f = make(type_tag<float>{});
      using Result = decltype(f(0.0f, 0.0f));  // bool for the comparisons
      constexpr bool to_bool = std::is_same_v<Result, bool>;
      if (result == (to_bool ? ScalarType::Bool : compute) && out.dtype() == result && !partially_overlaps(out, ra) &&
          !partially_overlaps(out, rb)) {
        dispatch_reduced_float(compute, [&](auto tag) {
          using H = typename decltype(tag)::type;
          using Out = std::conditional_t<to_bool, bool, H>;
          if (as_is) {
            reduced_float_binary_loop<H, float, Out>(out, ra, rb, f);
          } else {
            reduced_float_binary_loop<H, H, Out>(out, ra, rb, f);
          }
        });
        out.bump_version();
        return out;
      }
    }
    const ScalarType wide = result == compute ? ScalarType::Float : result;
    const Tensor tmp = binary_op_into<kinds>(empty_output(shape, wide, {&out}), ra, rb, ScalarType::Float, wide, op, make);
    write_result(out, tmp, op);
    out.bump_version();
    return out;
  }
  const Tensor x = cast(a, compute), y = cast(b, compute);
  const bool direct = out.dtype() == result && !partially_overlaps(out, x) && !partially_overlaps(out, y);
  const Tensor target = direct ? out : empty_output(shape, result, {&out});
  dispatch_dtype(compute, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (accepts<T>(kinds)) {
      auto f = make(tag);
      using R = decltype(f(T{}, T{}));
      binary_loop_to<R, T>(target, x, y, f);
    } else {
      throw TypeError(detail::str_cat(op, ": not implemented for '", to_string(compute), "'",
                                      kinds == Kinds::Integral   ? " (integral and bool dtypes only)"
                                      : kinds == Kinds::Floating ? " (floating dtypes only)"
                                                                 : ""));
    }
  });
  if (!direct) write_result(out, target, op);
  out.bump_version();
  return out;
}

template <Kinds kinds, typename Make>
Tensor binary_op(const Tensor& a, const Tensor& b, ScalarType compute, ScalarType result, const char* op, Make make,
                 ScalarOperand scalar = ScalarOperand::Rounded) {
  const std::vector<int64_t> shape = broadcast_shapes(a.sizes(), b.sizes());
  return binary_op_into<kinds>(empty_output(shape, result, {&a, &b}), a, b, compute, result, op, make, scalar);
}

// An in-place op's self is its output: other must broadcast to self's shape.
inline void check_inplace_shape(const Tensor& self, const Tensor& other, const char* op) {
  const auto shape = broadcast_shapes(self.sizes(), other.sizes());
  TCORE_CHECK_VALUE(numel_of(shape) == self.numel() && shape.size() == self.sizes().size(), op,
                    ": output with shape ", shape_str(self.sizes()), " doesn't match the broadcast shape ",
                    shape_str(shape));
}

template <Kinds kinds, typename Make>
Tensor binary_op_inplace(const Tensor& self, const Tensor& other, ScalarType compute, ScalarType result,
                         const char* op, Make make, ScalarOperand scalar = ScalarOperand::Rounded) {
  check_inplace_shape(self, other, op);
  return binary_op_into<kinds>(self, self, other, compute, result, op, make, scalar);
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}


// A function object for every compute type T: __VA_ARGS__ over x and y of type T.
#define TCORE_BINARY_FN(name, ...)                 \
  inline auto name() {                             \
    return [](auto tag) {                          \
      using T = typename decltype(tag)::type;      \
      return [](T x, T y) { return __VA_ARGS__; }; \
    };                                             \
  }

}  // namespace binary
}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
