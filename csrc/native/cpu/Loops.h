#pragma once
// The one elementwise loop of the CPU kernels. Its output may not overlap itself
// (assert_no_internal_overlap), as PyTorch's TensorIterator refuses.
//
// Operands (output first) are viewed with the output's shape: broadcast dims get
// stride 0. Adjacent dims that are contiguous for every operand are merged, so a
// contiguous tensor becomes one 1-D run; the innermost run is handed to the kernel
// body, whose contiguous branch the compiler vectorizes.
#include "tcore/core/CPUCapability.h"
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "native/TensorUtils.h"
#include "native/cpu/Parallel.h"
#include "tcore/core/Tensor.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

struct LoopGeometry {
  std::vector<int64_t> shape;                 // coalesced shape, innermost last
  std::vector<std::vector<int64_t>> strides;  // [operand][dim], in bytes
};

// Strides of `t` seen with `shape` (which t broadcasts to), in bytes.
std::vector<int64_t> broadcast_strides(const Tensor& t, IntArrayRef shape);
LoopGeometry make_geometry(IntArrayRef shape, const std::vector<const Tensor*>& operands);

// Calls body(ptrs, inner_strides, n) once per innermost run.
template <size_t N, typename Body>
void loop_nd(const LoopGeometry& g, std::array<char*, N> base, Body&& body) {
  const int64_t nd = static_cast<int64_t>(g.shape.size());
  if (nd == 0) {
    std::array<int64_t, N> zero{};
    body(base.data(), zero.data(), int64_t{1});
    return;
  }
  for (int64_t s : g.shape)
    if (s == 0) return;
  std::array<int64_t, N> inner;
  for (size_t k = 0; k < N; ++k) inner[k] = g.strides[k][nd - 1];
  const int64_t n = g.shape[nd - 1];
  std::vector<int64_t> counter(static_cast<size_t>(nd), 0);
  std::array<char*, N> ptrs = base;
  while (true) {
    body(ptrs.data(), inner.data(), n);
    int64_t d = nd - 2;
    for (; d >= 0; --d) {
      if (++counter[d] < g.shape[d]) {
        for (size_t k = 0; k < N; ++k) ptrs[k] += g.strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) ptrs[k] -= g.strides[k][d] * (g.shape[d] - 1);
      counter[d] = 0;
    }
    if (d < 0) return;
  }
}

// loop_nd over the elements [begin, end) of the loop's row-major order only.
template <size_t N, typename Body>
void loop_nd_range(const LoopGeometry& g, std::array<char*, N> base, int64_t begin, int64_t end, Body&& body) {
  const int64_t nd = static_cast<int64_t>(g.shape.size());
  if (nd == 0) {
    std::array<int64_t, N> zero{};
    if (begin == 0 && end > 0) body(base.data(), zero.data(), int64_t{1});
    return;
  }
  std::vector<int64_t> counter(static_cast<size_t>(nd), 0);
  std::array<char*, N> ptrs = base;
  int64_t rest = begin;
  for (int64_t d = nd - 1; d >= 0; --d) {
    counter[d] = rest % g.shape[d];
    rest /= g.shape[d];
    for (size_t k = 0; k < N; ++k) ptrs[k] += counter[d] * g.strides[k][d];
  }
  std::array<int64_t, N> inner;
  for (size_t k = 0; k < N; ++k) inner[k] = g.strides[k][nd - 1];
  const int64_t n = g.shape[nd - 1];
  int64_t pos = begin;
  while (pos < end) {
    const int64_t run = std::min(n - counter[nd - 1], end - pos);
    body(ptrs.data(), inner.data(), run);
    pos += run;
    if (pos >= end) return;
    // next run: the innermost dim starts over, the dims above it carry
    for (size_t k = 0; k < N; ++k) ptrs[k] -= counter[nd - 1] * inner[k];
    counter[nd - 1] = 0;
    for (int64_t d = nd - 2; d >= 0; --d) {
      if (++counter[d] < g.shape[d]) {
        for (size_t k = 0; k < N; ++k) ptrs[k] += g.strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) ptrs[k] -= g.strides[k][d] * (g.shape[d] - 1);
      counter[d] = 0;
    }
  }
}

