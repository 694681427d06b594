#pragma once
#include "tcore/core/CPUCapability.h"
#include "tcore/core/Tensor.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
// dst[...] = src[...] with broadcasting of src and any dtype conversion (CPU).
void copy_kernel(const Tensor& dst, const Tensor& src);
}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
