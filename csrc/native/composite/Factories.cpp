// zeros, ones, full (and out= forms), *_like, arange/eye short forms and rand/randn/randint(_like):
// empty + fill_/uniform_/normal_/random_ through the dispatcher, so they work on every
// backend that has those.
#include <algorithm>
#include <limits>
#include <vector>

#include <tcore/ops/arange.h>
#include <tcore/ops/arange_native.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/empty_like.h>
#include <tcore/ops/empty_like_native.h>
#include <tcore/ops/empty_native.h>
#include <tcore/ops/empty_strided.h>
#include <tcore/ops/empty_strided_native.h>
#include <tcore/ops/eye.h>
#include <tcore/ops/eye_native.h>
#include <tcore/ops/fill.h>
#include <tcore/ops/full.h>
#include <tcore/ops/full_like_native.h>
#include <tcore/ops/full_native.h>
#include <tcore/ops/normal.h>
#include <tcore/ops/ones_like_native.h>
#include <tcore/ops/ones_native.h>
#include <tcore/ops/rand_like_native.h>
#include <tcore/ops/rand_native.h>
#include <tcore/ops/randint_like_native.h>
#include <tcore/ops/randint_native.h>
#include <tcore/ops/randn_like_native.h>
#include <tcore/ops/randn_native.h>
#include <tcore/ops/random.h>
#include <tcore/ops/uniform.h>
#include <tcore/ops/zero_native.h>
#include <tcore/ops/zeros_like_native.h>
#include <tcore/ops/add.h>
#include <tcore/ops/all.h>
#include <tcore/ops/ge.h>
#include <tcore/ops/mul.h>
#include <tcore/ops/normal_native.h>
#include <tcore/ops/zeros_native.h>
#include <tcore/ops/tril_indices_native.h>
#include <tcore/ops/triu_indices_native.h>

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

// ---------------------------------------------------------------- short forms and *_like

Tensor arange(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Layout> layout,
              std::optional<Device> device, std::optional<bool> pin_memory) {
  return tcore::arange(Scalar(int64_t{0}), end, Scalar(int64_t{1}), dtype, layout, device, pin_memory);
}
Tensor arange(const Scalar& start, const Scalar& end, std::optional<ScalarType> dtype, std::optional<Layout> layout,
              std::optional<Device> device, std::optional<bool> pin_memory) {
  return tcore::arange(start, end, Scalar(int64_t{1}), dtype, layout, device, pin_memory);
}
Tensor eye(int64_t n, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
           std::optional<bool> pin_memory) {
  return tcore::eye(n, n, dtype, layout, device, pin_memory);
}

