#pragma once
// Vectorized elementary functions from SLEEF (https://sleef.org; Debian's libsleef-dev), at the
// vector width of the CPU capability this copy of the kernels is compiled for: 16 floats /
// 8 doubles with AVX-512, 8 / 4 with AVX2+FMA, 4 / 2 with SSE4.1 (the baseline, x86-64-v2). The
// u10 functions: within 1.0 ulp (SLEEF's bound), NaN/inf as C's. Without SLEEF (a build that did
// not find it, or not x86-64) vec::kAvailable is false and the kernels keep their scalar loops.
#include "tcore/core/CPUCapability.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "native/SegmentPoly.h"
#include "native/cpu/Copy.h"
#include "tcore_build_config.h"  // TCORE_HAVE_SLEEF (CMakeLists.txt)

#if TCORE_HAVE_SLEEF && defined(__SSE4_1__)
#include <immintrin.h>
#include <sleef.h>
#define TCORE_VEC_MATH 1
#endif

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace vec {

template <typename T>
constexpr bool is_reduced = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

#if defined(TCORE_VEC_MATH)
constexpr bool kAvailable = true;
#if defined(__AVX512F__)
using VF = __m512;
using VD = __m512d;
#define TCORE_SLEEF_F(fn) Sleef_##fn##f16_u10avx512f
#define TCORE_SLEEF_D(fn) Sleef_##fn##d8_u10avx512f
#define TCORE_SLEEF_EXACT_F(fn) Sleef_##fn##f16_avx512f  // the exact ones (fmod, floor, sqrt...)
#define TCORE_SLEEF_EXACT_D(fn) Sleef_##fn##d8_avx512f
#define TCORE_SLEEF_ERFC_D Sleef_erfcd8_u15avx512f
#elif defined(__AVX2__) && defined(__FMA__)
using VF = __m256;
using VD = __m256d;
#define TCORE_SLEEF_F(fn) Sleef_##fn##f8_u10avx2
#define TCORE_SLEEF_D(fn) Sleef_##fn##d4_u10avx2
#define TCORE_SLEEF_EXACT_F(fn) Sleef_##fn##f8_avx2
#define TCORE_SLEEF_EXACT_D(fn) Sleef_##fn##d4_avx2
#define TCORE_SLEEF_ERFC_D Sleef_erfcd4_u15avx2
#else
using VF = __m128;
using VD = __m128d;
#define TCORE_SLEEF_F(fn) Sleef_##fn##f4_u10sse4
#define TCORE_SLEEF_D(fn) Sleef_##fn##d2_u10sse4
#define TCORE_SLEEF_EXACT_F(fn) Sleef_##fn##f4_sse4
#define TCORE_SLEEF_EXACT_D(fn) Sleef_##fn##d2_sse4
#define TCORE_SLEEF_ERFC_D Sleef_erfcd2_u15sse4
#endif

// Values of T in one register: float16/bfloat16 are held as float32 (converted as they are
// loaded and stored, below).
template <typename T>
constexpr int width = static_cast<int>(sizeof(VF) / (is_reduced<T> ? sizeof(float) : sizeof(T)));
// The register type of T (a trait, not std::conditional_t: GCC warns that the vector types'
// attributes are ignored as template arguments).
template <typename T>
struct VecOf {  // float32, and float16/bfloat16 held as float32
  static_assert(std::is_same_v<T, float> || is_reduced<T>, "no vector type for this type");
  using type = VF;
};
template <>
struct VecOf<double> {
  using type = VD;
};

// Unaligned loads and stores of either vector (the compiler emits one vmovups/movups for each).
template <typename V, typename T, std::enable_if_t<!is_reduced<T>, int> = 0>
V load(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename V, typename T, std::enable_if_t<!is_reduced<T>, int> = 0>
void store(T* p, V v) { std::memcpy(p, &v, sizeof v); }
// float16/bfloat16 in float32 registers: Copy.h's conversions (F16C, or bfloat16's shift and
// rounding), in registers once inlined: a unary float16/bfloat16 kernel converts, computes and
// rounds in one pass (through float32 buffers it took three: bfloat16 gelu 1.3x torch's)
template <typename V, typename H, std::enable_if_t<is_reduced<H>, int> = 0>
V load(const H* p) {
  alignas(64) float b[width<float>];
  convert_run<float, H>(b, p, width<float>);
  return load<V>(b);
}
template <typename V, typename H, std::enable_if_t<is_reduced<H>, int> = 0>
void store(H* p, V v) {
  alignas(64) float b[width<float>];
  store(b, v);
  convert_run<H, float>(p, b, width<float>);
}

// One operation each: apply(VF), apply(VD).
#define TCORE_VEC_OP(Name, fn)                                     \
  struct Name {                                                    \
    static VF apply(VF v) { return TCORE_SLEEF_F(fn)(v); }         \
    static VD apply(VD v) { return TCORE_SLEEF_D(fn)(v); }         \
  };
TCORE_VEC_OP(ExpSleef, exp)  // (float64's; Exp below)
TCORE_VEC_OP(Exp2, exp2)
TCORE_VEC_OP(Expm1, expm1)
TCORE_VEC_OP(Log2, log2)
TCORE_VEC_OP(Log1p_, log1p)
TCORE_VEC_OP(Sin, sin)
TCORE_VEC_OP(Cos, cos)
TCORE_VEC_OP(Tan, tan)
TCORE_VEC_OP(Asin, asin)
TCORE_VEC_OP(Acos, acos)
TCORE_VEC_OP(Atan, atan)
TCORE_VEC_OP(Sinh_, sinh)
TCORE_VEC_OP(Cosh_, cosh)
TCORE_VEC_OP(Erf_, erf)
TCORE_VEC_OP(Tanh_, tanh)  // (float64's; float32's is Tanh below)
#undef TCORE_VEC_OP

// SLEEF's exact functions (fmod; floor and copysign for the floor division; sqrt)
inline VF fmod(VF x, VF y) { return TCORE_SLEEF_EXACT_F(fmod)(x, y); }
inline VD fmod(VD x, VD y) { return TCORE_SLEEF_EXACT_D(fmod)(x, y); }
inline VF floor(VF x) { return TCORE_SLEEF_EXACT_F(floor)(x); }
inline VD floor(VD x) { return TCORE_SLEEF_EXACT_D(floor)(x); }
inline VF sqrt(VF x) { return TCORE_SLEEF_EXACT_F(sqrt)(x); }
inline VD sqrt(VD x) { return TCORE_SLEEF_EXACT_D(sqrt)(x); }
inline VF copysign(VF x, VF y) { return TCORE_SLEEF_EXACT_F(copysign)(x, y); }
inline VD copysign(VD x, VD y) { return TCORE_SLEEF_EXACT_D(copysign)(x, y); }
// x y + z with one rounding, and truncation toward zero: inline, no call. kFma: whether this width
// has the fused instruction (SSE4 has not: callers test `if constexpr (vec::kFma)`). (The AVX-512 truncation is the masked form with every lane on:
// GCC 12 warns of an uninitialized operand inside the unmasked one.)
#if defined(__AVX512F__)
constexpr bool kFma = true;
inline VF fma(VF a, VF b, VF c) { return _mm512_fmadd_ps(a, b, c); }
inline VD fma(VD a, VD b, VD c) { return _mm512_fmadd_pd(a, b, c); }
inline VF trunc(VF x) { return _mm512_maskz_roundscale_ps(0xffff, x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline VD trunc(VD x) { return _mm512_maskz_roundscale_pd(0xff, x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
#elif defined(__AVX2__) && defined(__FMA__)
constexpr bool kFma = true;
inline VF fma(VF a, VF b, VF c) { return _mm256_fmadd_ps(a, b, c); }
inline VD fma(VD a, VD b, VD c) { return _mm256_fmadd_pd(a, b, c); }
inline VF trunc(VF x) { return _mm256_round_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline VD trunc(VD x) { return _mm256_round_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
#else
constexpr bool kFma = false;
// declared only, for code under `if constexpr (vec::kFma)`: a call here fails to link, where x y + z
// rounded twice would silently break what depends on one rounding
VF fma(VF a, VF b, VF c);
VD fma(VD a, VD b, VD c);
inline VF trunc(VF x) { return _mm_round_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline VD trunc(VD x) { return _mm_round_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
#endif
// x y + z, fused where this width has the instruction: the same rounding wherever a function is
// inlined (left to the compiler's contraction, one inlined copy of tanh fused where another did
// not, and a short tensor's tanh differed from the same value's in a long one by an ulp)
inline VF madd(VF x, VF y, VF z) {
  if constexpr (kFma) return fma(x, y, z);
  else return x * y + z;
}

// Where SLEEF's documented range ends before the result does (tests/test_vector_math.py):
// log1p beyond 1e38 (float) / 1e307 (double) is log(x) to the last bit, and a tiny x is its own
// log1p (SLEEF flushes denormals to 0); sinh and cosh of |x| past 88.5 / 709 are e^|x| / 2
// (SLEEF overflows early there; the true result is finite up to 89.4 / 710.4), computed as
// e^(|x|/2) * (e^(|x|/2) / 2).
// |v| by clearing the sign bits (one and; `v < 0 ? -v : v` took a compare and a blend): -0 and
// a negative NaN lose their sign, which no caller tells apart.
template <typename V, typename S>
V abs_of(V v) {
  using I = std::conditional_t<sizeof(S) == 4, int32_t, int64_t>;
  using IV [[gnu::vector_size(sizeof(V))]] = I;
  return reinterpret_cast<V>(reinterpret_cast<IV>(v) & std::numeric_limits<I>::max());
}
// whether any (every) lane of a comparison's mask is set (the fix-ups cost a second function only
// then): one test instruction (a loop over the lanes compiled to a chain of shuffles, 30% of gelu's
// time)
template <typename M>
bool any(M mask) {
  if constexpr (sizeof(M) == 64) {
    if constexpr (sizeof(mask[0]) == 4) return _mm512_test_epi32_mask((__m512i)mask, (__m512i)mask) != 0;
    else return _mm512_test_epi64_mask((__m512i)mask, (__m512i)mask) != 0;
  } else if constexpr (sizeof(M) == 32) {
    return !_mm256_testz_si256((__m256i)mask, (__m256i)mask);
  } else {
    return !_mm_testz_si128((__m128i)mask, (__m128i)mask);
  }
}
template <typename M>
bool all(M mask) {
  if constexpr (sizeof(M) == 64) {
    if constexpr (sizeof(mask[0]) == 4) return _mm512_test_epi32_mask((__m512i)mask, (__m512i)mask) == 0xffff;
    else return _mm512_test_epi64_mask((__m512i)mask, (__m512i)mask) == 0xff;
  } else if constexpr (sizeof(M) == 32) {
    return _mm256_testc_si256((__m256i)mask, _mm256_set1_epi32(-1));
  } else {
    return _mm_test_all_ones((__m128i)mask);
  }
}
// float32 log, inline at every width and free of division (SLEEF's 1-ulp logf divides: 4M values
// took 2.8-3.7 ms at AVX-512, now 1.6, torch's MKL 1.45; at AVX2 8.1 -> 2.0): x = 2^k m
// with m in [sqrt(1/2), sqrt(2)), f = m - 1, and Cephes' logf: log(1 + f) = f - f^2/2 + f^3 P(f),
// P of degree 8, plus k ln 2 in two parts; within 0.86 ulp over every float32 at each width.
// A vector of positive normal finite values takes only that; otherwise subnormals are scaled by
// 2^23 first, and 0, negatives, infinity and NaN are C's logf. float64: SLEEF's.
struct Log {
  using VI = int32_t __attribute__((vector_size(sizeof(VF))));
  static VF normal(VF x, VI k_bias) {
    const VI ix = reinterpret_cast<VI>(x) - 0x3f3504f3;  // the bits of sqrt(1/2)
    const VF dk = __builtin_convertvector((ix >> 23) - k_bias, VF);
    const VF f = reinterpret_cast<VF>((ix & 0x007fffff) + 0x3f3504f3) - 1.0f;
    // P by Estrin's scheme (pairs in f, then in f^2 and f^4): a chain of four multiply-adds where
    // Horner's took eight, and the chain, not the operation count, bounded the throughput (4M
    // values 1.15-1.28x torch's time -> 0.94-0.97 at SSE4, with vec::map's blocks of four
    // registers; within 0.86 ulp as Horner's was)
    const VF z = f * f, z2 = z * z;
    const VF q0 = madd(VF{} - 2.4999993993e-1f, f, VF{} + 3.3333331174e-1f);
    const VF q1 = madd(VF{} - 1.6668057665e-1f, f, VF{} + 2.0000714765e-1f);
    const VF q2 = madd(VF{} - 1.2420140846e-1f, f, VF{} + 1.4249322787e-1f);
    const VF q3 = madd(VF{} - 1.1514610310e-1f, f, VF{} + 1.1676998740e-1f);
    const VF p = madd(madd(z2, VF{} + 7.0376836292e-2f, madd(q3, z, q2)), z2, madd(q1, z, q0));
    VF y = madd(dk, VF{} - 2.12194440e-4f, (f * z) * p);  // ln 2 = 0.693359375 - 2.12194440e-4
    y = madd(z, VF{} - 0.5f, y);
    return madd(dk, VF{} + 0.693359375f, f + y);
  }
  // the common case, a vector of positive normal finite values (NaN: false), and its result
  static constexpr bool kCommonCase = true;
  static VI common(VF x) { return (x >= std::numeric_limits<float>::min()) & (x < std::numeric_limits<float>::infinity()); }
  static VF fast(VF x) { return normal(x, VI{}); }
  static VF apply(VF x) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    if (all(common(x))) return fast(x);
    const VI tiny = x < std::numeric_limits<float>::min();
    VF out = normal(tiny ? x * 8388608.0f : x, tiny & 23);
    out = x < 0.0f ? VF{} + std::numeric_limits<float>::quiet_NaN() : out;
    out = x == 0.0f ? VF{} - inf : out;
    return (x == inf) | (x != x) ? x : out;  // +inf, NaN
  }
  static VD apply(VD v) { return TCORE_SLEEF_D(log)(v); }
};
#undef TCORE_SLEEF_EXACT_F
#undef TCORE_SLEEF_EXACT_D
#undef TCORE_SLEEF_F
#undef TCORE_SLEEF_D
struct Log1pSleef {
  template <typename V, typename S>
  static V fix(V v, S big, S tiny) {
    const V r = Log1p_::apply(v);
    const auto large = v > big;
    const V out = any(large) ? (large ? Log::apply(v) : r) : r;
    return abs_of<V, S>(v) < tiny ? v : out;
  }
  static VF apply(VF v) { return fix<VF, float>(v, 1e38f, 1e-30f); }
  static VD apply(VD v) { return fix<VD, double>(v, 1e307, 1e-300); }
};
// e^a = 2^n e^r for |a| <= 104 (float32): Cephes' reduction a = n ln 2 + r (n to nearest, ln 2 in
// two parts, n ln2_hi exact) and its degree-6 polynomial for e^r, within 1 ulp; the callers scale
// by 2^n (Exp, exp_nonpositive).
struct ExpParts {
  VF p, n, t;  // t = n + 1.5 * 2^23: its bits are 0x4b400000 + n
};
inline ExpParts exp_parts(VF a) {
  const VF t = madd(a, VF{} + 1.44269504088896341f, VF{} + 12582912.0f), n = t - 12582912.0f;
  const VF r = madd(n, VF{} + 2.12194440e-4f, a - n * 0.693359375f);
  const VF r2 = r * r;
  VF p;
  if constexpr (kFma) {  // Horner's: 1.010 ulp at most over every float32 (Estrin's below, 1.028)
    p = madd(VF{} + 1.9875691500e-4f, r, VF{} + 1.3981999507e-3f);
    p = madd(p, r, VF{} + 8.3334519073e-3f);
    p = madd(p, r, VF{} + 4.1665795894e-2f);
    p = madd(p, r, VF{} + 1.6666665459e-1f);
    p = madd(p, r, VF{} + 5.0000001201e-1f);
  } else {
    // without FMA (SSE4) by Estrin's scheme, pairs in r then Horner's in r^2: a chain of three
    // multiplications and additions where Horner's took five, and the chain, not the operation
    // count, bounded the throughput (4M values 4.3 -> 3.9 ms with vec::map's blocks of four
    // registers); 1.004 ulp at most over every float32 (Horner's 0.990)
    const VF p01 = madd(VF{} + 1.6666665459e-1f, r, VF{} + 5.0000001201e-1f);
    const VF p23 = madd(VF{} + 8.3334519073e-3f, r, VF{} + 4.1665795894e-2f);
    const VF p45 = madd(VF{} + 1.9875691500e-4f, r, VF{} + 1.3981999507e-3f);
    p = madd(madd(p45, r2, p23), r2, p01);
  }
  return {madd(p, r2, r) + 1.0f, n, t};
}

// p 2^n for an integral n in [-150, 128] below AVX-512 (scalef there): two normal factors 2^(n/2),
// so that the product rounds once, into the subnormals or to inf
inline VF times_pow2(VF p, VF n) {
  using VI = int32_t __attribute__((vector_size(sizeof(VF))));
  const VI k = __builtin_convertvector(n, VI), k1 = k >> 1, k2 = k - k1;
  return p * reinterpret_cast<VF>((k1 + 127) << 23) * reinterpret_cast<VF>((k2 + 127) << 23);
}

// e^x, float32 inline at every width (SLEEF's expf is a call: 4M values 1.47 ms at AVX-512, torch's
// 1.3; at AVX2 3.4): Cephes' reduction x = n ln 2 + r (ln 2 in two parts) and degree-6 polynomial,
// within 1 ulp, times 2^n by scalef at AVX-512, which rounds once into the subnormals and
// overflows to inf (below it, a register of results all normal takes one factor, others
// times_pow2's two). x is clamped to [-104, 89] first (so that n fits the rounding trick; NaN
// passes the clamps: they return the second operand when one is NaN); below -104 (and -inf) 0
// without computing the underflow, which took a microcode assist (exp_nonpositive below says how
// dear). float64: SLEEF's (1 ulp).
struct Exp {
  static VF apply(VF x) {
#if defined(__AVX512F__)
    const __mmask16 zero = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-104.0f), _CMP_LT_OQ);
    const VF a = _mm512_maskz_min_ps(static_cast<__mmask16>(~zero), _mm512_set1_ps(89.0f),
                                     _mm512_maskz_max_ps(0xffff, _mm512_set1_ps(-104.0f), x));  // (masked forms:
    // the unmasked ones' undefined operand makes GCC 12 warn)
    const ExpParts e = exp_parts(a);
    return _mm512_maskz_scalef_ps(static_cast<__mmask16>(~zero), e.p, e.n);
#else
    return all(common(x)) ? fast(x) : any_range(x);
#endif
  }
#if !defined(__AVX512F__)
  // the common case, every lane's e^x a normal float32 (|x| <= 87; NaN: false), takes one
  // exponent field, n read from the rounding sum's bits (no conversions); otherwise the clamps
  // and two factors, out of line (inlined, their constants took the registers of this path's): at
  // SSE4 4M values 5.5 -> 4.6 ms (torch's, MKL's VML, 3.5), at AVX2 1.8 -> 1.5
  using VI = int32_t __attribute__((vector_size(sizeof(VF))));
  static constexpr bool kCommonCase = true;
  static VI common(VF x) { return abs_of<VF, float>(x) <= 87.0f; }
  static VF fast(VF x) {
    const ExpParts e = exp_parts(x);
    return e.p * reinterpret_cast<VF>((reinterpret_cast<VI>(e.t) - 0x4b400000 + 127) << 23);
  }
  [[gnu::noinline, gnu::cold]] static VF any_range(VF x) {
    const auto zero = x < -104.0f;
    const VF a = x > 89.0f ? VF{} + 89.0f : zero ? VF{} : x;  // (NaN compares false: it passes)
    const ExpParts e = exp_parts(a);
    return zero ? VF{} : times_pow2(e.p, e.n);
  }
#endif
  static VD apply(VD v) { return ExpSleef::apply(v); }
};
template <typename Body>
struct Hyperbolic {  // Sinh_/Cosh_ with the range fix-up; odd: sinh keeps the sign
  template <typename V, typename S>
  static V fix(V v, S limit, bool odd) {
    const V a = abs_of<V, S>(v);
    const auto large = a > limit;
    if (!any(large)) return Body::apply(v);
    const V h = Exp::apply(a * S(0.5));  // e^|x| / 2 as e^(|x|/2) * (e^(|x|/2) / 2): |x|/2 is exact
    const V e = h * (h * S(0.5));
    return large ? (odd ? (v < S(0) ? -e : e) : e) : Body::apply(v);
  }
};
struct Cosh {
  static VF apply(VF v) { return Hyperbolic<Cosh_>::fix<VF, float>(v, 88.5f, false); }
  static VD apply(VD v) { return Hyperbolic<Cosh_>::fix<VD, double>(v, 709.0, false); }
};
struct Sinh {
  static VF apply(VF v) { return Hyperbolic<Sinh_>::fix<VF, float>(v, 88.5f, true); }
  static VD apply(VD v) { return Hyperbolic<Sinh_>::fix<VD, double>(v, 709.0, true); }
};

// 1 / (1 + e^-x): e^-x within 1 ulp, then one addition and one division (correctly rounded).
struct Sigmoid {
  static VF apply(VF v) { return 1.0f / (1.0f + Exp::apply(-v)); }
  static VD apply(VD v) { return 1.0 / (1.0 + Exp::apply(-v)); }
};

// e^a for a <= 0 (-inf and below -104: 0; NaN stays NaN), inline: SLEEF's expf is a call that
// covers the whole range and was 40% of gelu's time. Cephes' reduction a = n ln 2 + r (ln 2 in two
// parts) and degree-6 polynomial, as Math.h's exp_vectorizable, within 1 ulp; 2^n by scalef at
// AVX-512, elsewhere as two normal factors 2^(n/2) (n down to -150: gradual underflow). A lane
// below -104 (e^a rounds to 0) is computed at 0 and replaced by 0: computed at -104 its result
// underflowed, and each underflow took a microcode assist (a causal softmax, half its scores -inf,
// ran 4.5x slower than an unmasked one).
inline VF exp_nonpositive(VF a) {
  const auto zero = a < -104.0f;
  a = zero ? VF{} : a;
  const ExpParts parts = exp_parts(a);
#if defined(__AVX512F__)
  // (not _mm512_scalef_ps: its undefined pass-through makes GCC 12 warn)
  const VF e = _mm512_maskz_scalef_ps(0xffff, parts.p, parts.n);
#else
  const VF e = times_pow2(parts.p, parts.n);
#endif
  return zero ? VF{} : e;
}

// float32 tanh inline below AVX-512 (TanhTable there): SLEEF's 1-ulp tanhf is a call that costs
// about three of its exps (7 ns an element at SSE4; at AVX-512 13.6 ms for 4M values, 8x torch's
// MKL tanh). x + x^3 P(x^2) below 0.625 (P: degree 5, least squares on Chebyshev nodes, 0.04 ulp
// before rounding), (1 - e) / (1 + e) with e = e^(-2|x|) above (exp_nonpositive: 0 for an infinite
// x), the sign put back; NaN stays NaN. Within 1.53 ulp over every float32 at each width (the
// tests' bound: 2).
// n / d for d in [1, 2]. At AVX2 without a division: the reciprocal's 12-bit estimate, a Newton
// step, the quotient and one correction by the exact residual n - q d (within an ulp of the
// quotient; tanh's 4M values 6.4 -> 4.6 ms). At AVX-512 vdivps is the faster (the same with
// rcp14 and its correction: 2.2 -> 2.55 ms); SSE4 has no fused multiply-add to correct with.
inline VF quotient_1_2(VF n, VF d) {
#if defined(__AVX2__) && defined(__FMA__) && !defined(__AVX512F__)
  VF r = _mm256_rcp_ps(d);
  r = madd(r, madd(-d, r, VF{} + 1.0f), r);
  const VF q = n * r;
  return madd(madd(-q, d, n), r, q);
#else
  return n / d;
#endif
}
struct TanhExp {
  static VF apply(VF v) {
    using VI = int32_t __attribute__((vector_size(sizeof(VF))));
    const VF a = abs_of<VF, float>(v);
    const VF t = a * a;
    VF p = madd(VF{} + 0.002138226293027401f, t, VF{} - 0.008171788416802883f);
    p = madd(p, t, VF{} + 0.021698210388422012f);
    p = madd(p, t, VF{} - 0.053946252912282944f);
    p = madd(p, t, VF{} + 0.1333320140838623f);
    p = madd(p, t, VF{} - 0.3333333134651184f);
    const VF small = madd(a, t * p, a);
    const VF e = exp_nonpositive(-(a + a));
    const VF large = quotient_1_2(1.0f - e, 1.0f + e);
    const VF r = a < 0.625f ? small : large;  // (NaN: large, NaN)
    return reinterpret_cast<VF>(reinterpret_cast<VI>(r) | (reinterpret_cast<VI>(v) & std::numeric_limits<int32_t>::min()));
  }
  static VD apply(VD v) { return Tanh_::apply(v); }
};

// x * Phi(x), Phi(x) = erfc(-x / sqrt 2) / 2: through erfc, not 1 + erf(x / sqrt 2), whose
// cancellation lost every digit of the tail (gelu(-5) was 4% off, torch's 17%). float32: Numerical
// Recipes' Chebyshev fit of erfc (relative error below 1.2e-7 everywhere; then float32's rounding of
// -z^2 in the exponent, about 1e-6 relative at x = -7), one inline exp (exp_nonpositive: 4M
// floats 3.9 -> 3.0 ms at AVX-512 against SLEEF's call) and one division, 4x faster than SLEEF's
// erf at SSE4 width; float64: SLEEF's erfc (1.5 ulp).
struct GeluErfc {
  static VF half_erfc_positive(VF z) {  // erfc(z) / 2, z >= 0
    const VF t = 1.0f / (1.0f + 0.5f * z);
    VF p = 0.17087277f * t - 0.82215223f;
    p = p * t + 1.48851587f;
    p = p * t - 1.13520398f;
    p = p * t + 0.27886807f;
    p = p * t - 0.18628806f;
    p = p * t + 0.09678418f;
    p = p * t + 0.37409196f;
    p = p * t + 1.00002368f;
    p = p * t - 1.26551223f;
    return (0.5f * t) * exp_nonpositive(p - z * z);
  }
  // Phi(x), the standard normal distribution function. With FMA the exponent -x^2/2 + P(t) is kept
  // in two parts (x^2 by FMA's exact product, the sum by Fast2Sum) and e^(hi + lo) taken as
  // e^hi (1 + lo): the rounded z = |x| / sqrt 2 squared, and then hi's own rounding, made Phi(-6)
  // 3.4e-6 off (56 ulp); now 2e-7.
  static VF upper_tail(VF a) {  // Phi(-a), a = |x|
    VF y;
    if constexpr (kFma) {
      const VF z = a * 0.7071067811865476f, t = 1.0f / (1.0f + 0.5f * z);
      VF p = 0.17087277f * t - 0.82215223f;
      p = fma(p, t, VF{} + 1.48851587f);
      p = fma(p, t, VF{} - 1.13520398f);
      p = fma(p, t, VF{} + 0.27886807f);
      p = fma(p, t, VF{} - 0.18628806f);
      p = fma(p, t, VF{} + 0.09678418f);
      p = fma(p, t, VF{} + 0.37409196f);
      p = fma(p, t, VF{} + 1.00002368f);
      p = fma(p, t, VF{} - 1.26551223f);
      const VF aa = a * a, z2 = aa * 0.5f, z2_lo = fma(a, a, -aa) * 0.5f;  // z^2 = z2 + z2_lo exactly
      const VF hi = p - z2, lo = (p - (hi + z2)) - z2_lo;                  // Fast2Sum: |z2| >= |p| where it matters
      const VF e = exp_nonpositive(hi);
      y = (0.5f * t) * fma(e, a < 16.0f ? lo : VF{}, e);  // past 16 e^hi is (nearly) 0, and lo NaN for an infinite x
    } else {
      y = half_erfc_positive(a * 0.7071067811865476f);
    }
    return y;
  }
  static VF cdf(VF v) {
    const VF y = upper_tail(abs_of<VF, float>(v));  // Phi(-|x|)
    return v < 0.0f ? y : 1.0f - y;
  }
  static VD cdf(VD v) { return 0.5 * TCORE_SLEEF_ERFC_D(v * -0.7071067811865476); }
  static VF apply(VF v) { return v * cdf(v); }
  static VD apply(VD v) { return v * cdf(v); }
};
#if defined(__AVX2__)
// The piecewise polynomials of native/SegmentPoly.h at this width: a lane picks its segment's
// coefficients by a permute (32 segments in two registers at AVX-512, 8 in one at AVX2); a lane past
// the last segment, and one below the first or NaN (its index, converted, is negative: as unsigned it
// is past the last), uses the last: every caller's argument is at least the table's lo.
#if defined(__AVX512F__)
constexpr int kSegments = 32;
using VI = __m512i;
inline VI segment_of(VF pos) {  // the masked forms: GCC 12 warns of the unmasked ones' undefined operand
  return _mm512_maskz_min_epu32(0xffff, _mm512_maskz_cvttps_epi32(0xffff, pos), _mm512_set1_epi32(kSegments - 1));
}
inline VF float_of(VI i) { return _mm512_maskz_cvtepi32_ps(0xffff, i); }
inline VF pick(const float* c, VI i) { return _mm512_permutex2var_ps(load<VF>(c), i, load<VF>(c + 16)); }
#else
constexpr int kSegments = 8;
using VI = __m256i;
inline VI segment_of(VF pos) { return _mm256_min_epu32(_mm256_cvttps_epi32(pos), _mm256_set1_epi32(kSegments - 1)); }
inline VF float_of(VI i) { return _mm256_cvtepi32_ps(i); }
inline VF pick(const float* c, VI i) { return _mm256_permutevar8x32_ps(load<VF>(c), i); }
#endif
using Tables = SegmentTables<kSegments>;
template <int D>
VF evaluate(const SegmentPoly<kSegments, D>& poly, VF x) {
  const VI s = segment_of((x - poly.lo) * (1.0f / poly.w));
  const VF t = x - fma(float_of(s), VF{} + poly.w, VF{} + (poly.lo + 0.5f * poly.w));  // the centre: exact
  VF p = pick(poly.c[D], s);
  for (int k = D - 1; k >= 0; --k) p = fma(p, t, pick(poly.c[k], s));
  return p;
}

// log(1 + e^a) for a <= 0 (softplus's log1p(e^-|z|)): e^a in (0, 1] inline and its log1p from the
// table, no call (SLEEF's log1pf(expf(z)): two calls and their range fix-ups, 1.2x torch's time).
inline VF log1p_of_exp(VF a) {
  const VF u = exp_nonpositive(a);
  return fma(u, evaluate(Tables::log1p_over_x_less_1, u), u);
}

// log1p, float32: u = 1 + x rounded = 2^k m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact),
// log1p(x) = k ln 2 + f + f q(f) + c / u with q from the table and c what 1 + x's rounding lost
// (by Fast2Sum, exactly: 1 - (u - x) where |x| > 1, x - (u - 1) elsewhere; fdlibm's log1pf takes the
// first wherever k > 0, inexact for x in (0.41, 1): 2 ulp there); ln 2 in two parts. Within
// 1 ulp (0.75 measured: tests/test_segment_tables.py); no call (SLEEF's log1pf: 1.15x torch's time).
// -1 gives -inf, below it NaN, +inf and NaN stay (quieted), -0 stays -0 and a tiny x is its own
// log1p. float64: SLEEF's, with its range fix-ups.
struct Log1p {
  static VF apply(VF x) {
    using VU = int32_t __attribute__((vector_size(sizeof(VF))));
    const VF u = 1.0f + x;
    const VU iu = reinterpret_cast<VU>(u) - 0x3f3504f3;  // the bits of sqrt(1/2)
    const VU k = iu >> 23;
    const VF m = reinterpret_cast<VF>((iu & 0x007fffff) + 0x3f3504f3);
    const VF f = m - 1.0f;
    const VF c = (abs_of<VF, float>(x) > 1.0f ? 1.0f - (u - x) : x - (u - 1.0f)) / u;  // Fast2Sum: exact
    const VF dk = __builtin_convertvector(k, VF);
    const VF q = evaluate(Tables::log1p_reduced, f);
    // ln 2 = 0.693359375 - 2.12194440e-4, k ln2_hi exact. Where |k| <= 1, k ln2_hi + f is exact too (a
    // multiple of f's ulp below 1), so that log1p near 0.35 (k = 1, f = -0.34) keeps its bits; past
    // that f joins the small terms (k ln2_hi + f rounded made 1.4 ulp)
    const VF lo = fma(f, q, fma(dk, VF{} - 2.12194440e-4f, c)), hi = dk * 0.693359375f;
    VF r = abs_of<VF, float>(dk) <= 1.0f ? (hi + f) + lo : hi + (f + lo);
    r = x == -1.0f ? VF{} - std::numeric_limits<float>::infinity() : r;
    r = x < -1.0f ? VF{} + std::numeric_limits<float>::quiet_NaN() : r;
    r = abs_of<VF, float>(x) < 5.9604645e-08f ? x : r;  // below 2^-24 (and -0: f + c above made it +0)
    return x == std::numeric_limits<float>::infinity() || x != x ? x + x : r;  // (x + x: a signalling NaN quieted)
  }
  static VD apply(VD v) { return Log1pSleef::apply(v); }
};

// x * Phi(x) with Phi from the table where |x| < 4, the erfc form beyond (computed only for a vector
// with such a lane: one in a thousand of normal values; chosen by lane, so that a value's result does
// not depend on its neighbours): float32 gelu of 4M elements 2.95 -> 1.8-1.9 ms at AVX-512 (torch 2.0-2.1).
struct GeluTable {
  static VF cdf(VF v) {
#if defined(__AVX512F__)
    // each lane test once, in a mask register (GCC's vector comparisons tested a >= 4 and v < 0
    // twice each, took |v| by a compare and a blend and widened the mask to test it: 7 of the
    // loop's 38 instructions, on the port the permutes need)
    const VF a = _mm512_abs_ps(v);
    const VF near = evaluate(Tables::normal_upper_tail, a);  // Phi(-|x|); NaN stays NaN
    const __mmask16 far = _mm512_cmp_ps_mask(a, _mm512_set1_ps(4.0f), _CMP_GE_OQ);
    const VF y = far ? _mm512_mask_blend_ps(far, near, GeluErfc::upper_tail(a)) : near;  // by lane
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ), 1.0f - y, y);
#else
    const VF a = abs_of<VF, float>(v);
    VF y = evaluate(Tables::normal_upper_tail, a);  // Phi(-|x|); NaN stays NaN
    if (any(a >= 4.0f)) y = a >= 4.0f ? GeluErfc::upper_tail(a) : y;  // by lane: a value's result is its own
    return v < 0.0f ? y : 1.0f - y;
#endif
  }
  static VD cdf(VD v) { return GeluErfc::cdf(v); }
  static VF apply(VF v) { return v * cdf(v); }
  static VD apply(VD v) { return GeluErfc::apply(v); }
};
using Gelu = GeluTable;
// Phi(x) (gelu's backward)
using NormalCdf = GeluTable;
#if defined(__AVX512F__)
// float32 tanh from the table: a + a q on the 4 segments below 1.125 (q = tanh(a) / a - 1, so that a
// small value keeps its relative accuracy), the value itself from there to 9 and the last segment's
// polynomial a little past it (tanh rounds to 1 from 9.011), 1 from 9.03125 (and for +inf); the sign
// put back, NaN stays NaN. The form is chosen by the segment the table picks (the
// same a / w), not by comparing a with 1.125, which 1 / w's rounding could disagree with. No exp, no
// division: 4M floats 2.0 (TanhExp) -> 1.4 ms at AVX-512 (torch's 1.55-1.7); 1.01 ulp over every
// float32. At AVX2 the 8 segments would need degree 9 for an ulp, as dear as TanhExp.
struct TanhTable {
  static VF apply(VF v) {
    const auto& table = Tables::tanh;
    const VF a = _mm512_abs_ps(v);
    const VF q = evaluate(table, a);
    const __mmask16 small = _mm512_cmp_ps_mask((a - table.lo) * (1.0f / table.w), _mm512_set1_ps(4.0f), _CMP_LT_OQ);
    const __mmask16 one = _mm512_cmp_ps_mask(a, _mm512_set1_ps(9.03125f), _CMP_GE_OQ);
    const VF r = _mm512_mask_blend_ps(one, _mm512_mask_blend_ps(small, q, fma(a, q, a)), _mm512_set1_ps(1.0f));
    return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(r), _mm512_castps_si512(v),
                                                         _mm512_set1_epi32(std::numeric_limits<int32_t>::min()), 0xf8));
  }
  static VD apply(VD v) { return Tanh_::apply(v); }
};
using Tanh = TanhTable;
#else
using Tanh = TanhExp;
#endif
#else
using Tanh = TanhExp;
using NormalCdf = GeluErfc;
using Log1p = Log1pSleef;
inline VF log1p_of_exp(VF a) { return Log1p::apply(Exp::apply(a)); }
// float32 at SSE4 width, where the erfc form's exp, division and degree-9 polynomial cost 76 ms for
// 16M floats (torch's DEFAULT kernel 43, with an erf 17% off at -5): Phi from a table of nodes
// x0 = -5 + i/64 up to 5.5, each with Phi(x0) and the next Taylor coefficients (Phi' = phi,
// Phi'' = -x phi, Phi''' = (x^2 - 1) phi), evaluated at h = x - x0, |h| <= 1/128:
// Phi(x0) + h (phi0 + h (-x0 phi0 / 2 + h (x0^2 - 1) phi0 / 6)). No cancellation anywhere: within
// 1.5e-7 relative over [-4, 4] and 2.2e-7 over [-5, 10] (the erfc form: 1.6e-6 over [-4, 4]),
// 21.6 ms. Phi is 1 in float32 above 5.42; a vector with a lane below -5 (or -inf) takes the erfc
// form.
struct Gelu {
  static constexpr float kLow = -5.0f, kHigh = 5.5f;
  static constexpr int kPerUnit = 64;
  static constexpr int kNodes = static_cast<int>((kHigh - kLow) * kPerUnit) + 1;
  struct alignas(16) Node {
    float c[4];  // Phi(x0), phi(x0), -x0 phi(x0) / 2, (x0^2 - 1) phi(x0) / 6
  };
  static const Node* table() {
    static const auto nodes = [] {
      std::array<Node, kNodes> t{};
      for (int i = 0; i < kNodes; ++i) {
        const double x0 = kLow + static_cast<double>(i) / kPerUnit;
        const double Phi = 0.5 * std::erfc(-x0 * 0.70710678118654752440);
        const double phi = std::exp(-0.5 * x0 * x0) * 0.39894228040143267794;  // 1 / sqrt(2 pi)
        t[i] = {{static_cast<float>(Phi), static_cast<float>(phi), static_cast<float>(-0.5 * x0 * phi),
                 static_cast<float>((x0 * x0 - 1) * phi / 6)}};
      }
      return t;
    }();
    return nodes.data();
  }
  static VF apply(VF x) {
    if (_mm_movemask_ps(_mm_cmplt_ps(x, _mm_set1_ps(kLow)))) return GeluErfc::apply(x);
    // NaN: maxps gives kLow (its second operand), node 0, and h = NaN makes the result NaN
    const VF clamped = _mm_min_ps(_mm_max_ps(x, _mm_set1_ps(kLow)), _mm_set1_ps(kHigh));
    const __m128i i = _mm_cvtps_epi32((clamped - kLow) * static_cast<float>(kPerUnit));  // to nearest
    const VF h = x - (_mm_cvtepi32_ps(i) * (1.0f / kPerUnit) + kLow);  // x0 exactly
    const Node* t = table();
    VF c0 = _mm_load_ps(t[_mm_cvtsi128_si32(i)].c), c1 = _mm_load_ps(t[_mm_extract_epi32(i, 1)].c);
    VF c2 = _mm_load_ps(t[_mm_extract_epi32(i, 2)].c), c3 = _mm_load_ps(t[_mm_extract_epi32(i, 3)].c);
    _MM_TRANSPOSE4_PS(c0, c1, c2, c3);  // c_k: coefficient k of the four lanes
    const VF Phi = c0 + h * (c1 + h * (c2 + h * c3));
    return x * _mm_blendv_ps(Phi, _mm_set1_ps(1.0f), _mm_cmpgt_ps(x, _mm_set1_ps(kHigh)));
  }
  static VD apply(VD v) { return GeluErfc::apply(v); }
};
#endif
#undef TCORE_SLEEF_ERFC_D

// log(1 + e^z) (softplus) as max(z, 0) + log1p(e^-|z|): no overflow (log1p(e^z) was inf past
// 88.7), no cancellation (both terms are positive); NaN stays NaN with its sign (0 - NaN keeps it,
// -NaN would flip it), -inf gives 0.
struct Log1pExp {
  static VF apply(VF z) { return (z > 0.0f ? z : VF{}) + log1p_of_exp(VF{} - abs_of<VF, float>(z)); }
  static VD apply(VD z) { return (z > 0.0 ? z : VD{}) + Log1p::apply(Exp::apply(VD{} - abs_of<VD, double>(z))); }
};

#if defined(__AVX2__)
// erf. float32, a = |x|: x + x (erf(a) / a - 1) below 1, +-(1 - erfc(a)) up to 4, both from one
// table lookup, +-1 beyond (+-inf too); within 0.8 ulp; NaN stays NaN, -0 stays -0. float64: SLEEF's.
struct Erf {
  static VF apply(VF v) {
    const VF a = abs_of<VF, float>(v);
    const VF p = evaluate(Tables::erf, a);
    const VF large = a >= 4.0f ? VF{} + 1.0f : 1.0f - p;
    return a < 1.0f || v != v ? fma(v, p, v) : (v < 0.0f ? -large : large);
  }
  static VD apply(VD v) { return Erf_::apply(v); }
};
#else
// erf at SSE4 width. float32: |x| < 1 as x + x q(x^2), q of degree 7 fitted here (least squares on Chebyshev nodes
// in x^2, iterated toward minimax: 3.3e-11 relative), the leading 1 kept out of q so that the last
// step is one rounding; |x| >= 1 as 1 - erfc(|x|) through GeluErfc's fit, the sign put back; within
// 1.39 ulp of float64 with FMA, 1.56 at SSE4 width without (tests/test_vector_math.py bounds it by 2),
// 2.3x faster than SLEEF's 1-ulp erff (4M floats at AVX-512, one thread: 9.9 ms -> 4.3; torch's
// 5.3-7.3 in the same runs).
// Each form is computed only where a lane needs it. NaN stays NaN, +-inf gives +-1, -0 stays -0.
// float64: SLEEF's erf.
struct Erf {
  static VF apply(VF v) {
    const VF a = abs_of<VF, float>(v);
    const auto large = a >= 1.0f;
    VF small{};
    if (!all(large)) {
      const VF t = v * v;
      VF q = -9.641544238547795e-06f * t + 0.0001125695780501701f;
      q = q * t - 0.0008482830016873777f;
      q = q * t + 0.005220945458859205f;
      q = q * t - 0.0268654003739357f;
      q = q * t + 0.11283782124519348f;
      q = q * t - 0.37612637877464294f;
      q = q * t + 0.12837916612625122f;
      small = v * q + v;
      if (!any(large)) return small;
    }
    const VF one_minus = 1.0f - 2.0f * GeluErfc::half_erfc_positive(a);
    const VF big = v < 0.0f ? -one_minus : one_minus;
    return large ? big : small;
  }
  static VD apply(VD v) { return Erf_::apply(v); }
};
#endif

struct GeluTanh {
  static VF apply(VF v) { return 0.5f * v * (1.0f + Tanh::apply(0.7978845608028654f * (v + 0.044715f * v * v * v))); }
  static VD apply(VD v) { return 0.5 * v * (1.0 + Tanh::apply(0.7978845608028654 * (v + 0.044715 * v * v * v))); }
};

// Op of one float32/float64 value through its vector form (lane 0 of a broadcast): a scalar loop
// (a strided or one-element tensor) gives what the runs give, bit for bit.
template <typename Op, typename T>
T one(T v) {
  using V = typename VecOf<T>::type;
  alignas(64) T lanes[width<T>];
  store(lanes, Op::apply(V{} + v));
  return lanes[0];
}

#if defined(__AVX512F__) && defined(__AVX512BW__)
// map_with's bfloat16 loop where the CPU has AVX512_BF16 (its own code: the instruction is not part
// of the AVX-512 capability's flags): 32 values a load, even and odd widened as map_with's, the two
// results rounded by one vcvtne2ps2bf16 (to nearest even, a NaN quieted: BFloat16::from_float's
// rounding) and put back in place by one vpermw, where the integer rounding took 14 instructions.
// The instruction flushes subnormals to zero: a block with a subnormal result is rounded the
// integer way. Returns how many values it wrote.
template <typename F>
[[gnu::target("avx512bf16")]] int64_t map_bfloat16_rounding_by_cpu(BFloat16* out, const BFloat16* in, int64_t n,
                                                                    const F& f) {
  constexpr int W = width<float>;
  // word 2j of the result is the even result j (word j of the packed pair), word 2j + 1 the odd one (16 + j)
  alignas(64) static constexpr uint16_t kInterleave[32] = {0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,  21, 6,  22, 7,  23,
                                                           8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  const __m512i interleave = _mm512_load_si512(kInterleave);
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    const auto [x_even, x_odd] = bfloat16_split(_mm512_loadu_si512(in + i));
    const __m512 even = f(x_even), odd = f(x_odd);
    __m512i joined;
    if (!(_mm512_fpclass_ps_mask(even, 0x20) | _mm512_fpclass_ps_mask(odd, 0x20))) {  // (0x20: subnormal)
      joined = _mm512_permutexvar_epi16(interleave, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(odd, even)));
    } else {
      joined = bfloat16_join_rounded(even, odd);
    }
    _mm512_storeu_si512(out + i, joined);
  }
  return i;
}
#endif

// out[i] = Op(in[i]) over a contiguous run (out may be in): whole vectors, then the tail
// through a zero-padded vector, so every element gets the same function.
// map_with takes the function as an object, f(V) -> V (a kernel's parameters: softplus's beta).
template <typename T, typename F>
void map_with(T* out, const T* in, int64_t n, const F& f) {
  using V = typename VecOf<T>::type;
  constexpr int W = width<T>;
  int64_t i = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__)
  if constexpr (std::is_same_v<T, BFloat16>) {
    // 32 bfloat16 values a load: the even ones widened by a shift, the odd ones by a mask, and the
    // results joined as they were (no cross-lane widening or narrowing: bfloat16 gelu of 4M values
    // 1.98 -> 1.75 ms with the mask tests below, torch's 1.67)
    if (cpu_has_avx512_bf16()) i = map_bfloat16_rounding_by_cpu(out, in, n, f);
    for (; i + 2 * W <= n; i += 2 * W) {
      const auto [even, odd] = bfloat16_split(_mm512_loadu_si512(in + i));
      _mm512_storeu_si512(out + i, bfloat16_join_rounded(f(even), f(odd)));
    }
  }
#elif defined(__AVX2__)
  if constexpr (std::is_same_v<T, BFloat16>) {  // AVX-512's way above (Copy.h's split and join)
    for (; i + 2 * W <= n; i += 2 * W) {
      const auto [even, odd] = bfloat16_split(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), bfloat16_join_rounded(f(even), f(odd)));
    }
  }
#endif
  for (; i + W <= n; i += W) store(out + i, f(load<V>(in + i)));
  if (i < n) {
    alignas(64) T buf[W] = {};
    std::memcpy(static_cast<void*>(buf), in + i, static_cast<size_t>(n - i) * sizeof(T));
    store(buf, f(load<V>(buf)));
    std::memcpy(static_cast<void*>(out + i), buf, static_cast<size_t>(n - i) * sizeof(T));
  }
}
// whether Op has a common case (Op::kCommonCase; Op::common(v), a mask of the lanes that take it;
// Op::fast(v), its result): Exp below AVX-512, Log. (A flag: detecting the functions put vector
// types in template arguments, where GCC warns that they lose their attributes.)
template <typename Op, typename = void>
struct HasCommonCase : std::false_type {};
template <typename Op>
struct HasCommonCase<Op, std::void_t<decltype(Op::kCommonCase)>> : std::true_type {};

