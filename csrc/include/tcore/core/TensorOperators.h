#pragma once
// C++ operators on tensors, as ATen spells them: a + b, grad * 2, 2 - x, -x, a > b, ~m. Each is the
// public operator of the same meaning (tcore::add, tcore::mul, ...; codegen/formula.py's OPERATORS
// holds the same table, for the includes of generated code). The operators are templates whose
// parameter can only be Tensor, so the call inside is looked up where one is used (argument-
// dependent lookup): include that operator's header (tcore/ops/add.h, or tcore/Functions.h).
#include <type_traits>

#include "tcore/core/Scalar.h"

namespace tcore {

class Tensor;

namespace detail {
template <class T>
using if_tensor = std::enable_if_t<std::is_same_v<T, Tensor>, int>;
}  // namespace detail

// tensor OP tensor, tensor OP scalar, and scalar OP tensor where the operation commutes
#define TCORE_TENSOR_OPERATOR(op, fn)                                                          \
  template <class T, detail::if_tensor<T> = 0>                                                 \
  T operator op(const T& a, const T& b) { return fn(a, b); }                                   \
  template <class T, detail::if_tensor<T> = 0>                                                 \
  T operator op(const T& a, const Scalar& b) { return fn(a, b); }
#define TCORE_COMMUTING_OPERATOR(op, fn)                                                       \
  TCORE_TENSOR_OPERATOR(op, fn)                                                                \
  template <class T, detail::if_tensor<T> = 0>                                                 \
  T operator op(const Scalar& a, const T& b) { return fn(b, a); }
// scalar OP tensor for a comparison: the mirrored comparison (2 < x is x > 2)
#define TCORE_COMPARISON(op, fn, mirrored)                                                     \
  TCORE_TENSOR_OPERATOR(op, fn)                                                                \
  template <class T, detail::if_tensor<T> = 0>                                                 \
  T operator op(const Scalar& a, const T& b) { return mirrored(b, a); }

TCORE_COMMUTING_OPERATOR(+, add)
TCORE_COMMUTING_OPERATOR(*, mul)
TCORE_TENSOR_OPERATOR(-, sub)
TCORE_TENSOR_OPERATOR(/, div)
TCORE_COMMUTING_OPERATOR(&, bitwise_and)
TCORE_COMMUTING_OPERATOR(|, bitwise_or)
TCORE_COMMUTING_OPERATOR(^, bitwise_xor)
TCORE_COMPARISON(==, eq, eq)
TCORE_COMPARISON(!=, ne, ne)
TCORE_COMPARISON(<, lt, gt)
TCORE_COMPARISON(<=, le, ge)
TCORE_COMPARISON(>, gt, lt)
TCORE_COMPARISON(>=, ge, le)
#undef TCORE_COMPARISON
#undef TCORE_COMMUTING_OPERATOR
#undef TCORE_TENSOR_OPERATOR

// 2 - x is (-x) + 2, which rounds as 2 - x does (and gives +0, not -0, where they are equal)
template <class T, detail::if_tensor<T> = 0>
T operator-(const Scalar& a, const T& b) { return add(neg(b), a); }
// 2 / x: true division of a tensor of 2s in x's dtype (the dtype ATen's fill_ + div gives)
template <class T, detail::if_tensor<T> = 0>
T operator/(const Scalar& a, const T& b) { return div(full_like(b, a), b); }
template <class T, detail::if_tensor<T> = 0>
T operator-(const T& a) { return neg(a); }
template <class T, detail::if_tensor<T> = 0>
T operator~(const T& a) { return bitwise_not(a); }

}  // namespace tcore
