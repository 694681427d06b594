#include "tcore/core/SizeMath.h"

#include <cmath>

#include "tcore/core/Tensor.h"

namespace tcore {

void throw_overflow(const char* op, const char* what, int64_t a, int64_t b) {
  throw Error(detail::str_cat(op, ": integer ", what, " overflow (", a, ", ", b,
                              "): the sizes, strides or offsets are too large"));
}

void check_sizes_nonnegative(IntArrayRef sizes, const char* op) {
  for (int64_t s : sizes) {
    if (s < 0) {
      throw ValueError(detail::str_cat(op, ": Trying to create tensor with negative dimension ", s, ": ",
                                       shape_str(sizes)));
    }
  }
}

int64_t checked_numel(IntArrayRef sizes, const char* op) {
  check_sizes_nonnegative(sizes, op);
  for (int64_t s : sizes)
    if (s == 0) return 0;
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (__builtin_mul_overflow(n, s, &n)) {
      throw Error(detail::str_cat(op, ": the number of elements of a tensor of shape ", shape_str(sizes),
                                  " overflows int64"));
    }
  }
  return n;
}

int64_t checked_nbytes(IntArrayRef sizes, int64_t element_size, const char* op) {
  const int64_t n = checked_numel(sizes, op);
  int64_t bytes;
  if (__builtin_mul_overflow(n, element_size, &bytes)) {
    throw Error(detail::str_cat(op, ": Storage size calculation overflowed with sizes=", shape_str(sizes),
                                " (", n, " elements of ", element_size, " bytes)"));
  }
  return bytes;
}

int64_t required_storage_elements(IntArrayRef sizes, IntArrayRef strides, int64_t offset, const char* op) {
  TCORE_CHECK_VALUE(sizes.size() == strides.size(), op, ": mismatch in length of strides and shape");
  TCORE_CHECK_VALUE(offset >= 0, op, ": negative storage offset ", offset);
  check_sizes_nonnegative(sizes, op);
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
  }
  int64_t last = offset;
  for (size_t d = 0; d < sizes.size(); ++d) {
    TCORE_CHECK_VALUE(strides[d] >= 0, op, ": negative strides are not supported, got strides ", shape_str(strides));
    int64_t reach;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach) || __builtin_add_overflow(last, reach, &last)) {
      throw Error(detail::str_cat(op, ": Storage size calculation overflowed with sizes=", shape_str(sizes),
                                  " and strides=", shape_str(strides)));
    }
  }
  return checked_add(last, 1, op);
}

int64_t checked_size_from_double(double v, const char* op) {
  // 2^63 is the first double past INT64_MAX
  TCORE_CHECK(std::isfinite(v) && v > -9223372036854775808.0 && v < 9223372036854775808.0, op, ": the value ", v,
              " is not a finite number in the range of int64");
  return static_cast<int64_t>(v);
}

}  // namespace tcore