template <typename Op, typename T>
void map(T* out, const T* in, int64_t n) {
  int64_t i = 0;
#if !defined(__AVX2__)
  if constexpr (std::is_same_v<T, float> && HasCommonCase<Op>::value) {
    // SSE4: four registers a step, tested together, then the common case's four chains side by
    // side (one register a step, its chain of dependent operations bounded the throughput, not
    // their count: exp of 4M values 4.3 -> 3.6-3.8 ms, torch's (MKL's VML, AVX-512 code whatever
    // the capability) 3.5-3.65; log 1.00 -> 0.94-0.97x torch's time; each register tested and
    // computed in turn, four a step, was slower than one a step)
    constexpr int W = width<float>;
    for (; i + 4 * W <= n; i += 4 * W) {
      const VF a = load<VF>(in + i), b = load<VF>(in + i + W), c = load<VF>(in + i + 2 * W), d = load<VF>(in + i + 3 * W);
      if (all(Op::common(a) & Op::common(b) & Op::common(c) & Op::common(d))) {
        store(out + i, Op::fast(a));
        store(out + i + W, Op::fast(b));
        store(out + i + 2 * W, Op::fast(c));
        store(out + i + 3 * W, Op::fast(d));
      } else {
        store(out + i, Op::apply(a));
        store(out + i + W, Op::apply(b));
        store(out + i + 2 * W, Op::apply(c));
        store(out + i + 3 * W, Op::apply(d));
      }
    }
  }
#endif
  map_with(out + i, in + i, n - i, [](auto v) { return Op::apply(v); });
}
// out[i] = f(a[i * a_step], b[i * b_step]) over a run (a step of 0: one value for every element),
// f(V, V) -> V; the tail through zero-padded vectors, as map_with's.
template <typename T, typename F>
void map2_with(T* out, const T* a, const T* b, int64_t n, int64_t a_step, int64_t b_step, const F& f) {
  using V = typename VecOf<T>::type;
  constexpr int W = width<T>;
  const V a_broadcast = V{} + a[0], b_broadcast = V{} + b[0];
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    store(out + i, f(a_step ? load<V>(a + i) : a_broadcast, b_step ? load<V>(b + i) : b_broadcast));
  }
  if (i < n) {
    alignas(64) T x[W] = {}, y[W] = {};
    for (int64_t j = 0; j < n - i; ++j) {
      x[j] = a[(i + j) * a_step];
      y[j] = b[(i + j) * b_step];
    }
    store(x, f(load<V>(x), load<V>(y)));
    std::memcpy(out + i, x, static_cast<size_t>(n - i) * sizeof(T));
  }
}

