// sum and mean over all dims or a dim list, with keepdim, dtype= and out=.
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

Tensor reduce(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, ScalarType out_dtype, Reduction kind,
              const char* op) {
  if (is_reduced_float(out_dtype))  // float16/bfloat16: accumulated in double via float32, rounded on store
    return cast(reduce(self, dim, keepdim, ScalarType::Float, kind, op), out_dtype);
  const std::vector<bool> mask = reduction_mask(dim, self.dim(), op);
  const Rows rows = rows_for(self, mask, keepdim, out_dtype);
  const int64_t outer = rows.outer, inner = rows.inner;
  Tensor result = empty_cpu(rows.shape, out_dtype);
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
  return result;
}

}  // namespace

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce(self, std::nullopt, false, sum_dtype(self, dtype), Reduction::Sum, "sum");
}
Tensor sum_dim(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce(self, dim, keepdim, sum_dtype(self, dtype), Reduction::Sum, "sum");
}
Tensor sum_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
               const Tensor& out) {
  write_result(out, reduce(self, dim, keepdim, dtype.value_or(out.dtype()), Reduction::Sum, "sum"), "sum");
  return out;
}

Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) {
  return reduce(self, std::nullopt, false, mean_dtype(self, dtype, "mean"), Reduction::Mean, "mean");
}
Tensor mean_dim(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce(self, dim, keepdim, mean_dtype(self, dtype, "mean"), Reduction::Mean, "mean");
}
Tensor mean_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                const Tensor& out) {
  const ScalarType t = mean_dtype(self, dtype ? dtype : std::optional<ScalarType>(out.dtype()), "mean");
  write_result(out, reduce(self, dim, keepdim, t, Reduction::Mean, "mean"), "mean");
  return out;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
