#pragma once
// The checks the nn activations' backward kernels share (native/cpu/Activation.cpp,
// native/cuda/ActivationKernels.cu, gelu's in UnaryOps): torch's errors for the in-place forms'
// negative slopes and gelu's approximations.
#include <string_view>

#include "native/TensorUtils.h"

namespace tcore::native {

inline void check_leaky_relu_backward(bool self_is_result, const Scalar& negative_slope) {
  TCORE_CHECK_VALUE(!self_is_result || negative_slope.to<double>() >= 0.0,
                    "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                    "supported. This is caused by calling in-place forward function with a negative slope, please "
                    "call out-of-place version instead.");
}

inline void check_elu_backward(bool is_result, const Scalar& alpha) {
  TCORE_CHECK_VALUE(!is_result || alpha.to<double>() >= 0.0,
                    "In-place elu backward calculation is triggered with a negative slope which is not supported. "
                    "This is caused by calling in-place forward function with a negative slope, please call "
                    "out-of-place version instead.");
}

inline void check_gelu_approximate(std::string_view approximate) {
  TCORE_CHECK_VALUE(approximate == "none" || approximate == "tanh", "approximate argument must be either none or tanh.");
}

}  // namespace tcore::native
