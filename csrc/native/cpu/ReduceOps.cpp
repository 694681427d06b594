// The impls of the structured sum and mean over a dim list (sum.IntList_out, mean.out; their meta
// functions, with the dtype rules and checks: native/ReduceOps.cpp).
//
// The input is viewed with the kept dims first and the reduced dims last, made
// contiguous (a no-op for the common "reduce the trailing dims" case), and each
// row is reduced with a wide accumulator (double for floats, int64 for integers).
#include <numeric>

#include <tcore/ops/_square_sum_native.h>
#include <tcore/ops/mean_native.h>
#include <tcore/ops/sum_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Math.h"
#include "native/cpu/Reduce.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

enum class Reduction { Sum, Mean, SquareSum };

// what a reduction adds up: the value, or its square (SquareSum; floating types only)
template <Reduction kind>
constexpr auto summand = [](auto v) {
  if constexpr (kind == Reduction::SquareSum) return v * v;
  else return v;
};

// sum/mean where the reduced dims are one block followed by kept dims (Reduce.h's columns_of):
// whole rows added into an accumulator row (double for floats, int64 for integers), eight rows a
// pass (added as a tree, then into the accumulator: an eighth of the accumulator's loads and
// stores, eight streams in flight; sum(0) of 4096² float32 at one thread 4.7 ms a row at a time
// in 1024-column tasks, 2.6 this way). In: the input's element type, T the result's (float for
// float16/bfloat16 inputs, whose eight rows are added in float32: `direct` below; a transposed
// float32 copy made a float16 sum(0) 11x torch's).
template <typename In, typename T, Reduction kind>
void sum_columns_of(const In* in, T* out, const Columns& c) {
  constexpr bool mean = kind == Reduction::Mean;
  const auto f = [](auto v) { return summand<kind>(v); };
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  constexpr bool convert = !std::is_same_v<In, T>;
  // float16/bfloat16: the eight rows added in float32, then into the double accumulator (eight
  // double additions per element made their sum(0) 1.7x torch's). Exact, so the same bits as the
  // float32 kernel's double tree, wherever the eight values of a column span at most 2^13
  // (bfloat16's 8-bit significands; 2^10 for float16's 11); beyond, one float32 rounding
  // (6e-8 relative) per eight rows, far below the result's own (eight float16 values cannot
  // overflow float32; bfloat16's can: see below). bfloat16 to float32 is a shift:
  // its rows are read as they are; float16's conversion vectorizes only as convert_run's, through
  // the buffer.
  constexpr bool direct = std::is_same_v<In, BFloat16>;
  const int64_t R = c.R, K = c.K;
  constexpr int64_t kMaxChunk = convert ? 512 : 2048;  // a 16 KB accumulator: rows read in 8 KB runs
  for_each_column_block(c, kMaxChunk, [&](int64_t o, int64_t j0, int64_t len) {
    Acc acc[kMaxChunk];
    for (int64_t j = 0; j < len; ++j) acc[j] = 0;
    const In* block = in + o * R * K + j0;
    const auto wide = [](T v) { return static_cast<Acc>(summand<kind>(v)); };
    // eight rows from row r on, as T: the input's own, or converted into `buf`
    alignas(64) std::conditional_t<convert, T, char> buf[convert ? 8 : 1][convert ? kMaxChunk : 1];
    const auto rows8 = [&](int64_t r, const T** y) {
      for (int k = 0; k < 8; ++k) {
        if constexpr (convert) {
          convert_run<T, In>(buf[k], block + (r + k) * K, len);
          y[k] = buf[k];
        } else {
          y[k] = block + (r + k) * K;
        }
      }
    };
    int64_t r = 0;
    for (; r + 8 <= R; r += 8) {
      if constexpr (direct) {
        const In* y[8];
        for (int k = 0; k < 8; ++k) y[k] = block + (r + k) * K;
        const auto w = [](In v) { return summand<kind>(static_cast<T>(v)); };
        // bfloat16 has float32's range: eight values can overflow where double does not (3e38 twice
        // and -3e38 twice gave NaN), so a group with a partial that is not finite is added in double
        alignas(64) T part[kMaxChunk];
        uint32_t nonfinite = 0;
        for (int64_t j = 0; j < len; ++j) {
          part[j] = ((w(y[0][j]) + w(y[1][j])) + (w(y[2][j]) + w(y[3][j]))) +
                    ((w(y[4][j]) + w(y[5][j])) + (w(y[6][j]) + w(y[7][j])));
          nonfinite |= nonfinite_bit(part[j]);
        }
        if (nonfinite == 0) {
          for (int64_t j = 0; j < len; ++j) acc[j] += static_cast<Acc>(part[j]);
        } else {
          const auto d = [&](int k, int64_t j) { return static_cast<Acc>(w(y[k][j])); };
          for (int64_t j = 0; j < len; ++j)
            acc[j] += ((d(0, j) + d(1, j)) + (d(2, j) + d(3, j))) + ((d(4, j) + d(5, j)) + (d(6, j) + d(7, j)));
        }
      } else if constexpr (convert) {
        const T* y[8];
        rows8(r, y);
        for (int64_t j = 0; j < len; ++j)
          acc[j] += static_cast<Acc>(((f(y[0][j]) + f(y[1][j])) + (f(y[2][j]) + f(y[3][j]))) +
                                     ((f(y[4][j]) + f(y[5][j])) + (f(y[6][j]) + f(y[7][j]))));
      } else {
        const T* y[8];
        rows8(r, y);
        for (int64_t j = 0; j < len; ++j)
          acc[j] += ((wide(y[0][j]) + wide(y[1][j])) + (wide(y[2][j]) + wide(y[3][j]))) +
                    ((wide(y[4][j]) + wide(y[5][j])) + (wide(y[6][j]) + wide(y[7][j])));
      }
    }
    for (; r < R; ++r) {
      const In* row = block + r * K;
      for (int64_t j = 0; j < len; ++j) acc[j] += wide(static_cast<T>(row[j]));
    }
    T* dst = out + o * K + j0;
    for (int64_t j = 0; j < len; ++j)
      dst[j] = mean ? static_cast<T>(static_cast<double>(acc[j]) / static_cast<double>(R)) : static_cast<T>(acc[j]);
  });
}

