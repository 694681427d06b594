#pragma once
// The rules of the range factories shared by the CPU and CUDA kernels: arange's length and
// dtype (PyTorch's checks), and linspace's element i (both ends exact).
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>

#include "tcore/core/Macros.h"
#include "tcore/core/Scalar.h"
#include "tcore/core/ScalarType.h"

namespace tcore::native {

// dtype, or int64 for integer bounds and the default float dtype when one is a float
inline ScalarType range_dtype(std::initializer_list<const Scalar*> values, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  for (const Scalar* v : values)
    if (v->is_floating_point()) return default_float_dtype();
  return ScalarType::Long;
}

struct ArangeSpec {
  double start, step;        // floating results: start + i * step
  int64_t start_int, step_int;  // integer results, exactly
  int64_t numel;
  ScalarType dtype;
};

inline ArangeSpec arange_spec(const Scalar& start, const Scalar& end, const Scalar& step,
                              std::optional<ScalarType> dtype) {
  const double b = start.to_double(), e = end.to_double(), s = step.to_double();
  TCORE_CHECK_VALUE(s != 0, "step must be nonzero");
  TCORE_CHECK_VALUE(std::isfinite(b) && std::isfinite(e), "unsupported range: ", b, " -> ", e);
  TCORE_CHECK_VALUE((s > 0 && e >= b) || (s < 0 && e <= b), "upper bound and larger bound inconsistent with step sign");
  const double count = std::ceil((e - b) / s);
  // 2^63 is the first double past INT64_MAX; a NaN count (inf step) is caught too
  TCORE_CHECK(count >= 0 && count < 9223372036854775808.0, "arange: invalid number of elements ", count,
              " (start ", b, ", end ", e, ", step ", s, "): it must be a size in the range of int64");
  const ScalarType t = range_dtype({&start, &end, &step}, dtype);
  if (is_reduced_float(t)) {  // torch computes them in float32, whose range the bounds must fit
    for (const Scalar* v : {&start, &end, &step}) (void)v->to<float>();
  }
  const bool exact = is_integral(t, /*include_bool=*/true);  // a float result's bounds may be beyond int64
  return {b, s, exact ? start.to_long() : 0, exact ? step.to_long() : 0, static_cast<int64_t>(count), t};
}

// linspace's element i of steps: the second half counts back from the end, so that both ends
// are exact (as PyTorch)
inline double linspace_step(double start, double end, int64_t steps) {
  return steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
}
#if defined(__CUDACC__) || defined(__HIPCC__)
__host__ __device__
#endif
inline double linspace_at(double start, double end, double step, int64_t steps, int64_t i) {
  return i < (steps + 1) / 2 ? start + step * static_cast<double>(i) : end - step * static_cast<double>(steps - 1 - i);
}

}  // namespace tcore::native
