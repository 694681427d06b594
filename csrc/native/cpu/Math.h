#pragma once
// Elementary functions the compiler can vectorize (no libm call, no branch): the float32
// loops of exp and softmax use them. Accuracy: within 2 ulp of e^x over the normal range.
#include "tcore/core/CPUCapability.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "native/cpu/Copy.h"
#if defined(__AVX2__)
#include <immintrin.h>
#endif
#include "native/cpu/Parallel.h"
#include <limits>

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

// e^x as 2^n * e^r with n = round(x / ln 2) and |r| <= ln(2) / 2 (Cody-Waite split of ln 2),
// e^r by a degree-6 polynomial; overflow gives inf, underflow denormals then 0, NaN stays NaN.
// Below -104 (a result that rounds to 0) computed at 0 and replaced by 0: an underflowing product
// takes a microcode assist (VecMath.h's exp_nonpositive).
inline float exp_vectorizable(float x) {
  // selects and adds only (no libm call, no branch), so that the loop vectorizes
  const float clamped = x < -104.0f ? 0.0f : (x > 88.8f ? 88.8f : x);
  const float t = clamped * 1.44269504088896341f;
  const float n = (t + 12582912.0f) - 12582912.0f;  // round to nearest: 1.5 * 2^23 pushes out the fraction
  const float r = (clamped - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n in two factors, each a normal float: n runs from -150 (gradual underflow) to 128
  const int32_t n1 = static_cast<int32_t>(n) >> 1, n2 = static_cast<int32_t>(n) - n1;
  const int32_t bits1 = (n1 + 127) << 23, bits2 = (n2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &bits1, sizeof s1);
  std::memcpy(&s2, &bits2, sizeof s2);
  const float y = p * s1 * s2;
  return x != x ? x : (x > 88.72283935546875f ? std::numeric_limits<float>::infinity() : (x < -104.0f ? 0.0f : y));
}

// The bytes of one SIMD register at this capability (GCC/Clang vector extensions below:
// the compiler did not vectorize the same loops written over arrays of lanes as well, 2-6x
// slower on rows in L1).
#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
#elif defined(__AVX2__)
constexpr int kVectorBytes = 32;
#else
constexpr int kVectorBytes = 16;
#endif

// A vector V of lanes read from p, unaligned (one vmovups; the reads below and in ReduceMore.cpp).
template <typename V, typename T>
V load_lanes(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// 1 when v is inf or NaN, else 0, read from its exponent bits: an OR of these over a loop vectorizes
// (a bool && of v - v == 0 did not: a column sum 7x slower)
template <typename T>
inline uint32_t nonfinite_bit(T v) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "nonfinite_bit: float or double");
  if constexpr (sizeof(T) == 4) {
    uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return static_cast<uint32_t>((b & 0x7f800000u) == 0x7f800000u);
  } else {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return static_cast<uint32_t>((b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull);
  }
}

// sum over contiguous rows of f(x, ...) for floats (one or more rows of n elements, f taking an
// element of each): four registers of lanes within blocks of 4096 elements, the blocks added
// up in double (a cascade: accurate for long rows, and fast). F maps vectors (or scalars, for
// the tail) to the vector (scalar) to add. T, the type the sums are of, is the rows' own, or float
// for float16/bfloat16 rows given as sum_rows_of<float>: each vector converted in registers, the
// same sums to the bit as of the rows converted first (a copy through L1 a block of 4096 made a
// float16 sum 1.2x torch's).
template <typename T = void, typename F, typename S, typename... More>
double sum_rows_of(const F& f, int64_t n, const S* row, const More*... more) {
  using A = std::conditional_t<std::is_void_v<T>, S, T>;
  static_assert(std::is_floating_point_v<A>, "sum_rows_of: sums of float or double");
  static_assert((std::is_same_v<S, More> && ...), "sum_rows_of: rows of one type");
  constexpr int64_t kBlock = 4096;
  constexpr int64_t W = kVectorBytes / sizeof(A);
  typedef A V __attribute__((vector_size(kVectorBytes)));
  const auto load = [](const S* p) {
    if constexpr (std::is_same_v<S, A>) {
      return load_lanes<V>(p);
    } else if constexpr (std::is_same_v<S, BFloat16> && std::is_same_v<A, float>) {
      // the bits moved up: a vector expression (through convert_run's loop the accumulators of a
      // bfloat16 sum went to memory, 1.5x slower)
      // (GCC splits __builtin_convertvector's widening into halves at AVX-512: the instructions here,
      // their masked forms with every lane on, as GCC 12 warns of the unmasked ones' operand)
#if defined(__AVX512F__)
      const __m512i wide = _mm512_maskz_slli_epi32(
          0xffff, _mm512_maskz_cvtepu16_epi32(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), 16);
#elif defined(__AVX2__)
      const __m256 wide = load8_as_float(p);
#else
      typedef uint16_t Bits __attribute__((vector_size(kVectorBytes / 2)));
      typedef uint32_t Wide __attribute__((vector_size(kVectorBytes)));
      Bits bits;
      std::memcpy(&bits, p, sizeof bits);
      const Wide wide = __builtin_convertvector(bits, Wide) << 16;
#endif
      static_assert(sizeof wide == sizeof(V));
      V v;
      std::memcpy(&v, &wide, sizeof v);
      return v;
    } else {
      A lanes[W];
      convert_run<A, S>(lanes, p, W);
      return load_lanes<V>(lanes);
    }
  };
  double total = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t end = b + kBlock < n ? b + kBlock : n;
    V acc[4] = {};
    int64_t i = b;
    for (; i + 4 * W <= end; i += 4 * W) {
      for (int k = 0; k < 4; ++k) acc[k] += f(load(row + i + k * W), load(more + i + k * W)...);
    }
    double block = 0;
    for (; i < end; ++i) block += f(static_cast<A>(row[i]), static_cast<A>(more[i])...);
    const V a = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (int64_t j = 0; j < W; ++j) block += a[j];
    total += block;
  }
  return total;
}

