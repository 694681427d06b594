#pragma once
// The 16-bit floating types: IEEE half (float16) and bfloat16. They are storage types:
// kernels compute in float32 and round on store (round to nearest even, as PyTorch).
#include <cstdint>
#include <cstring>
#include <limits>

// The conversions run in device code too (CUDA and HIP kernels store float results into them).
#if defined(__CUDACC__) || defined(__HIPCC__)
#define TCORE_HOST_DEVICE __host__ __device__
#else
#define TCORE_HOST_DEVICE
#endif

namespace tcore {

namespace detail {
TCORE_HOST_DEVICE inline uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}
TCORE_HOST_DEVICE inline float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}
}  // namespace detail

struct Half {
  uint16_t x = 0;
  Half() = default;
  TCORE_HOST_DEVICE Half(float f) : x(from_float(f)) {}  // NOLINT: implicit, as c10::Half
  TCORE_HOST_DEVICE operator float() const { return to_float(x); }

  TCORE_HOST_DEVICE static constexpr Half from_bits(uint16_t bits) {
    Half h;
    h.x = bits;
    return h;
  }
  TCORE_HOST_DEVICE static uint16_t from_float(float f) {
    const uint32_t u = detail::float_bits(f);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504: inf
    if (abs < 0x38800000u) {  // subnormal half (or zero): scale into place with float arithmetic
      const float scaled = detail::bits_float(abs) * 16777216.0f;  // 2^24: units of the smallest subnormal
      const uint32_t q = static_cast<uint32_t>(scaled);
      const float rest = scaled - static_cast<float>(q);
      uint32_t m = q + ((rest > 0.5f || (rest == 0.5f && (q & 1u))) ? 1u : 0u);
      return static_cast<uint16_t>(sign | m);
    }
    // normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even
    const uint32_t rebased = abs - (112u << 23);
    const uint32_t mant = rebased >> 13, dropped = rebased & 0x1fffu;
    uint32_t h = mant + ((dropped > 0x1000u || (dropped == 0x1000u && (mant & 1u))) ? 1u : 0u);
    return static_cast<uint16_t>(sign | h);
  }
  TCORE_HOST_DEVICE static float to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0) {  // zero or subnormal
      const float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
      return sign ? -v : v;
    }
    if (exp == 31) return detail::bits_float(sign | 0x7f800000u | (mant << 13));
    return detail::bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
  }
};

struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  TCORE_HOST_DEVICE BFloat16(float f) : x(from_float(f)) {}  // NOLINT: implicit, as c10::BFloat16
  TCORE_HOST_DEVICE operator float() const { return detail::bits_float(static_cast<uint32_t>(x) << 16); }

  TCORE_HOST_DEVICE static constexpr BFloat16 from_bits(uint16_t bits) {
    BFloat16 b;
    b.x = bits;
    return b;
  }
  TCORE_HOST_DEVICE static uint16_t from_float(float f) {
    const uint32_t u = detail::float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
    const uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>((u + rounding) >> 16);
  }
};

}  // namespace tcore

namespace std {
template <>
class numeric_limits<tcore::Half> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr tcore::Half lowest() { return tcore::Half::from_bits(0xfbff); }
  static constexpr tcore::Half max() { return tcore::Half::from_bits(0x7bff); }
  static constexpr tcore::Half min() { return tcore::Half::from_bits(0x0400); }
  static constexpr tcore::Half infinity() { return tcore::Half::from_bits(0x7c00); }
  static constexpr tcore::Half quiet_NaN() { return tcore::Half::from_bits(0x7e00); }
  static constexpr tcore::Half epsilon() { return tcore::Half::from_bits(0x1400); }
};
template <>
class numeric_limits<tcore::BFloat16> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr tcore::BFloat16 lowest() { return tcore::BFloat16::from_bits(0xff7f); }
  static constexpr tcore::BFloat16 max() { return tcore::BFloat16::from_bits(0x7f7f); }
  static constexpr tcore::BFloat16 min() { return tcore::BFloat16::from_bits(0x0080); }
  static constexpr tcore::BFloat16 infinity() { return tcore::BFloat16::from_bits(0x7f80); }
  static constexpr tcore::BFloat16 quiet_NaN() { return tcore::BFloat16::from_bits(0x7fc0); }
  static constexpr tcore::BFloat16 epsilon() { return tcore::BFloat16::from_bits(0x3c00); }
};
}  // namespace std
