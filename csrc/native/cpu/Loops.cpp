// The loops of the CPU kernels (Loops.h), compiled once per operand count and capability: the
// coalesced geometry, runs two dims at a time, threads, and the tiles of transposed operands.
#include "native/cpu/Loops.h"

#if defined(__AVX__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

std::vector<int64_t> broadcast_strides(const Tensor& t, IntArrayRef shape) {
  std::vector<int64_t> out = expanded_strides(t, shape);
  for (int64_t& s : out) s *= t.element_size();
  return out;
}

namespace {
// The dims of more than one element, outermost first, in the operands' memory order.
std::vector<size_t> outer_to_inner(IntArrayRef shape, const std::vector<std::vector<int64_t>>& strides) {
  std::vector<size_t> order;
  const std::vector<size_t> inner_first = memory_order(shape, strides);
  for (auto d = inner_first.rbegin(); d != inner_first.rend(); ++d)
    if (shape[*d] != 1) order.push_back(*d);
  return order;
}
}  // namespace

LoopGeometry make_geometry(IntArrayRef shape, const std::vector<const Tensor*>& operands, bool in_memory_order) {
  std::vector<std::vector<int64_t>> strides;
  for (const Tensor* t : operands) strides.push_back(broadcast_strides(*t, shape));
  LoopGeometry g;
  g.strides.resize(operands.size());
  for (const Tensor* t : operands) g.itemsize.push_back(t->element_size());
  std::vector<size_t> dims;
  if (in_memory_order) {
    dims = outer_to_inner(shape, strides);
  } else {
    for (size_t d = 0; d < shape.size(); ++d) dims.push_back(d);
  }
  // drop size-1 dims, then merge a dim into the next inner one when contiguous for all
  for (size_t d : dims) {
    if (shape[d] == 1) continue;
    bool merge = !g.shape.empty();
    if (merge) {
      for (size_t k = 0; k < operands.size(); ++k) merge = merge && g.strides[k].back() == strides[k][d] * shape[d];
    }
    if (merge) {
      g.shape.back() *= shape[d];
      for (size_t k = 0; k < operands.size(); ++k) g.strides[k].back() = strides[k][d];
    } else {
      g.shape.push_back(shape[d]);
      for (size_t k = 0; k < operands.size(); ++k) g.strides[k].push_back(strides[k][d]);
    }
  }
  if (g.shape.empty() && numel_of(shape) == 1) {
    g.shape.push_back(1);
    for (auto& s : g.strides) s.push_back(0);
  }
  return g;
}

template <size_t N>
void loop_nd_range(const LoopGeometry& g, std::array<char*, N> base, int64_t begin, int64_t end,
                   const LoopBody<N>& body) {
  const int64_t nd = static_cast<int64_t>(g.shape.size());
  if (nd == 0) {
    std::array<int64_t, N> zero{};
    if (begin == 0 && end > 0) body(base.data(), zero.data(), int64_t{1});
    return;
  }
  if (begin >= end) return;
  std::vector<int64_t> counter(static_cast<size_t>(nd), 0);
  std::array<char*, N> ptrs = base;
  int64_t rest = begin;
  for (int64_t d = nd - 1; d >= 0; --d) {
    counter[d] = rest % g.shape[d];
    rest /= g.shape[d];
    for (size_t k = 0; k < N; ++k) ptrs[k] += counter[d] * g.strides[k][d];
  }
  std::array<int64_t, N> inner, outer{};
  for (size_t k = 0; k < N; ++k) {
    inner[k] = g.strides[k][nd - 1];
    if (nd >= 2) outer[k] = g.strides[k][nd - 2];
  }
  const int64_t n = g.shape[nd - 1];
  int64_t pos = begin;
  while (true) {
    // whole rows from the start of one: as many as the range and the dim above hold, in one call;
    // else the rest of this row (or of the range)
    const bool rows = nd >= 2 && counter[nd - 1] == 0 && end - pos >= n;
    const int64_t m = rows ? std::min(g.shape[nd - 2] - counter[nd - 2], (end - pos) / n) : 1;
    const int64_t run = rows ? n : std::min(n - counter[nd - 1], end - pos);
    body(ptrs.data(), inner.data(), run, outer.data(), m);
    pos += run * m;
    if (pos >= end) return;
    // the row is done (else the range was): the innermost dim starts over, the dim above moves m
    for (size_t k = 0; k < N; ++k) ptrs[k] -= counter[nd - 1] * inner[k];
    counter[nd - 1] = 0;
    counter[nd - 2] += m;
    for (size_t k = 0; k < N; ++k) ptrs[k] += m * outer[k];
    if (counter[nd - 2] < g.shape[nd - 2]) continue;
    for (size_t k = 0; k < N; ++k) ptrs[k] -= outer[k] * g.shape[nd - 2];
    counter[nd - 2] = 0;
    for (int64_t d = nd - 3; d >= 0; --d) {  // and carries
      if (++counter[d] < g.shape[d]) {
        for (size_t k = 0; k < N; ++k) ptrs[k] += g.strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) ptrs[k] -= g.strides[k][d] * (g.shape[d] - 1);
      counter[d] = 0;
    }
  }
}

