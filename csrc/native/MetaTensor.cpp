// The Meta backend's hand-written kernels: allocation, fill and copy of tensors without data.
// Every structured operator gets its Meta kernel generated from its meta function
// (tcore/core/Structured.h); composite operators decompose into those.
#include <tcore/ops/copy_native.h>
#include <tcore/ops/empty_native.h>
#include <tcore/ops/fill_native.h>

#include "native/TensorUtils.h"

namespace tcore::native {

Tensor empty_meta(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  TCORE_CHECK_VALUE(!layout || *layout == Layout::Strided, "empty: only the strided layout is supported");
  TCORE_CHECK_VALUE(!memory_format || *memory_format == MemoryFormat::Contiguous ||
                        *memory_format == MemoryFormat::Preserve,
                    "empty: only contiguous_format is supported");
  return empty_on(size, dtype.value_or(default_float_dtype()), Device(DeviceType::Meta));
}

Tensor fill_meta_(const Tensor& self, const Scalar& value) {
  self.bump_version();
  return self;
}

// Into a meta tensor from any device: nothing to move, the shapes must still broadcast.
Tensor copy_meta_(const Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;
  TCORE_CHECK_VALUE(broadcast_shapes(self.sizes(), src.sizes()) == self.sizes().vec(), "copy_: the size of src (",
                    shape_str(src.sizes()), ") does not broadcast to the size of self (", shape_str(self.sizes()), ")");
  self.bump_version();
  return self;
}

}  // namespace tcore::native
