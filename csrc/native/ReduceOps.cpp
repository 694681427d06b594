// Meta functions of the structured reductions: sum and mean over a dim list, amax/amin,
// argmax/argmin, prod over a dim, all/any, the scans cumsum/cumprod and softmax/log_softmax.
// Their dtype rules and errors are PyTorch's (infer_dtype_from_optional: dtype= first, then a
// given out's dtype, then the input's with integers and bool as int64). Kernels:
// native/cpu/ReduceOps.cpp, native/cpu/ReduceMore.cpp, native/cuda/ReduceKernels.cu.
#include <tcore/ops/amax_native.h>
#include <tcore/ops/amin_native.h>
#include <tcore/ops/all_native.h>
#include <tcore/ops/any_native.h>
#include <tcore/ops/argmax_native.h>
#include <tcore/ops/argmin_native.h>
#include <tcore/ops/cumprod_native.h>
#include <tcore/ops/cumsum_native.h>
#include <tcore/ops/log_softmax_native.h>
#include <tcore/ops/mean_native.h>
#include <tcore/ops/prod_native.h>
#include <tcore/ops/softmax_native.h>
#include <tcore/ops/sum_native.h>

#include "native/TensorUtils.h"

namespace tcore::meta {
namespace {

ScalarType promoted(const Tensor& self, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), true) ? ScalarType::Long : self.dtype();
}

ScalarType reduction_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  return out.defined() ? dtype.value_or(out.dtype()) : promoted(self, dtype);
}

// amax/amin/argmax/argmin have no value over an empty dim (errors of PyTorch's kinds: a reduction
// of every dim of an empty tensor is a RuntimeError for amax/amin, an IndexError for argmax/argmin).
void check_nonempty_dims(const Tensor& self, const std::vector<bool>& mask, bool whole, bool arg, const char* op) {
  if (self.numel() != 0) return;
  if (whole) {
    const std::string what = detail::str_cat(op, "(): Expected reduction dim to be specified for input.numel() == 0. "
                                             "Specify the reduction dim with the 'dim' argument.");
    TCORE_CHECK_INDEX(!arg, what);
    TCORE_CHECK(false, what);
  }
  for (size_t d = 0; d < mask.size(); ++d)
    TCORE_CHECK_INDEX(!mask[d] || self.sizes()[d] != 0, op, "(): Expected reduction dim ", d,
                      " to have non-zero size.");
}

void minmax(MetaBase& m, const Tensor& self, IntArrayRef dim, bool keepdim, const char* op) {
  const Tensor& out = m.maybe_get_output(0);
  TCORE_CHECK_TYPE(!out.defined() || out.dtype() == self.dtype(), "Expected the dtype for input and out to match, "
                   "but got ", self.dtype(), " for input's dtype and ", out.dtype(), " for out's dtype.");
  const std::vector<bool> mask = native::reduction_mask(dim, self.dim(), op);
  check_nonempty_dims(self, mask, dim.empty(), false, op);
  m.set_output(0, native::reduced_shape(self.sizes(), mask, keepdim), self.dtype());
}

void arg_minmax(MetaBase& m, const Tensor& self, std::optional<int64_t> dim, bool keepdim, const char* op) {
  TCORE_CHECK_TYPE(self.dtype() != ScalarType::Bool, op, "(): does not support bool input");
  std::vector<bool> mask(static_cast<size_t>(self.dim()), !dim.has_value());
  if (dim) {
    const int64_t d = wrap_dim(*dim, self.dim());
    if (self.dim() > 0) mask[d] = true;
  }
  check_nonempty_dims(self, mask, !dim.has_value(), true, op);
  std::vector<int64_t> shape;
  if (dim || keepdim) shape = native::reduced_shape(self.sizes(), mask, keepdim);
  m.set_output(0, shape, ScalarType::Long);
}

// cumsum/cumprod: the input's sizes, the dim checked; the dtype as a reduction's (PyTorch's
// meta_func_cum_ops)
void scan(MetaBase& m, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  (void)wrap_dim(dim, self.dim());
  m.set_output(0, self.sizes(), reduction_dtype(self, dtype, m.maybe_get_output(0)));
}

// softmax/log_softmax: the input's sizes; dtype= (floating), else the input's floating dtype (an
// integer input computes in the default float dtype); an out of another dtype is an error, as in torch
void softmax(MetaBase& m, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const char* op) {
  (void)wrap_dim(dim, self.dim());
  const ScalarType t = dtype ? *dtype : (is_floating(self.dtype()) ? self.dtype() : default_float_dtype());
  TCORE_CHECK_TYPE(is_floating(t), op, ": dtype must be floating, got ", t);
  m.set_output(0, self.sizes(), t);
}