// sum_columns_of where the case applies (the input's dtype the result's, or float16/bfloat16 into
// float32); false when it does not.
template <Reduction kind>
bool sum_columns(const Tensor& result, const Tensor& x, const std::vector<bool>& mask) {
  const std::optional<Columns> c = columns_of(x, mask);
  const bool reduced = is_reduced_float(x.dtype()) && result.dtype() == ScalarType::Float;
  if (!c || (x.dtype() != result.dtype() && !reduced)) return false;
  if (reduced) {
    dispatch_reduced_float(x.dtype(), [&](auto tag) {
      using H = typename decltype(tag)::type;
      sum_columns_of<H, float, kind>(static_cast<const H*>(x.data_ptr()), result.data_ptr<float>(), *c);
    });
    return true;
  }
  dispatch_dtype(result.dtype(), "sum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    sum_columns_of<T, T, kind>(x.template data_ptr<T>(), result.template data_ptr<T>(), *c);
  });
  return true;
}

// The sums of float16/bfloat16 rows into a float32 result: each row summed in sum_rows_of's blocks of
// 4096, its vectors converted to float32 in registers, as the converted row would be (the same
// bits), the blocks of a few long rows on the threads; a float32 copy of the whole input made a
// float16 sum 3x torch's. False when the rows are not contiguous in memory.
template <Reduction kind>
bool sum_reduced_float_rows(const Tensor& result, const Tensor& x, const std::vector<bool>& mask) {
  if (!is_reduced_float(x.dtype()) || result.dtype() != ScalarType::Float) return false;
  const Tensor rows = rows_view(x, mask);
  if (!rows.is_contiguous()) return false;
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < mask.size(); ++d) (mask[d] ? inner : outer) *= x.sizes()[d];
  constexpr int64_t kBlock = 4096;
  float* out = result.data_ptr<float>();
  dispatch_reduced_float(x.dtype(), [&](auto tag) {
    using H = typename decltype(tag)::type;
    const H* in = static_cast<const H*>(rows.data_ptr());
    const auto block_sum = [&](const H* p, int64_t n) { return sum_rows_of<float>(summand<kind>, n, p); };
    const auto finish = [&](int64_t r, double acc) {
      out[r] = static_cast<float>(kind == Reduction::Mean ? acc / static_cast<double>(inner) : acc);
    };
    if (outer < get_num_threads() && inner > 2 * kGrainSize) {  // few long rows: their blocks on the threads
      const int64_t blocks = (inner + kBlock - 1) / kBlock;
      std::vector<double> partial(static_cast<size_t>(blocks));
      for (int64_t r = 0; r < outer; ++r) {
        const H* row = in + r * inner;
        parallel_for(0, blocks, kGrainSize / kBlock, [&](int64_t b, int64_t e) {
          for (int64_t k = b; k < e; ++k) partial[k] = block_sum(row + k * kBlock, std::min(kBlock, inner - k * kBlock));
        });
        double total = 0;
        for (double v : partial) total += v;  // in order: the same sum at any thread count
        finish(r, total);
      }
    } else {
      for_each_row(outer, inner, [&](int64_t r) {
        const H* row = in + r * inner;
        double total = 0;
        for (int64_t b = 0; b < inner; b += kBlock) total += block_sum(row + b, std::min(kBlock, inner - b));
        finish(r, total);
      });
    }
  });
  return true;
}

