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

// float16/bfloat16 operands of out's shape and dtype (or a second operand of one element, of any
// dtype, as h * 2), all contiguous, out apart from them or the first of them (in place): blocks of 1024
// converted to float32 in L1, computed, rounded into out (float32 temporaries of the whole
// tensors made a float16 add 6x torch's). False when the case does not apply.
// (Only for kinds that take float: the general path says why the others fail.)
template <typename Make>
bool reduced_float_in_blocks(const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute, Make make,
                             ScalarOperand scalar) {
  const bool scalar_b = b.numel() == 1 && b.dim() <= out.dim();
  if (out.dtype() != compute || a.dtype() != compute || !(scalar_b || b.dtype() == compute) || !out.is_contiguous() ||
      !a.is_contiguous() || !(b.is_contiguous() || scalar_b) || a.sizes().vec() != out.sizes().vec() ||
      !(scalar_b || b.sizes().vec() == out.sizes().vec()) || out.numel() == 0)
    return false;
  // in place (out is a, or b) or apart; a one-element b is read before anything is written
  const auto apart = [&](const Tensor& t) { return out.is_same(t) || !out.storage().is_alias_of(t.storage()); };
  if (!apart(a) || !(scalar_b || apart(b))) return false;
  const auto f = make(type_tag<float>{});
  const int64_t n = out.numel();
  constexpr int64_t kBlock = 1024;
  dispatch_reduced_float(compute, [&](auto tag) {
    using H = typename decltype(tag)::type;
    const H* pa = static_cast<const H*>(a.data_ptr());
    const H* pb = static_cast<const H*>(b.data_ptr());
    H* po = static_cast<H*>(out.data_ptr());
    // a one-element b in float32 as the general path takes it (rounded to the compute dtype first
    // unless `scalar` says AsIs)
    const Tensor b_in = scalar == ScalarOperand::AsIs ? b : cast(b, compute);
    const float yb = scalar_b ? *cast(b_in, ScalarType::Float).template data_ptr<float>() : 0.0f;
    parallel_for(0, (n + kBlock - 1) / kBlock, std::max<int64_t>(1, kGrainSize / kBlock), [&](int64_t first, int64_t last) {
      float x[kBlock], y[kBlock], r[kBlock];
      for (int64_t blk = first; blk < last; ++blk) {
        const int64_t i0 = blk * kBlock, len = std::min(kBlock, n - i0);
        convert_run<float, H>(x, pa + i0, len);
        if (scalar_b) {
          for (int64_t j = 0; j < len; ++j) r[j] = static_cast<float>(f(x[j], yb));
        } else {
          convert_run<float, H>(y, pb + i0, len);
          for (int64_t j = 0; j < len; ++j) r[j] = static_cast<float>(f(x[j], y[j]));
        }
        convert_run<H, float>(po + i0, r, len);
      }
    });
  });
  out.bump_version();
  return true;
}

// out = f(x, y) with x, y cast to `compute` and the result of type `result`; `make(tag)` gives f.
template <Kinds kinds, typename Make>
Tensor binary_op_into(const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute, ScalarType result,
                      const char* op, Make make, ScalarOperand scalar = ScalarOperand::Rounded) {
  const std::vector<int64_t> shape = broadcast_shapes(a.sizes(), b.sizes());
  TCORE_CHECK_TYPE(can_cast(result, out.dtype()), op, ": result type ", result,
                   " can't be cast to the desired output type ", out.dtype());
  if constexpr (accepts<float>(kinds)) {
    if (is_reduced_float(compute) && result == compute && reduced_float_in_blocks(out, a, b, compute, make, scalar))
      return out;
  }
  resize_elementwise_output(out, shape, {&a, &b});
  if (is_reduced_float(compute)) {  // float16/bfloat16: computed in float32, rounded on store
    // each operand first in the compute dtype, as torch's TensorIterator casts its inputs to the
    // common dtype: a Python number or an integer tensor is rounded to it (x == 0.7 holds for
    // x = bfloat16(0.7), whose value is 0.69921875); a one-element b kept AsIs where asked
    const Tensor ra = cast(a, compute);
    const Tensor rb = scalar == ScalarOperand::AsIs && b.numel() == 1 ? b : cast(b, compute);
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

inline ScalarType promoted(const Tensor& a, const Tensor& b) { return result_type({&a, &b}); }
inline ScalarType floating_of(ScalarType t) { return is_floating(t) ? t : default_float_dtype(); }

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
