// Comparisons, logical and bitwise operators, maximum/minimum, atan2, pow and where:
// the promoted dtype of the inputs is the compute dtype (PyTorch's result_type); the
// result is bool (comparisons, logical), the compute dtype, or floating (atan2).
#include <cmath>
#include <type_traits>

#include <tcore/ops/atan2_native.h>
#include <tcore/ops/bitwise_and_native.h>
#include <tcore/ops/bitwise_not_native.h>
#include <tcore/ops/bitwise_or_native.h>
#include <tcore/ops/bitwise_xor_native.h>
#include <tcore/ops/eq_native.h>
#include <tcore/ops/ge_native.h>
#include <tcore/ops/gt_native.h>
#include <tcore/ops/le_native.h>
#include <tcore/ops/logical_and_native.h>
#include <tcore/ops/logical_not_native.h>
#include <tcore/ops/logical_or_native.h>
#include <tcore/ops/logical_xor_native.h>
#include <tcore/ops/lt_native.h>
#include <tcore/ops/maximum_native.h>
#include <tcore/ops/minimum_native.h>
#include <tcore/ops/ne_native.h>
#include <tcore/ops/pow_native.h>
#include <tcore/ops/where_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Loops.h"

namespace tcore::native {
namespace {

enum class Kinds { All, Numeric, Integral, Floating };  // which compute dtypes an operator accepts

template <typename T>
constexpr bool accepts(Kinds k) {
  if (k == Kinds::Integral) return std::is_integral_v<T>;
  if (k == Kinds::Floating) return std::is_floating_point_v<T>;
  if (k == Kinds::Numeric) return !std::is_same_v<T, bool>;
  return true;
}

// out = f(x, y) with x, y cast to `compute` and the result of type `result`; `make(tag)` gives f.
template <Kinds kinds, typename Make>
Tensor binary_op_into(const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute, ScalarType result,
                      const char* op, Make make) {
  const std::vector<int64_t> shape = broadcast_shapes(a.sizes(), b.sizes());
  TCORE_CHECK_TYPE(can_cast(result, out.dtype()), op, ": result type ", result,
                   " can't be cast to the desired output type ", out.dtype());
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

ScalarType promoted(const Tensor& a, const Tensor& b) { return result_type({&a, &b}); }
ScalarType floating_of(ScalarType t) { return is_floating(t) ? t : default_float_dtype(); }

// A function object for every compute type T: `EXPR` over x and y of type T.
#define TCORE_BINARY_FN(name, ...)                          \
  auto name() {                                             \
    return [](auto tag) {                                   \
      using T = typename decltype(tag)::type;               \
      return [](T x, T y) { return __VA_ARGS__; };          \
    };                                                      \
  }

TCORE_BINARY_FN(eq_fn, x == y)
TCORE_BINARY_FN(ne_fn, x != y)
TCORE_BINARY_FN(lt_fn, x < y)
TCORE_BINARY_FN(le_fn, x <= y)
TCORE_BINARY_FN(gt_fn, x > y)
TCORE_BINARY_FN(ge_fn, x >= y)
TCORE_BINARY_FN(logical_and_fn, static_cast<bool>(x) && static_cast<bool>(y))
TCORE_BINARY_FN(logical_or_fn, static_cast<bool>(x) || static_cast<bool>(y))
TCORE_BINARY_FN(logical_xor_fn, static_cast<bool>(x) != static_cast<bool>(y))
TCORE_BINARY_FN(bitwise_and_fn, static_cast<T>(x & y))
TCORE_BINARY_FN(bitwise_or_fn, static_cast<T>(x | y))
TCORE_BINARY_FN(bitwise_xor_fn, static_cast<T>(x ^ y))
// NaN wins, as in PyTorch
TCORE_BINARY_FN(maximum_fn, is_nan(x) ? x : (is_nan(y) ? y : (x > y ? x : y)))
TCORE_BINARY_FN(minimum_fn, is_nan(x) ? x : (is_nan(y) ? y : (x < y ? x : y)))
TCORE_BINARY_FN(atan2_fn, static_cast<T>(std::atan2(x, y)))
#undef TCORE_BINARY_FN

// Integer powers by squaring; a negative exponent gives 1 / x^n truncated (0 unless |x| is 1).
template <typename T>
T int_pow(T base, T exp) {
  if constexpr (std::is_same_v<T, bool>) {
    return exp ? base : true;
  } else {
    if constexpr (std::is_signed_v<T>) {
      if (exp < 0) {
        if (base == 1) return 1;
        if (base == -1) return (exp % 2 == 0) ? 1 : -1;
        return 0;
      }
    }
    T result = 1;
    while (exp) {
      if (exp & 1) result = static_cast<T>(result * base);
      exp = static_cast<T>(exp >> 1);
      base = static_cast<T>(base * base);
    }
    return result;
  }
}

auto pow_fn() {
  return [](auto tag) {
    using T = typename decltype(tag)::type;
    return [](T x, T y) -> T {
      if constexpr (std::is_floating_point_v<T>) return std::pow(x, y);
      else return int_pow<T>(x, y);
    };
  };
}

void check_bitwise(const Tensor& a, const Tensor& b, const char* op) {
  TCORE_CHECK_TYPE(!is_floating(a.dtype()) && !is_floating(b.dtype()), op, ": not implemented for '",
                   to_string(is_floating(a.dtype()) ? a.dtype() : b.dtype()), "' (integral and bool dtypes only)");
}

}  // namespace

// ------------------------------------------------------------------ comparisons -> bool
Tensor eq(const Tensor& self, const Tensor& other) {
  return binary_op<Kinds::All>(self, other, promoted(self, other), ScalarType::Bool, "eq", eq_fn());
}
Tensor eq_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "eq", eq_fn());
}
Tensor ne(const Tensor& self, const Tensor& other) {
  return binary_op<Kinds::All>(self, other, promoted(self, other), ScalarType::Bool, "ne", ne_fn());
}
Tensor ne_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "ne", ne_fn());
}
Tensor lt(const Tensor& self, const Tensor& other) {
  return binary_op<Kinds::All>(self, other, promoted(self, other), ScalarType::Bool, "lt", lt_fn());
}
Tensor lt_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "lt", lt_fn());
}
Tensor le(const Tensor& self, const Tensor& other) {
  return binary_op<Kinds::All>(self, other, promoted(self, other), ScalarType::Bool, "le", le_fn());
}
Tensor le_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "le", le_fn());
}
Tensor gt(const Tensor& self, const Tensor& other) {
  return binary_op<Kinds::All>(self, other, promoted(self, other), ScalarType::Bool, "gt", gt_fn());
}
Tensor gt_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "gt", gt_fn());
}
Tensor ge(const Tensor& self, const Tensor& other) {
  return binary_op<Kinds::All>(self, other, promoted(self, other), ScalarType::Bool, "ge", ge_fn());
}
Tensor ge_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "ge", ge_fn());
}

