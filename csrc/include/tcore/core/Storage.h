#pragma once
// A reference-counted block of bytes on one device. Views share one Storage.
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

#include "tcore/core/Device.h"

namespace tcore {

class TCORE_API StorageImpl {
 public:
  using Deleter = std::function<void(void*)>;
  // resizable: memory tcore's allocators gave (allocate_storage), which resize_ may replace;
  // memory lent from outside (numpy, DLPack) is not
  StorageImpl(void* data, size_t nbytes, Device device, Deleter deleter, bool resizable = false)
      : data_(data), nbytes_(nbytes), device_(device), deleter_(std::move(deleter)), resizable_(resizable) {}
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;
  ~StorageImpl() {
    if (deleter_) deleter_(data_);
  }

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  bool resizable() const { return resizable_; }
  // memory another owner reads too from now on (a numpy array of it): never replaced
  void forbid_resize() { resizable_ = false; }
  // this storage takes other's memory and other this one's (same device): every tensor sharing
  // this storage sees the new memory (resize_'s growth)
  void swap_memory(StorageImpl& other) {
    std::swap(data_, other.data_);
    std::swap(nbytes_, other.nbytes_);
    std::swap(deleter_, other.deleter_);
  }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  Deleter deleter_;
  bool resizable_;
};

class TCORE_API Storage {
 public:
  Storage() = default;
  explicit Storage(std::shared_ptr<StorageImpl> impl) : impl_(std::move(impl)) {}
  // nbytes of CPU memory, 64-byte aligned so that loops vectorize.
  static Storage allocate_cpu(size_t nbytes);

  bool defined() const { return impl_ != nullptr; }
  void* data() const { return impl_->data(); }
  size_t nbytes() const { return impl_->nbytes(); }
  Device device() const { return impl_->device(); }
  bool is_alias_of(const Storage& o) const { return impl_ == o.impl_; }
  bool resizable() const { return impl_->resizable(); }
  void forbid_resize() const { impl_->forbid_resize(); }
  void swap_memory(const Storage& o) const { impl_->swap_memory(*o.impl_); }
  long use_count() const { return impl_.use_count(); }

 private:
  std::shared_ptr<StorageImpl> impl_;
};

}  // namespace tcore
