#include "tcore/core/Storage.h"

#include <cstdlib>
#include <new>

namespace tcore {

Storage Storage::allocate_cpu(size_t nbytes) {
  constexpr size_t kAlign = 64;
  const size_t rounded = (nbytes + kAlign - 1) / kAlign * kAlign;
  void* data = rounded ? std::aligned_alloc(kAlign, rounded) : nullptr;
  if (rounded && data == nullptr) throw std::bad_alloc();
  return Storage(std::make_shared<StorageImpl>(data, nbytes, Device(DeviceType::CPU), [](void* p) { std::free(p); }));
}

}  // namespace tcore
