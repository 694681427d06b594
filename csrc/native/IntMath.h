#pragma once
// Integer arithmetic without undefined behaviour, and Python's floor division of floats, shared
// by the CPU and GPU kernels.
// PyTorch's results where they are defined: the minimum divided by -1 wraps to the
// minimum (floor and true-integer division), the remainder by -1 is 0; products wrap
// modulo 2^bits instead of overflowing a signed type. Division by zero is the caller's.
#include <cmath>
#include <type_traits>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define TCORE_HOST_DEVICE __host__ __device__
#else
#define TCORE_HOST_DEVICE
#endif

namespace tcore::native {

template <typename T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The unsigned type arithmetic on T is done in (at least unsigned int: no promotion to int).
template <typename T>
using wide_unsigned_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
TCORE_HOST_DEVICE inline T wrapping_mul(T a, T b) {
  using U = wide_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}
template <typename T>
TCORE_HOST_DEVICE inline T wrapping_add(T a, T b) {
  using U = wide_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T>
TCORE_HOST_DEVICE inline T wrapping_sub(T a, T b) {
  using U = wide_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T>
TCORE_HOST_DEVICE inline T wrapping_neg(T a) {
  using U = wide_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(a));
}

// x / y rounded toward zero, y != 0.
template <typename T>
TCORE_HOST_DEVICE inline T int_div_trunc(T x, T y) {
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return wrapping_neg(x);
  }
  return static_cast<T>(x / y);
}
// C's x % y (the sign of x), y != 0.
template <typename T>
TCORE_HOST_DEVICE inline T int_rem_trunc(T x, T y) {
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return T(0);
  }
  return static_cast<T>(x % y);
}
// Python's x // y (rounded toward -inf), y != 0.
template <typename T>
TCORE_HOST_DEVICE inline T int_div_floor(T x, T y) {
  const T q = int_div_trunc(x, y);
  if constexpr (std::is_signed_v<T>) {
    if (int_rem_trunc(x, y) != 0 && ((x < 0) != (y < 0))) return static_cast<T>(q - 1);
  }
  return q;
}
// Python's x % y (the sign of y), y != 0.
template <typename T>
TCORE_HOST_DEVICE inline T int_rem_floor(T x, T y) {
  T r = int_rem_trunc(x, y);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
  }
  return r;
}

// Integer powers by squaring (wrapping); a negative exponent gives 1 / x^n truncated (0 unless
// |x| is 1); bool: x and not y... as PyTorch (false^0 is true).
template <typename T>
TCORE_HOST_DEVICE inline T int_pow(T base, T exp) {
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
      if (exp & 1) result = wrapping_mul(result, base);
      exp = static_cast<T>(exp >> 1);
      base = wrapping_mul(base, base);
    }
    return result;
  }
}

// Python's float //: computed from fmod so that x == y * q + r holds exactly; y == 0 gives x / y.
template <typename T>
TCORE_HOST_DEVICE inline T float_floor_div(T x, T y) {
  if (y == 0) return x / y;
  const T mod = ::fmod(x, y);
  T div = (x - mod) / y;
  if (mod != 0 && ((y < 0) != (mod < 0))) div -= T(1);
  if (div == 0) return ::copysign(T(0), x / y);
  const T floored = ::floor(div);
  return (div - floored > T(0.5)) ? floored + T(1) : floored;
}

// x << y and x >> y as torch's: a shift by a negative amount or by the width or more leaves only
// the sign (0 for <<; 0 or -1 for >>, which is arithmetic); bits shifted out of << are lost (the
// shift is done unsigned). bool is not shifted (its callers refuse it).
template <typename T>
TCORE_HOST_DEVICE inline bool shift_out_of_range(T y) {
  constexpr int bits = static_cast<int>(sizeof(T) * 8);
  if constexpr (std::is_signed_v<T>) return y < 0 || y >= bits;
  else return y >= static_cast<T>(bits);
}
template <typename T>
TCORE_HOST_DEVICE inline T shift_left(T x, T y) {
  if constexpr (std::is_same_v<T, bool>) return x;
  else return shift_out_of_range(y) ? T(0) : static_cast<T>(static_cast<wide_unsigned_t<T>>(x) << y);
}
template <typename T>
TCORE_HOST_DEVICE inline T shift_right(T x, T y) {
  if constexpr (std::is_same_v<T, bool>) {
    return x;
  } else if constexpr (std::is_signed_v<T>) {
    return shift_out_of_range(y) ? T(x < 0 ? -1 : 0) : static_cast<T>(x >> y);
  } else {
    return shift_out_of_range(y) ? T(0) : static_cast<T>(x >> y);
  }
}

}  // namespace tcore::native
