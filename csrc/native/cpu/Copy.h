#pragma once
#include "tcore/core/CPUCapability.h"
#include "tcore/core/Tensor.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE4_1__)
#include <immintrin.h>
#endif

namespace tcore::native {
// The copy_kernel of the CPU capability chosen at load time (its Copy.cpp sets it when it
// registers; defined in native/TensorUtils.cpp): the other copies forward to it, so code outside
// the kernels (cast, contiguous copies), which calls the baseline's, runs the chosen one.
extern void (*chosen_copy_kernel)(const Tensor& dst, const Tensor& src);

inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
// dst[...] = src[...] with broadcasting of src and any dtype conversion (CPU).
void copy_kernel(const Tensor& dst, const Tensor& src);

// float32 <-> float16 through the F16C instructions where this copy's capability has them (AVX2 and
// AVX-512: vcvtps2ph rounds to nearest even, as Half's own conversion; NaN stays NaN, its sign kept),
// 8 or 16 lanes a run: Half::from_float's branches made a 4M-element .half() 18.6 ms, 30x torch's.
// Elsewhere (and for every other pair) static_cast; one type to itself is a memmove (a float16 run
// copied element by element took half of a transposing copy's time; a run may be copied onto itself). (The AVX-512 forms are the
// masked ones with every lane on: GCC 12 warns of an uninitialized operand inside the unmasked ones.)
//
// Always inlined: ReducedFloatLoops.h converts sixteen-value blocks in registers through it (a call a
// block made a float16 add 2.5x slower). GCC then analyses its scalar tails for a constant n they
// never reach, and wrongly warns of undefined behaviour at some far iteration: that warning is off here.
#if defined(__AVX512F__) && defined(__AVX512BW__)
// A register of float32 values rounded to bfloat16 as BFloat16::from_float rounds (to nearest even;
// a NaN quieted, its sign and upper payload kept), each in the upper 16 bits of its lane (the lower
// bits are not defined): the one place of that rounding in registers.
[[gnu::always_inline]] inline __m512i bfloat16_in_upper_half(__m512 f) {
  const __m512i u = _mm512_castps_si512(f);
  const __m512i lsb = _mm512_maskz_and_epi32(0xffff, _mm512_maskz_srli_epi32(0xffff, u, 16), _mm512_set1_epi32(1));
  const __m512i biased = _mm512_maskz_add_epi32(0xffff, u, _mm512_set1_epi32(0x7fff));
  const __m512i rounded = _mm512_maskz_add_epi32(0xffff, biased, lsb);
  return _mm512_mask_or_epi32(rounded, _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q), u, _mm512_set1_epi32(0x400000));
}
#endif
#if defined(__AVX2__)
[[gnu::always_inline]] inline __m256i bfloat16_in_upper_half(__m256 f) {
  const __m256i u = _mm256_castps_si256(f);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), lsb);
  return _mm256_blendv_epi8(rounded, _mm256_or_si256(u, _mm256_set1_epi32(0x400000)),
                            _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q)));
}
#endif
#if defined(__SSE4_1__)
[[gnu::always_inline]] inline __m128i bfloat16_in_upper_half(__m128 f) {
  const __m128i u = _mm_castps_si128(f);
  const __m128i lsb = _mm_and_si128(_mm_srli_epi32(u, 16), _mm_set1_epi32(1));
  const __m128i rounded = _mm_add_epi32(_mm_add_epi32(u, _mm_set1_epi32(0x7fff)), lsb);
  return _mm_blendv_epi8(rounded, _mm_or_si128(u, _mm_set1_epi32(0x400000)), _mm_castps_si128(_mm_cmpunord_ps(f, f)));
}
#endif
// Sixteen (AVX2) or thirty-two (AVX-512) bfloat16 values as two registers of float32, the ones at
// even places and the ones at odd places (each widened exactly, by a shift and by a mask: no
// lane-crossing widening), and two such registers rounded (bfloat16_in_upper_half) and put back in
// place by one blend (no lane-crossing narrowing): the one place of that split and join (VecMath.h's
// map_with, ReducedFloatLoops.h's binary runs).
#if defined(__AVX512F__) && defined(__AVX512BW__)
struct BFloat16Halves512 {
  __m512 even, odd;
};
[[gnu::always_inline]] inline BFloat16Halves512 bfloat16_split(__m512i u) {
  return {_mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, u, 16)),
          _mm512_castsi512_ps(_mm512_maskz_and_epi32(0xffff, u, _mm512_set1_epi32(static_cast<int>(0xffff0000u))))};
}
[[gnu::always_inline]] inline __m512i bfloat16_join_rounded(__m512 even, __m512 odd) {
  // (even >> 16) | (odd & upper): the upper bits from odd, the others from the shifted even
  const __m512i low = _mm512_maskz_srli_epi32(0xffff, bfloat16_in_upper_half(even), 16);
  return _mm512_ternarylogic_epi32(_mm512_set1_epi32(static_cast<int>(0xffff0000u)), bfloat16_in_upper_half(odd), low, 0xca);
}
#endif
#if defined(__AVX2__)
struct BFloat16Halves256 {
  __m256 even, odd;
};
[[gnu::always_inline]] inline BFloat16Halves256 bfloat16_split(__m256i u) {
  return {_mm256_castsi256_ps(_mm256_slli_epi32(u, 16)),
          _mm256_castsi256_ps(_mm256_and_si256(u, _mm256_set1_epi32(static_cast<int>(0xffff0000u))))};
}
[[gnu::always_inline]] inline __m256i bfloat16_join_rounded(__m256 even, __m256 odd) {
  return _mm256_blend_epi16(_mm256_srli_epi32(bfloat16_in_upper_half(even), 16), bfloat16_in_upper_half(odd), 0xaa);
}
#endif
#if defined(__AVX2__)
// Eight float32, float16 or bfloat16 values in a register of float32 (widened exactly), and a
// register rounded to eight of them as convert_run rounds (float16: F16C's instruction; bfloat16:
// bfloat16_in_upper_half): the one place of the bfloat16 ones at AVX2 (convert_run's loops,
// Math.h's sums of rows read as they lie, layer_norm's last pass).
template <typename T>
[[gnu::always_inline]] inline __m256 load8_as_float(const T* p) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm256_loadu_ps(p);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16));
  } else {
    static_assert(std::is_same_v<T, Half>, "load8_as_float: float, Half or BFloat16");
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
}
template <typename T>
[[gnu::always_inline]] inline void store8_rounded(T* p, __m256 v) {
  if constexpr (std::is_same_v<T, float>) {
    _mm256_storeu_ps(p, v);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    const __m256i r = _mm256_srli_epi32(bfloat16_in_upper_half(v), 16);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                     _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));  // each <= 0xffff
  } else {
    static_assert(std::is_same_v<T, Half>, "store8_rounded: float, Half or BFloat16");
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  }
}
#endif
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Waggressive-loop-optimizations"
template <typename D, typename S>
[[gnu::always_inline]] inline void convert_run(D* o, const S* x, int64_t n) {
  if constexpr (std::is_same_v<D, S> && std::is_trivially_copyable_v<D>) {
    if (n > 0) std::memmove(o, x, static_cast<size_t>(n) * sizeof(D));
    return;
  }
#if defined(__F16C__)
  if constexpr (std::is_same_v<D, Half> && std::is_same_v<S, float>) {
    int64_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), _mm512_maskz_cvtps_ph(0xffff, _mm512_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
#endif
    for (; i + 8 <= n; i += 8)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; ++i) o[i] = Half::from_bits(static_cast<uint16_t>(_cvtss_sh(x[i], _MM_FROUND_TO_NEAREST_INT)));
    return;
  } else if constexpr (std::is_same_v<D, float> && std::is_same_v<S, Half>) {
    int64_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16)
      _mm512_storeu_ps(o + i, _mm512_maskz_cvtph_ps(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i))));
