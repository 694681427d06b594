// The rules every generated structured kernel shares (tcore/core/Structured.h).
#include "tcore/core/Structured.h"

#include <algorithm>

#include "core/ResizeWarning.h"
#include "native/TensorUtils.h"

namespace tcore {

namespace {
bool same_sizes(IntArrayRef a, IntArrayRef b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}
}  // namespace

void MetaBase::set_output_castable(int64_t i, IntArrayRef sizes, ScalarType compute, const char* op,
                                   IntArrayRef strides) {
  const Tensor& given = maybe_get_output(i);
  if (!given.defined()) {
    set_output(i, sizes, compute, strides);
    return;
  }
  TCORE_CHECK_TYPE(native::can_cast(compute, given.dtype()), op, ": result type ", compute,
                   " can't be cast to the desired output type ", given.dtype());
  set_output(i, sizes, given.dtype(), strides);
}

namespace structured {

void DeviceOf::add(const Tensor& t) {
  if (!t.defined()) return;
  const Device d = t.device();
  if (d.is_cpu() && t.dim() == 0) return;  // a CPU scalar goes with any device
  if (!found) {
    found = d;
    return;
  }
  TCORE_CHECK(*found == d, op, ": Expected all tensors to be on the same device, but found at least two devices, ",
              found->str(), " and ", d.str(), "!");
}

Device DeviceOf::get(DeviceType backend) const {
  if (!found) return Device(backend);
  TCORE_CHECK(found->type == backend, op, ": Expected all tensors to be on the same device, but found at least two "
              "devices, ", Device(backend).str(), " and ", found->str(), "!");
  return *found;
}

Tensor make_output(IntArrayRef sizes, ScalarType dtype, Device device, IntArrayRef strides) {
  if (!strides.empty()) return empty_strided_on(sizes, strides, dtype, device);
  return device.is_cpu() ? empty_cpu(sizes, dtype) : empty_on(sizes, dtype, device);
}

void check_inplace(const Tensor& self, IntArrayRef sizes, ScalarType dtype, const char* op) {
  TCORE_CHECK_VALUE(same_sizes(self.sizes(), sizes), op, ": output with shape ", shape_str(self.sizes()),
                    " doesn't match the broadcast shape ", shape_str(sizes));
  TCORE_CHECK_TYPE(self.dtype() == dtype, op, ": result type ", dtype, " can't be cast to the desired output type ",
                   self.dtype());
  native::assert_no_internal_overlap(self);  // on every backend, Meta (and so Lazy) included
}

void resize_out(const Tensor& out, IntArrayRef sizes, ScalarType dtype, Device device, const char* op,
                IntArrayRef strides) {
  TCORE_CHECK(out.defined(), op, ": out= tensor is undefined");
  TCORE_CHECK_TYPE(out.dtype() == dtype, op, ": Expected out tensor to have dtype ", dtype, ", but got ",
                   out.dtype(), " instead");
  TCORE_CHECK(out.device() == device, op, ": Expected out tensor to have device ", device.str(), ", but got ",
              out.device().str(), " instead");
  if (same_sizes(out.sizes(), sizes)) return;
  detail::warn_if_resized(out, sizes, op);
  native::resize_output(out, sizes, strides);
}

}  // namespace structured

void detail::warn_if_resized(const Tensor& out, IntArrayRef sizes, const char* op) {
  if (out.numel() == 0 || same_sizes(out.sizes(), sizes)) return;
  warn(detail::str_cat(op, ": An output with one or more elements was resized since it had shape ",
                       shape_str(out.sizes()), ", which does not match the required output shape ",
                       shape_str(sizes), ". This behavior is deprecated (as in PyTorch); pass an out tensor "
                       "with zero elements to have it resized without a warning."));
}
}  // namespace tcore
