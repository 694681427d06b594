// Same-device copies (strided, broadcast, dtype conversion), copy_ across devices through
// the runtime, fill_, and empty on a CUDA device.
#include <tcore/ops/copy_native.h>
#include <tcore/ops/empty_native.h>
#include <tcore/ops/fill_native.h>

#include "native/TensorUtils.h"
#include "tcore/core/Structured.h"
#include "native/cuda/CopyKernel.h"
#include "native/cuda/Loops.cuh"

namespace tcore::native {
namespace cuda {
namespace {

template <typename D, typename S>
struct Convert {
  __device__ D operator()(S v) const { return static_cast<D>(v); }
};

}  // namespace

void copy_same_device(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (partially_overlaps(dst, src)) {  // read everything before writing
    Tensor staged = empty_on(src.sizes(), src.dtype(), src.device());
    copy_same_device(staged, src);
    copy_same_device(dst, staged);
    return;
  }
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() && dst.numel() == src.numel()) {
    const OnDevice on(dst);
    check(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), static_cast<size_t>(dst.numel() * dst.element_size()),
                          cudaMemcpyDeviceToDevice, on.stream),
          "cudaMemcpyAsync");
    return;
  }
  dispatch_all_types(dst.dtype(), "copy_", [&](auto dt) {
    using D = typename decltype(dt)::type;
    dispatch_all_types(src.dtype(), "copy_", [&](auto st) {
      using S = typename decltype(st)::type;
      launch_unary<D, S>(dst, src, Convert<D, S>{});
    });
  });
}

}  // namespace cuda

Tensor copy_cuda(const Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;
  if (self.is_same(src)) return self;
  TCORE_CHECK_VALUE(numel_of(broadcast_shapes(self.sizes(), src.sizes())) == self.numel() && src.dim() <= self.dim(),
                    "copy_: source of shape ", shape_str(src.sizes()), " cannot be broadcast to destination of shape ",
                    shape_str(self.sizes()));
  tcore::cuda::copy(self, src);
  self.bump_version();
  return self;
}

Tensor fill_cuda(const Tensor& self, const Scalar& value) {
  dispatch_all_types(self.dtype(), "fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::launch_fill<T>(self, value.to<T>());
  });
  self.bump_version();
  return self;
}

Tensor empty_cuda(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return structured::make_output(size, dtype.value_or(default_float_dtype()), device.value_or(Device(DeviceType::CUDA)),
                                 format_strides(size, memory_format));
}

}  // namespace tcore::native
