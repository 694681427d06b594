// Division that rounds (div with rounding_mode "trunc"/"floor"), remainder (Python's %:
// the sign of the divisor) and fmod (C's fmod: the sign of the dividend). Integer
// division by zero is an error, as in PyTorch ("ZeroDivisionError"); floating division
// by zero gives inf/nan.
#include <atomic>
#include <cmath>
#include <limits>
#include <string_view>
#include <type_traits>

#include <tcore/ops/div.h>
#include <tcore/ops/div_native.h>
#include <tcore/ops/fmod.h>
#include <tcore/ops/fmod_native.h>
#include <tcore/ops/remainder.h>
#include <tcore/ops/remainder_native.h>

#include "native/IntMath.h"
#include "native/cpu/Binary.h"
#include "native/cpu/VecMath.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
using namespace binary;
namespace {

using Mode = RoundingMode;

// Integer kernels note a zero divisor here (the loop cannot throw mid-way); checked after.
struct ZeroFlag {
  std::atomic<bool> seen{false};
  void check() const { TCORE_CHECK_VALUE(!seen.load(), "ZeroDivisionError"); }
};

// fmod, remainder and floor division of floats: element by element as C's fmod gives them, and
// contiguous runs by SLEEF's exact vector fmod (glibc's fmodf, one element at a time, made
// x % 0.7 of 4M float32 66 ms, 13x torch's), the same formulas on vectors of lanes.
enum class FloatOp { Fmod, Remainder, FloorDiv };
template <FloatOp op, typename T>
struct FloatRounding {
  static T one(T x, T y) {
    if constexpr (op == FloatOp::Fmod) {
      return std::fmod(x, y);
    } else if constexpr (op == FloatOp::Remainder) {
      T r = std::fmod(x, y);
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      return r;
    } else {
      return float_floor_div(x, y);
    }
  }
  T operator()(T x, T y) const { return one(x, y); }
#if defined(TCORE_VEC_MATH)
  // C's fmod of vectors. Where every lane's quotient is below 2^(mantissa digits - 1) and y is
  // finite: q = trunc(x / y), exact, and x - q y by one FMA, exact as the true remainder is
  // representable; x / y rounded up to the next integer makes q one too large, and r then has the
  // other sign, the true remainder r + |y| with x's sign (again exact); the sign of a zero is x's.
  // Faster than SLEEF's fmod, which takes the other vectors (and all at SSE4 width: no FMA).
  template <typename V>
  static V fmod(V x, V y) {
    if constexpr (vec::kFma) {
      const V zero = {};
      const V q = x / y;
      const V limit = zero + static_cast<T>(T(1) / std::numeric_limits<T>::epsilon());  // 2^23 (float), 2^52
      const V inf = zero + std::numeric_limits<T>::infinity();
      const auto other = (vec::abs_of<V, T>(q) >= limit) | (q != q) | (vec::abs_of<V, T>(y) == inf);
      if (!vec::any(other)) {
        const V whole = vec::trunc(q);
        V r = vec::fma(zero - whole, y, x);
        const V toward_x = vec::copysign(y, x);  // |y| with x's sign
        r = ((r != zero) & ((r < zero) != (x < zero))) ? r + toward_x : r;
        return vec::copysign(r, x);
      }
    }
    return sleef_fmod(x, y);
  }
  // SLEEF's, except in the lanes where it gives NaN for a finite x and a nonzero y (a quotient past
  // the float range: 1e30 by 1e-38, 1 by a subnormal), done by C's.
  template <typename V>
  static V sleef_fmod(V x, V y) {
    const V zero = {};
    V mod = vec::fmod(x, y);
    const auto wrong = (mod != mod) & (x - x == zero) & (y == y) & (y != zero);  // x - x: 0 for finite x
    if (vec::any(wrong)) {
      for (int j = 0; j < static_cast<int>(sizeof(V) / sizeof(T)); ++j)
        if (wrong[j]) mod[j] = std::fmod(x[j], y[j]);
    }
    return mod;
  }

  template <typename V>
  static V lanes(V x, V y) {
    const V zero = {};
    const V mod = fmod(x, y);
    if constexpr (op == FloatOp::Fmod) {
      return mod;
    } else if constexpr (op == FloatOp::Remainder) {
      return ((mod != zero) & ((mod < zero) != (y < zero))) ? mod + y : mod;
    } else {  // float_floor_div's steps
      const V one = zero + T(1), half = zero + T(0.5), quotient = x / y;
      V div = (x - mod) / y;
      div = ((mod != zero) & ((y < zero) != (mod < zero))) ? div - one : div;
      const V floored = vec::floor(div);
      V r = (div - floored > half) ? floored + one : floored;
      r = (div == zero) ? vec::copysign(zero, quotient) : r;
      return (y == zero) ? quotient : r;
    }
  }
  void runs(T* o, const T* x, const T* y, int64_t n, int64_t x_step, int64_t y_step) const {
    using V = typename vec::VecOf<T>::type;
    constexpr int64_t W = vec::width<T>;
    const V x_broadcast = V{} + x[0], y_broadcast = V{} + y[0];
    int64_t i = 0;
    for (; i + W <= n; i += W) {
      vec::store(o + i, lanes<V>(x_step ? vec::load<V>(x + i) : x_broadcast, y_step ? vec::load<V>(y + i) : y_broadcast));
    }
    for (; i < n; ++i) o[i] = one(x[i * x_step], y[i * y_step]);
  }
#endif
};

template <Mode mode>
auto div_fn(ZeroFlag* zero) {
  return [zero](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> && mode == Mode::Floor) {
      return FloatRounding<FloatOp::FloorDiv, T>{};
    } else {
      return [zero](T x, T y) -> T {
        if constexpr (std::is_floating_point_v<T>) {
          return std::trunc(x / y);
        } else {
          if (y == 0) {
            zero->seen.store(true, std::memory_order_relaxed);
            return T(0);
          }
          if constexpr (mode == Mode::Trunc) return int_div_trunc(x, y);
          else return int_div_floor(x, y);
        }
      };
    }
  };
}