#endif
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_ps(o + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
    for (; i < n; ++i) o[i] = _cvtsh_ss(x[i].x);
    return;
  }
#else
  // Without F16C (the SSE4 baseline): Half's conversions without branches, four lanes at a time in
  // integer and float vector arithmetic (element by element they made a float16 sum 6.5x torch's
  // and an add 1.5x), the same bits as Half::from_float / to_float
  using U32 = uint32_t __attribute__((vector_size(16)));
  using I32 = int32_t __attribute__((vector_size(16)));
#if !defined(__SSE4_1__)
  using U16 = uint16_t __attribute__((vector_size(8)));
#endif
  using F32 = float __attribute__((vector_size(16)));
  // (compares signed, of values below 2^31: SSE4 has no unsigned compare, two instructions each;
  // widening and narrowing by SSE4.1's instructions: GCC's for __builtin_convertvector took five)
  if constexpr (std::is_same_v<D, Half> && std::is_same_v<S, float>) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      I32 u;
      std::memcpy(&u, x + i, sizeof u);
      const I32 a = u & 0x7fffffff;
      const I32 rebased = a - (112 << 23);  // normal: the exponent rebiased, 13 bits rounded to even
      const I32 normal = (rebased + 0xfff + ((rebased >> 13) & 1)) >> 13;
      // subnormal: a + 0.5 rounds a to a multiple of 2^-24 (the smallest subnormal half), to even
      const I32 subnormal = reinterpret_cast<I32>(reinterpret_cast<F32>(a) + 0.5f) - 0x3f000000;
      I32 r = a < 0x38800000 ? subnormal : normal;
      r = a >= 0x477ff000 ? I32{} + 0x7c00 : r;  // past 65504 (and inf): inf
      r = a > 0x7f800000 ? I32{} + 0x7e00 : r;   // NaN
      r |= (u >> 16) & 0x8000;
