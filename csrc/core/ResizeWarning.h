#pragma once
// The warning of an out= tensor resized although it had elements (PyTorch's resize_output):
// one text for the structured kernels (Structured.cpp) and the autogen ones (Autogen.cpp).
#include "tcore/core/ArrayRef.h"
#include "tcore/core/Tensor.h"

namespace tcore::detail {

void warn_if_resized(const Tensor& out, IntArrayRef sizes, const char* op);

}  // namespace tcore::detail
