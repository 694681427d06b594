#pragma once
#include "tcore/core/Tensor.h"

namespace tcore::native {
// dst[...] = src[...] with broadcasting of src and any dtype conversion (CPU).
void copy_kernel(const Tensor& dst, const Tensor& src);
}  // namespace tcore::native