// The (row, column) pairs of a row x col matrix's lower (upper) triangle from diagonal offset, row
// by row, as a (2, count) tensor of an integer dtype (torch's checks and words)
namespace {
Tensor triangle_indices(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                        std::optional<Layout> layout, std::optional<Device> device, bool lower, const char* op) {
  TCORE_CHECK_VALUE(row >= 0, "row must be non-negative, got", row);
  TCORE_CHECK_VALUE(col >= 0, "col must be non-negative, got", col);
  TCORE_CHECK_VALUE(!layout || *layout == Layout::Strided, op, ": only the strided layout is supported");
  const ScalarType t = dtype.value_or(ScalarType::Long);
  if (!is_integral(t, false)) throw NotImplementedError(detail::str_cat("\"", op, "\" not implemented for '", t, "'"));
  // row i's columns [first(i), end(i)); their count summed in closed form (row and col may be huge:
  // the size is checked by the allocation, never computed in a loop over the rows)
  const auto first = [&](int64_t i) { return lower ? int64_t{0} : std::clamp<int64_t>(i + offset, 0, col); };
  const auto end = [&](int64_t i) { return lower ? std::clamp<int64_t>(i + offset + 1, 0, col) : col; };
  __int128 count = 0;
  {
    // end(i) - first(i) is piecewise linear in i: 0 or col outside [a, b), slope 1 (lower) or -1 inside
    const __int128 lo = lower ? -static_cast<__int128>(offset) - 1 : -static_cast<__int128>(offset);
    const __int128 a = std::clamp<__int128>(lo, 0, row), b = std::clamp<__int128>(lo + col, 0, row);
    const __int128 inside = b - a;
    count = lower ? (row - b) * col : a * col;  // the rows that take every column
    if (inside > 0) {  // lower: row i in [a, b) takes i - lo of them; upper: col - (i - lo)
      const __int128 sum_i = (a + b - 1) * inside / 2;  // sum of i over [a, b)
      count += lower ? sum_i - lo * inside : col * inside - (sum_i - lo * inside);
    }
  }
  TCORE_CHECK_VALUE(count <= std::numeric_limits<int64_t>::max() / 2, op, ": ", row, " x ", col,
                    " indices overflow int64");
  const int64_t n = static_cast<int64_t>(count);
  Tensor r = empty_cpu({2, n}, ScalarType::Long);  // (the allocator's error for a size it cannot hold)
  int64_t* rows = r.data_ptr<int64_t>();
  int64_t* cols = rows + n;
  for (int64_t i = lower ? std::max<int64_t>(0, -offset) : 0, k = 0; k < n; ++i) {  // (from the first row with one)
    for (int64_t j = first(i); j < end(i); ++j, ++k) {
      rows[k] = i;
      cols[k] = j;
    }
  }
  return on_device(cast(r, t), device.value_or(Device(DeviceType::CPU)));
}
}  // namespace

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device, std::optional<bool>) {
  return triangle_indices(row, col, offset, dtype, layout, device, true, "tril_indices");
}

Tensor triu_indices(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device, std::optional<bool>) {
  return triangle_indices(row, col, offset, dtype, layout, device, false, "triu_indices");
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  (void)pin_memory;
  TCORE_CHECK_VALUE(!layout || *layout == Layout::Strided, "empty_strided: only the strided layout is supported");
  return empty_strided_on(size, stride, dtype.value_or(default_float_dtype()), device.value_or(Device(DeviceType::CPU)));
}

// The memory format of a fresh tensor shaped like self, PyTorch's: preserve_format (the default)
// keeps self's layout (preserved_strides), contiguous_format is row-major.
Tensor empty_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  const ScalarType t = dtype.value_or(self.dtype());
  const Device d = device.value_or(self.device());
  if (format == MemoryFormat::Contiguous) return tcore::empty(self.sizes(), t, layout, d, pin_memory, std::nullopt);
  if (format == MemoryFormat::ChannelsLast)
    return tcore::empty_strided(self.sizes(), channels_last_strides(self.sizes()), t, layout, d, pin_memory);
  return tcore::empty_strided(self.sizes(), preserved_strides(self.sizes(), self.strides()), t, layout, d, pin_memory);
}
Tensor zeros_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return tcore::fill_(tcore::empty_like(self, dtype, layout, device, pin_memory, memory_format), 0);
}
Tensor ones_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return tcore::fill_(tcore::empty_like(self, dtype, layout, device, pin_memory, memory_format), 1);
}
Tensor full_like(const Tensor& self, const Scalar& fill_value, std::optional<ScalarType> dtype,
                 std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return tcore::fill_(tcore::empty_like(self, dtype, layout, device, pin_memory, memory_format), fill_value);
}

// ---------------------------------------------------------------- random factories

Tensor rand(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  return tcore::uniform_(tcore::empty(size, dtype, layout, device, pin_memory, std::nullopt), 0.0, 1.0);
}
Tensor randn(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory) {
  return tcore::normal_(tcore::empty(size, dtype, layout, device, pin_memory, std::nullopt), 0.0, 1.0);
}
Tensor randint(int64_t high, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
               std::optional<Device> device, std::optional<bool> pin_memory) {
  return tcore::random_(tcore::empty(size, dtype, layout, device, pin_memory, std::nullopt), 0, high);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef size, std::optional<ScalarType> dtype,
               std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return tcore::random_(tcore::empty(size, dtype, layout, device, pin_memory, std::nullopt), low, high);
}

