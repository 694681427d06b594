#pragma once
// The checks the nn activations' backward kernels share (native/cpu/Activation.cpp,
// native/cuda/ActivationKernels.cu, gelu's in UnaryOps): torch's errors for the in-place forms'
// negative slopes, gelu's approximations and out=.
#include <string_view>

#include "native/TensorUtils.h"
#include "tcore/core/Autogen.h"

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

// gelu's arguments, as torch's kernels check them; an out= of self's dtype (torch refuses another,
// with TensorIterator's message) and device.
inline void check_gelu(const Tensor& self, std::string_view approximate, const Tensor* out = nullptr) {
  check_gelu_approximate(approximate);
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "\"GeluKernelImpl\" not implemented for '", self.dtype(), "'");
  if (out) {
    TCORE_CHECK_TYPE(out->dtype() == self.dtype(), "Found dtype ", out->dtype(), " but expected ", self.dtype());
    autogen::check_out(*out, self, true);  // the device (the dtype, checked above, casts to itself)
  }
}

}  // namespace tcore::native
