#include "native/TensorUtils.h"

#include <algorithm>
#include <cstring>

#include "native/cpu/Copy.h"
#include "tcore/core/SizeMath.h"
#include "tcore/core/Structured.h"
#include "tcore/lazy/Lazy.h"

namespace tcore::native {

void (*chosen_copy_kernel)(const Tensor& dst, const Tensor& src) = nullptr;

std::vector<int64_t> expanded_strides(const Tensor& t, IntArrayRef shape) {
  const size_t n = shape.size(), m = t.sizes().size();
  std::vector<int64_t> out(n, 0);
  for (size_t i = 0; i < m; ++i) {
    const size_t d = n - m + i;
    out[d] = t.sizes()[i] == 1 && shape[d] != 1 ? 0 : t.strides()[i];
  }
  return out;
}

std::vector<int64_t> output_strides(IntArrayRef shape, std::initializer_list<const Tensor*> inputs) {
  if (inputs.size() == 0) return {};  // (an empty result too gets TensorIterator's order: 0 strides outside a 0 dim)
  const auto all = [&](const auto& pred) { return std::all_of(inputs.begin(), inputs.end(), pred); };
  const bool same_shape = all([&](const Tensor* t) { return t->sizes().vec() == shape.vec(); });
  if (same_shape) {  // TensorIterator's fast setups, the common case first
    if (all([](const Tensor* t) { return t->is_contiguous(); })) return {};
    if (all([](const Tensor* t) { return t->is_contiguous(MemoryFormat::ChannelsLast); }))
      return channels_last_strides(shape);  // its own strides, whatever the inputs' size-1 dims have
    const Tensor* first = *inputs.begin();
    if (all([&](const Tensor* t) {
          return non_overlapping_and_dense(t->sizes(), t->strides()) && t->strides().vec() == first->strides().vec();
        }))
      return first->strides().vec();
  }
  const size_t n = shape.size();
  std::vector<std::vector<int64_t>> strides;  // each input's, seen with `shape` (0: broadcast)
  for (const Tensor* t : inputs) strides.push_back(expanded_strides(*t, shape));
  const std::vector<size_t> order = memory_order(shape, strides);  // innermost first
  bool row_major = true;
  for (size_t i = 0; i < n; ++i) row_major = row_major && order[i] == n - 1 - i;
  if (row_major) return {};
  std::vector<int64_t> out(n);
  int64_t step = 1;
  for (size_t d : order) {
    out[d] = step;
    step *= shape[d];
  }
  return out;
}

void set_binary_output(MetaBase& m, const Tensor& a, const Tensor& b, ScalarType compute, const char* op) {
  const std::vector<int64_t> shape = broadcast_shapes(a.sizes(), b.sizes());
  m.set_output_castable(0, shape, compute, op, output_strides(shape, {&a, &b}));
}

Tensor empty_output(IntArrayRef shape, ScalarType dtype, std::initializer_list<const Tensor*> inputs) {
  return structured::make_output(shape, dtype, Device(DeviceType::CPU), output_strides(shape, inputs));
}

void resize_elementwise_output(const Tensor& out, IntArrayRef shape, std::initializer_list<const Tensor*> inputs) {
  if (out.sizes().size() == shape.size() && std::equal(shape.begin(), shape.end(), out.sizes().begin())) return;
  resize_output(out, shape, output_strides(shape, inputs));
}

Tensor empty_in_format(IntArrayRef sizes, ScalarType dtype, MemoryFormat format) {
  return structured::make_output(sizes, dtype, Device(DeviceType::CPU), format_strides(sizes, format));
}

Tensor in_format(const Tensor& t, MemoryFormat format) {
  if (format != MemoryFormat::ChannelsLast || t.is_contiguous(format)) return t;
  Tensor out = empty_in_format(t.sizes(), t.dtype(), format);
  copy_kernel(out, t);
  return out;
}

std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    TCORE_CHECK_VALUE(da == db || da == 1 || db == 1, "The size of tensor a (", da, ") must match the size of tensor b (",
                      db, ") at non-singleton dimension ", i, " (shapes ", shape_str(a), " and ", shape_str(b), ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {
int category(ScalarType t) { return t == ScalarType::Bool ? 0 : is_floating(t) ? 2 : 1; }

ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (higher == ScalarType::Undefined) return lower;
  if (lower == ScalarType::Undefined) return higher;
  if (category(lower) > category(higher)) return promote_types(higher, lower);
  return higher;
}
}  // namespace

ScalarType result_type(std::initializer_list<const Tensor*> operands) {
  ScalarType dim_result = ScalarType::Undefined, zero_result = ScalarType::Undefined,
             wrapped_result = ScalarType::Undefined;
  for (const Tensor* t : operands) {
    if (t == nullptr || !t->defined()) continue;
    ScalarType dt = t->dtype();
    if (t->impl()->is_wrapped_number) {
      // a Python float takes the default dtype, not double
      if (is_floating(dt)) dt = default_float_dtype();
      wrapped_result = promote_types(wrapped_result, dt);
    } else if (t->dim() == 0) {
      zero_result = promote_types(zero_result, dt);
    } else {
      dim_result = promote_types(dim_result, dt);
    }
  }
  return combine_categories(dim_result, combine_categories(zero_result, wrapped_result));
}

// torch.result_type: the dtype an operator on the two would give (numbers as wrapped scalars)
ScalarType result_type_tensor(const Tensor& tensor, const Tensor& other) { return result_type({&tensor, &other}); }
ScalarType result_type_scalar(const Tensor& tensor, const Scalar& other) {
  const Tensor number = wrapped_scalar_tensor(other);
  return result_type({&tensor, &number});
}
ScalarType result_type_scalar_tensor(const Scalar& scalar, const Tensor& tensor) {
  return result_type_scalar(tensor, scalar);
}
ScalarType result_type_scalar_scalar(const Scalar& scalar1, const Scalar& scalar2) {
  const Tensor a = wrapped_scalar_tensor(scalar1), b = wrapped_scalar_tensor(scalar2);
  return result_type({&a, &b});
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

bool resize_output(const Tensor& out, IntArrayRef sizes, IntArrayRef strides) {
  TCORE_CHECK(out.defined(), "out= tensor is undefined");
  if (out.sizes().size() == sizes.size() && std::equal(sizes.begin(), sizes.end(), out.sizes().begin())) return false;
  if (out.device().is_lazy()) {
    lazy::resize(out, sizes);
    return true;
  }
  std::vector<int64_t> layout = strides.empty() ? contiguous_strides(sizes) : strides.vec();
  const int64_t nbytes = checked_nbytes(sizes, out.element_size(), "resize_output");
  const int64_t needed = nbytes == 0 ? 0 : checked_add(checked_mul(out.storage_offset(), out.element_size(), "resize_output"),
                                                       nbytes, "resize_output");
  if (static_cast<int64_t>(out.storage().nbytes()) < needed) grow_storage(out, static_cast<size_t>(needed));
  out.impl()->set_sizes_and_strides(sizes.vec(), std::move(layout), out.storage_offset());
  return true;
}

void grow_storage(const Tensor& t, size_t nbytes) {
  const Storage& old = t.storage();
  TCORE_CHECK(old.resizable(), "Trying to resize storage that is not resizable");
  const Storage fresh = allocate_storage(nbytes, old.device());
  if (old.nbytes() > 0 && !old.device().is_meta()) {  // the bytes kept, on any device
    const auto bytes = [](const Storage& s, size_t n) {
      return Tensor(std::make_shared<TensorImpl>(s, ScalarType::Byte, std::vector<int64_t>{static_cast<int64_t>(n)},
                                                 std::vector<int64_t>{1}, 0));
    };
    copy_kernel(bytes(fresh, old.nbytes()), bytes(old, old.nbytes()));
  }
  old.swap_memory(fresh);  // fresh now holds the old memory, released here
}

Tensor copy_of(const Tensor& t, std::optional<ScalarType> dtype) {
  Tensor out = empty_on(t.sizes(), dtype.value_or(t.dtype()), t.device());
  copy_kernel(out, t);
  return out;
}

Tensor cast(const Tensor& t, ScalarType dtype) { return t.dtype() == dtype ? t : copy_of(t, dtype); }

Tensor contiguous_copy(const Tensor& t) { return t.is_contiguous() ? t : copy_of(t); }

Tensor zeros_cpu(IntArrayRef sizes, ScalarType dtype) {
  Tensor out = empty_cpu(sizes, dtype);
  if (out.numel() > 0) std::memset(out.data_ptr(), 0, static_cast<size_t>(out.numel() * out.element_size()));
  return out;
}

Tensor on_device(const Tensor& t, Device device) {
  if (t.device() == device) return t;
  Tensor out = empty_on(t.sizes(), t.dtype(), device);
  copy_kernel(out, t);
  return out;
}

void assert_no_internal_overlap(const Tensor& t) {
  if (t.is_contiguous()) return;
  for (int64_t d = 0; d < t.dim(); ++d) {
    TCORE_CHECK(!(t.sizes()[d] > 1 && t.strides()[d] == 0),
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation.");
  }
}

bool partially_overlaps(const Tensor& a, const Tensor& b) {
  if (!a.storage().is_alias_of(b.storage())) return false;
  const bool same = a.storage_offset() == b.storage_offset() && a.sizes().size() == b.sizes().size() &&
                    std::equal(a.sizes().begin(), a.sizes().end(), b.sizes().begin()) &&
                    std::equal(a.strides().begin(), a.strides().end(), b.strides().begin());
  return !same;
}

namespace {
// torch's get_overlap_status for two tensors: None (apart, or too hard to tell: either is not
// non-overlapping and dense), Full (the same elements in the same layout) or Partial.
enum class Overlap { None, Full, Partial };
Overlap overlap_of(const Tensor& a, const Tensor& b) {
  if (!b.defined() || !a.storage().is_alias_of(b.storage()) || a.numel() == 0 || b.numel() == 0 ||
      !non_overlapping_and_dense(a.sizes(), a.strides()) || !non_overlapping_and_dense(b.sizes(), b.strides())) {
    return Overlap::None;
  }
  if (a.impl() == b.impl()) return Overlap::Full;
  const auto range = [](const Tensor& t) {  // [first, past the last) byte of its elements
    const int64_t first = t.storage_offset() * t.element_size();
    return std::pair<int64_t, int64_t>(first, first + t.numel() * t.element_size());
  };
  const auto [a0, a1] = range(a);
  const auto [b0, b1] = range(b);
  if (a1 <= b0 || b1 <= a0) return Overlap::None;
  return a0 == b0 && a1 == b1 && a.strides().vec() == b.strides().vec() ? Overlap::Full : Overlap::Partial;
}
}  // namespace

void assert_no_overlap(const Tensor& written, const Tensor& read) {
  TCORE_CHECK(overlap_of(written, read) == Overlap::None, "unsupported operation: some elements of the input tensor "
              "and the written-to tensor refer to a single memory location, which may cause unexpected behavior. "
              "Please clone() the tensor before performing the operation.");
}

void assert_no_partial_overlap(const Tensor& written, const Tensor& read) {
  TCORE_CHECK(overlap_of(written, read) != Overlap::Partial, "unsupported operation: some elements of the input "
              "tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before "
              "performing the operation.");
}

std::vector<bool> reduction_mask(OptionalIntArrayRef dim, int64_t ndim, const char* op) {
  std::vector<bool> mask(static_cast<size_t>(ndim), false);
  if (!dim.has_value() || dim->empty()) {
    std::fill(mask.begin(), mask.end(), true);
    return mask;
  }
  for (int64_t d : *dim) {
    const int64_t w = wrap_dim(d, ndim);
    if (ndim == 0) continue;
    TCORE_CHECK_VALUE(!mask[w], op, ": dim ", w, " appears multiple times in the list of dims");
    mask[w] = true;
  }
  return mask;
}

std::vector<int64_t> reduced_shape(IntArrayRef sizes, const std::vector<bool>& mask, bool keepdim) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!mask[d]) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

void write_result(const Tensor& out, const Tensor& result, const char* op) {
  if (out.is_same(result)) return;
  TCORE_CHECK_TYPE(can_cast(result.dtype(), out.dtype()), op, ": result type ", result.dtype(),
                   " can't be cast to the desired output type ", out.dtype());
  resize_output(out, result.sizes());
  copy_kernel(out, result);
}

void check_mm(const Tensor& a, const Tensor& b) {
  TCORE_CHECK_VALUE(a.dim() == 2, "self must be a matrix (got a ", a.dim(), "-D tensor)");
  TCORE_CHECK_VALUE(b.dim() == 2, "mat2 must be a matrix (got a ", b.dim(), "-D tensor)");
  TCORE_CHECK_VALUE(a.sizes()[1] == b.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (", a.sizes()[0], "x",
                    a.sizes()[1], " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  TCORE_CHECK_TYPE(a.dtype() == b.dtype(), "expected m1 and m2 to have the same dtype, but got: ", a.dtype(),
                   " != ", b.dtype());
  TCORE_CHECK_VALUE(a.device() == b.device(), "mm: Expected all tensors to be on the same device, but found ",
                    a.device().str(), " and ", b.device().str());
}

CatShape cat_shape(ArrayRef<Tensor> tensors, int64_t dim) {
  TCORE_CHECK_VALUE(!tensors.empty(), "cat(): expected a non-empty list of Tensors");
  CatShape l;
  l.dtype = tensors[0].dtype();
  l.device = tensors[0].device();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    l.dtype = promote_types(l.dtype, t.dtype());
    TCORE_CHECK(t.device() == l.device, "Expected all tensors to be on the same device, but found at least two "
                "devices, ", l.device.str(), " and ", t.device().str(), "! (when checking argument tensors[", i,
                "] of cat)");
  }
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TCORE_CHECK_VALUE(t.dim() > 0, "cat(): zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    if (cat_skipped(t)) continue;
    if (!ref) {
      ref = &t;
      l.dim = wrap_dim(dim, t.dim());
      l.shape = t.sizes().vec();
      l.shape[l.dim] = 0;
    }
    TCORE_CHECK_VALUE(t.dim() == ref->dim(), "cat(): Tensors must have same number of dimensions: got ", ref->dim(),
                      " and ", t.dim());
    for (int64_t d = 0; d < t.dim(); ++d) {
      TCORE_CHECK_VALUE(d == l.dim || t.sizes()[d] == ref->sizes()[d], "cat(): Sizes of tensors must match except in "
                        "dimension ", l.dim, ". Expected size ", ref->sizes()[d], " but got size ", t.sizes()[d],
                        " for tensor number ", i, " in the list (shapes ", shape_str(ref->sizes()), " and ",
                        shape_str(t.sizes()), ").");
    }
    l.shape[l.dim] += t.sizes()[l.dim];
  }
  if (!ref) l.shape = {0};  // nothing but legacy empty tensors
  return l;
}

ScalarType floating_promoted(const Tensor& a, const Tensor& b, const char* kernel) {
  const ScalarType t = promoted(a, b);
  TCORE_CHECK_AS(NotImplementedError, is_floating(t), "\"", kernel, "\" not implemented for '", to_string(t), "'");
  return t;
}

ScalarType integral_promoted(const Tensor& a, const Tensor& b, const char* kernel) {
  const ScalarType t = promoted(a, b);
  TCORE_CHECK_AS(NotImplementedError, is_integral(t, /*include_bool=*/false), "\"", kernel,
                 "\" not implemented for '", to_string(t), "'");
  return t;
}

ScalarType clamp_type(const Tensor& self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
  const bool floating_bound = (lo && lo->is_floating_point()) || (hi && hi->is_floating_point());
  const ScalarType t = is_integral(self.dtype(), true) && floating_bound ? default_float_dtype() : self.dtype();
  if (lo) check_scalar_fits(*lo, t);
  if (hi) check_scalar_fits(*hi, t);
  return t;
}

RoundingMode rounding_mode_of(std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return RoundingMode::True;
  if (*rounding_mode == "trunc") return RoundingMode::Trunc;
  if (*rounding_mode == "floor") return RoundingMode::Floor;
  throw ValueError(detail::str_cat("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
                                   *rounding_mode, "'"));
}

void check_where_condition(const Tensor& condition) {
  TCORE_CHECK_TYPE(condition.dtype() == ScalarType::Bool || condition.dtype() == ScalarType::Byte,
                   "where: expected condition to be a boolean tensor, but got a tensor with dtype ",
                   to_string(condition.dtype()));
}

void check_bitwise_operands(const Tensor& a, const Tensor& b, const char* op) {
  TCORE_CHECK_TYPE(!is_floating(a.dtype()) && !is_floating(b.dtype()), op, ": not implemented for '",
                   to_string(is_floating(a.dtype()) ? a.dtype() : b.dtype()), "' (integral and bool dtypes only)");
}

void check_masked_fill(const Tensor& self, const Tensor& mask) {
  TCORE_CHECK(mask.dtype() == ScalarType::Bool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
              to_string(mask.dtype()));
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes());
  TCORE_CHECK_VALUE(shape == self.sizes().vec(), "output with shape ", shape_str(self.sizes()),
                    " doesn't match the broadcast shape ", shape_str(shape));
}

void check_masked_fill_value(const Tensor& value) {
  TCORE_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
}

void check_causal_softmax(const Tensor& self) {
  TCORE_CHECK(self.dim() >= 2, "_causal_softmax(): expected a tensor of at least 2 dims, got ", self.dim());
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "_causal_softmax(): expected a floating tensor, got ",
                   to_string(self.dtype()));
}