// ------------------------------------------------------------------ logical -> bool
Tensor logical_and(const Tensor& self, const Tensor& other) {
  return binary_op<Kinds::All>(self, other, promoted(self, other), ScalarType::Bool, "logical_and", logical_and_fn());
}
Tensor logical_and_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "logical_and",
                                    logical_and_fn());
}
Tensor logical_or(const Tensor& self, const Tensor& other) {
  return binary_op<Kinds::All>(self, other, promoted(self, other), ScalarType::Bool, "logical_or", logical_or_fn());
}
Tensor logical_or_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "logical_or",
                                    logical_or_fn());
}
Tensor logical_xor(const Tensor& self, const Tensor& other) {
  return binary_op<Kinds::All>(self, other, promoted(self, other), ScalarType::Bool, "logical_xor", logical_xor_fn());
}
Tensor logical_xor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return binary_op_into<Kinds::All>(out, self, other, promoted(self, other), ScalarType::Bool, "logical_xor",
                                    logical_xor_fn());
}
Tensor logical_not_out(const Tensor& self, const Tensor& out) {
  resize_output(out, self.sizes());
  const Tensor x = cast(self, ScalarType::Bool);
  const bool direct = out.dtype() == ScalarType::Bool && !partially_overlaps(out, x);
  const Tensor target = direct ? out : empty_cpu(self.sizes(), ScalarType::Bool);
  unary_loop<bool, bool>(target, x, [](bool v) { return !v; });
  if (!direct) write_result(out, target, "logical_not");
  out.bump_version();
  return out;
}
Tensor logical_not(const Tensor& self) {
  return logical_not_out(self, empty_cpu(self.sizes(), ScalarType::Bool));
}

