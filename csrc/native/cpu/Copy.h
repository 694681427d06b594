#pragma once
#include "tcore/core/CPUCapability.h"
#include "tcore/core/Tensor.h"

namespace tcore::native {
// The copy_kernel of the CPU capability chosen at load time (its Copy.cpp sets it when it
// registers; defined in native/TensorUtils.cpp): the other copies forward to it, so code outside
// the kernels (cast, contiguous copies), which calls the baseline's, runs the chosen one.
extern void (*chosen_copy_kernel)(const Tensor& dst, const Tensor& src);

inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
// dst[...] = src[...] with broadcasting of src and any dtype conversion (CPU).
void copy_kernel(const Tensor& dst, const Tensor& src);
}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
