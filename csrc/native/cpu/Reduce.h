#pragma once
// The row layout of the reductions (ReduceOps.cpp, ReduceMore.cpp, cuda/ReduceKernels.cu,
// cuda/ReduceMoreKernels.cu): the input viewed with the kept dims first and the reduced dims last,
// contiguous, in the compute dtype; and the helpers both devices' reductions share.
#include "tcore/core/CPUCapability.h"
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/IntoOutput.h"
#include "native/cpu/Parallel.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

struct Rows {
  Tensor data;  // contiguous (outer x inner) of the compute dtype
  int64_t outer = 1, inner = 1;
  std::vector<int64_t> shape;  // the result's shape
};

// `t` (the input's shape and order, or a result of that shape) viewed with the kept dims first and
// the reduced dims last: rows_for's order.
inline Tensor rows_view(const Tensor& t, const std::vector<bool>& mask) {
  std::vector<int64_t> sizes, strides;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t d = 0; d < mask.size(); ++d) {
      if (mask[d] != (pass == 1)) continue;
      sizes.push_back(t.sizes()[d]);
      strides.push_back(t.strides()[d]);
    }
  }
  return make_view(t, sizes, strides, t.storage_offset());
}

inline Rows rows_for(const Tensor& self, const std::vector<bool>& mask, bool keepdim, ScalarType dtype) {
  Rows r;
  for (size_t d = 0; d < mask.size(); ++d) (mask[d] ? r.inner : r.outer) *= self.sizes()[d];
  const Tensor permuted = rows_view(self, mask);
  if (permuted.is_contiguous() && permuted.dtype() == dtype) {
    r.data = permuted;
  } else {
    r.data = empty_on(permuted.sizes(), dtype, self.device());
    copy_kernel(r.data, permuted);
  }
  r.shape = reduced_shape(self.sizes(), mask, keepdim);
  return r;
}

// The mask of a reduction over one dim (a 0-dim tensor has one dim to name, -1 or 0).
inline std::vector<bool> one_dim(const Tensor& self, int64_t dim) {
  std::vector<bool> mask(static_cast<size_t>(self.dim()), false);
  if (self.dim() > 0) mask[wrap_dim(dim, self.dim())] = true;
  else wrap_dim(dim, 0);
  return mask;
}

// Where a kernel along one dim writes its rows (rows_for's order, dtype t): into `result` itself
// (the input's shape and order) when its rows are in that order already (the dim the last one, or
// only 1s after it), else into fresh rows for write_rows_back.
inline Tensor rows_out(const Tensor& result, const std::vector<bool>& mask, ScalarType t) {
  const Tensor target = rows_view(result, mask);
  return target.is_contiguous() ? target : empty_on(target.sizes(), t, result.device());
}

// Copies rows laid out (kept dims, reduced dims) -- rows_for's order -- into `result`, which has
// the input's shape and order (on any device); nothing when the rows are result's own (rows_out).
inline void write_rows_back(const Tensor& result, const Tensor& rows, const std::vector<bool>& mask) {
  if (rows.storage().is_alias_of(result.storage())) return;
  if (result.dim() == 0) {
    copy_kernel(result, make_view(rows, {}, {}, 0));
    return;
  }
  copy_kernel(rows_view(result, mask), rows);
}

inline void check_nonempty(const Rows& rows, const Tensor& self, const char* op) {
  TCORE_CHECK_INDEX(rows.inner > 0 || rows.outer == 0, op, "(): Expected reduction dim to be specified for "
                    "input.numel() == 0. Specify the reduction dim with the 'dim' argument (input shape ",
                    shape_str(self.sizes()), ")");
}

// An order-insensitive reduction (sum, mean, amax/amin, all/any) of a tensor that is not contiguous
// but whose elements fill one block of memory (a transpose, a permute): the same elements with the
// dims in memory order (size-1 dims dropped) and the mask to match, so that the reduction reads
// them in place instead of copying them into rows. `self` and `mask` as they are when the elements
// leave gaps or overlap, or when the kept dims would change order (they give the result's layout).
struct Reordered {
  Tensor data;
  std::vector<bool> mask;
};
inline Reordered in_memory_order(const Tensor& self, const std::vector<bool>& mask) {
  const Reordered same{self, mask};
  if (self.is_contiguous() || self.numel() == 0) return same;
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (self.sizes()[d] != 1) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return self.strides()[a] > self.strides()[b]; });
  Reordered r;
  std::vector<int64_t> sizes, strides;
  int64_t last_kept = -1;
  for (const int64_t d : dims) {
    if (!mask[d]) {
      if (d < last_kept) return same;
      last_kept = d;
    }
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
    r.mask.push_back(mask[d]);
  }
  r.data = make_view(self, sizes, strides, self.storage_offset());
  return r.data.is_contiguous() ? r : same;
}

// A contiguous input whose reduced dims are one block followed by kept dims (sum(0) of a matrix,
// the middle dim of (B, R, K)): result[o, k] = the reduction over r of x[o, r, k], computed by
// combining whole rows of K elements into an accumulator row (vector loops) where the row layout
// would first copy the input transposed. Empty where it does not apply (K == 1: rows).
struct Columns {
  int64_t O = 1, R = 1, K = 1;
};
inline std::optional<Columns> columns_of(const Tensor& x, const std::vector<bool>& mask) {
  const int64_t nd = x.dim();
  int64_t a = 0;
  while (a < nd && !mask[a]) ++a;
  int64_t b = a;
  while (b < nd && mask[b]) ++b;
  for (int64_t d = b; d < nd; ++d)
    if (mask[d]) return std::nullopt;  // reduced dims not in one block
  if (a == nd || b == nd || !x.is_contiguous()) return std::nullopt;
  Columns c;
  for (int64_t d = 0; d < nd; ++d) (d < a ? c.O : d < b ? c.R : c.K) *= x.sizes()[d];
  if (c.K == 1) return std::nullopt;
  return c;
}