template <size_t N>
void loop_nd(const LoopGeometry& g, std::array<char*, N> base, const LoopBody<N>& body) {
  int64_t numel = 1;
  for (int64_t s : g.shape) numel *= s;
  loop_nd_range<N>(g, base, 0, numel, body);
}

namespace {
// A transposing copy of one block: vector q of src (a block side of contiguous bytes at
// src + q * src_step) becomes lane q of each of dst's vectors (dst + r * dst_step): 16 x 16 elements
// of 2 bytes, 8 x 8 of 4, 4 x 4 of 8 with AVX (8 x 8, 4 x 4 and 2 x 2 with SSE2), 16 x 16 of 1
// everywhere. Bytes are moved as they are (shuffles, no arithmetic): any type of that size.
// (AVX's blocks against SSE's in a standalone copy of the buffered add: 17.8 -> 15.4 ms for
// 4096^2 floats, 7.2 -> 5.4 in the cache.)
#if defined(__AVX__)
constexpr int64_t kBlockBytes = 32;
#else
constexpr int64_t kBlockBytes = 16;
#endif
// a block's side in elements of E bytes (bytes go 16 x 16 in SSE2's registers everywhere)
template <int64_t E>
constexpr int64_t kBlockSide = E == 1 ? 16 : kBlockBytes / E;
#if defined(__SSE2__)
// An 8 x 8 transpose of 2-byte elements in each 128-bit lane of r[0..7] (V: __m128i, or __m256i
// with AVX2, whose two lanes go through it side by side): c[j] = column j of the lane's rows.
#define TCORE_TRANSPOSE8_EPI16(P, r, c)                                                                 \
  do {                                                                                                   \
    decltype(+r[0]) a_[8], b_[8]; /* (the register type: remove_reference_t dropped its attributes) */   \
    for (int q_ = 0; q_ < 8; q_ += 2) {                                                                  \
      a_[q_] = P##_unpacklo_epi16(r[q_], r[q_ + 1]);                                                     \
      a_[q_ + 1] = P##_unpackhi_epi16(r[q_], r[q_ + 1]);                                                 \
    }                                                                                                    \
    for (int q_ = 0; q_ < 8; q_ += 4) {                                                                  \
      b_[q_] = P##_unpacklo_epi32(a_[q_], a_[q_ + 2]);                                                   \
      b_[q_ + 1] = P##_unpackhi_epi32(a_[q_], a_[q_ + 2]);                                               \
      b_[q_ + 2] = P##_unpacklo_epi32(a_[q_ + 1], a_[q_ + 3]);                                           \
      b_[q_ + 3] = P##_unpackhi_epi32(a_[q_ + 1], a_[q_ + 3]);                                           \
    }                                                                                                    \
    for (int q_ = 0; q_ < 4; ++q_) {                                                                     \
      c[2 * q_] = P##_unpacklo_epi64(b_[q_], b_[q_ + 4]);                                                \
      c[2 * q_ + 1] = P##_unpackhi_epi64(b_[q_], b_[q_ + 4]);                                            \
    }                                                                                                    \
  } while (0)
#endif

template <int64_t E>
__attribute__((always_inline)) inline void transpose_block(char* dst, int64_t dst_step, const char* src, int64_t src_step) {
#if defined(__SSE2__)
  if constexpr (E == 1) {  // 16 x 16 bytes: rows paired by bytes, then by 2, 4 and 8 bytes
    __m128i r[16], a[16], b[16], c[16];
    for (int q = 0; q < 16; ++q) r[q] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + q * src_step));
    for (int q = 0; q < 16; q += 2) {
      a[q] = _mm_unpacklo_epi8(r[q], r[q + 1]);  // columns 0-7 of rows q, q + 1
      a[q + 1] = _mm_unpackhi_epi8(r[q], r[q + 1]);  // columns 8-15
    }
    for (int q = 0; q < 16; q += 4) {  // four columns of rows q..q+3 each
      b[q] = _mm_unpacklo_epi16(a[q], a[q + 2]);
      b[q + 1] = _mm_unpackhi_epi16(a[q], a[q + 2]);
      b[q + 2] = _mm_unpacklo_epi16(a[q + 1], a[q + 3]);
      b[q + 3] = _mm_unpackhi_epi16(a[q + 1], a[q + 3]);
    }
    for (int q = 0; q < 16; q += 8) {  // two columns of rows q..q+7 each
      for (int m = 0; m < 4; ++m) {
        c[q + 2 * m] = _mm_unpacklo_epi32(b[q + m], b[q + 4 + m]);
        c[q + 2 * m + 1] = _mm_unpackhi_epi32(b[q + m], b[q + 4 + m]);
      }
    }
    for (int p = 0; p < 8; ++p) {  // one column of the 16 rows each
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * p * dst_step), _mm_unpacklo_epi64(c[p], c[p + 8]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (2 * p + 1) * dst_step), _mm_unpackhi_epi64(c[p], c[p + 8]));
    }
    return;
  }
