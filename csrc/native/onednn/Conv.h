#pragma once
// conv2d's float32 product and gradients through oneDNN (https://github.com/oneapi-src/oneDNN;
// Debian's libdnnl-dev, found by CMakeLists.txt), as PyTorch runs its CPU convolutions. Compiled
// once, not per CPU capability: oneDNN generates its kernels for the CPU it runs on. Without
// oneDNN (or with TCORE_USE_ONEDNN=0 in the environment) every function returns false and the
// callers (native/cpu/Im2Col.cpp) keep their patches-by-weight products.
#include <array>

#include "tcore/core/Tensor.h"

namespace tcore::native::onednn {

struct Conv2dParams {
  std::array<int64_t, 2> stride, padding, dilation;
  int64_t groups = 1;
};

// out (N, O, oh, ow) = the convolution of input (N, C, H, W) by weight (O, C / groups, kh, kw) (the
// groups native to oneDNN: depthwise kernels among them), no bias; float32 on the CPU, out allocated dense (contiguous or channels_last: written in place; the
// operands are read in their own dense layouts, others copied contiguous first). false: not taken (too small to be worth
// oneDNN's setup, or a shape oneDNN refuses) and nothing written.
bool conv2d_forward(const Tensor& input, const Tensor& weight, const Tensor& out, const Conv2dParams& p);
// grad_input and/or grad_weight (either may be undefined; allocated, dense) of that product
// for grad_output; false as above.
bool conv2d_backward(const Tensor& grad_output, const Tensor& input, const Tensor& weight, const Tensor& grad_input,
                     const Tensor& grad_weight, const Conv2dParams& p);

}  // namespace tcore::native::onednn
