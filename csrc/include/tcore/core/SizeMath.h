#pragma once
// Checked arithmetic for sizes, strides, offsets and indices: the one set of helpers
// every factory, view, kernel and the allocator uses. Overflow and negative sizes are
// RuntimeErrors (tcore::Error) naming the operation, as PyTorch's are; nothing wraps.
#include <cstdint>

#include "tcore/core/ArrayRef.h"
#include "tcore/core/Macros.h"

namespace tcore {

[[noreturn]] TCORE_API void throw_overflow(const char* op, const char* what, int64_t a, int64_t b);

inline int64_t checked_mul(int64_t a, int64_t b, const char* op) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow(op, "multiplication", a, b);
  return r;
}
inline int64_t checked_add(int64_t a, int64_t b, const char* op) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow(op, "addition", a, b);
  return r;
}
inline int64_t checked_sub(int64_t a, int64_t b, const char* op) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) throw_overflow(op, "subtraction", a, b);
  return r;
}

// Every size >= 0, else "Trying to create tensor with negative dimension".
TCORE_API void check_sizes_nonnegative(IntArrayRef sizes, const char* op);
// The product of the sizes (0 as soon as one is 0); negative sizes and overflow throw.
TCORE_API int64_t checked_numel(IntArrayRef sizes, const char* op);
// numel * element_size, and the whole must fit in int64 (what an allocation may ask for).
TCORE_API int64_t checked_nbytes(IntArrayRef sizes, int64_t element_size, const char* op);
// The number of elements a storage must hold for the layout (sizes, strides, offset):
// offset + 1 + sum_d (size_d - 1) * stride_d, or 0 for an empty layout. Strides must be
// >= 0 and the offset >= 0; overflow throws.
TCORE_API int64_t required_storage_elements(IntArrayRef sizes, IntArrayRef strides, int64_t offset, const char* op);
// ceil(a / b) for a >= 0, b > 0 without overflow (a slice's length).
inline int64_t div_round_up(int64_t a, int64_t b) { return a / b + (a % b != 0); }
// A double that must become a size or an index: finite and within int64, else an error.
TCORE_API int64_t checked_size_from_double(double v, const char* op);

}  // namespace tcore
