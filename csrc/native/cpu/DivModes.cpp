// Division that rounds (div with rounding_mode "trunc"/"floor"), remainder (Python's %:
// the sign of the divisor) and fmod (C's fmod: the sign of the dividend). Integer
// division by zero is an error, as in PyTorch ("ZeroDivisionError"); floating division
// by zero gives inf/nan.
#include <atomic>
#include <cmath>
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

template <typename T>
T floor_div(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) return float_floor_div(x, y);
  else return int_div_floor(x, y);
}

template <Mode mode>
auto div_fn(ZeroFlag* zero) {
  return [zero](auto tag) {
    using T = typename decltype(tag)::type;
    return [zero](T x, T y) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        if constexpr (mode == Mode::Trunc) return std::trunc(x / y);
        else return floor_div(x, y);
      } else {
        if (y == 0) {
          zero->seen.store(true, std::memory_order_relaxed);
          return T(0);
        }
        if constexpr (mode == Mode::Trunc) return int_div_trunc(x, y);
        else return int_div_floor(x, y);
      }
    };
  };
}

auto remainder_fn(ZeroFlag* zero) {
  return [zero](auto tag) {
    using T = typename decltype(tag)::type;
    return [zero](T x, T y) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        T r = std::fmod(x, y);
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        return r;
      } else {
        if (y == 0) {
          zero->seen.store(true, std::memory_order_relaxed);
          return T(0);
        }
        return int_rem_floor(x, y);
      }
    };
  };
}

auto fmod_fn(ZeroFlag* zero) {
  return [zero](auto tag) {
    using T = typename decltype(tag)::type;
    return [zero](T x, T y) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        return std::fmod(x, y);
      } else {
        if (y == 0) {
          zero->seen.store(true, std::memory_order_relaxed);
          return T(0);
        }
        return int_rem_trunc(x, y);
      }
    };
  };
}

// The three entry points of each operator share this: out=, in-place (out is self) and functional.
template <typename Fn>
Tensor run(const Tensor* out, const Tensor& self, const Tensor& other, const char* op, Fn fn) {
  ZeroFlag zero;
  const ScalarType t = promoted(self, other);
  Tensor result = out ? binary_op_into<Kinds::Numeric>(*out, self, other, t, t, op, fn(&zero))
                      : binary_op<Kinds::Numeric>(self, other, t, t, op, fn(&zero));
  zero.check();
  return result;
}

template <typename Fn>
Tensor run_inplace(const Tensor& self, const Tensor& other, const char* op, Fn fn) {
  ZeroFlag zero;
  const ScalarType t = promoted(self, other);
  binary_op_inplace<Kinds::Numeric>(self, other, t, t, op, fn(&zero));
  zero.check();
  return self;
}

}  // namespace

// ------------------------------------------------------------------ div with rounding_mode
// Without a rounding mode this is true division (div.Tensor); with one, integer inputs stay integers.
Tensor div_mode(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  const Mode mode = rounding_mode_of(rounding_mode);
  if (mode == Mode::True) return tcore::div(self, other);
  return mode == Mode::Trunc ? run(nullptr, self, other, "div", div_fn<Mode::Trunc>)
                             : run(nullptr, self, other, "div", div_fn<Mode::Floor>);
}
Tensor div_mode_out(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode,
                    const Tensor& out) {
  const Mode mode = rounding_mode_of(rounding_mode);
  if (mode == Mode::True) return tcore::div_out(out, self, other);
  return mode == Mode::Trunc ? run(&out, self, other, "div", div_fn<Mode::Trunc>)
                             : run(&out, self, other, "div", div_fn<Mode::Floor>);
}
Tensor div_mode_(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  const Mode mode = rounding_mode_of(rounding_mode);
  if (mode == Mode::True) return tcore::div_(self, other);
  return mode == Mode::Trunc ? run_inplace(self, other, "div_", div_fn<Mode::Trunc>)
                             : run_inplace(self, other, "div_", div_fn<Mode::Floor>);
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