#endif
#if defined(__AVX2__)
  if constexpr (E == 2) {  // 16 x 16: the 8 x 8 transposes of rows 0-7 and 8-15 in both lanes, the lanes then paired
    __m256i r[16], c[8], d[8];
    for (int q = 0; q < 16; ++q) r[q] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + q * src_step));
    TCORE_TRANSPOSE8_EPI16(_mm256, r, c);
    TCORE_TRANSPOSE8_EPI16(_mm256, (r + 8), d);
    for (int j = 0; j < 8; ++j) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j * dst_step), _mm256_permute2x128_si256(c[j], d[j], 0x20));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + (j + 8) * dst_step), _mm256_permute2x128_si256(c[j], d[j], 0x31));
    }
    return;
  }
#endif
#if defined(__AVX__)
  if constexpr (E == 2) {
#if !defined(__AVX2__)
    constexpr int64_t B = kBlockSide<E>;
    for (int64_t q = 0; q < B; ++q)
      for (int64_t r = 0; r < B; ++r) std::memcpy(dst + r * dst_step + q * E, src + q * src_step + r * E, E);
#endif
  } else if constexpr (E == 4) {
    __m256 r[8], t[8], u[8];
    for (int q = 0; q < 8; ++q) r[q] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + q * src_step));
    for (int q = 0; q < 8; q += 2) {
      t[q] = _mm256_unpacklo_ps(r[q], r[q + 1]);
      t[q + 1] = _mm256_unpackhi_ps(r[q], r[q + 1]);
    }
    for (int q = 0; q < 8; q += 4) {
      u[q] = _mm256_shuffle_ps(t[q], t[q + 2], 0x44);
      u[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], 0xEE);
      u[q + 2] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0x44);
      u[q + 3] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0xEE);
    }
    for (int q = 0; q < 4; ++q) {
      _mm256_storeu_ps(reinterpret_cast<float*>(dst + q * dst_step), _mm256_permute2f128_ps(u[q], u[q + 4], 0x20));
      _mm256_storeu_ps(reinterpret_cast<float*>(dst + (q + 4) * dst_step), _mm256_permute2f128_ps(u[q], u[q + 4], 0x31));
    }
  } else {
    const __m256d r0 = _mm256_loadu_pd(reinterpret_cast<const double*>(src));
    const __m256d r1 = _mm256_loadu_pd(reinterpret_cast<const double*>(src + src_step));
    const __m256d r2 = _mm256_loadu_pd(reinterpret_cast<const double*>(src + 2 * src_step));
    const __m256d r3 = _mm256_loadu_pd(reinterpret_cast<const double*>(src + 3 * src_step));
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(reinterpret_cast<double*>(dst), _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(reinterpret_cast<double*>(dst + dst_step), _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(reinterpret_cast<double*>(dst + 2 * dst_step), _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(reinterpret_cast<double*>(dst + 3 * dst_step), _mm256_permute2f128_pd(t1, t3, 0x31));
  }
#elif defined(__SSE2__)
  if constexpr (E == 2) {
    __m128i r[8], c[8];
    for (int q = 0; q < 8; ++q) r[q] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + q * src_step));
    TCORE_TRANSPOSE8_EPI16(_mm, r, c);
    for (int j = 0; j < 8; ++j) _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + j * dst_step), c[j]);
  } else if constexpr (E == 4) {
    __m128 r0 = _mm_loadu_ps(reinterpret_cast<const float*>(src));
    __m128 r1 = _mm_loadu_ps(reinterpret_cast<const float*>(src + src_step));
    __m128 r2 = _mm_loadu_ps(reinterpret_cast<const float*>(src + 2 * src_step));
    __m128 r3 = _mm_loadu_ps(reinterpret_cast<const float*>(src + 3 * src_step));
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(reinterpret_cast<float*>(dst), r0);
    _mm_storeu_ps(reinterpret_cast<float*>(dst + dst_step), r1);
    _mm_storeu_ps(reinterpret_cast<float*>(dst + 2 * dst_step), r2);
    _mm_storeu_ps(reinterpret_cast<float*>(dst + 3 * dst_step), r3);
  } else {
    const __m128d a = _mm_loadu_pd(reinterpret_cast<const double*>(src));
    const __m128d b = _mm_loadu_pd(reinterpret_cast<const double*>(src + src_step));
    _mm_storeu_pd(reinterpret_cast<double*>(dst), _mm_unpacklo_pd(a, b));
    _mm_storeu_pd(reinterpret_cast<double*>(dst + dst_step), _mm_unpackhi_pd(a, b));
  }