// remainder (floor: the divisor's sign) or fmod (trunc: the dividend's)
template <FloatOp op>
auto rem_fn(ZeroFlag* zero) {
  return [zero](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      return FloatRounding<op, T>{};
    } else {
      return [zero](T x, T y) -> T {
        if (y == 0) {
          zero->seen.store(true, std::memory_order_relaxed);
          return T(0);
        }
        return op == FloatOp::Remainder ? int_rem_floor(x, y) : int_rem_trunc(x, y);
      };
    }
  };
}
auto remainder_fn(ZeroFlag* zero) { return rem_fn<FloatOp::Remainder>(zero); }
auto fmod_fn(ZeroFlag* zero) { return rem_fn<FloatOp::Fmod>(zero); }

// The three entry points of each operator share this: out=, in-place (out is self) and functional.
// (div's rounding modes read a one-element divisor AsIs, as torch's div; remainder and fmod round it)
template <typename Fn>
Tensor run(const Tensor* out, const Tensor& self, const Tensor& other, const char* op, Fn fn,
           ScalarOperand scalar = ScalarOperand::Rounded) {
  ZeroFlag zero;
  const ScalarType t = promoted(self, other);
  Tensor result = out ? binary_op_into<Kinds::Numeric>(*out, self, other, t, t, op, fn(&zero), scalar)
                      : binary_op<Kinds::Numeric>(self, other, t, t, op, fn(&zero), scalar);
  zero.check();
  return result;
}

template <typename Fn>
Tensor run_inplace(const Tensor& self, const Tensor& other, const char* op, Fn fn,
                   ScalarOperand scalar = ScalarOperand::Rounded) {
  ZeroFlag zero;
  const ScalarType t = promoted(self, other);
  binary_op_inplace<Kinds::Numeric>(self, other, t, t, op, fn(&zero), scalar);
  zero.check();
  return self;
}

}  // namespace

// ------------------------------------------------------------------ div with rounding_mode
// Without a rounding mode this is true division (div.Tensor); with one, integer inputs stay integers.
Tensor div_mode(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  const Mode mode = rounding_mode_of(rounding_mode);
  if (mode == Mode::True) return tcore::div(self, other);
  return mode == Mode::Trunc ? run(nullptr, self, other, "div", div_fn<Mode::Trunc>, ScalarOperand::AsIs)
                             : run(nullptr, self, other, "div", div_fn<Mode::Floor>, ScalarOperand::AsIs);
}
Tensor div_mode_out(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                    const Tensor& out) {
  const Mode mode = rounding_mode_of(rounding_mode);
  if (mode == Mode::True) return tcore::div_out(out, self, other);
  return mode == Mode::Trunc ? run(&out, self, other, "div", div_fn<Mode::Trunc>, ScalarOperand::AsIs)
                             : run(&out, self, other, "div", div_fn<Mode::Floor>, ScalarOperand::AsIs);
}
Tensor div_mode_(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  const Mode mode = rounding_mode_of(rounding_mode);
  if (mode == Mode::True) return tcore::div_(self, other);
  return mode == Mode::Trunc ? run_inplace(self, other, "div_", div_fn<Mode::Trunc>, ScalarOperand::AsIs)
                             : run_inplace(self, other, "div_", div_fn<Mode::Floor>, ScalarOperand::AsIs);
}

// ------------------------------------------------------------------ remainder, fmod
Tensor remainder(const Tensor& self, const Tensor& other) { return run(nullptr, self, other, "remainder", remainder_fn); }
Tensor remainder_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run(&out, self, other, "remainder", remainder_fn);
}
Tensor remainder_(const Tensor& self, const Tensor& other) { return run_inplace(self, other, "remainder_", remainder_fn); }

Tensor fmod(const Tensor& self, const Tensor& other) { return run(nullptr, self, other, "fmod", fmod_fn); }
Tensor fmod_out(const Tensor& self, const Tensor& other, const Tensor& out) { return run(&out, self, other, "fmod", fmod_fn); }
Tensor fmod_(const Tensor& self, const Tensor& other) { return run_inplace(self, other, "fmod_", fmod_fn); }

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