// A 2-D loop in which some operand steps through memory in the outer dim and far apart in the
// inner one (a transposed operand: x + y.t(), y.t().contiguous()): row by row, each of its
// elements would come from another cache line. In tiles instead, the cache lines that operand
// touches are reused by the tile's rows before they are evicted. The tile is tall and narrow
// (kRows x `width` elements, width * the row operands' element size >= 32 bytes): the
// transposed operand's lines in a tile sit a row apart, in one cache set when rows are a
// multiple of 4 KiB long, and 8 of them fit the set's ways where 32 thrashed (4096^2 float add
// with one operand transposed: 110 ms row by row, 47-74 ms in 32 x 32 tiles, 17-21 ms in 64 x 8
// in a standalone copy). Returns false when the geometry is not such a loop.
template <size_t N, typename Body>
bool tiled_loop_2d(const LoopGeometry& g, std::array<char*, N> base, Body& body) {
  constexpr int64_t kRows = 64;
  if (g.shape.size() != 2) return false;
  const int64_t rows = g.shape[0], cols = g.shape[1];
  bool transposed = false;
  int64_t element = 16;  // the smallest element size among the operands that run along a row
  for (size_t k = 0; k < N; ++k) {
    const int64_t outer = g.strides[k][0] < 0 ? -g.strides[k][0] : g.strides[k][0];
    const int64_t inner = g.strides[k][1] < 0 ? -g.strides[k][1] : g.strides[k][1];
    transposed = transposed || (outer != 0 && outer <= 16 && inner >= 256);
    if (inner != 0 && inner < element) element = inner;
  }
  const int64_t width = std::max<int64_t>(8, 32 / element);
  if (!transposed || rows < 2 * kRows || cols < 2 * width) return false;
  std::array<int64_t, N> inner;
  for (size_t k = 0; k < N; ++k) inner[k] = g.strides[k][1];
  const int64_t bands = (rows + kRows - 1) / kRows;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / (kRows * cols));
  parallel_for(0, bands, grain, [&](int64_t b, int64_t e) {
    for (int64_t band = b; band < e; ++band) {
      const int64_t i0 = band * kRows, i1 = std::min(rows, i0 + kRows);
      for (int64_t j0 = 0; j0 < cols; j0 += width) {
        const int64_t w = std::min(width, cols - j0);
        for (int64_t i = i0; i < i1; ++i) {
          std::array<char*, N> ptrs;
          for (size_t k = 0; k < N; ++k) ptrs[k] = base[k] + i * g.strides[k][0] + j0 * g.strides[k][1];
          body(ptrs.data(), inner.data(), w);
        }
      }
    }
  });
  return true;
}

// loop_nd split across threads (parallel_for) when the loop is large; the body must not
// throw and must write only its own elements.
template <size_t N, typename Body>
void parallel_loop_nd(const LoopGeometry& g, std::array<char*, N> base, Body&& body) {
  int64_t numel = 1;
  for (int64_t s : g.shape) numel *= s;
  if (tiled_loop_2d<N>(g, base, body)) return;
  if (numel <= kGrainSize) {
    loop_nd<N>(g, base, body);
    return;
  }
  parallel_for(0, numel, kGrainSize, [&](int64_t b, int64_t e) { loop_nd_range<N>(g, base, b, e, body); });
}

// out[i] = f(a[i]) with Out/In element types; run(o, x, n) computes a contiguous run.
template <typename Out, typename In, typename F, typename Run>
void unary_loop_runs(const Tensor& out, const Tensor& a, F f, Run run) {
  assert_no_internal_overlap(out);
  const LoopGeometry g = make_geometry(out.sizes(), {&out, &a});
  parallel_loop_nd<2>(g, {static_cast<char*>(out.data_ptr()), static_cast<char*>(a.data_ptr())},
             [&](char** p, const int64_t* s, int64_t n) {
               if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
                 run(reinterpret_cast<Out*>(p[0]), reinterpret_cast<const In*>(p[1]), n);
               } else {
                 for (int64_t i = 0; i < n; ++i)
                   *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const In*>(p[1] + i * s[1]));
               }
             });
}

// out[i] = f(a[i]) with Out/In element types (the contiguous loop is the one that vectorizes).
template <typename Out, typename In, typename F>
void unary_loop(const Tensor& out, const Tensor& a, F f) {
  unary_loop_runs<Out, In>(out, a, f, [&f](Out* o, const In* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
  });
}

// out[i] = f(a[i], b[i]): inputs of type In, output of type Out.
template <typename Out, typename In, typename F>
void binary_loop_to(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  assert_no_internal_overlap(out);
  const LoopGeometry g = make_geometry(out.sizes(), {&out, &a, &b});
  parallel_loop_nd<3>(g, {static_cast<char*>(out.data_ptr()), static_cast<char*>(a.data_ptr()), static_cast<char*>(b.data_ptr())},
             [&](char** p, const int64_t* s, int64_t n) {
               Out* o = reinterpret_cast<Out*>(p[0]);
               const In* x = reinterpret_cast<const In*>(p[1]);
               const In* y = reinterpret_cast<const In*>(p[2]);
               constexpr int64_t eo = sizeof(Out), e = sizeof(In);
               if (s[0] == eo && s[1] == e && s[2] == e) {
                 for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
               } else if (s[0] == eo && s[1] == e && s[2] == 0) {
                 const In yv = *y;
                 for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
               } else if (s[0] == eo && s[1] == 0 && s[2] == e) {
                 const In xv = *x;
                 for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
               } else {
                 for (int64_t i = 0; i < n; ++i)
                   *reinterpret_cast<Out*>(p[0] + i * s[0]) =
                       f(*reinterpret_cast<const In*>(p[1] + i * s[1]), *reinterpret_cast<const In*>(p[2] + i * s[2]));
               }
             });
}

// out[i] = f(a[i], b[i]), all of type T.
template <typename T, typename F>
void binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  binary_loop_to<T, T>(out, a, b, f);
}

// out[i] = c[i] ? a[i] : b[i], with a bool condition (where).
template <typename T>
void select_loop(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  assert_no_internal_overlap(out);
  const LoopGeometry g = make_geometry(out.sizes(), {&out, &cond, &a, &b});
  parallel_loop_nd<4>(g,
             {static_cast<char*>(out.data_ptr()), static_cast<char*>(cond.data_ptr()),
              static_cast<char*>(a.data_ptr()), static_cast<char*>(b.data_ptr())},
             [&](char** p, const int64_t* s, int64_t n) {
               for (int64_t i = 0; i < n; ++i)
                 *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const bool*>(p[1] + i * s[1])
                                                              ? *reinterpret_cast<const T*>(p[2] + i * s[2])
                                                              : *reinterpret_cast<const T*>(p[3] + i * s[3]);
             });
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