#else
  constexpr int64_t B = kBlockSide<E>;
  for (int64_t q = 0; q < B; ++q)
    for (int64_t r = 0; r < B; ++r) std::memcpy(dst + r * dst_step + q * E, src + q * src_step + r * E, E);
#endif
}

// dst(i, j) = src(i, j) for a h x w tile of E-byte elements at p + i * step_i + j * step_j, where
// one side runs along i (step_i == E) and the other along j (step_j == E): whole blocks through
// transpose_block, columns outermost (the side that runs along i keeps its few lines in L1 down
// the tile), the ragged edges element by element. Gathering (src runs along i) with ahead >= 0,
// the lines of the next block column are prefetched while this one is copied, up to `ahead` rows
// of src past the tile (the next tile's first block): src's rows lie far apart, where the
// hardware's prefetchers do not follow, and one thread waits on their misses otherwise (for data
// in the cache the prefetches only cost: 1024^2 floats, 0.32 -> 0.37 ns an element).
template <int64_t E>
void transpose_tile(char* dst, int64_t di, int64_t dj, const char* src, int64_t si, int64_t sj, int64_t h, int64_t w,
                    int64_t ahead = -1) {
  constexpr int64_t B = kBlockSide<E>;
  const bool gather = si == E && dj == E;  // else scatter: sj == E && di == E
  const int64_t hb = h - h % B, wb = w - w % B;
  for (int64_t j = 0; j < wb; j += B) {
    if (gather && ahead >= 0)
      for (int64_t r = j + B; r < std::min(j + 2 * B, w + ahead); ++r)
        for (int64_t l = 0; l < h * E; l += 64) __builtin_prefetch(src + r * sj + l);
    for (int64_t i = 0; i < hb; i += B) {
      if (gather) transpose_block<E>(dst + i * di + j * E, di, src + i * E + j * sj, sj);
      else transpose_block<E>(dst + i * E + j * dj, dj, src + i * si + j * E, si);
    }
  }
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = i < hb ? wb : 0; j < w; ++j) std::memcpy(dst + i * di + j * dj, src + i * si + j * sj, E);
}

// Copies `bytes` from src (a buffer in L1) to dst with non-temporal stores where dst is aligned to
// a vector, plain copies at the ends: the lines go to memory without being read first (the read
// for ownership that an ordinary store pays) and without evicting the cache. The caller fences
// (_mm_sfence) before its writes may be read by another thread.
inline void stream_bytes(char* dst, const char* src, int64_t bytes) {
#if defined(__AVX__) || defined(__SSE2__)
#if defined(__AVX__)
  constexpr int64_t V = 32;
#else
  constexpr int64_t V = 16;
#endif
  const int64_t head = std::min<int64_t>(bytes, (V - reinterpret_cast<uintptr_t>(dst) % V) % V);
  std::memcpy(dst, src, static_cast<size_t>(head));
  int64_t k = head;
  for (; k + V <= bytes; k += V) {
#if defined(__AVX__)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + k), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k)));
#else
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k)));
#endif
  }
  std::memcpy(dst + k, src + k, static_cast<size_t>(bytes - k));