// result: contiguous, of the reduced shape and the result dtype (not float16/bfloat16).
template <Reduction kind>
void reduce(const Tensor& result, const Tensor& self, OptionalIntArrayRef dim, bool keepdim, const char* op) {
  const ScalarType out_dtype = result.dtype();
  const Reordered ordered = in_memory_order(self, reduction_mask(dim, self.dim(), op));
  const Tensor& x = ordered.data;
  const std::vector<bool>& mask = ordered.mask;
  if (sum_columns<kind>(result, x, mask)) return;
  if (sum_reduced_float_rows<kind>(result, x, mask)) return;
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
        // vectorized lanes, blocks in double
        acc = split_row ? parallel_sum_rows_of(summand<kind>, inner, row) : sum_row_of(row, inner, summand<kind>);
      } else {
        for (int64_t i = 0; i < inner; ++i) acc += static_cast<Acc>(summand<kind>(row[i]));
      }
      if constexpr (kind == Reduction::Mean) {
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
template <Reduction kind>
void reduce_out(const Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool keepdim, const char* op) {
  into_output(out, compute_dtype(out), {self}, [&](const Tensor& result) { reduce<kind>(result, self, dim, keepdim, op); });
}

}  // namespace

TCORE_IMPL_FUNC(sum_out)(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType>,
                        const Tensor& out) {
  reduce_out<Reduction::Sum>(out, self, dim, keepdim, "sum");
}
TCORE_IMPL_FUNC(mean_out)(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType>,
                         const Tensor& out) {
  reduce_out<Reduction::Mean>(out, self, dim, keepdim, "mean");
}

// float16/bfloat16 squares added in float32 lanes into a float32 result, as their sums
Tensor _square_sum(const Tensor& self, OptionalIntArrayRef dim, bool keepdim) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "_square_sum: expected a floating point tensor, got ", to_string(self.dtype()));
  const ScalarType t = is_reduced_float(self.dtype()) ? ScalarType::Float : self.dtype();
  Tensor result = empty_cpu(reduced_shape(self.sizes(), reduction_mask(dim, self.dim(), "_square_sum"), keepdim), t);
  reduce<Reduction::SquareSum>(result, self, dim, keepdim, "_square_sum");
  return result;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
