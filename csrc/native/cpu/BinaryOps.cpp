// add, sub, mul, div: the impls of the structured out= kernels (their meta functions, with the
// argument checks: native/BinaryOps.cpp; the functional and in-place forms are generated).
#include <tcore/ops/add_native.h>
#include <tcore/ops/div_native.h>
#include <tcore/ops/mul_native.h>
#include <tcore/ops/sub_native.h>

#include "native/IntMath.h"
#include "native/cpu/Binary.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// out = f(a, b) computed (and returned) in `compute`: Binary.h's loop with result == compute.
template <typename Make>
Tensor binary_into(const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute, const char* op,
                   Make make, binary::ScalarOperand scalar = binary::ScalarOperand::Rounded) {
  return binary::binary_op_into<binary::Kinds::All>(out, a, b, compute, compute, op, make, scalar);
}

auto add_fn(const Scalar& alpha) {
  return [alpha](auto tag) {
    using T = typename decltype(tag)::type;
    const T a = alpha.to<T>();
    return [a](T x, T y) {
      if constexpr (is_int_v<T>) return wrapping_add(x, wrapping_mul(a, y));
      else return static_cast<T>(x + a * y);
    };
  };
}

// x + (-alpha) * y: -alpha is what must fit T (alpha=128 is fine for int8), as torch's
auto sub_fn(const Scalar& alpha) {
  return [minus = negated(alpha)](auto tag) {
    using T = typename decltype(tag)::type;
    const T a = minus.to<T>();
    return [a](T x, T y) {
      if constexpr (is_int_v<T>) return wrapping_add(x, wrapping_mul(a, y));
      else return static_cast<T>(x + a * y);
    };
  };
}

auto mul_fn() {
  return [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x, T y) {
      if constexpr (is_int_v<T>) return wrapping_mul(x, y);
      else return static_cast<T>(x * y);
    };
  };
}

auto div_fn() {
  return [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x, T y) {
      if constexpr (is_int_v<T>) return y == 0 ? T(0) : int_div_trunc(x, y);
      else return static_cast<T>(x / y);
    };
  };
}

}  // namespace

TCORE_IMPL_FUNC(add_out)(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  binary_into(out, self, other, result_type({&self, &other}), "add", add_fn(alpha));
}
TCORE_IMPL_FUNC(sub_out)(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  binary_into(out, self, other, result_type({&self, &other}), "sub", sub_fn(alpha));
}
TCORE_IMPL_FUNC(mul_out)(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_into(out, self, other, result_type({&self, &other}), "mul", mul_fn(), binary::ScalarOperand::AsIs);
}
// True division computes in floating point.
TCORE_IMPL_FUNC(div_out)(const Tensor& self, const Tensor& other, const Tensor& out) {
  binary_into(out, self, other, floating_of(result_type({&self, &other})), "div", div_fn(),
              binary::ScalarOperand::AsIs);
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
