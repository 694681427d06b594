// zeros, ones, full and their out= forms: empty + fill_, through the dispatcher,
// so they work on every backend that has empty and fill_.
#include <tcore/ops/empty.h>
#include <tcore/ops/empty_native.h>
#include <tcore/ops/fill.h>
#include <tcore/ops/full_native.h>
#include <tcore/ops/ones_native.h>
#include <tcore/ops/zero_native.h>
#include <tcore/ops/zeros_native.h>

#include "native/TensorUtils.h"

namespace tcore::native {

namespace {
// PyTorch's full() infers the dtype from the fill value when none is given.
ScalarType fill_dtype(const Scalar& v, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return v.is_bool() ? ScalarType::Bool : v.is_integral() ? ScalarType::Long : default_float_dtype();
}
}  // namespace

Tensor empty_out(IntArrayRef size, std::optional<MemoryFormat> memory_format, const Tensor& out) {
  (void)memory_format;
  resize_output(out, size);
  return out;
}

Tensor full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  Tensor t = tcore::empty(size, fill_dtype(fill_value, dtype), layout, device, pin_memory);
  return tcore::fill_(t, fill_value);
}
Tensor full_out(IntArrayRef size, const Scalar& fill_value, const Tensor& out) {
  resize_output(out, size);
  return tcore::fill_(out, fill_value);
}

Tensor zeros(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory) {
  return tcore::fill_(tcore::empty(size, dtype, layout, device, pin_memory), 0);
}
Tensor zeros_out(IntArrayRef size, const Tensor& out) {
  resize_output(out, size);
  return tcore::fill_(out, 0);
}

Tensor ones(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  return tcore::fill_(tcore::empty(size, dtype, layout, device, pin_memory), 1);
}
Tensor ones_out(IntArrayRef size, const Tensor& out) {
  resize_output(out, size);
  return tcore::fill_(out, 1);
}

Tensor zero_(const Tensor& self) { return tcore::fill_(self, 0); }

}  // namespace tcore::native
