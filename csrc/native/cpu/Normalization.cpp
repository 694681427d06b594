// native_layer_norm's kernel: each row (the normalized dims, flattened) is read three times
// while it sits in L1 -- its mean, its variance about that mean (two passes: no cancellation),
// then (x - mean) * rstd * weight + bias written out -- and the mean and 1/sqrt(var + eps) of
// each row are returned for the backward formula (csrc/autograd/derivatives.yaml), with
// PyTorch's shapes: the leading dims, then a 1 for each normalized dim. float16/bfloat16
// are computed in float32. Device-neutral: on a GPU the rows are native/cuda/DeviceLoops.h's.
#include <cmath>
#include <tuple>

#include <tcore/ops/native_layer_norm_native.h>

#include "native/TensorUtils.h"
#include "tcore/core/SizeMath.h"
#include "native/cpu/Math.h"
#include "native/cpu/Parallel.h"
#include "native/cuda/DeviceLoops.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

template <typename T>
void layer_norm_rows(const T* x, const T* w, const T* b, T* y, T* mean_out, T* rstd_out, int64_t rows, int64_t n,
                     double eps) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1));
  parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * n;
      T* yr = y + r * n;
      const double mean = n > 0 ? sum_row(xr, n) / static_cast<double>(n) : std::nan("");
      const T m = static_cast<T>(mean);
      // the sum of squared deviations (native/cpu/Math.h's vectorized cascade)
      const double ss = sum_row_of(xr, n, [m](auto v) { return (v - m) * (v - m); });
      const double var = n > 0 ? ss / static_cast<double>(n) : std::nan("");
      const T rstd = static_cast<T>(1.0 / std::sqrt(var + eps));
      mean_out[r] = m;
      rstd_out[r] = rstd;
      if (w && b) {
        for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - m) * rstd * w[i] + b[i];
      } else if (w) {
        for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - m) * rstd * w[i];
      } else if (b) {
        for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - m) * rstd + b[i];
      } else {
        for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - m) * rstd;
      }
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps) {
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  bool fits = k >= 1 && input.dim() >= k;
  for (int64_t i = 0; fits && i < k; ++i) fits = input.sizes()[input.dim() - k + i] == normalized_shape[i];
  TCORE_CHECK_VALUE(fits, "Given normalized_shape=", shape_str(normalized_shape), ", expected input with shape [*, ",
                    shape_str(normalized_shape).substr(1), ", but got input of size", shape_str(input.sizes()));
  TCORE_CHECK_TYPE(is_floating(input.dtype()), "layer_norm: expected a floating point input, got ",
                   to_string(input.dtype()));
  for (const auto* t : {&weight, &bias}) {
    if (*t) {
      TCORE_CHECK_VALUE((*t)->sizes().vec() == normalized_shape.vec(), "layer_norm: weight and bias must have the "
                        "normalized shape ", shape_str(normalized_shape), ", got ", shape_str((*t)->sizes()));
      TCORE_CHECK_TYPE((*t)->dtype() == input.dtype(), "layer_norm: expected weight and bias of dtype ",
                       to_string(input.dtype()), ", got ", to_string((*t)->dtype()));
      TCORE_CHECK_VALUE((*t)->device() == input.device(), "layer_norm: weight and bias must be on the input's device");
    }
  }
  const ScalarType dtype = input.dtype();
  const ScalarType compute = is_reduced_float(dtype) ? ScalarType::Float : dtype;
  const Tensor x = contiguous_copy(cast(input, compute));
  const auto operand = [&](const std::optional<Tensor>& t) {
    return t ? contiguous_copy(cast(*t, compute)) : Tensor();
  };
  const Tensor w = operand(weight), b = operand(bias);
  std::vector<int64_t> stat_shape(input.sizes().begin(), input.sizes().end() - k);
  int64_t rows = 1;
  for (int64_t s : stat_shape) rows = checked_mul(rows, s, "layer_norm");
  const int64_t n = input.dim() == k && input.numel() == 0 ? 0 : (rows == 0 ? 0 : input.numel() / rows);
  stat_shape.insert(stat_shape.end(), static_cast<size_t>(k), 1);
  Tensor out = empty_on(input.sizes(), compute, input.device());
  Tensor mean = empty_on(stat_shape, compute, input.device()), rstd = empty_on(stat_shape, compute, input.device());
  if (rows > 0 && !input.device().is_cpu()) {
    cuda::layer_norm_rows(x, w, b, out, mean, rstd, rows, n, eps);
  } else if (rows > 0) {
    dispatch_floating(compute, "layer_norm", [&](auto tag) {
      using T = typename decltype(tag)::type;
      layer_norm_rows<T>(x.template data_ptr<T>(), w.defined() ? w.template data_ptr<T>() : nullptr,
                         b.defined() ? b.template data_ptr<T>() : nullptr, out.template data_ptr<T>(),
                         mean.template data_ptr<T>(), rstd.template data_ptr<T>(), rows, n, eps);
    });
  }
  if (compute != dtype) return {cast(out, dtype), cast(mean, dtype), cast(rstd, dtype)};
  return {out, mean, rstd};
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
