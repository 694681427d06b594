// The runtime of the generated autogen: out= kernels (tcore/core/Autogen.h).
#include "tcore/core/Autogen.h"

#include "core/ResizeWarning.h"
#include "native/TensorUtils.h"

namespace tcore::autogen {

void resize_out(const Tensor& out, IntArrayRef sizes, const char* op) {
  TCORE_CHECK(out.defined(), op, ": out= tensor is undefined");
  detail::warn_if_resized(out, sizes, op);
  native::resize_output(out, sizes);
}

void check_list_size(size_t outs, size_t results, const char* op) {
  TCORE_CHECK_VALUE(outs == results, op, ": expected ", results, " out= tensors, got ", outs);
}

}  // namespace tcore::autogen
