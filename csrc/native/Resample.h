#pragma once
// _resample's backward: the input's shape, checked against the gradient's (the same but along dim).
#include <vector>

#include "native/TensorUtils.h"

namespace tcore::native {

inline std::vector<int64_t> resample_input_shape(const Tensor& grad, int64_t d, IntArrayRef input_sizes) {
  TCORE_CHECK(static_cast<int64_t>(input_sizes.size()) == grad.dim(), "_resample_backward(): input_sizes ",
              shape_str(input_sizes), " and grad ", shape_str(grad.sizes()), " differ in their number of dims");
  for (int64_t k = 0; k < grad.dim(); ++k) {
    TCORE_CHECK(input_sizes[k] >= 0 && (k == d || input_sizes[k] == grad.sizes()[k]), "_resample_backward(): "
                "input_sizes ", shape_str(input_sizes), " must match grad ", shape_str(grad.sizes()), " but along dim ", d);
  }
  return input_sizes.vec();
}

}  // namespace tcore::native
