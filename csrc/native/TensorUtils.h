#pragma once
// Shared rules of the kernels: broadcasting, type promotion, out= handling.
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tcore/core/OpDecl.h"

namespace tcore {
struct MetaBase;
}

namespace tcore::native {

// Broadcast shape of two shapes, or IndexError-free ValueError naming both shapes.
std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b);

// t's strides seen with `shape` (which t broadcasts to), in elements: 0 along a broadcast dim.
std::vector<int64_t> expanded_strides(const Tensor& t, IntArrayRef shape);

// The strides PyTorch's TensorIterator gives the fresh output of an elementwise operator of
// `shape` over `inputs` (empty: contiguous): contiguous inputs of that shape give a contiguous
// output, channels_last ones (4-D) a channels_last one, non-overlapping dense ones of that shape and
// one layout theirs, and any other mix
// the dense strides in the order the inputs' strides put the dims in (the first input that tells
// two dims apart deciding; broadcast dims tell nothing): (x.t() + 1) is transposed as x.t().
std::vector<int64_t> output_strides(IntArrayRef shape, std::initializer_list<const Tensor*> inputs);
// A binary elementwise operator's output: the broadcast shape of a and b, computed in `compute`
// (set_output_castable's rule for a given output), a fresh one in output_strides' layout.
void set_binary_output(MetaBase& m, const Tensor& a, const Tensor& b, ScalarType compute, const char* op);
// The elementwise kernels that allocate their own result (not structured): a fresh CPU tensor of
// `shape` in output_strides' layout over `inputs`, and an out= tensor resized to `shape` in that
// layout when it must be resized (PyTorch's resize_out restrides a resized output likewise).
Tensor empty_output(IntArrayRef shape, ScalarType dtype, std::initializer_list<const Tensor*> inputs);
void resize_elementwise_output(const Tensor& out, IntArrayRef shape, std::initializer_list<const Tensor*> inputs);
// The 4-D results of the convolution, pooling and normalization kernels are laid out in the format
// their input suggests (Tensor::suggest_memory_format), as PyTorch's: a fresh CPU tensor in `format`
// (contiguous or channels_last), and the values of a CPU tensor `t` in `format` (t itself when it is
// contiguous in it already, else a copy).
Tensor empty_in_format(IntArrayRef sizes, ScalarType dtype, MemoryFormat format);
Tensor in_format(const Tensor& t, MemoryFormat format);

// PyTorch's result_type: tensors with dims beat 0-dim tensors, which beat Python
// numbers (wrapped scalars), unless the lower kind is of a higher category
// (bool < integral < floating).
ScalarType result_type(std::initializer_list<const Tensor*> operands);
// the result type of two operands, and a dtype's floating counterpart (integers and bool give the
// default float dtype): the dtypes of binary kernels and of composites with a floating result
inline ScalarType promoted(const Tensor& a, const Tensor& b) { return result_type({&a, &b}); }
inline ScalarType floating_of(ScalarType t) { return is_floating(t) ? t : default_float_dtype(); }
// The promoted type of a kernel torch has for floating types only (hypot): an integral or bool one
// is torch's NotImplementedError, "\"<kernel>\" not implemented for '<type>'" (kernel: "hypot_cpu").
ScalarType floating_promoted(const Tensor& a, const Tensor& b, const char* kernel);
// The same for a kernel torch has for integer types only (the shifts: "lshift_cpu"), bool refused too.
ScalarType integral_promoted(const Tensor& a, const Tensor& b, const char* kernel);

// Whether a value of dtype `from` may be written into an out= tensor of dtype `to`.
bool can_cast(ScalarType from, ScalarType to);

// Gives `out` the shape `sizes` (reallocating if its storage is too small); a
// tensor with another shape that is not empty is resized too, as PyTorch does. A resized out gets
// `strides` (dense ones for `sizes`; empty: contiguous). True when it was resized.
bool resize_output(const Tensor& out, IntArrayRef sizes, IntArrayRef strides = {});
// t's storage, shared with every view of it, replaced by one of nbytes holding its bytes (resize_'s
// and resize_output's growth, as torch's); memory tcore did not allocate, or that a numpy array
// reads, is refused (PyTorch's error).
void grow_storage(const Tensor& t, size_t nbytes);

