#pragma once
// Tensor: a handle to TensorImpl = storage + dtype + sizes + strides + offset.
//
// Element (i0, ..., in-1) lives at byte
//   storage.data() + (storage_offset + sum_k i_k * strides[k]) * element_size(dtype)
// Strides are in elements; a view shares the storage with another offset/strides.
// Operators are free functions (tcore::add, in generated per-operator headers), so
// this header never changes when an operator does; a + b and the other C++ operators are
// templates over them (TensorOperators.h).
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <vector>

#include "tcore/core/ArrayRef.h"
#include "tcore/core/Device.h"
#include "tcore/core/Scalar.h"
#include "tcore/core/ScalarType.h"
#include "tcore/core/Storage.h"

namespace tcore {

namespace autograd {
struct AutogradMeta;  // csrc/autograd: requires_grad, grad, grad_fn, hooks
}
namespace functionalization {
struct FunctionalState;  // tcore/core/FunctionalTensor.h
}

namespace detail {
// How a Python object that a tensor keeps alive is let go (set by the Python bindings: its
// reference dropped under the GIL; null without them).
TCORE_API extern void (*py_object_release)(void* object);
}  // namespace detail

// The Python object that holds a tensor, where one does: the Python bindings (python/bind.h)
// record the object they wrap a TensorImpl in and the address of the Tensor inside that object, so
// that an operator returning the same tensor (x.add_(1), x.contiguous(), p.grad) gives back the
// same object, as PyTorch's do; that Tensor forgets it when it is destroyed or reassigned (Tensor's
// special members). A copy of an impl starts without one.
//
// PyTorch's object preservation: when the object's last Python reference goes while C++ still
// holds the tensor (x.grad, a saved tensor, a view's base), the object lives on, owned by the slot
// (`own`), and the Tensor inside it lets go of the impl (no cycle); handed back to Python it owns
// its tensor again (`disown`), attributes and weak references intact; the impl's end releases it.
// Atomic: a Tensor may be destroyed on any thread (only Python's, under its lock, changes owners).
class PyObjectSlot {
 public:
  PyObjectSlot() = default;
  PyObjectSlot(const PyObjectSlot&) {}
  PyObjectSlot& operator=(const PyObjectSlot&) { return *this; }
  ~PyObjectSlot() { release_owned(); }
  // the object the slot owns, let go (TensorImpl's destructor: before any of the impl's members end)
  void release_owned() {
    if (!owned_.exchange(false, std::memory_order_acq_rel)) return;
    void* o = object_.exchange(nullptr, std::memory_order_acq_rel);
    if (o != nullptr && detail::py_object_release != nullptr) detail::py_object_release(o);
  }
  void* object() const { return object_.load(std::memory_order_acquire); }
  bool owned() const { return owned_.load(std::memory_order_acquire); }
  void set(void* object, const void* holder) {
    release_owned();
    holder_.store(holder, std::memory_order_relaxed);
    object_.store(object, std::memory_order_release);
  }
  void forget(const void* holder) {
    if (holder_.load(std::memory_order_relaxed) != holder || holder == nullptr) return;
    object_.store(nullptr, std::memory_order_relaxed);
    holder_.store(nullptr, std::memory_order_relaxed);
  }
  // the object's last Python reference went: the slot holds it now
  void own(void* object) {
    holder_.store(nullptr, std::memory_order_relaxed);
    object_.store(object, std::memory_order_relaxed);
    owned_.store(true, std::memory_order_release);
  }
  // back in Python's hands: the caller takes the slot's reference; `holder` is the Tensor inside
  void disown(const void* holder) {
    holder_.store(holder, std::memory_order_relaxed);
    owned_.store(false, std::memory_order_release);
  }

 private:
  std::atomic<void*> object_{nullptr};
  std::atomic<const void*> holder_{nullptr};
  std::atomic<bool> owned_{false};
};

class TCORE_API TensorImpl {
 public:
  // a Python object the impl keeps alive goes first, while the impl is whole (its weak references'
  // callbacks run Python code)
  ~TensorImpl() { py_object.release_owned(); }
  TensorImpl(const TensorImpl&) = default;
  TensorImpl(Storage storage, ScalarType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
             int64_t storage_offset);

