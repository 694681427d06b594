#include "tcore/core/Tensor.h"

#include <algorithm>
#include <sstream>

#include "tcore/core/Scalar.h"
#include "tcore/core/SizeMath.h"
#include "tcore/cuda/CUDA.h"
#include "tcore/lazy/Lazy.h"

namespace tcore {

void (*detail::py_object_release)(void* object) = nullptr;

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, std::vector<int64_t> sizes,
                       std::vector<int64_t> strides, int64_t storage_offset)
    : version(std::make_shared<std::atomic<uint32_t>>(0)),
      storage_(std::move(storage)),
      dtype_(dtype),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      storage_offset_(storage_offset) {
  refresh();
}

void TensorImpl::set_sizes_and_strides(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) {
  sizes_ = std::move(sizes);
  strides_ = std::move(strides);
  storage_offset_ = offset;
  refresh();
}

// The invariant every tensor keeps: sizes >= 0, a numel that fits in int64, and every
// element inside its storage (checked against the storage's bytes when it has any).
void TensorImpl::refresh() {
  numel_ = checked_numel(sizes_, "tensor");
  const int64_t needed = required_storage_elements(sizes_, strides_, storage_offset_, "tensor");
  if (storage_.defined() && needed > 0) {
    const int64_t capacity = static_cast<int64_t>(storage_.nbytes() / static_cast<size_t>(element_size(dtype_)));
    TCORE_CHECK(needed <= capacity, "setStorage: sizes ", shape_str(sizes_), ", strides ", shape_str(strides_),
                ", storage offset ", storage_offset_, " require a storage of ", needed, " elements, but it has ",
                capacity);
  }
  // contiguous: strides equal the row-major strides, ignoring dims of size 1
  is_contiguous_ = true;
  int64_t expected = 1;
  for (int64_t d = static_cast<int64_t>(sizes_.size()) - 1; d >= 0; --d) {
    if (sizes_[d] == 1) continue;
    if (strides_[d] != expected) {
      is_contiguous_ = numel_ == 0;
      break;
    }
    expected *= sizes_[d];
  }
}

int64_t Tensor::size(int64_t dim) const { return sizes()[wrap_dim(dim, this->dim(), false)]; }
int64_t Tensor::stride(int64_t dim) const { return strides()[wrap_dim(dim, this->dim(), false)]; }

std::string shape_str(IntArrayRef sizes) {
  std::ostringstream ss;
  ss << "[";
  for (size_t i = 0; i < sizes.size(); ++i) ss << (i ? ", " : "") << sizes[i];
  ss << "]";
  return ss.str();
}

int64_t wrap_dim(int64_t dim, int64_t ndim, bool allow_scalar) {
  int64_t n = ndim;
  if (n == 0 && allow_scalar) n = 1;
  TCORE_CHECK_INDEX(n > 0, "dimension specified as ", dim, " but tensor has no dimensions");
  TCORE_CHECK_INDEX(dim >= -n && dim < n, "Dimension out of range (expected to be in range of [", -n, ", ",
                    n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

std::vector<int64_t> contiguous_strides(IntArrayRef sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    s = checked_mul(s, std::max<int64_t>(sizes[d], 1), "contiguous_strides");
  }
  return strides;
}

int64_t numel_of(IntArrayRef sizes) { return checked_numel(sizes, "numel"); }

Tensor empty_cpu(IntArrayRef sizes, ScalarType dtype) { return empty_on(sizes, dtype, Device(DeviceType::CPU)); }

Storage allocate_storage(size_t nbytes, Device device) {
  if (device.is_cpu()) return Storage::allocate_cpu(nbytes);
  if (device.is_meta()) return Storage(std::make_shared<StorageImpl>(nullptr, nbytes, device, nullptr, true));
  TCORE_CHECK(!device.is_lazy(), "a lazy storage holds a value of one dtype: make lazy tensors with empty_on");
  TCORE_CHECK_VALUE(device.type == DeviceType::CUDA, "no allocator for device ", device.str());
  return cuda::allocate(nbytes, device.index);
}

Tensor empty_on(IntArrayRef sizes, ScalarType dtype, Device device) {
  const int64_t nbytes = checked_nbytes(sizes, element_size(dtype), "empty");
  if (device.is_lazy()) return lazy::empty(sizes, dtype);
  Storage storage = allocate_storage(static_cast<size_t>(nbytes), device);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes.vec(), contiguous_strides(sizes), 0));
}

Tensor empty_strided_on(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device) {
  const int64_t n = required_storage_elements(sizes, strides, 0, "empty_strided");
  if (device.is_lazy()) return empty_on(sizes, dtype, device);
  int64_t nbytes;
  if (__builtin_mul_overflow(n, element_size(dtype), &nbytes)) {
    throw Error(detail::str_cat("empty_strided: Storage size calculation overflowed with sizes=", shape_str(sizes),
                                " and strides=", shape_str(strides)));
  }
  Storage storage = allocate_storage(static_cast<size_t>(nbytes), device);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes.vec(), strides.vec(), 0));
}