Scalar masked_fill_value(const Tensor& value) {
  check_masked_fill_value(value);
  const Tensor v = on_device(cast(value, is_floating(value.dtype()) ? ScalarType::Double : ScalarType::Long), Device());
  const Scalar s = v.dtype() == ScalarType::Double ? Scalar(*v.data_ptr<double>()) : Scalar(*v.data_ptr<int64_t>());
  return value.dtype() == ScalarType::Bool ? Scalar(s.to<bool>()) : s;
}

std::vector<bool> flip_mask(const Tensor& self, IntArrayRef dims) {
  std::vector<bool> flipped(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, self.dim());
    TCORE_CHECK(!flipped[w], "dims has duplicates, original flip dims size=", dims.size(), ", but unique flip dims size=",
                dims.size() - 1);
    flipped[w] = true;
  }
  return flipped;
}

void index_out_of_bounds(int64_t idx, int64_t dim, int64_t size, std::string_view op) {
  const std::string message =
      detail::str_cat("index ", idx, " is out of bounds for dimension ", dim, " with size ", size);
  if (op.rfind("gather", 0) == 0 || op.rfind("scatter", 0) == 0) throw Error(message);
  throw IndexError(message);
}

Scalar negated(const Scalar& s) {
  if (s.is_floating_point()) return Scalar(-s.to_double());
  if (s.is_bool()) return s;
  const int64_t v = s.to_long();
  return v == std::numeric_limits<int64_t>::min() ? s : Scalar(-v);
}

void check_scalar_fits(const Scalar& s, ScalarType dtype) {
  dispatch_all_types(dtype, "check_scalar_fits", [&](auto tag) { (void)s.to<typename decltype(tag)::type>(); });
}

}  // namespace tcore::native
