// flip, tril/triu and repeat_interleave's index: kernels that move or mask elements.
//
// flip copies rows of the last dim from their mirrored places; tril/triu keep the elements on one side of a diagonal
// of the last two dims.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include <tcore/ops/flip_native.h>
#include <tcore/ops/repeat_interleave_native.h>
#include <tcore/ops/tril_native.h>
#include <tcore/ops/triu_native.h>

#include "native/TensorUtils.h"
#include "tcore/core/SizeMath.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Loops.h"
#include "native/cpu/Parallel.h"
#include "native/cuda/DeviceLoops.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

// ------------------------------------------------------------------ flip
namespace {
// dst[j] = row[n - 1 - j] for elements of esize bytes (a typed loop for the usual sizes: a memcpy
// call an element was 10x slower)
template <typename E>
void reverse_as(char* dst, const char* row, int64_t n) {
  for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * sizeof(E), row + (n - 1 - j) * sizeof(E), sizeof(E));
}
void reverse_row(char* dst, const char* row, int64_t n, int64_t esize) {
  switch (esize) {
    case 1: return reverse_as<uint8_t>(dst, row, n);
    case 2: return reverse_as<uint16_t>(dst, row, n);
    case 4: return reverse_as<uint32_t>(dst, row, n);
    case 8: return reverse_as<uint64_t>(dst, row, n);
    default:
      for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * esize, row + (n - 1 - j) * esize, static_cast<size_t>(esize));
  }
}
}  // namespace

Tensor flip(const Tensor& self, IntArrayRef dims) {
  const std::vector<bool> flipped = flip_mask(self, dims);
  Tensor out = empty_cpu(self.sizes(), self.dtype());
  if (self.numel() == 0) return out;
  if (self.dim() == 0) {
    copy_kernel(out, self);
    return out;
  }
  // rows of the last dim: each output row reads the source row at the mirrored coordinates
  const Tensor src = contiguous_copy(self);  // self itself when contiguous
  const int64_t nd = self.dim(), n = self.sizes()[nd - 1], esize = self.element_size();
  const std::vector<int64_t> cs = contiguous_strides(self.sizes());
  const int64_t rows = self.numel() / n;
  const char* in = static_cast<const char*>(src.data_ptr());
  char* o = static_cast<char*>(out.data_ptr());
  std::vector<int64_t> coord(static_cast<size_t>(nd - 1), 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t from = 0;
    for (int64_t d = 0; d < nd - 1; ++d)
      from += (flipped[d] ? self.sizes()[d] - 1 - coord[d] : coord[d]) * cs[d];
    char* dst = o + r * n * esize;
    const char* row = in + from * esize;
    if (flipped[nd - 1]) {
      reverse_row(dst, row, n, esize);
    } else {
      std::memcpy(dst, row, static_cast<size_t>(n * esize));
    }
    for (int64_t d = nd - 2; d >= 0; --d) {  // next row, row-major
      if (++coord[d] < self.sizes()[d]) break;
      coord[d] = 0;
    }
  }
  return out;
}

// ------------------------------------------------------------------ tril, triu
namespace {

// out = self where keep(row, col), else 0, over the matrices of the last two dims. On the CPU each
// row is one copy of its kept run and one fill of the rest, straight into out when out is
// contiguous and apart from self, or is self (tril_: only the fill); elsewhere through a result.
// (Element by element, through a contiguous copy and a result always: tril of 2048² float32
// 10.4 ms, 4.6x torch's.)
template <bool Lower>
Tensor triangle_into(const Tensor& out, const Tensor& self, int64_t diagonal, const char* op) {
  TCORE_CHECK(self.dim() >= 2, op, ": input tensor must have at least 2 dimensions");
  const int64_t rows = self.sizes()[self.dim() - 2], cols = self.sizes()[self.dim() - 1];
  const int64_t mats = rows * cols == 0 ? 0 : self.numel() / (rows * cols);
  if (!self.device().is_cpu()) {  // device-neutral: on a GPU the loop is native/cuda/DeviceLoops.h's
    const Tensor src = contiguous_copy(self);
    Tensor result = empty_on(self.sizes(), self.dtype(), self.device());
    cuda::triangle(result, src, diagonal, Lower);
    copy_kernel(out, result);
    out.bump_version();
    return out;
  }
  const bool in_place = out.is_same(self) && self.is_contiguous();
  const bool direct = in_place || (out.is_contiguous() && !out.storage().is_alias_of(self.storage()));
  const Tensor src = contiguous_copy(self);  // self itself when contiguous
  const Tensor result = direct ? out : empty_on(self.sizes(), self.dtype(), self.device());
  const int64_t esize = self.element_size();
  const char* in = static_cast<const char*>(src.data_ptr());
  char* o = static_cast<char*>(result.data_ptr());
  parallel_for(0, mats * rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1)), [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      const int64_t i = r % rows;
      // Lower keeps j <= i + diagonal: [0, edge); upper keeps j >= i + diagonal: [edge, cols)
      const int64_t edge = std::clamp<int64_t>(Lower ? i + diagonal + 1 : i + diagonal, 0, cols);
      const int64_t keep_from = Lower ? 0 : edge, keep_to = Lower ? edge : cols;
      const int64_t zero_from = Lower ? edge : 0, zero_to = Lower ? cols : edge;
      char* row = o + r * cols * esize;
      if (!in_place && keep_to > keep_from)
        std::memcpy(row + keep_from * esize, in + (r * cols + keep_from) * esize, static_cast<size_t>((keep_to - keep_from) * esize));
      if (zero_to > zero_from) std::memset(row + zero_from * esize, 0, static_cast<size_t>((zero_to - zero_from) * esize));  // zero in every dtype
    }
  });
  if (!direct) copy_kernel(out, result);
  out.bump_version();
  return out;
}

}  // namespace

Tensor tril(const Tensor& self, int64_t diagonal) {
  return triangle_into<true>(empty_on(self.sizes(), self.dtype(), self.device()), self, diagonal, "tril");
}
Tensor tril_(const Tensor& self, int64_t diagonal) { return triangle_into<true>(self, self, diagonal, "tril_"); }
Tensor triu(const Tensor& self, int64_t diagonal) {
  return triangle_into<false>(empty_on(self.sizes(), self.dtype(), self.device()), self, diagonal, "triu");
}
Tensor triu_(const Tensor& self, int64_t diagonal) { return triangle_into<false>(self, self, diagonal, "triu_"); }

// ------------------------------------------------------------------ repeat_interleave
// [0]*repeats[0] + [1]*repeats[1] + ...: the index that repeats each element.
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  TCORE_CHECK(repeats.dim() <= 1, "repeat_interleave only accept 1D vector as repeat");
  TCORE_CHECK_TYPE(repeats.dtype() == ScalarType::Long || repeats.dtype() == ScalarType::Int,
                   "repeats has to be Long or Int tensor");
  const Tensor r = contiguous_copy(cast(repeats, ScalarType::Long));
  const int64_t n = r.numel();
  const int64_t* p = r.data_ptr<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    TCORE_CHECK(p[i] >= 0, "repeats can not be negative");
    total = checked_add(total, p[i], "repeat_interleave");  // a sum past int64 is an error, not a wrap
  }
  if (output_size) TCORE_CHECK(*output_size == total, "repeat_interleave: output_size (", *output_size,
                               ") does not match the sum of repeats (", total, ")");
  Tensor out = empty_cpu({total}, ScalarType::Long);
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < p[i]; ++k) *o++ = i;
  return out;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
