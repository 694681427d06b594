#include "tcore/core/Tensor.h"

#include <sstream>

#include "tcore/core/Scalar.h"
#include "tcore/core/SizeMath.h"
#include "tcore/cuda/CUDA.h"
#include "tcore/lazy/Lazy.h"

namespace tcore {

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
  if (device.is_meta()) return Storage(std::make_shared<StorageImpl>(nullptr, nbytes, device, nullptr));
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

Tensor make_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) {
  auto impl = std::make_shared<TensorImpl>(base.storage(), base.dtype(), std::move(sizes), std::move(strides), offset);
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