template <typename T, typename F>
double sum_row_of(const T* row, int64_t n, const F& f) {
  return sum_rows_of(f, n, row);
}

template <typename T>
double sum_row(const T* row, int64_t n) {
  return sum_row_of(row, n, [](auto v) { return v; });
}

// 1 / sqrt(mean((x - m)^2) + eps) over a contiguous row of n, in double: the squared deviations
// summed by sum_rows_of in the lanes of A (the row's own type, or float for a float16/bfloat16
// row), and where that sum overflows with every deviation finite (float32 deviations past 1.8e19,
// float64 past 1e154) again with each deviation scaled by the power of two 2^-e that brings the
// largest near 1, the result scaled back by 2^-e: layer_norm's variance of float32 values near
// 1e30 was inf and its output 0 where the normalized row is finite (torch's is NaN there).
// 1 / sqrt(v + eps) from v * 2^-2e (the mean of squared deviations each scaled by 2^-e): the
// rescaled path of inverse_std and of BatchNorm.cpp's channel statistics.
inline double inverse_std_of_scaled(double scaled_variance, int e, double eps) {
  return std::ldexp(1.0 / std::sqrt(scaled_variance + std::ldexp(eps, -2 * e)), -e);
}

template <typename A = void, typename S, typename M>
double inverse_std(const S* row, int64_t n, M m, double eps) {
  const double count = static_cast<double>(n);
  const double ss = sum_rows_of<A>([m](auto v) { return (v - m) * (v - m); }, n, row);
  if (!std::isinf(ss)) return 1.0 / std::sqrt(ss / count + eps);
  double largest = 0;  // (the rare path: a scalar pass)
  for (int64_t i = 0; i < n; ++i) largest = std::max(largest, std::abs(static_cast<double>(row[i]) - static_cast<double>(m)));
  if (!std::isfinite(largest)) return 0.0;  // (an infinite deviation: as the unscaled sum gives)
  const int e = std::ilogb(largest);
  const M scale = static_cast<M>(std::ldexp(1.0, -e));  // exact (float32: 2^-129 at the least, a subnormal)
  const double scaled = sum_rows_of<A>([m, scale](auto v) { return ((v - m) * scale) * ((v - m) * scale); }, n, row);
  return inverse_std_of_scaled(scaled / count, e, eps);
}

// sum_rows_of with its 4096-element blocks spread over the threads; the block sums are
// added in order, so the result is the same for any number of threads.
template <typename T, typename F, typename... More>
double parallel_sum_rows_of(const F& f, int64_t n, const T* row, const More*... more) {
  constexpr int64_t kBlock = 4096;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<double> partial(static_cast<size_t>(blocks));
  parallel_for(0, blocks, kGrainSize / kBlock, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      partial[k] = sum_rows_of(f, std::min(kBlock, n - k * kBlock), row + k * kBlock, (more + k * kBlock)...);
    }
  });
  double total = 0;
  for (double p : partial) total += p;
  return total;
}

template <typename T>
double parallel_sum_row(const T* row, int64_t n) {
  return parallel_sum_rows_of([](auto v) { return v; }, n, row);
}

// The largest (Greater) or smallest element of a contiguous row (n > 0), NaN if there is one: four registers of
// lanes, each lane keeping max(lane, v) or v when v is NaN (a NaN lane then stays NaN: both
// comparisons are false against it). Written with vector types because the compiler did not
// vectorize the same select over an array of lanes (6x slower on rows in L1).
template <bool Greater, typename T>
T extreme_row(const T* row, int64_t n) {
  const auto pick = [](T m, T v) { return ((Greater ? v > m : v < m) || v != v) ? v : m; };
  int64_t i = 0;
  T m = row[0];
  if constexpr (std::is_floating_point_v<T>) {
    constexpr int64_t W = kVectorBytes / sizeof(T);
    typedef T V __attribute__((vector_size(kVectorBytes)));
    if (n >= W) {
      V acc[4];
      for (auto& a : acc)
        for (int64_t j = 0; j < W; ++j) a[j] = row[0];
      for (; i + 4 * W <= n; i += 4 * W) {
        for (int k = 0; k < 4; ++k) {
          const V v = load_lanes<V>(row + i + k * W);
          acc[k] = ((Greater ? v > acc[k] : v < acc[k]) | (v != v)) ? v : acc[k];
        }
      }
      for (; i + W <= n; i += W) {  // then single vectors (rows of a few vectors: a causal mask's)
        const V v = load_lanes<V>(row + i);
        acc[0] = ((Greater ? v > acc[0] : v < acc[0]) | (v != v)) ? v : acc[0];
      }
      // the four registers into one by vectors, then its lanes (64 scalar picks per row cost a
      // third of amax over rows of 2048 floats)
      const auto vpick = [](V a, V v) { return ((Greater ? v > a : v < a) | (v != v)) ? v : a; };
      const V a = vpick(vpick(acc[0], acc[1]), vpick(acc[2], acc[3]));
      for (int64_t j = 0; j < W; ++j) m = pick(m, a[j]);
    }
  }
  for (; i < n; ++i) m = pick(m, row[i]);
  return m;
}
template <typename T>
T max_row(const T* row, int64_t n) { return extreme_row<true>(row, n); }

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