// A new contiguous tensor with the values of `t` in `dtype` (t's when absent), on t's device: never
// t itself (LAPACK overwrites its copy).
Tensor copy_of(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
// A tensor of dtype `dtype` with the values of `t` (t itself when it has it).
Tensor cast(const Tensor& t, ScalarType dtype);
// A contiguous tensor with the values of `t`, on its device (t itself when it is contiguous).
Tensor contiguous_copy(const Tensor& t);
// A fresh CPU tensor of zeros (the accumulators of the backward kernels).
Tensor zeros_cpu(IntArrayRef sizes, ScalarType dtype);
// `t` on `device` (t itself when it is there already).
Tensor on_device(const Tensor& t, Device device);

// PyTorch's assert_no_internal_overlap: writing into a tensor in which one memory location
// is several elements (a dim of size > 1 with stride 0, as expand makes) is refused.
void assert_no_internal_overlap(const Tensor& t);

// True when a and b share memory but are not the very same elements in the same layout.
bool partially_overlaps(const Tensor& a, const Tensor& b);

// PyTorch's assert_no_partial_overlap (TensorIterator's, for every input of an elementwise
// operator): writing `written` while reading `read` is refused when, both non-overlapping and dense,
// they share some memory but are not the same elements in the same layout.
void assert_no_partial_overlap(const Tensor& written, const Tensor& read);

// PyTorch's assert_no_overlap: an operator that writes `written` while reading `read` refuses the two
// sharing memory (the same elements or some of them), when both are non-overlapping and dense (else
// torch cannot tell, and lets it through).
void assert_no_overlap(const Tensor& written, const Tensor& read);

// clamp's missing bound: no limit at all (an infinity for the floating types, so that clamp(min=0)
// keeps inf, as torch's).
template <typename T>
constexpr T unbounded(bool upper) {
  if constexpr (std::numeric_limits<T>::has_infinity) {
    return upper ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  } else {
    return upper ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
  }
}

// The dims of a reduction: every dim when `dim` is unset or empty.
std::vector<bool> reduction_mask(OptionalIntArrayRef dim, int64_t ndim, const char* op);
std::vector<int64_t> reduced_shape(IntArrayRef sizes, const std::vector<bool>& mask, bool keepdim);

// mm's operands: two matrices whose inner sizes agree, of one dtype, on one device.
void check_mm(const Tensor& a, const Tensor& b);

// cat's result (PyTorch's rules: every tensor has the same number of dims and the same sizes
// except in `dim`, legacy 1-D empty tensors are skipped, dtypes promote); every backend's.
struct CatShape {
  std::vector<int64_t> shape;  // of the result
  int64_t dim = 0;
  ScalarType dtype = ScalarType::Float;
  Device device;  // every tensor's (checked)
};
CatShape cat_shape(ArrayRef<Tensor> tensors, int64_t dim);
inline bool cat_skipped(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

// clamp's result dtype: an integral tensor with a floating bound computes in the default float dtype.
ScalarType clamp_type(const Tensor& self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi);

// The compute dtypes a binary operator accepts (every backend's binary kernels).
enum class Kinds { All, Numeric, Integral, Floating };
template <typename T>
constexpr bool accepts(Kinds k) {
  if (k == Kinds::Integral) return std::is_integral_v<T>;
  if (k == Kinds::Floating) return std::is_floating_point_v<T>;
  if (k == Kinds::Numeric) return !std::is_same_v<T, bool>;
  return true;
}

// div's rounding_mode: none (true division), "trunc" or "floor"; another is a ValueError.
enum class RoundingMode { True, Trunc, Floor };
RoundingMode rounding_mode_of(std::optional<std::string_view> rounding_mode);

// where's condition: bool or uint8, else a TypeError (every backend's, Meta's too).
void check_where_condition(const Tensor& condition);

// The bitwise operators take integral and bool tensors; a floating one is a TypeError.
void check_bitwise_operands(const Tensor& a, const Tensor& b, const char* op);

// masked_fill_'s mask: bool, and broadcasting to self's shape.
void check_masked_fill(const Tensor& self, const Tensor& mask);
// masked_fill's value given as a tensor: 0-dim (checked), read on the host as a Scalar of its kind.
void check_masked_fill_value(const Tensor& value);
Scalar masked_fill_value(const Tensor& value);

// torch's overflow error where `s` does not fit an element of `dtype` ("value cannot be converted
// to type Half without overflow"): the ops whose kernels convert the number to the element type
// (clamp, add's alpha, pow's exponent, linspace's ends) check it even where they compute in float.
void check_scalar_fits(const Scalar& s, ScalarType dtype);

// _causal_softmax's input: a floating tensor of at least 2 dims.
void check_causal_softmax(const Tensor& self);

// The value of a one-element tensor as a T (bool, int64_t, double...), cast to T's dtype and read
// on the host (a device one is copied there).
template <typename T>
T item(const Tensor& t) {
  return *on_device(cast(t, scalar_type_of<T>::value), Device()).template data_ptr<T>();
}

// An index beyond its dim, as torch reports it: a RuntimeError from gather and the scatters (op
// "gather", "scatter_add", ...), an IndexError from index_select, index_add and the others.
[[noreturn]] void index_out_of_bounds(int64_t idx, int64_t dim, int64_t size, std::string_view op);

// -s, as sub's kernels take alpha (an int64's lowest negates to itself, as it wraps).
Scalar negated(const Scalar& s);

// flip's dims as a mask over self's dims (duplicates are an error; a 0-dim tensor has one dim).
std::vector<bool> flip_mask(const Tensor& self, IntArrayRef dims);

// Writes `result` into `out` (resizing and casting), unless they are the same tensor.
void write_result(const Tensor& out, const Tensor& result, const char* op);

}  // namespace tcore::native
