// empty and fill_: the CPU kernels every creation operator is built on.
#include <type_traits>

#include <tcore/ops/empty_native.h>
#include <tcore/ops/fill_native.h>

#include "native/cpu/Loops.h"
#include "tcore/core/Structured.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

Tensor empty_memory_format(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                           std::optional<Device> device, std::optional<bool> pin_memory,
                           std::optional<MemoryFormat> memory_format) {
  (void)pin_memory;
  TCORE_CHECK_VALUE(!layout || *layout == Layout::Strided, "empty: only the strided layout is supported");
  TCORE_CHECK(!device || device->is_cpu(), "empty: the CPU kernel cannot allocate on ", device->str());
  return structured::make_output(size, dtype.value_or(default_float_dtype()), Device(DeviceType::CPU),
                                 format_strides(size, memory_format));
}

Tensor fill_(const Tensor& self, const Scalar& value) {
  dispatch_all_types(self.dtype(), "fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = value.to<T>();
    const LoopGeometry g = make_geometry(self.sizes(), {&self}, /*in_memory_order=*/true);
    parallel_loop_nd<1>(g, {static_cast<char*>(self.data_ptr())}, [v](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T)) {
        T* o = reinterpret_cast<T*>(p[0]);
        for (int64_t i = 0; i < n; ++i) o[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
      }
    });
  });
  self.bump_version();
  return self;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