  const Storage& storage() const { return storage_; }
  ScalarType dtype() const { return dtype_; }
  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t storage_offset() const { return storage_offset_; }
  int64_t numel() const { return numel_; }
  bool is_contiguous() const { return is_contiguous_; }

  // Only for fresh outputs (resize of out=) and in-place metadata changes.
  void set_sizes_and_strides(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset);
  void set_storage(Storage storage) { storage_ = std::move(storage); }

  // Python numbers that became tensors take part in type promotion as scalars.
  bool is_wrapped_number = false;
  // Bumped by every in-place write; shared by all views of one storage.
  std::shared_ptr<std::atomic<uint32_t>> version;
  // Set only for tensors that take part in autograd (null in a build without it).
  std::shared_ptr<autograd::AutogradMeta> autograd_meta;
  bool requires_grad = false;  // a leaf that wants .grad, or the output of a recorded op
  // The tensor this one is a view of (never itself a view), set on the outputs of view
  // operators by their in-place-or-view kernels; null for other tensors and for detach().
  std::shared_ptr<TensorImpl> view_base;
  // A forward-mode tangent is attached (csrc/autograd/ForwardAD.cpp); checked by dispatch.
  bool has_fw_grad = false;
  // Set on the wrappers tcore.func.functionalize runs a function on (its value, its views).
  std::shared_ptr<functionalization::FunctionalState> functional;
  PyObjectSlot py_object;