// f(o, j0, len) for the blocks of columns [j0, j0 + len) of each o, split across the threads: up
// to max_chunk columns a task, fewer when that would leave a thread idle (which columns a task
// takes changes no column's result).
template <typename F>
void for_each_column_block(const Columns& c, int64_t max_chunk, const F& f) {
  int64_t chunk = std::max<int64_t>(1, std::min(max_chunk, c.K));  // K may be 0
  const int64_t threads = get_num_threads();
  if (c.O * ((c.K + chunk - 1) / chunk) < threads)
    chunk = std::min(chunk, std::max<int64_t>(256, (c.K / threads + 63) / 64 * 64));
  const int64_t chunks = (c.K + chunk - 1) / chunk;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c.R * chunk, 1));
  parallel_for(0, c.O * chunks, grain, [&](int64_t first, int64_t last) {
    for (int64_t task = first; task < last; ++task) {
      const int64_t o = task / chunks, j0 = (task % chunks) * chunk;
      f(o, j0, std::min(chunk, c.K - j0));
    }
  });
}

// float16/bfloat16 inputs of the extremes, var/std and logsumexp reduce in float32.
inline bool widen(const Tensor& t) { return is_reduced_float(t.dtype()); }
inline Tensor f32(const Tensor& t) { return cast(t, ScalarType::Float); }

// The result dtype of sum (integers and bool accumulate in int64) and of mean (floating only).
inline ScalarType sum_dtype(const Tensor& self, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), true) ? ScalarType::Long : self.dtype();
}
inline ScalarType mean_dtype(const Tensor& self, std::optional<ScalarType> dtype, const char* op) {
  const ScalarType t = dtype.value_or(self.dtype());
  TCORE_CHECK_TYPE(is_floating(t), op, "(): could not infer output dtype. Input dtype must be either a floating "
                   "point or complex dtype. Got: ", t);
  return t;
}

// f(r) for every row r, rows split across threads when there is enough work.
template <typename F>
void for_each_row(int64_t outer, int64_t inner, const F& f) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(inner, 1));
  parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) f(r);
  });
}

// o[i] = H(row[i] * scale) for float16/bfloat16 H: sixteen values at a time in registers
template <typename H>
void convert_scaled_run(H* o, const float* row, float scale, int64_t n) {
  constexpr int64_t W = 16;
  using F32 = float __attribute__((vector_size(W * sizeof(float))));
  int64_t i = 0;
  for (; i + W <= n; i += W) {  // (a loop over v's lanes was assembled from 16 scalar loads by GCC
    F32 v;                      // once bfloat16's rounding was vector code: softmax 1.35x slower)
    std::memcpy(&v, row + i, sizeof v);
    v *= scale;
    float r[W];
    std::memcpy(r, &v, sizeof v);
    convert_run<H, float>(o + i, r, W);
  }
  float v[W];
  for (int64_t j = 0; j < n - i; ++j) v[j] = row[i + j] * scale;
  convert_run<H, float>(o + i, v, n - i);
}

// The rows of a float16/bfloat16 row kernel in float32: f(y, x, r) for each row r of `self` (its
// last dim of n elements, contiguous), with x the row converted to float32, writes the float32 row
// y, which is rounded into out's row r (out of self's shape and dtype, contiguous, apart from self),
// or, where f returns (row, scale), row * scale rounded (the kernel's last pass made with the
// rounding: softmax's); float32 copies of the whole input and output took two passes more (softmax
// of float16 1.3x torch's, layer_norm 1.9x). Rows are split across threads, the buffers are the
// thread's. False when the case does not apply.
template <typename F>
bool reduced_float_rows(const Tensor& out, const Tensor& self, const F& f) {
  if (!is_reduced_float(self.dtype()) || out.dtype() != self.dtype() || self.dim() == 0 || !self.is_contiguous() ||
      !out.is_contiguous() || out.sizes().vec() != self.sizes().vec() || out.storage().is_alias_of(self.storage()))
    return false;
  const int64_t n = self.sizes().back();
  if (n == 0 || self.numel() == 0) return true;
  const int64_t rows = self.numel() / n;
  dispatch_reduced_float(self.dtype(), [&](auto tag) {
    using H = typename decltype(tag)::type;
    const H* in = static_cast<const H*>(self.data_ptr());
    H* o = static_cast<H*>(out.data_ptr());
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / n), [&](int64_t b, int64_t e) {
      std::vector<float> buf(static_cast<size_t>(2 * n));
      float *x = buf.data(), *y = buf.data() + n;
      for (int64_t r = b; r < e; ++r) {
        convert_run<float, H>(x, in + r * n, n);
        if constexpr (std::is_void_v<decltype(f(y, x, r))>) {
          f(y, x, r);
          convert_run<H, float>(o + r * n, y, n);
        } else {  // (row, scale): row * scale rounded, sixteen at a time in registers
          const auto [row, scale] = f(y, x, r);
          convert_scaled_run<H>(o + r * n, row, scale, n);
        }
      }
    });
  });
  return true;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
