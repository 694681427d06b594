// The runtime of the generated autogen: out= kernels (tcore/core/Autogen.h).
#include "tcore/core/Autogen.h"

#include "core/ResizeWarning.h"
#include "native/TensorUtils.h"

namespace tcore::autogen {

void check_out(const Tensor& out, const Tensor& result, bool casts) {
  TCORE_CHECK(out.defined(), "out= tensor is undefined");
  if (casts) {
    TCORE_CHECK(native::can_cast(result.dtype(), out.dtype()), "result type ", result.dtype(),
                " can't be cast to the desired output type ", out.dtype());
  } else {
    TCORE_CHECK(out.dtype() == result.dtype(), "Expected out tensor to have dtype ", result.dtype(), ", but got ",
                out.dtype(), " instead");
  }
  TCORE_CHECK(out.device() == result.device(), "Expected out tensor to have device ", result.device().str(),
              ", but got ", out.device().str(), " instead");
}

void resize_out(const Tensor& out, IntArrayRef sizes, const char* op) {
  TCORE_CHECK(out.defined(), op, ": out= tensor is undefined");
  detail::warn_if_resized(out, sizes, op);
  native::resize_output(out, sizes);
}

void check_list_size(size_t outs, size_t results, const char* op) {
  TCORE_CHECK_VALUE(outs == results, op, ": expected ", results, " out= tensors, got ", outs);
}

}  // namespace tcore::autogen
