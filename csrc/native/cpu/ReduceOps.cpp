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

// sum/mean where the reduced dims are one block followed by kept dims (Reduce.h's columns_of):
// whole rows added into an accumulator row (double for floats, int64 for integers), eight rows a
// pass (added as a tree, then into the accumulator: an eighth of the accumulator's loads and
// stores, eight streams in flight; sum(0) of 4096² float32 at one thread 4.7 ms a row at a time
// in 1024-column tasks, 2.6 this way). False when the case does not apply.
bool sum_columns(const Tensor& result, const Tensor& x, const std::vector<bool>& mask, bool mean) {
  const std::optional<Columns> c = columns_of(x, mask);
  if (!c || x.dtype() != result.dtype()) return false;
  const int64_t R = c->R, K = c->K;
  dispatch_dtype(result.dtype(), "sum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
    const T* in = x.template data_ptr<T>();
    T* out = result.template data_ptr<T>();
    constexpr int64_t kMaxChunk = 2048;  // a 16 KB accumulator: rows read in 8 KB runs
    for_each_column_block(*c, kMaxChunk, [&](int64_t o, int64_t j0, int64_t len) {
      Acc acc[kMaxChunk];
      for (int64_t j = 0; j < len; ++j) acc[j] = 0;
      const T* block = in + o * R * K + j0;
      const auto wide = [](T v) { return static_cast<Acc>(v); };
      int64_t r = 0;
      for (; r + 8 <= R; r += 8) {
        const T* y = block + r * K;
        for (int64_t j = 0; j < len; ++j)
          acc[j] += ((wide(y[j]) + wide(y[K + j])) + (wide(y[2 * K + j]) + wide(y[3 * K + j]))) +
                    ((wide(y[4 * K + j]) + wide(y[5 * K + j])) + (wide(y[6 * K + j]) + wide(y[7 * K + j])));
      }
      for (; r < R; ++r) {
        const T* row = block + r * K;
        for (int64_t j = 0; j < len; ++j) acc[j] += wide(row[j]);
      }
      T* dst = out + o * K + j0;
      for (int64_t j = 0; j < len; ++j)
        dst[j] = mean ? static_cast<T>(static_cast<double>(acc[j]) / static_cast<double>(R)) : static_cast<T>(acc[j]);
    });
  });
  return true;
}

// result: contiguous, of the reduced shape and the result dtype (not float16/bfloat16).
void reduce(const Tensor& result, const Tensor& self, OptionalIntArrayRef dim, bool keepdim, Reduction kind,
            const char* op) {
  const ScalarType out_dtype = result.dtype();
  const Reordered ordered = in_memory_order(self, reduction_mask(dim, self.dim(), op));
  const Tensor& x = ordered.data;
  const std::vector<bool>& mask = ordered.mask;
  if (sum_columns(result, x, mask, kind == Reduction::Mean)) return;
  const Rows rows = rows_for(x, mask, keepdim, out_dtype);  // (its shape is x's: result has the shape)
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
