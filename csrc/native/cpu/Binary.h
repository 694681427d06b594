#pragma once
// The binary kernels' shared machinery (BinaryOps.cpp, CompareOps.cpp, BitwiseOps.cpp, BinaryMath.cpp):
// inputs cast to the compute dtype, the result of a given dtype, out= and in-place handling.
#include "tcore/core/CPUCapability.h"
#include <cmath>
#include <type_traits>

#include "native/TensorUtils.h"
#include "native/cpu/Loops.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {
namespace binary {


using native::Kinds;  // native/TensorUtils.h
using native::accepts;

// out = f(x, y) with x, y cast to `compute` and the result of type `result`; `make(tag)` gives f.
template <Kinds kinds, typename Make>
Tensor binary_op_into(const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute, ScalarType result,
                      const char* op, Make make) {
  const std::vector<int64_t> shape = broadcast_shapes(a.sizes(), b.sizes());
  TCORE_CHECK_TYPE(can_cast(result, out.dtype()), op, ": result type ", result,
                   " can't be cast to the desired output type ", out.dtype());
  if (is_reduced_float(compute)) {  // float16/bfloat16: computed in float32, rounded on store
    const ScalarType wide = result == compute ? ScalarType::Float : result;
    const Tensor tmp = binary_op_into<kinds>(empty_cpu(shape, wide), a, b, ScalarType::Float, wide, op, make);
    write_result(out, tmp, op);
    out.bump_version();
    return out;
  }
  resize_output(out, shape);
  const Tensor x = cast(a, compute), y = cast(b, compute);
  const bool direct = out.dtype() == result && !partially_overlaps(out, x) && !partially_overlaps(out, y);
  const Tensor target = direct ? out : empty_cpu(shape, result);
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
Tensor binary_op(const Tensor& a, const Tensor& b, ScalarType compute, ScalarType result, const char* op, Make make) {
  return binary_op_into<kinds>(empty_cpu(broadcast_shapes(a.sizes(), b.sizes()), result), a, b, compute, result, op,
                               make);
}

template <Kinds kinds, typename Make>
Tensor binary_op_inplace(const Tensor& self, const Tensor& other, ScalarType compute, ScalarType result,
                         const char* op, Make make) {
  const auto shape = broadcast_shapes(self.sizes(), other.sizes());
  TCORE_CHECK_VALUE(numel_of(shape) == self.numel() && shape.size() == self.sizes().size(), op,
                    ": output with shape ", shape_str(self.sizes()), " doesn't match the broadcast shape ",
                    shape_str(shape));
  return binary_op_into<kinds>(self, self, other, compute, result, op, make);
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