// e^v for v <= 0 (or NaN): float32 inline (exp_nonpositive, within 1 ulp: SLEEF's expf was a call a
// vector, a fifth of a bfloat16 softmax), float64 SLEEF's
inline VF exp_at_most_0(VF v) { return exp_nonpositive(v); }
inline VD exp_at_most_0(VD v) { return Exp::apply(v); }
// e^(x[i] - shift) for a contiguous row, stored into y when Store, and their sum: added in T's
// lanes within blocks of 4096 elements, the blocks in double (softmax's one pass after the max).
template <bool Store, typename T>
double exp_shifted_sum(T* y, const T* x, T shift, int64_t n) {
  using V = typename VecOf<T>::type;
  constexpr int W = width<T>;
  constexpr int64_t kBlock = 4096;
  double total = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t end = b + kBlock < n ? b + kBlock : n;
    V acc = {};
    int64_t i = b;
    for (; i + W <= end; i += W) {
      const V e = exp_at_most_0(load<V>(x + i) - shift);
      if constexpr (Store) store(y + i, e);
      acc += e;
    }
    if (i < end) {  // the tail, padded with lanes whose e^(x - shift) is 0
      alignas(64) T buf[W];
#if defined(__AVX512F__)
      // masked loads and stores: the tail copied through a buffer stalled on the buffer's load (its
      // narrower stores cannot forward to it), a third of a causal softmax's rows of varying lengths
      const auto lanes_kept = static_cast<__mmask16>((1u << (end - i)) - 1);
      V e;
      if constexpr (std::is_same_v<T, float>) {
        e = exp_at_most_0(_mm512_mask_loadu_ps(_mm512_set1_ps(-std::numeric_limits<float>::infinity()), lanes_kept,
                                               x + i) - shift);
        if constexpr (Store) _mm512_mask_storeu_ps(y + i, lanes_kept, e);
      } else {
        e = exp_at_most_0(_mm512_mask_loadu_pd(_mm512_set1_pd(-std::numeric_limits<double>::infinity()),
                                               static_cast<__mmask8>(lanes_kept), x + i) - shift);
        if constexpr (Store) _mm512_mask_storeu_pd(y + i, static_cast<__mmask8>(lanes_kept), e);
      }
      store(buf, e);
#else
      for (int j = 0; j < W; ++j) buf[j] = -std::numeric_limits<T>::infinity();
      std::memcpy(buf, x + i, static_cast<size_t>(end - i) * sizeof(T));
      const V e = exp_at_most_0(load<V>(buf) - shift);
      store(buf, e);
      if constexpr (Store) std::memcpy(y + i, buf, static_cast<size_t>(end - i) * sizeof(T));
#endif
      for (int64_t j = 0; j < end - i; ++j) total += buf[j];
    }
    alignas(64) T lanes[W];
    store(lanes, acc);
    for (int j = 0; j < W; ++j) total += lanes[j];
  }
  return total;
}
#else
constexpr bool kAvailable = false;
struct Exp {};
struct Exp2 {};
struct Expm1 {};
struct Log {};
struct Log2 {};
struct Log1p {};
struct Sin {};
struct Cos {};
struct Tan {};
struct Asin {};
struct Acos {};
struct Atan {};
struct Sinh {};
struct Cosh {};
struct Tanh {};
struct Erf {};
struct Sigmoid {};
struct Gelu {};
struct GeluTanh {};
struct NormalCdf {};
struct Log1pExp {};
template <typename Op, typename T>
void map(T*, const T*, int64_t) {}
template <typename Op, typename T>
T one(T v) { return v; }
template <typename T, typename F>
void map_with(T*, const T*, int64_t, const F&) {}
template <typename T, typename F>
void map2_with(T*, const T*, const T*, int64_t, int64_t, int64_t, const F&) {}
template <bool Store, typename T>
double exp_shifted_sum(T*, const T*, T, int64_t) { return 0; }
#endif

// Whether contiguous runs of T go through the vector functions (float32 and float64, with SLEEF);
// converts: float16/bfloat16 runs through float32 vectors (Unary.h's floating_runs).
template <typename T>
constexpr bool supports = kAvailable && (std::is_same_v<T, float> || std::is_same_v<T, double>);
template <typename T>
constexpr bool converts = kAvailable && is_reduced<T>;
// whether map/map_with take contiguous runs of T (either of the above)
template <typename T>
constexpr bool maps = supports<T> || converts<T>;

}  // namespace vec
}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
