#pragma once
// What the generated `autogen:` out= kernels share (codegen/autogen.py): they compute the
// functional result, then resize each out as PyTorch's resize_output does and copy into it.
#include <cstddef>

#include "tcore/core/ArrayRef.h"
#include "tcore/core/Tensor.h"

namespace tcore::autogen {

// An out= tensor may take `result`: its device, and its dtype (or, where `casts`, a dtype the
// result's can be cast to), with PyTorch's messages; checked before out is resized, so a refused
// out keeps its shape.
TCORE_API void check_out(const Tensor& out, const Tensor& result, bool casts);

// out resized to `sizes`: silently when it is empty or already of those sizes, else with
// PyTorch's deprecation UserWarning naming `op`.
TCORE_API void resize_out(const Tensor& out, IntArrayRef sizes, const char* op);

// A Tensor[] out= argument holds one tensor per result.
TCORE_API void check_list_size(size_t outs, size_t results, const char* op);

}  // namespace tcore::autogen
