#pragma once
// batch_norm's argument rules, in one place for the composite (every device) and the CPU
// kernels (native/cpu/BatchNorm.cpp), with PyTorch's messages.
#include <optional>

#include "native/TensorUtils.h"

namespace tcore::native {

// The dtype of the per-channel vectors (weight, bias, running statistics, the saved batch
// statistics): the parameters' when there are any, else the input's. PyTorch's rule on the
// CPU: the parameters share one dtype, the input's or float32 under a float16/bfloat16 input.
inline ScalarType batch_norm_param_dtype(const Tensor& input, std::initializer_list<const std::optional<Tensor>*> params) {
  for (const auto* p : params)
    if (*p && (*p)->defined()) return (*p)->dtype();
  return input.dtype();
}

inline void check_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                             const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                             const std::optional<Tensor>& running_var, bool training) {
  TCORE_CHECK_VALUE(input.dim() >= 2, "batch_norm: expected an input with at least 2 dims (N, C, ...), got ",
                    input.dim());
  TCORE_CHECK_TYPE(is_floating(input.dtype()), "batch_norm: expected a floating point input, got ",
                   to_string(input.dtype()));
  const int64_t channels = input.sizes()[1];
  const ScalarType params = batch_norm_param_dtype(input, {&weight, &bias, &running_mean, &running_var});
  TCORE_CHECK(params == input.dtype() || (is_reduced_float(input.dtype()) && params == ScalarType::Float),
              "mixed dtype (CPU): expect parameter to have scalar type of Float");
  const std::pair<const std::optional<Tensor>*, const char*> vectors[] = {
      {&weight, "weight"}, {&bias, "bias"}, {&running_mean, "running_mean"}, {&running_var, "running_var"}};
  for (const auto& [t, name] : vectors) {
    if (!*t || !(*t)->defined()) continue;
    TCORE_CHECK((*t)->numel() == channels, name, " should contain ", channels, " elements not ", (*t)->numel());
    TCORE_CHECK((*t)->dtype() == params, "mixed dtype (CPU): all inputs must share same datatype.");
    TCORE_CHECK((*t)->device() == input.device(), "batch_norm: ", name, " is on ", (*t)->device().str(),
                ", the input on ", input.device().str());
  }
  const bool has_mean = running_mean && running_mean->defined(), has_var = running_var && running_var->defined();
  TCORE_CHECK(has_mean == has_var, "batch_norm: running_mean and running_var must be given together");
  TCORE_CHECK(training || has_mean, "running_mean must be defined in evaluation mode");
  if (training && input.numel() > 0) {
    TCORE_CHECK_VALUE(input.numel() / channels > 1, "Expected more than 1 value per channel when training, got input "
                      "size tcore.Size(", shape_str(input.sizes()), ")");
  }
}

}  // namespace tcore::native