// rand/randn/randint shaped like self (its dtype, device and, by default, its layout).
Tensor rand_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return tcore::uniform_(tcore::empty_like(self, dtype, layout, device, pin_memory, memory_format), 0.0, 1.0);
}
Tensor randn_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return tcore::normal_(tcore::empty_like(self, dtype, layout, device, pin_memory, memory_format), 0.0, 1.0);
}
Tensor randint_like(const Tensor& self, int64_t high, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                    std::optional<Device> device, std::optional<bool> pin_memory,
                    std::optional<MemoryFormat> memory_format) {
  return tcore::random_(tcore::empty_like(self, dtype, layout, device, pin_memory, memory_format), 0, high);
}
Tensor randint_like(const Tensor& self, int64_t low, int64_t high, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                    std::optional<MemoryFormat> memory_format) {
  return tcore::random_(tcore::empty_like(self, dtype, layout, device, pin_memory, memory_format), low, high);
}

// torch.normal's tensor forms: standard normal draws of the broadcast shape, times std, plus mean
// (std checked >= 0, torch's message; a negative element of a std tensor too).
namespace {
Tensor normal_around(const Tensor& mean, const Tensor& std, const std::optional<Generator>& generator) {
  TCORE_CHECK_VALUE(std.numel() == 0 || item<bool>(tcore::all(tcore::ge(std, Scalar(0)))),
                    "normal expects all elements of std >= 0.0");
  const std::vector<int64_t> shape = broadcast_shapes(mean.sizes(), std.sizes());
  const ScalarType dtype = promoted(mean, std);
  Tensor draws = tcore::normal_(tcore::empty(shape, dtype, std::nullopt, mean.device(), std::nullopt, std::nullopt),
                                0.0, 1.0, generator);
  return tcore::add(tcore::mul(draws, std), mean, 1);
}
}  // namespace

Tensor normal(const Tensor& mean, double std, const std::optional<Generator>& generator) {
  TCORE_CHECK_VALUE(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  Tensor draws = tcore::normal_(tcore::empty_like(mean, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                                  MemoryFormat::Contiguous), 0.0, std, generator);
  return tcore::add(draws, mean, 1);
}
Tensor normal(double mean, const Tensor& std, const std::optional<Generator>& generator) {
  TCORE_CHECK_VALUE(std.numel() == 0 || item<bool>(tcore::all(tcore::ge(std, Scalar(0)))),
                    "normal expects all elements of std >= 0.0");
  Tensor draws = tcore::normal_(tcore::empty_like(std, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                                  MemoryFormat::Contiguous), 0.0, 1.0, generator);
  return tcore::add(tcore::mul(draws, std), Scalar(mean), 1);
}
Tensor normal(const Tensor& mean, const Tensor& std, const std::optional<Generator>& generator) {
  return normal_around(mean, std, generator);
}
Tensor normal(double mean, double std, IntArrayRef size, const std::optional<Generator>& generator,
              std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
              std::optional<bool> pin_memory) {
  return tcore::normal_(tcore::empty(size, dtype, layout, device, pin_memory, std::nullopt), mean, std, generator);
}

// The same with a Generator (None: the default one).
Tensor rand(IntArrayRef size, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return tcore::uniform_(tcore::empty(size, dtype, layout, device, pin_memory, std::nullopt), 0.0, 1.0, generator);
}
Tensor randn(IntArrayRef size, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
             std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return tcore::normal_(tcore::empty(size, dtype, layout, device, pin_memory, std::nullopt), 0.0, 1.0, generator);
}
Tensor randint(int64_t high, IntArrayRef size, const std::optional<Generator>& generator,
               std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
               std::optional<bool> pin_memory) {
  return tcore::random_(tcore::empty(size, dtype, layout, device, pin_memory, std::nullopt), 0, high, generator);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const std::optional<Generator>& generator,
               std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
               std::optional<bool> pin_memory) {
  return tcore::random_(tcore::empty(size, dtype, layout, device, pin_memory, std::nullopt), low, high, generator);
}

}  // namespace tcore::native
