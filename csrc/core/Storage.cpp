#include "tcore/core/Storage.h"

#include "tcore/core/CPUAllocator.h"

namespace tcore {

Storage Storage::allocate_cpu(size_t nbytes) {
  if (nbytes == 0) return Storage(std::make_shared<StorageImpl>(nullptr, 0, Device(DeviceType::CPU), nullptr, true));
  size_t block = 0;
  void* data = cpu::allocate(nbytes, &block);
  return Storage(std::make_shared<StorageImpl>(data, nbytes, Device(DeviceType::CPU),
                                               [block](void* p) { cpu::release(p, block); }, true));
}

}  // namespace tcore
