#pragma once
// The elementwise loops of float16/bfloat16 kernels, computed in float32: each run of the loop
// (Loops.h, any layout: contiguous, strided, broadcast, transposed) is converted to float32 in
// chunks that stay in L1, computed there, and rounded into the output, the runs on the threads.
// One pass over memory where float32 temporaries of the whole tensors took three (a float16 relu
// was 4.5x torch's, a broadcast float16 add 3.5x, a transposed one 15x).
#include "tcore/core/CPUCapability.h"
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "native/cpu/Copy.h"
#include "native/cpu/Loops.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace reduced_float {

constexpr int64_t kChunk = 1024;  // three float32 chunks: 12 KiB of L1

// n elements of type S from src, `stride` bytes apart (0: one value repeated), into dst as float32
template <typename S>
[[gnu::always_inline]] inline void load(float* dst, const char* src, int64_t stride, int64_t n) {
  if (stride == static_cast<int64_t>(sizeof(S))) {
    convert_run<float, S>(dst, reinterpret_cast<const S*>(src), n);
  } else if (stride == 0) {
    const float v = static_cast<float>(*reinterpret_cast<const S*>(src));
    for (int64_t j = 0; j < n; ++j) dst[j] = v;
  } else {
    for (int64_t j = 0; j < n; ++j) dst[j] = static_cast<float>(*reinterpret_cast<const S*>(src + j * stride));
  }
}

// n values (float32, or bool) as H (rounded) into dst, `stride` bytes apart
template <typename H, typename R>
[[gnu::always_inline]] inline void store(char* dst, int64_t stride, const R* src, int64_t n) {
  if (stride == static_cast<int64_t>(sizeof(H))) {
    convert_run<H, R>(reinterpret_cast<H*>(dst), src, n);
  } else {
    for (int64_t j = 0; j < n; ++j) *reinterpret_cast<H*>(dst + j * stride) = static_cast<H>(src[j]);
  }
}

// n values of a contiguous run, each f(a[i], b[i]) (b_step 1) or f(a[i], b[0]) (b_step 0), through
// registers: sixteen at a time converted, computed and rounded in one pass (chunks of 1024
// converted, computed and rounded in three passes over L1 made a float16 add 1.5x torch's: the
// loads of one pass do not overlap the arithmetic of another). Returns how many it did: the tail
// (fewer than sixteen) goes through the chunk loop.
template <typename H, typename B, typename Out, typename R, typename F>
[[gnu::always_inline]] inline int64_t fused_binary_run(Out* o, const H* a, const B* b, int64_t b_step, int64_t n,
                                                       const F& f) {
  constexpr int64_t W = 16;
  int64_t i = 0;
#if defined(__AVX2__) && !defined(__AVX512F__)
  if constexpr (std::is_same_v<H, BFloat16> && std::is_same_v<Out, BFloat16> &&
                (std::is_same_v<B, BFloat16> || std::is_same_v<B, float>)) {
    // sixteen bfloat16 values a load, split into the even and odd ones and joined after (Copy.h's
    // bfloat16_split / bfloat16_join_rounded, as VecMath.h's map_with): no lane-crossing widening
    // and narrowing (a bfloat16 mul by a number: 1.03-1.07x torch's time at AVX2 -> 0.73-0.81)
    const auto halves = [](const BFloat16* p, float* even, float* odd) {
      const BFloat16Halves256 h = bfloat16_split(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
      _mm256_storeu_ps(even, h.even);
      _mm256_storeu_ps(odd, h.odd);
    };
    float ye[8], yo[8];
    for (int j = 0; j < 8; ++j) ye[j] = yo[j] = static_cast<float>(*b);
    for (; i + W <= n; i += W) {
      float xe[8], xo[8], re[8], ro[8];
      halves(a + i, xe, xo);
      if (b_step != 0) {
        if constexpr (std::is_same_v<B, BFloat16>) {
          halves(b + i, ye, yo);
        } else {
          for (int j = 0; j < 8; ++j) ye[j] = b[i + 2 * j], yo[j] = b[i + 2 * j + 1];
        }
      }
      for (int j = 0; j < 8; ++j) {
        re[j] = f(xe[j], ye[j]);
        ro[j] = f(xo[j], yo[j]);
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), bfloat16_join_rounded(_mm256_loadu_ps(re), _mm256_loadu_ps(ro)));
    }
    return i;
  }
#endif
  if (b_step == 0) {
    const float yv = static_cast<float>(*b);
    for (; i + W <= n; i += W) {
      float x[W];
      R r[W];
      convert_run<float, H>(x, a + i, W);
      for (int64_t j = 0; j < W; ++j) r[j] = static_cast<R>(f(x[j], yv));
      convert_run<Out, R>(o + i, r, W);
    }
  } else {
    for (; i + W <= n; i += W) {
      float x[W], y[W];
      R r[W];
      convert_run<float, H>(x, a + i, W);
      convert_run<float, B>(y, b + i, W);
      for (int64_t j = 0; j < W; ++j) r[j] = static_cast<R>(f(x[j], y[j]));
      convert_run<Out, R>(o + i, r, W);
    }
  }
  return i;
}

