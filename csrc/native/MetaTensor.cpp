// The Meta backend's hand-written kernels: allocation, fill and copy of tensors without data.
// Every structured operator gets its Meta kernel generated from its meta function
// (tcore/core/Structured.h); composite operators decompose into those.
#include <tcore/ops/copy_native.h>
#include <tcore/ops/empty_native.h>
#include <tcore/ops/fill_native.h>
#include <tcore/ops/cat_native.h>
#include <tcore/ops/clamp_native.h>
#include <tcore/ops/gelu_native.h>
#include <tcore/ops/masked_fill_native.h>
#include <tcore/ops/tril_native.h>
#include <tcore/ops/triu_native.h>
#include <tcore/ops/pow_native.h>
#include <tcore/ops/relu_native.h>
#include <tcore/ops/threshold_backward_native.h>
#include <tcore/ops/where_native.h>

#include "native/Activation.h"
#include "native/TensorUtils.h"
#include "tcore/core/Structured.h"

namespace tcore::native {

Tensor empty_meta(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  TCORE_CHECK_VALUE(!layout || *layout == Layout::Strided, "empty: only the strided layout is supported");
  return structured::make_output(size, dtype.value_or(default_float_dtype()), Device(DeviceType::Meta),
                                 format_strides(size, memory_format));
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

// Pointwise operators without a structured kernel: their outputs' shapes and dtypes, with the
// CPU kernels' argument checks (the lazy backend records them as nodes from these).
Tensor relu_meta(const Tensor& self) {
  TCORE_CHECK_TYPE(self.dtype() != ScalarType::Bool, "relu: not implemented for 'Bool'");
  return empty_on(self.sizes(), self.dtype(), Device(DeviceType::Meta));
}

Tensor relu_meta_(const Tensor& self) {
  TCORE_CHECK_TYPE(self.dtype() != ScalarType::Bool, "relu_: not implemented for 'Bool'");
  assert_no_internal_overlap(self);
  self.bump_version();
  return self;
}

Tensor gelu_meta(const Tensor& self, std::string_view approximate) {
  check_gelu(self, approximate);
  return empty_on(self.sizes(), self.dtype(), Device(DeviceType::Meta));
}

Tensor threshold_backward_meta(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  (void)threshold;
  TCORE_CHECK_VALUE(grad_output.sizes().size() == self.sizes().size() &&
                        std::equal(self.sizes().begin(), self.sizes().end(), grad_output.sizes().begin()),
                    "threshold_backward: grad_output and self must have the same shape");
  return empty_on(self.sizes(), grad_output.dtype(), Device(DeviceType::Meta));
}

Tensor where_meta(const Tensor& condition, const Tensor& self, const Tensor& other) {
  check_where_condition(condition);
  const std::vector<int64_t> shape = broadcast_shapes(condition.sizes(), broadcast_shapes(self.sizes(), other.sizes()));
  return empty_on(shape, result_type({&self, &other}), Device(DeviceType::Meta));
}

Tensor pow_meta(const Tensor& self, const Tensor& exponent) {
  return empty_on(broadcast_shapes(self.sizes(), exponent.sizes()), result_type({&self, &exponent}),
                  Device(DeviceType::Meta));
}

Tensor cat_meta(ArrayRef<Tensor> tensors, int64_t dim) {
  const CatShape l = cat_shape(tensors, dim);
  return empty_on(l.shape, l.dtype, Device(DeviceType::Meta));
}

Tensor clamp_meta(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  TCORE_CHECK_VALUE(min || max, "clamp: At least one of 'min' or 'max' must not be None");
  return empty_on(self.sizes(), clamp_type(self, min, max), Device(DeviceType::Meta));
}

Tensor clamp_meta_(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  TCORE_CHECK_VALUE(min || max, "clamp: At least one of 'min' or 'max' must not be None");
  const ScalarType t = clamp_type(self, min, max);
  TCORE_CHECK_TYPE(t == self.dtype(), "clamp_: result type ", t, " can't be cast to the desired output type ",
                   self.dtype());
  assert_no_internal_overlap(self);
  self.bump_version();
  return self;
}

namespace {
Tensor masked_fill_result(const Tensor& self, const Tensor& mask) {
  Tensor out = empty_on(broadcast_shapes(self.sizes(), mask.sizes()), self.dtype(), Device(DeviceType::Meta));
  check_masked_fill(out, mask);
  return out;
}
}  // namespace

Tensor masked_fill_meta_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  (void)value;
  check_masked_fill(self, mask);
  self.bump_version();
  return self;
}
Tensor masked_fill_meta_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  check_masked_fill_value(value);
  return masked_fill_meta_(self, mask, Scalar(0));
}
Tensor masked_fill_meta(const Tensor& self, const Tensor& mask, const Scalar& value) {
  (void)value;
  return masked_fill_result(self, mask);
}
Tensor masked_fill_meta(const Tensor& self, const Tensor& mask, const Tensor& value) {
  check_masked_fill_value(value);
  return masked_fill_result(self, mask);
}

namespace {
Tensor triangle_meta(const Tensor& self, bool inplace, const char* op) {
  TCORE_CHECK(self.dim() >= 2, op, ": input tensor must have at least 2 dimensions");
  if (!inplace) return empty_on(self.sizes(), self.dtype(), Device(DeviceType::Meta));
  self.bump_version();
  return self;
}
}  // namespace
Tensor tril_meta(const Tensor& self, int64_t diagonal) { return (void)diagonal, triangle_meta(self, false, "tril"); }
Tensor tril_meta_(const Tensor& self, int64_t diagonal) { return (void)diagonal, triangle_meta(self, true, "tril_"); }
Tensor triu_meta(const Tensor& self, int64_t diagonal) { return (void)diagonal, triangle_meta(self, false, "triu"); }
Tensor triu_meta_(const Tensor& self, int64_t diagonal) { return (void)diagonal, triangle_meta(self, true, "triu_"); }

}  // namespace tcore::native
