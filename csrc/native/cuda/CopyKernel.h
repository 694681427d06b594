#pragma once
// Same-device copies on the GPU (the runtime's cross-device copies end in one).
#include "tcore/core/Tensor.h"

namespace tcore::native::cuda {
// dst[...] = src[...], both on the same CUDA device: broadcasting and dtype conversion.
void copy_same_device(const Tensor& dst, const Tensor& src);
}  // namespace tcore::native::cuda