// all/any: bool, or uint8 for a uint8 input (PyTorch's uint8 compatibility), or a given out's
// bool or uint8 dtype; an empty dim is fine (all of nothing is true)
void all_any(MetaBase& m, const Tensor& self, std::optional<int64_t> dim, bool keepdim, const char* op) {
  const Tensor& out = m.maybe_get_output(0);
  TCORE_CHECK_TYPE(!out.defined() || out.dtype() == ScalarType::Bool || out.dtype() == ScalarType::Byte, op,
                   " only supports bool tensor for result, got: ", out.dtype());
  const ScalarType t = out.defined() ? out.dtype() : (self.dtype() == ScalarType::Byte ? ScalarType::Byte
                                                                                        : ScalarType::Bool);
  std::vector<bool> mask(static_cast<size_t>(self.dim()), !dim.has_value());
  if (dim && self.dim() > 0) mask[wrap_dim(*dim, self.dim())] = true;
  if (dim && self.dim() == 0) (void)wrap_dim(*dim, 0);
  m.set_output(0, native::reduced_shape(self.sizes(), mask, keepdim && dim.has_value()), t);
}

}  // namespace

TCORE_META_FUNC2(prod, dim_int)(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  std::vector<bool> mask(static_cast<size_t>(self.dim()), false);
  const int64_t d = wrap_dim(dim, self.dim());
  if (self.dim() > 0) mask[d] = true;
  set_output(0, native::reduced_shape(self.sizes(), mask, keepdim), reduction_dtype(self, dtype, maybe_get_output(0)));
}

TCORE_META_FUNC(all)(const Tensor& self) { all_any(*this, self, std::nullopt, false, "all"); }
TCORE_META_FUNC2(all, dim)(const Tensor& self, int64_t dim, bool keepdim) { all_any(*this, self, dim, keepdim, "all"); }
TCORE_META_FUNC(any)(const Tensor& self) { all_any(*this, self, std::nullopt, false, "any"); }
TCORE_META_FUNC2(any, dim)(const Tensor& self, int64_t dim, bool keepdim) { all_any(*this, self, dim, keepdim, "any"); }

TCORE_META_FUNC(cumsum)(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  scan(*this, self, dim, dtype);
}
TCORE_META_FUNC(cumprod)(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  scan(*this, self, dim, dtype);
}
TCORE_META_FUNC2(softmax, int)(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  softmax(*this, self, dim, dtype, "softmax");
}
TCORE_META_FUNC2(log_softmax, int)(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  softmax(*this, self, dim, dtype, "log_softmax");
}

TCORE_META_FUNC2(sum, dim_IntList)(const Tensor& self, OptionalIntArrayRef dim, bool keepdim,
                                   std::optional<ScalarType> dtype) {
  const std::vector<bool> mask = native::reduction_mask(dim, self.dim(), "sum");
  set_output(0, native::reduced_shape(self.sizes(), mask, keepdim), reduction_dtype(self, dtype, maybe_get_output(0)));
}

TCORE_META_FUNC2(mean, dim)(const Tensor& self, OptionalIntArrayRef dim, bool keepdim,
                            std::optional<ScalarType> dtype) {
  TCORE_CHECK_TYPE(is_floating(promoted(self, dtype)), "mean(): could not infer output dtype. ",
                   dtype ? "Optional" : "Input", " dtype must be either a floating point or complex dtype. Got: ",
                   dtype.value_or(self.dtype()));
  const ScalarType t = reduction_dtype(self, dtype, maybe_get_output(0));
  TCORE_CHECK_TYPE(is_floating(t), "mean(): result type ", self.dtype(),
                   " can't be cast to the desired output type ", t);
  const std::vector<bool> mask = native::reduction_mask(dim, self.dim(), "mean");
  set_output(0, native::reduced_shape(self.sizes(), mask, keepdim), t);
}

TCORE_META_FUNC(amax)(const Tensor& self, IntArrayRef dim, bool keepdim) { minmax(*this, self, dim, keepdim, "amax"); }
TCORE_META_FUNC(amin)(const Tensor& self, IntArrayRef dim, bool keepdim) { minmax(*this, self, dim, keepdim, "amin"); }

TCORE_META_FUNC(argmax)(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  arg_minmax(*this, self, dim, keepdim, "argmax");
}
TCORE_META_FUNC(argmin)(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  arg_minmax(*this, self, dim, keepdim, "argmin");
}

}  // namespace tcore::meta