std::vector<size_t> memory_order(IntArrayRef shape, const std::vector<std::vector<int64_t>>& strides) {
  const size_t n = shape.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = n - 1 - i;
  const auto outer = [&](size_t a, size_t b) {  // 1: a belongs outside b, -1: inside, 0: no opinion
    for (const auto& s : strides) {
      if (s[a] == 0 || s[b] == 0) continue;
      if (s[a] != s[b]) return s[a] < s[b] ? -1 : 1;
      if (shape[a] > shape[b]) return 1;
    }
    return 0;
  };
  for (size_t i = 1; i < n; ++i) {  // a dim moves inwards past those that belong outside it
    size_t at = i;
    for (size_t j = i; j-- > 0;) {
      const int c = outer(order[j], order[at]);
      if (c > 0) {
        std::swap(order[j], order[at]);
        at = j;
      } else if (c < 0) {
        break;
      }
    }
  }
  return order;
}

bool non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
  const size_t n = sizes.size();
  for (int64_t s : sizes)
    if (s == 0) return true;  // no elements: contiguous, whatever the strides say
  if (n == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<size_t> order(n);
  for (size_t d = 0; d < n; ++d) order[d] = d;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {  // sizes below 2 last
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (size_t d : order) {
    if (sizes[d] < 2) return true;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

std::vector<int64_t> preserved_strides(IntArrayRef sizes, IntArrayRef strides) {
  if (non_overlapping_and_dense(sizes, strides)) return strides.vec();
  std::vector<int64_t> out(sizes.size());
  int64_t step = 1;
  for (size_t d : memory_order(sizes, {strides.vec()})) {
    out[d] = step;
    if (sizes[d] > 1) step *= sizes[d];
  }
  return out;
}

namespace {
constexpr int kChannelsLastOrder[] = {1, 3, 2, 0};  // innermost first
}

bool is_channels_last_contiguous(IntArrayRef sizes, IntArrayRef strides) {
  if (sizes.size() != 4) return false;
  int64_t expected = 1;
  for (int d : kChannelsLastOrder) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

std::vector<int64_t> channels_last_strides(IntArrayRef sizes) {
  TCORE_CHECK(sizes.size() == 4, "required rank 4 tensor to use channels_last format");
  std::vector<int64_t> out(4);
  int64_t step = 1;
  for (int d : kChannelsLastOrder) {
    out[d] = step;
    step *= sizes[d];
  }
  return out;
}

std::vector<int64_t> format_strides(IntArrayRef sizes, std::optional<MemoryFormat> format) {
  if (!format || *format == MemoryFormat::Contiguous) return {};
  TCORE_CHECK(*format != MemoryFormat::Preserve, "unsupported memory format Preserve");
  return channels_last_strides(sizes);
}

MemoryFormat Tensor::suggest_memory_format() const {
  if (dim() != 4 || strides()[1] == 0) return MemoryFormat::Contiguous;  // a C of stride 0: NCHW by default
  int64_t min = 0;
  for (int d : kChannelsLastOrder) {
    if (sizes()[d] == 0 || strides()[d] < min) return MemoryFormat::Contiguous;
    // N111-like ambiguous cases (all strides equal) fall back to contiguous, as in PyTorch
    if (d == 0 && min == strides()[1]) return MemoryFormat::Contiguous;
    min = strides()[d] * (sizes()[d] > 1 ? sizes()[d] : 1);
  }
  return MemoryFormat::ChannelsLast;
}

bool Tensor::is_contiguous(MemoryFormat format) const {
  return format == MemoryFormat::ChannelsLast ? is_channels_last_contiguous(sizes(), strides()) : is_contiguous();
}

Tensor make_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) {
  return make_view(base, base.dtype(), std::move(sizes), std::move(strides), offset);
}

Tensor make_view(const Tensor& base, ScalarType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                 int64_t offset) {
  auto impl = std::make_shared<TensorImpl>(base.storage(), dtype, std::move(sizes), std::move(strides), offset);
  impl->version = base.impl()->version;  // views share the version counter
  return Tensor(std::move(impl));
}

void Tensor::throw_no_data() const {
  if (device().is_lazy()) {
    throw NotImplementedError(detail::str_cat("a lazy tensor (", dtype(), ", size ", shape_str(sizes()),
                                              ") has no data here: read it through .to(\"cpu\"), .item(), .numpy() ",
                                              "or tcore.lazy.sync()"));
  }
  throw NotImplementedError(detail::str_cat("a meta tensor (", dtype(), ", size ", shape_str(sizes()),
                                            ") has no data: its values cannot be read or written"));
}

Tensor wrapped_scalar_tensor(const Scalar& s) {
  const ScalarType dtype = s.is_bool() ? ScalarType::Bool : s.is_integral() ? ScalarType::Long : ScalarType::Double;
  Tensor t = empty_cpu({}, dtype);
  dispatch_dtype(dtype, "wrapped_scalar_tensor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    *t.data_ptr<T>() = s.to<T>();
  });
  t.impl()->is_wrapped_number = true;
  return t;
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "tensor(undefined)";
  os << "tensor(shape=" << shape_str(t.sizes()) << ", dtype=" << t.dtype() << ", device=" << t.device() << ")";
  return os;
}

}  // namespace tcore