#if defined(__SSE4_1__)
      _mm_storel_epi64(reinterpret_cast<__m128i*>(o + i), _mm_packus_epi32((__m128i)r, (__m128i)r));  // (each <= 0xffff)
#else
      const U16 h = __builtin_convertvector(r, U16);
      std::memcpy(static_cast<void*>(o + i), &h, sizeof h);
#endif
    }
    for (; i < n; ++i) o[i] = static_cast<D>(x[i]);
    return;
  } else if constexpr (std::is_same_v<D, float> && std::is_same_v<S, Half>) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
#if defined(__SSE4_1__)
      const I32 w = (I32)_mm_cvtepu16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + i)));
#else
      U16 h;
      std::memcpy(&h, static_cast<const void*>(x + i), sizeof h);
      const I32 w = __builtin_convertvector(h, I32);
#endif
      const I32 em = w & 0x7fff;
      const I32 normal = (em << 13) + (112 << 23), special = (em << 13) | 0x7f800000;  // inf, NaN
      const I32 subnormal = reinterpret_cast<I32>(__builtin_convertvector(em, F32) * (1.0f / 16777216.0f));
      const I32 sign = reinterpret_cast<I32>(reinterpret_cast<U32>(w & 0x8000) << 16);
      const I32 r = (em < 0x400 ? subnormal : (em >= 0x7c00 ? special : normal)) | sign;
      std::memcpy(o + i, &r, sizeof r);
    }
    for (; i < n; ++i) o[i] = static_cast<D>(x[i]);
    return;
  }
#endif
  if constexpr (std::is_same_v<D, BFloat16> && std::is_same_v<S, float>) {
    // BFloat16::from_float's rounding (to nearest even; NaN quieted, its sign and upper payload
    // kept) on whole registers: element by element it did not vectorize (a bfloat16 relu took twice a
    // float16 one), and GCC's vector extensions narrowed element by element at AVX2 (a bfloat16 mul
    // 6.6x torch's there)
    int64_t i = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__)
    for (; i + 16 <= n; i += 16) {
      const __m512i v = _mm512_maskz_srli_epi32(0xffff, bfloat16_in_upper_half(_mm512_loadu_ps(x + i)), 16);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), _mm512_maskz_cvtepi32_epi16(0xffff, v));
    }
#elif defined(__AVX2__)
    for (; i + 8 <= n; i += 8) store8_rounded(o + i, _mm256_loadu_ps(x + i));
#elif defined(__SSE4_1__)
    for (; i + 4 <= n; i += 4) {  // (element by element: a bfloat16 layer_norm 2.7x slower at SSE4)
      const __m128i v = _mm_srli_epi32(bfloat16_in_upper_half(_mm_loadu_ps(x + i)), 16);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(o + i), _mm_packus_epi32(v, v));
    }
#endif
    for (; i < n; ++i) o[i] = static_cast<D>(x[i]);
    return;
  } else if constexpr (std::is_same_v<D, float> && std::is_same_v<S, BFloat16>) {
    // widened by intrinsics: GCC splits __builtin_convertvector's widening into 128-bit halves
    int64_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16) {
      const __m512i u = _mm512_maskz_cvtepu16_epi32(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i)));
      _mm512_storeu_si512(o + i, _mm512_maskz_slli_epi32(0xffff, u, 16));
    }
#elif defined(__AVX2__)
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, load8_as_float(x + i));
#elif defined(__SSE4_1__)
    for (; i + 4 <= n; i += 4) {  // (four: vec::load's registers at SSE4)
      const __m128i h = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + i));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i), _mm_unpacklo_epi16(_mm_setzero_si128(), h));
    }
#endif
    for (; i < n; ++i) o[i] = static_cast<D>(x[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<D>(x[i]);
}
#pragma GCC diagnostic pop

// f(type_tag<Half>{}) or f(type_tag<BFloat16>{}) for a float16/bfloat16 dtype t
template <typename F>
void dispatch_reduced_float(ScalarType t, const F& f) {
  if (t == ScalarType::Half) f(type_tag<Half>{});
  else f(type_tag<BFloat16>{});
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