 private:
  void refresh();
  Storage storage_;
  ScalarType dtype_;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  int64_t storage_offset_;
  int64_t numel_ = 1;
  bool is_contiguous_ = true;
};

class TCORE_API Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  // A Tensor held by a Python object stops standing for it when destroyed, reassigned or moved
  // from (TensorImpl's py_object).
  Tensor(const Tensor&) = default;
  Tensor(Tensor&& o) noexcept : impl_(std::move(o.impl_)) {
    if (impl_) impl_->py_object.forget(&o);
  }
  // The old impl is let go only once this Tensor holds the new one: its end may run Python code
  // (a kept object's weak reference callbacks, TensorImpl's PyObjectSlot) that reads this Tensor.
  Tensor& operator=(const Tensor& o) {
    if (this != &o) {
      forget_py_object();
      std::shared_ptr<TensorImpl> old = o.impl_;
      impl_.swap(old);
    }
    return *this;
  }
  Tensor& operator=(Tensor&& o) noexcept {
    if (this != &o) {
      forget_py_object();
      std::shared_ptr<TensorImpl> old = std::move(o.impl_);
      impl_.swap(old);
      if (impl_) impl_->py_object.forget(&o);
    }
    return *this;
  }
  ~Tensor() { forget_py_object(); }

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  ScalarType dtype() const { return impl_->dtype(); }
  ScalarType scalar_type() const { return impl_->dtype(); }
  Device device() const { return impl_->storage().device(); }
  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(impl_->sizes().size()); }
  int64_t numel() const { return impl_->numel(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  int64_t element_size() const { return tcore::element_size(dtype()); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  // In that format's order (preserve_format asks for the default, as in PyTorch).
  bool is_contiguous(MemoryFormat format) const;
  // PyTorch's suggest_memory_format: channels_last for a 4-D tensor whose strides order its dims as
  // channels_last does (C innermost, then W, H, N; ambiguous cases contiguous), else contiguous.
  // The layout the convolution, pooling and normalization operators give their results.
  MemoryFormat suggest_memory_format() const;
  const Storage& storage() const { return impl_->storage(); }

  // A meta or lazy tensor has no data: any kernel that asks for it gets an error, never a null
  // pointer (a lazy tensor's data is computed through tcore/lazy/Lazy.h).
  void* data_ptr() const {
    const DeviceType type = impl_->storage().device().type;
    if (type == DeviceType::Meta || type == DeviceType::Lazy) throw_no_data();
    return static_cast<char*>(impl_->storage().data()) + storage_offset() * element_size();
  }
  template <typename T>
  T* data_ptr() const {
    TCORE_CHECK_TYPE(scalar_type_of<T>::value == dtype(), "data_ptr: tensor has dtype ", dtype());
    return static_cast<T*>(data_ptr());
  }

  // Whether autograd records operations on this tensor (csrc/autograd): a view requires
  // grad as soon as its base does (PyTorch's differentiable views).
  bool requires_grad() const {
    return impl_->requires_grad || (impl_->view_base != nullptr && impl_->view_base->requires_grad);
  }
  bool is_view() const { return impl_->view_base != nullptr; }

  // Marks an in-place write (autograd checks saved tensors against it).
  void bump_version() const { impl_->version->fetch_add(1, std::memory_order_relaxed); }
  uint32_t version() const { return impl_->version->load(std::memory_order_relaxed); }

 private:
  [[noreturn]] void throw_no_data() const;
  void forget_py_object() {
    if (impl_) impl_->py_object.forget(this);
  }
  std::shared_ptr<TensorImpl> impl_;
};

// "[2, 3]"
TCORE_API std::string shape_str(IntArrayRef sizes);
// Dimension wrapping as in PyTorch: -1 is the last dim; an out-of-range dim throws IndexError.
TCORE_API int64_t wrap_dim(int64_t dim, int64_t ndim, bool allow_scalar = true);
TCORE_API std::vector<int64_t> contiguous_strides(IntArrayRef sizes);
TCORE_API int64_t numel_of(IntArrayRef sizes);

// Fresh tensors (no dispatch: the building blocks kernels use).
TCORE_API Tensor empty_cpu(IntArrayRef sizes, ScalarType dtype);
// nbytes on `device` (CPU memory, or the CUDA caching allocator), and a fresh tensor there.
TCORE_API Storage allocate_storage(size_t nbytes, Device device);
TCORE_API Tensor empty_on(IntArrayRef sizes, ScalarType dtype, Device device);
// A fresh tensor with these strides (non-negative; its storage reaches the last element). A lazy
// tensor has no strides of its own: it comes out contiguous.
TCORE_API Tensor empty_strided_on(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device);
// The dims of `shape`, innermost first, in the memory order of operands whose `strides` (one
// vector per operand, seen with `shape`; 0 for a broadcast dim) are given: PyTorch's
// TensorIterator::reorder_dimensions and infer_dense_strides. An insertion sort from the row-major
// order: the first operand whose strides tell two dims apart decides (a stride of 0 tells nothing;
// equal strides put the larger dim outside).
TCORE_API std::vector<size_t> memory_order(IntArrayRef shape, const std::vector<std::vector<int64_t>>& strides);
// PyTorch's is_non_overlapping_and_dense: the elements fill a block of memory exactly, in some order of
// the dims (sizes below 2 do not count; an empty tensor is).
TCORE_API bool non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides);
// The strides memory_format=preserve_format gives a fresh copy of t (clone, empty_like, to): t's own
// when it is non-overlapping and dense, else dense strides in the order of t's (PyTorch's
// infer_dense_strides: dims ordered by stride, a stride of 0 keeping its place, equal strides the
// smaller size inner).
TCORE_API std::vector<int64_t> preserved_strides(IntArrayRef sizes, IntArrayRef strides);
// PyTorch's channels_last contiguity: a 4-D tensor with C innermost, then W, H, N (dims of size 1
// skipped); false for other ranks.
TCORE_API bool is_channels_last_contiguous(IntArrayRef sizes, IntArrayRef strides);
// The strides memory_format=channels_last gives `sizes` (4-D only, as in PyTorch; a 0 size makes the
// strides outside it 0).
TCORE_API std::vector<int64_t> channels_last_strides(IntArrayRef sizes);
// The strides a factory's memory_format gives a fresh tensor of `sizes`: empty (contiguous) for
// contiguous_format or none, channels_last's; preserve_format has nothing to preserve: an error.
TCORE_API std::vector<int64_t> format_strides(IntArrayRef sizes, std::optional<MemoryFormat> format);
TCORE_API Tensor make_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                           int64_t offset);
// base's storage seen as elements of `dtype` (view(dtype)): sizes, strides and offset in those elements.
TCORE_API Tensor make_view(const Tensor& base, ScalarType dtype, std::vector<int64_t> sizes,
                           std::vector<int64_t> strides, int64_t offset);
TCORE_API Tensor wrapped_scalar_tensor(const Scalar& s);

TCORE_API std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace tcore

#include "tcore/core/TensorOperators.h"
