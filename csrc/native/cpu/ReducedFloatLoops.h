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

}  // namespace reduced_float

// out = run(self) elementwise, out and self of dtype H (float16/bfloat16) and out not partially
// overlapping self: run(o, x, n) computes n float32 values.
template <typename H, typename Run>
void reduced_float_unary_loop(const Tensor& out, const Tensor& self, const Run& run) {
  using namespace reduced_float;
  assert_no_internal_overlap(out);
  const LoopGeometry g = make_geometry(out.sizes(), {&out, &self}, /*in_memory_order=*/true);
  parallel_loop_nd<2>(g, {static_cast<char*>(out.data_ptr()), static_cast<char*>(self.data_ptr())},
                      [&](char** p, const int64_t* s, int64_t n) {
                        alignas(64) float x[kChunk], y[kChunk];
                        for (int64_t i = 0; i < n; i += kChunk) {
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
                        alignas(64) float x[kChunk], y[kChunk];
                        alignas(64) R r[kChunk];
                        for (int64_t i = 0; i < n; i += kChunk) {
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