// The unary twin of fused_binary_run: run(y, x, W) over W = 256 values at a time (whole blocks;
// the caller's chunk loop takes the rest).
template <typename H, typename Run>
[[gnu::always_inline]] inline int64_t fused_unary_run(H* o, const H* a, int64_t n, const Run& run) {
  constexpr int64_t W = 256;
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    float x[W], y[W];
    convert_run<float, H>(x, a + i, W);
    run(y, x, W);
    convert_run<H, float>(o + i, y, W);
  }
  return i;
}

}  // namespace reduced_float

// out = run(self) elementwise, out and self of dtype H (float16/bfloat16) and out not partially
// overlapping self: run(o, x, n) computes n float32 values; a run that also takes H's runs
// (floating_runs' vector functions, converting in registers) gets the contiguous ones directly.
template <typename H, typename Run>
void reduced_float_unary_loop(const Tensor& out, const Tensor& self, const Run& run) {
  using namespace reduced_float;
  assert_no_internal_overlap(out);
  const LoopGeometry g = make_geometry(out.sizes(), {&out, &self}, /*in_memory_order=*/true);
  parallel_loop_nd<2>(g, {static_cast<char*>(out.data_ptr()), static_cast<char*>(self.data_ptr())},
                      [&](char** p, const int64_t* s, int64_t n) {
                        int64_t i = 0;
                        if (s[0] == static_cast<int64_t>(sizeof(H)) && s[1] == static_cast<int64_t>(sizeof(H))) {
                          if constexpr (std::is_invocable_v<const Run&, H*, const H*, int64_t>) {
                            run(reinterpret_cast<H*>(p[0]), reinterpret_cast<const H*>(p[1]), n);
                            return;
                          } else {
                            i = fused_unary_run<H>(reinterpret_cast<H*>(p[0]), reinterpret_cast<const H*>(p[1]), n, run);
                          }
                        }
                        alignas(64) float x[kChunk], y[kChunk];
                        for (; i < n; i += kChunk) {
                          const int64_t len = std::min(kChunk, n - i);
                          load<H>(x, p[1] + i * s[1], s[1], len);
                          run(y, x, len);
                          store<H>(p[0] + i * s[0], s[0], y, len);
                        }
                      }, /*elementwise=*/true);
}

// out = f(a, b) elementwise, a of dtype H (float16/bfloat16), b of dtype B (H, or float for a
// number read at its own precision), out of dtype Out (H, or bool for the comparisons) not
// partially overlapping a or b: f(x, y) of float32 values, or f.runs(o, x, y, n, 1, 1) where f
// computes runs itself (Loops.h's HasRuns).
template <typename H, typename B, typename Out, typename F>
void reduced_float_binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, const F& f) {
  using R = std::conditional_t<std::is_same_v<Out, bool>, bool, float>;
  using namespace reduced_float;
  assert_no_internal_overlap(out);
  const LoopGeometry g = make_geometry(out.sizes(), {&out, &a, &b}, /*in_memory_order=*/true);
  parallel_loop_nd<3>(g, {static_cast<char*>(out.data_ptr()), static_cast<char*>(a.data_ptr()),
                          static_cast<char*>(b.data_ptr())},
                      [&](char** p, const int64_t* s, int64_t n) {
                        int64_t i = 0;
                        if constexpr (!HasRuns<F>::value) {
                          if (s[0] == static_cast<int64_t>(sizeof(Out)) && s[1] == static_cast<int64_t>(sizeof(H)) &&
                              (s[2] == static_cast<int64_t>(sizeof(B)) || s[2] == 0)) {
                            i = fused_binary_run<H, B, Out, R>(reinterpret_cast<Out*>(p[0]), reinterpret_cast<const H*>(p[1]),
                                                               reinterpret_cast<const B*>(p[2]), s[2] == 0 ? 0 : 1, n, f);
                          }
                        }
                        alignas(64) float x[kChunk], y[kChunk];
                        alignas(64) R r[kChunk];
                        for (; i < n; i += kChunk) {
                          const int64_t len = std::min(kChunk, n - i);
                          load<H>(x, p[1] + i * s[1], s[1], len);
                          if constexpr (HasRuns<F>::value && std::is_same_v<R, float>) {
                            load<B>(y, p[2] + i * s[2], s[2], len);
                            f.runs(r, x, y, len, 1, 1);
                          } else if (s[2] == 0) {  // one value (h * 2, a broadcast row): no chunk of copies
                            const float yv = static_cast<float>(*reinterpret_cast<const B*>(p[2]));
                            for (int64_t j = 0; j < len; ++j) r[j] = static_cast<R>(f(x[j], yv));
                          } else {
                            load<B>(y, p[2] + i * s[2], s[2], len);
                            for (int64_t j = 0; j < len; ++j) r[j] = static_cast<R>(f(x[j], y[j]));
                          }
                          store<Out>(p[0] + i * s[0], s[0], r, len);
                        }
                      }, /*elementwise=*/true);
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
