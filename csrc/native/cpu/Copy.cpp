#include "native/cpu/Copy.h"

#include <cstring>
#include <type_traits>

#include <tcore/ops/copy_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Loops.h"
#include "tcore/cuda/CUDA.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

template <typename D, typename S>
D convert_one(S v) {
  D d;
  convert_run<D, S>(&d, &v, 1);
  return d;
}

const bool registered = register_cpu_kernels(TCORE_CPU_NS_NAME, [] { chosen_copy_kernel = &copy_kernel; });

}  // namespace

void copy_kernel(const Tensor& dst, const Tensor& src) {
  if (chosen_copy_kernel != nullptr && chosen_copy_kernel != &copy_kernel) return chosen_copy_kernel(dst, src);
  if (src.device().is_meta() || dst.device().is_meta()) {
    throw NotImplementedError(src.device().is_meta() ? "Cannot copy out of meta tensor; no data!"
                                                     : "Cannot copy into a meta tensor here: it has no data");
  }
  if (!dst.device().is_cpu() || !src.device().is_cpu()) {  // a device is involved: its backend copies
    cuda::copy(dst, src);
    return;
  }
  broadcast_shapes(dst.sizes(), src.sizes());  // validates
  TCORE_CHECK_VALUE(src.dim() <= dst.dim(), "copy_: source of shape ", shape_str(src.sizes()),
                    " cannot be broadcast to destination of shape ", shape_str(dst.sizes()));
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() && dst.numel() == src.numel()) {
    if (dst.numel() > 0) std::memmove(dst.data_ptr(), src.data_ptr(), dst.numel() * dst.element_size());
    return;
  }
  dispatch_all_types(dst.dtype(), "copy_", [&](auto dt) {
    using D = typename decltype(dt)::type;
    dispatch_all_types(src.dtype(), "copy_", [&](auto st) {
      using S = typename decltype(st)::type;
      // lambdas, not the functions' addresses: the loop body calls them through its own object
      // (Loops.h), where a function pointer stays an indirect call an element (2.5x torch's copy
      // of a[:, ::2])
      unary_loop_runs<D, S>(dst, src, [](S v) { return convert_one<D, S>(v); },
                            [](D* o, const S* x, int64_t n) { convert_run<D, S>(o, x, n); });
    });
  });
}

Tensor copy_(const Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;
  // the very same elements: nothing to copy (torch's early exit, before its overlap checks), a write
  // all the same (the version moves)
  const bool same_data = self.is_same(src) ||
                         (self.storage().is_alias_of(src.storage()) && self.storage_offset() == src.storage_offset() &&
                          self.dtype() == src.dtype() && self.sizes().vec() == src.sizes().vec() &&
                          self.strides().vec() == src.strides().vec());
  if (same_data) {
    self.bump_version();
    return self;
  }
  broadcast_shapes(self.sizes(), src.sizes());
  TCORE_CHECK_VALUE(numel_of(broadcast_shapes(self.sizes(), src.sizes())) == self.numel() && src.dim() <= self.dim(),
                    "copy_: source of shape ", shape_str(src.sizes()), " cannot be broadcast to destination of shape ",
                    shape_str(self.sizes()));
  assert_no_partial_overlap(self, src);
  if (partially_overlaps(self, src)) {  // (overlaps torch cannot tell, not dense: copied through a temporary)
    Tensor tmp = empty_cpu(src.sizes(), src.dtype());
    copy_kernel(tmp, src);
    copy_kernel(self, tmp);
  } else {
    copy_kernel(self, src);
  }
  self.bump_version();
  return self;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