// ------------------------------------------------------------------ bitwise (integral and bool)
Tensor bitwise_and(const Tensor& self, const Tensor& other) {
  check_bitwise(self, other, "bitwise_and");
  const ScalarType t = promoted(self, other);
  return binary_op<Kinds::Integral>(self, other, t, t, "bitwise_and", bitwise_and_fn());
}
Tensor bitwise_and_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  check_bitwise(self, other, "bitwise_and");
  const ScalarType t = promoted(self, other);
  return binary_op_into<Kinds::Integral>(out, self, other, t, t, "bitwise_and", bitwise_and_fn());
}
Tensor bitwise_or(const Tensor& self, const Tensor& other) {
  check_bitwise(self, other, "bitwise_or");
  const ScalarType t = promoted(self, other);
  return binary_op<Kinds::Integral>(self, other, t, t, "bitwise_or", bitwise_or_fn());
}
Tensor bitwise_or_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  check_bitwise(self, other, "bitwise_or");
  const ScalarType t = promoted(self, other);
  return binary_op_into<Kinds::Integral>(out, self, other, t, t, "bitwise_or", bitwise_or_fn());
}
Tensor bitwise_xor(const Tensor& self, const Tensor& other) {
  check_bitwise(self, other, "bitwise_xor");
  const ScalarType t = promoted(self, other);
  return binary_op<Kinds::Integral>(self, other, t, t, "bitwise_xor", bitwise_xor_fn());
}
Tensor bitwise_xor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  check_bitwise(self, other, "bitwise_xor");
  const ScalarType t = promoted(self, other);
  return binary_op_into<Kinds::Integral>(out, self, other, t, t, "bitwise_xor", bitwise_xor_fn());
}
Tensor bitwise_not_out(const Tensor& self, const Tensor& out) {
  TCORE_CHECK_TYPE(!is_floating(self.dtype()), "bitwise_not: not implemented for '", to_string(self.dtype()),
                   "' (integral and bool dtypes only)");
  resize_output(out, self.sizes());
  const Tensor target = out.dtype() == self.dtype() && !partially_overlaps(out, self) ? out
                                                                                     : empty_cpu(self.sizes(), self.dtype());
  dispatch_dtype(self.dtype(), "bitwise_not", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      unary_loop<bool, bool>(target, self, [](bool v) { return !v; });
    } else if constexpr (std::is_integral_v<T>) {
      unary_loop<T, T>(target, self, [](T v) { return static_cast<T>(~v); });
    }
  });
  if (!target.is_same(out)) write_result(out, target, "bitwise_not");
  out.bump_version();
  return out;
}
Tensor bitwise_not(const Tensor& self) { return bitwise_not_out(self, empty_cpu(self.sizes(), self.dtype())); }

// ------------------------------------------------------------------ maximum, minimum, atan2, pow
Tensor maximum(const Tensor& self, const Tensor& other) {
  const ScalarType t = promoted(self, other);
  return binary_op<Kinds::All>(self, other, t, t, "maximum", maximum_fn());
}
Tensor maximum_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = promoted(self, other);
  return binary_op_into<Kinds::All>(out, self, other, t, t, "maximum", maximum_fn());
}
Tensor minimum(const Tensor& self, const Tensor& other) {
  const ScalarType t = promoted(self, other);
  return binary_op<Kinds::All>(self, other, t, t, "minimum", minimum_fn());
}
Tensor minimum_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = promoted(self, other);
  return binary_op_into<Kinds::All>(out, self, other, t, t, "minimum", minimum_fn());
}

Tensor atan2(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_op<Kinds::Floating>(self, other, t, t, "atan2", atan2_fn());
}
Tensor atan2_(const Tensor& self, const Tensor& other) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_op_inplace<Kinds::Floating>(self, other, t, t, "atan2_", atan2_fn());
}
Tensor atan2_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType t = floating_of(promoted(self, other));
  return binary_op_into<Kinds::Floating>(out, self, other, t, t, "atan2", atan2_fn());
}

Tensor pow(const Tensor& self, const Tensor& exponent) {
  const ScalarType t = promoted(self, exponent);
  return binary_op<Kinds::Numeric>(self, exponent, t, t, "pow", pow_fn());
}
Tensor pow_(const Tensor& self, const Tensor& exponent) {
  const ScalarType t = promoted(self, exponent);
  return binary_op_inplace<Kinds::Numeric>(self, exponent, t, t, "pow_", pow_fn());
}
Tensor pow_out(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  const ScalarType t = promoted(self, exponent);
  return binary_op_into<Kinds::Numeric>(out, self, exponent, t, t, "pow", pow_fn());
}

// ------------------------------------------------------------------ where
namespace {
void check_condition(const Tensor& condition) {
  TCORE_CHECK_TYPE(condition.dtype() == ScalarType::Bool || condition.dtype() == ScalarType::Byte,
                   "where: expected condition to be a boolean tensor, but got a tensor with dtype ",
                   to_string(condition.dtype()));
}
}  // namespace

Tensor where_out(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  check_condition(condition);
  const ScalarType t = promoted(self, other);
  TCORE_CHECK_TYPE(can_cast(t, out.dtype()), "where: result type ", t, " can't be cast to the desired output type ",
                   out.dtype());
  const std::vector<int64_t> shape = broadcast_shapes(condition.sizes(), broadcast_shapes(self.sizes(), other.sizes()));
  resize_output(out, shape);
  const Tensor c = cast(condition, ScalarType::Bool), x = cast(self, t), y = cast(other, t);
  const bool direct = out.dtype() == t && !partially_overlaps(out, x) && !partially_overlaps(out, y) &&
                      !partially_overlaps(out, c);
  const Tensor target = direct ? out : empty_cpu(shape, t);
  dispatch_dtype(t, "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    select_loop<T>(target, c, x, y);
  });
  if (!direct) write_result(out, target, "where");
  out.bump_version();
  return out;
}
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  check_condition(condition);
  const std::vector<int64_t> shape = broadcast_shapes(condition.sizes(), broadcast_shapes(self.sizes(), other.sizes()));
  return where_out(condition, self, other, empty_cpu(shape, promoted(self, other)));
}

}  // namespace tcore::native