#else
  std::memcpy(dst, src, static_cast<size_t>(bytes));
#endif
}

// Outputs at least this large are written by tiled_loop_2d through stream_bytes: larger than one
// CCX's L3 on current x86 servers (32 MiB on AMD Zen 3/4), so the lines would not stay cached for
// the next operation anyway. (sysconf's L3 size cannot say it: a VM on this machine reports the
// socket's 320 MiB, and glibc's memcpy starts streaming at 240 MiB from it.)
constexpr int64_t kStreamBytes = int64_t{32} << 20;

// A 2-D loop in which some operand steps through memory in the outer dim and far apart in the
// inner one (a transposed operand: x + y.t(), y.t().contiguous()): row by row, each of its
// elements would come from another cache line. In tiles instead, the cache lines that operand
// touches are reused by the tile's rows before they are evicted.
//
// With `buffered` (the body only computes element i of its outputs from element i of its inputs,
// and writes every output element), each transposed operand of 1, 2, 4 or 8 bytes goes through a
// buffer: its 64 x 256 tile is transposed into a contiguous buffer by vector blocks (8 x 8 floats)
// before the tile's rows run (an output's is transposed back after), and the body sees
// contiguous rows of 256 elements, which it vectorizes. Otherwise the tile is tall and narrow
// (kRows x `width` elements, width * the row operands' element size >= 32 bytes): the transposed
// operand's lines in a tile sit a row apart, in one cache set when rows are a multiple of 4 KiB
// long, and 8 of them fit the set's ways where 32 thrashed, and its elements go one by one
// through the body's strided loop. 4096^2 float add, one operand transposed, one thread: 110 ms
// row by row, 47-74 ms in 32 x 32 tiles, 22 ms in 64 x 8 (0.9 ns an element even in cache);
// buffered in 64 x 64 tiles 18.5 ms, 64 x 256 16.1, 64 x 512 15.9, 64 x 1024 24.3, 32 or
// 128 x 256 20.8 / 17.6. In the cache (256^2, 1024^2) 0.43-0.50 ns an element with buffer rows of
// exactly 1 KiB, 0.28-0.33 with the line of padding (a contiguous add: 0.14).
// Returns false when the geometry is not such a loop.
template <size_t N>
bool tiled_loop_2d(const LoopGeometry& g, std::array<char*, N> base, const LoopBody<N>& body, bool buffered) {
  constexpr int64_t kRows = 64;
  if (g.shape.size() != 2) return false;
  const int64_t rows = g.shape[0], cols = g.shape[1];
  std::array<bool, N> flipped{};  // operands that run along the rows (transposed)
  bool transposed = false, bufferable = buffered;
  int64_t element = 16;  // the smallest element size among the operands that run along a row
  for (size_t k = 0; k < N; ++k) {
    const int64_t outer = g.strides[k][0] < 0 ? -g.strides[k][0] : g.strides[k][0];
    const int64_t inner = g.strides[k][1] < 0 ? -g.strides[k][1] : g.strides[k][1];
    flipped[k] = outer != 0 && outer <= 16 && inner >= 256;
    transposed = transposed || flipped[k];
    if (flipped[k])
      bufferable = bufferable && g.strides[k][0] == g.itemsize[k] &&
                   (g.itemsize[k] == 1 || g.itemsize[k] == 2 || g.itemsize[k] == 4 || g.itemsize[k] == 8);
    if (inner != 0 && inner < element) element = inner;
  }
  if (!transposed) return false;
  if (bufferable && rows >= kRows && cols >= kRows) {
    constexpr int64_t kCols = 256;  // rows of 1 KiB for float operands that run along them
    // a buffer's rows are a cache line longer than kCols elements: at a multiple of 4 KiB, the
    // block column that transpose_tile writes down the buffer would fall in 4 of L1's sets
    const auto pitch = [&](size_t k) { return kCols * g.itemsize[k] + 64; };
    // A large loop (its output kStreamBytes or more: in memory, not in the cache) prefetches the
    // operands it reads: the transposed ones in transpose_tile, those read in place (rows of
    // 1 KiB, a row apart) kAhead rows ahead. An output of it whose rows run along the tile's rows
    // is streamed: each row of the body's goes to a buffer row in L1 first, and from there to
    // memory through non-temporal stores. 4096^2 floats, one thread: x + y.t() 15.2 -> 12.5-13.1
    // ms, y.t().contiguous() 11.5 -> 8.0-8.4 (streamed without the prefetches, x + y.t() took 18.5: the
    // misses on x were then what the thread waited on).
    constexpr int64_t kAhead = 4;
    const bool large = rows * cols * g.itemsize[0] >= kStreamBytes;
    const bool stream = large && !flipped[0] && g.strides[0][1] == g.itemsize[0];
    const int64_t bands = (rows + kRows - 1) / kRows;
    const int64_t grain = std::max<int64_t>(1, kGrainSize / (kRows * cols));
    parallel_for(0, bands, grain, [&](int64_t b, int64_t e) {
      // in a parallel region nothing may throw: without memory for its buffers (128 KiB at most
      // an operand), a thread runs its tiles on the operands themselves, through the strided loop
      std::array<std::unique_ptr<char[]>, N> buffer;
      bool allocated = true;
      for (size_t k = 0; k < N; ++k)
        if (flipped[k] || (k == 0 && stream)) {
          const int64_t bytes = flipped[k] ? kRows * pitch(k) : kCols * g.itemsize[k] + 8192;  // 8 KiB: see row_for
          buffer[k].reset(new (std::nothrow) char[static_cast<size_t>(bytes)]);
          allocated = allocated && buffer[k] != nullptr;
        }
      std::array<bool, N> via{};  // operands read and written through their buffer
      std::array<int64_t, N> inner;
      for (size_t k = 0; k < N; ++k) {
        via[k] = flipped[k] && allocated;
        inner[k] = via[k] ? g.itemsize[k] : g.strides[k][1];
      }
      const bool streamed = stream && allocated;
      // The row buffer of a streamed output row at `out`: 2 KiB + 64 bytes past it modulo 4 KiB.
      // One fixed row buffer, wherever the heap put it, could share its address bits 0-11 with
      // the output rows (rows of 16 KiB all do), and its loads wait on the non-temporal stores
      // still draining to those bits (4K aliasing, the likely cause): 4096^2 floats, one thread,
      // x + y.t() took 12.8 or 22 ms and y.t().contiguous() 8.1 or 22 as the buffer fell; at 64,
      // 1088, 2112 or 3136 bytes from the output's bits, 12.7-13.1 and 8.0-8.2 every time.
      const auto row_for = [&](const char* out) {
        const uintptr_t page = (reinterpret_cast<uintptr_t>(buffer[0].get()) + 4095) & ~uintptr_t{4095};
        return reinterpret_cast<char*>(page + ((reinterpret_cast<uintptr_t>(out) + 2048 + 64) & 4095));
      };
      const auto transpose = [&](size_t k, bool in, char* tile, int64_t h, int64_t w, int64_t ahead) {  // tile <-> buffer
        const int64_t E = g.itemsize[k], P = pitch(k);
        char* buf = buffer[k].get();
        const int64_t si = g.strides[k][0], sj = g.strides[k][1];
        if (E == 1) {
          in ? transpose_tile<1>(buf, P, E, tile, si, sj, h, w, ahead) : transpose_tile<1>(tile, si, sj, buf, P, E, h, w);
        } else if (E == 2) {
          in ? transpose_tile<2>(buf, P, E, tile, si, sj, h, w, ahead) : transpose_tile<2>(tile, si, sj, buf, P, E, h, w);
        } else if (E == 4) {
          in ? transpose_tile<4>(buf, P, E, tile, si, sj, h, w, ahead) : transpose_tile<4>(tile, si, sj, buf, P, E, h, w);
        } else {
          in ? transpose_tile<8>(buf, P, E, tile, si, sj, h, w, ahead) : transpose_tile<8>(tile, si, sj, buf, P, E, h, w);
        }
      };
      for (int64_t band = b; band < e; ++band) {
        const int64_t i0 = band * kRows, h = std::min(kRows, rows - i0);
        for (int64_t j0 = 0; j0 < cols; j0 += kCols) {
          const int64_t w = std::min(kCols, cols - j0);
          std::array<char*, N> corner;
          for (size_t k = 0; k < N; ++k) corner[k] = base[k] + i0 * g.strides[k][0] + j0 * g.strides[k][1];
          for (size_t k = 1; k < N; ++k)
            if (via[k]) transpose(k, true, corner[k], h, w, large ? cols - j0 - w : -1);
          if (!large) {  // the tile's rows in one call
            std::array<char*, N> ptrs;
            std::array<int64_t, N> outer;
            for (size_t k = 0; k < N; ++k) {
              ptrs[k] = via[k] ? buffer[k].get() : corner[k];
              outer[k] = via[k] ? pitch(k) : g.strides[k][0];
            }
            body(ptrs.data(), inner.data(), w, outer.data(), h);
          }
          for (int64_t i = 0; i < h && large; ++i) {  // row by row: prefetches, streamed rows
            std::array<char*, N> ptrs;
            for (size_t k = 0; k < N; ++k)
              ptrs[k] = via[k] ? buffer[k].get() + i * pitch(k) : corner[k] + i * g.strides[k][0];
            char* const out = corner[0] + i * g.strides[0][0];
            if (streamed) ptrs[0] = row_for(out);
            for (size_t k = 1; k < N && large; ++k)  // the inputs read in place: their row kAhead rows on
              if (!via[k] && g.strides[k][1] == g.itemsize[k]) {
                const int64_t r = i + kAhead;  // in this tile, or else in the next one along the band
                const char* next = r < h                        ? corner[k] + r * g.strides[k][0]
                                   : j0 + w < cols && r - h < h ? corner[k] + (r - h) * g.strides[k][0] + w * g.strides[k][1]
                                                                : nullptr;
                if (next)
                  for (int64_t l = 0; l < w * g.itemsize[k]; l += 64) __builtin_prefetch(next + l);
              }
            body(ptrs.data(), inner.data(), w);
            if (streamed) stream_bytes(out, ptrs[0], w * g.itemsize[0]);
          }
          if (via[0]) transpose(0, false, corner[0], h, w, -1);
        }
      }
#if defined(__SSE2__)
      if (streamed) _mm_sfence();  // the streamed rows are in memory before the thread returns
#endif
    });
    return true;
  }
  const int64_t width = std::max<int64_t>(8, 32 / element);
  if (rows < 2 * kRows || cols < 2 * width) return false;
  std::array<int64_t, N> inner, outer;
  for (size_t k = 0; k < N; ++k) {
    inner[k] = g.strides[k][1];
    outer[k] = g.strides[k][0];
  }
  const int64_t bands = (rows + kRows - 1) / kRows;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / (kRows * cols));
  parallel_for(0, bands, grain, [&](int64_t b, int64_t e) {
    for (int64_t band = b; band < e; ++band) {
      const int64_t i0 = band * kRows, i1 = std::min(rows, i0 + kRows);
      for (int64_t j0 = 0; j0 < cols; j0 += width) {
        std::array<char*, N> ptrs;
        for (size_t k = 0; k < N; ++k) ptrs[k] = base[k] + i0 * g.strides[k][0] + j0 * g.strides[k][1];
        body(ptrs.data(), inner.data(), std::min(width, cols - j0), outer.data(), i1 - i0);
      }
    }
  });
  return true;
}

}  // namespace

template <size_t N>
void parallel_loop_nd(const LoopGeometry& g, std::array<char*, N> base, const LoopBody<N>& body, bool elementwise) {
  int64_t numel = 1;
  for (int64_t s : g.shape) numel *= s;
  if (tiled_loop_2d<N>(g, base, body, elementwise)) return;
  if (numel <= kGrainSize) {
    loop_nd<N>(g, base, body);
    return;
  }
  parallel_for(0, numel, kGrainSize, [&](int64_t b, int64_t e) { loop_nd_range<N>(g, base, b, e, body); });
}

#define TCORE_LOOPS_FOR(N)                                                                                      \
  template void loop_nd<N>(const LoopGeometry&, std::array<char*, N>, const LoopBody<N>&);                      \
  template void loop_nd_range<N>(const LoopGeometry&, std::array<char*, N>, int64_t, int64_t, const LoopBody<N>&); \
  template void parallel_loop_nd<N>(const LoopGeometry&, std::array<char*, N>, const LoopBody<N>&, bool);
TCORE_LOOPS_FOR(1)
TCORE_LOOPS_FOR(2)
TCORE_LOOPS_FOR(3)
TCORE_LOOPS_FOR(4)
#undef TCORE_LOOPS_FOR

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
