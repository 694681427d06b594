// The impls of the structured sum and mean over a dim list (sum.IntList_out, mean.out; their meta
// functions, with the dtype rules and checks: native/ReduceOps.cpp).
//
// The input is viewed with the kept dims first and the reduced dims last, made
// contiguous (a no-op for the common "reduce the trailing dims" case), and each
// row is reduced with a wide accumulator (double for floats, int64 for integers).
#include <numeric>

#include <tcore/ops/mean_native.h>
#include <tcore/ops/sum_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Math.h"
#include "native/cpu/Reduce.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

enum class Reduction { Sum, Mean };

// A contiguous input whose reduced dims are one block followed by kept dims (sum(0) of a matrix,
// the middle dim of (B, R, K)): result[o, j] = sum over r of x[o, r, j], adding whole rows of K
// elements into an accumulator row (double for floats, int64 for integers), which vectorizes;
// the rows layout would first copy the input transposed. False when the case does not apply.
bool reduce_columns(const Tensor& result, const Tensor& self, const std::vector<bool>& mask, bool mean) {
  const ScalarType out_dtype = result.dtype();
  const int64_t nd = self.dim();
  int64_t a = 0;
  while (a < nd && !mask[a]) ++a;
  int64_t b = a;
  while (b < nd && mask[b]) ++b;
  for (int64_t d = b; d < nd; ++d)
    if (mask[d]) return false;  // reduced dims not in one block
  if (a == nd || b == nd || self.dtype() != out_dtype || !self.is_contiguous()) return false;
  int64_t O = 1, R = 1, K = 1;
  for (int64_t d = 0; d < nd; ++d) (d < a ? O : d < b ? R : K) *= self.sizes()[d];
  if (K == 1) return false;  // rows: the existing path is the right one
  dispatch_dtype(out_dtype, "sum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
    const T* in = self.template data_ptr<T>();
    T* out = result.template data_ptr<T>();
    // Columns per task: up to 2048 (a 16 KB accumulator: rows read in 8 KB runs), fewer when that
    // leaves a thread idle. Which columns a task takes does not change any column's sum.
    constexpr int64_t kMaxChunk = 2048;
    int64_t chunk = std::max<int64_t>(1, std::min(kMaxChunk, K));  // K may be 0
    if (O * ((K + chunk - 1) / chunk) < get_num_threads())
      chunk = std::min(chunk, std::max<int64_t>(256, (K / get_num_threads() + 63) / 64 * 64));
    const int64_t chunks = (K + chunk - 1) / chunk;
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(R * chunk, 1));
    parallel_for(0, O * chunks, grain, [&](int64_t first, int64_t last) {
      Acc acc[kMaxChunk];
      for (int64_t task = first; task < last; ++task) {
        const int64_t o = task / chunks, j0 = (task % chunks) * chunk, len = std::min(chunk, K - j0);
        for (int64_t j = 0; j < len; ++j) acc[j] = 0;
        const T* block = in + o * R * K + j0;
        const auto wide = [](T v) { return static_cast<Acc>(v); };
        int64_t r = 0;
        // eight rows a pass (added as a tree, then into the accumulator): an eighth of the
        // accumulator's loads and stores, eight streams in flight (sum(0) of 4096² float32 at one
        // thread: 4.7 ms a row at a time in 1024-column tasks, 2.6 this way)
        for (; r + 8 <= R; r += 8) {
          const T* x = block + r * K;
          for (int64_t j = 0; j < len; ++j)
            acc[j] += ((wide(x[j]) + wide(x[K + j])) + (wide(x[2 * K + j]) + wide(x[3 * K + j]))) +
                      ((wide(x[4 * K + j]) + wide(x[5 * K + j])) + (wide(x[6 * K + j]) + wide(x[7 * K + j])));
        }
        for (; r < R; ++r) {
          const T* row = block + r * K;
          for (int64_t j = 0; j < len; ++j) acc[j] += wide(row[j]);
        }
        T* dst = out + o * K + j0;
        for (int64_t j = 0; j < len; ++j)
          dst[j] = mean ? static_cast<T>(static_cast<double>(acc[j]) / static_cast<double>(R)) : static_cast<T>(acc[j]);
      }
    });
  });
  return true;
}

// result: contiguous, of the reduced shape and the result dtype (not float16/bfloat16).
void reduce(const Tensor& result, const Tensor& self, OptionalIntArrayRef dim, bool keepdim, Reduction kind,
            const char* op) {
  const ScalarType out_dtype = result.dtype();
  const std::vector<bool> mask = reduction_mask(dim, self.dim(), op);
  if (reduce_columns(result, self, mask, kind == Reduction::Mean)) return;
  const Rows rows = rows_for(self, mask, keepdim, out_dtype);
  const int64_t outer = rows.outer, inner = rows.inner;
  dispatch_dtype(out_dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
    const T* in = rows.data.template data_ptr<T>();
    T* out = result.template data_ptr<T>();
    // few long rows (a full reduction): each row is split across the threads instead
    const bool split_row = outer < get_num_threads() && inner > 2 * kGrainSize;
    const auto one = [&](int64_t r) {
      const T* row = in + r * inner;
      Acc acc = 0;
      if constexpr (std::is_floating_point_v<T>) {
        acc = split_row ? parallel_sum_row(row, inner) : sum_row(row, inner);  // vectorized lanes, blocks in double
      } else {
        for (int64_t i = 0; i < inner; ++i) acc += static_cast<Acc>(row[i]);
      }
      if (kind == Reduction::Mean) {
        out[r] = static_cast<T>(static_cast<double>(acc) / static_cast<double>(inner));
      } else {
        out[r] = static_cast<T>(acc);
      }
    };
    if (split_row) {
      for (int64_t r = 0; r < outer; ++r) one(r);
    } else {
      for_each_row(outer, inner, one);
    }
  });
}

// float16/bfloat16 results accumulate in double via float32 and are rounded on store.
void reduce_out(const Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool keepdim, Reduction kind,
                const char* op) {
  into_output(out, compute_dtype(out), {self}, [&](const Tensor& result) { reduce(result, self, dim, keepdim, kind, op); });
}

}  // namespace

TCORE_IMPL_FUNC(sum_out)(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType>,
                        const Tensor& out) {
  reduce_out(out, self, dim, keepdim, Reduction::Sum, "sum");
}
TCORE_IMPL_FUNC(mean_out)(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType>,
                         const Tensor& out) {
  reduce_out(out, self, dim, keepdim, Reduction::Mean, "mean");
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
