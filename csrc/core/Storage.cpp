#include "tcore/core/Storage.h"

#include <cstdlib>
#include <cstdint>

#include "tcore/core/Macros.h"

namespace tcore {

Storage Storage::allocate_cpu(size_t nbytes) {
  constexpr size_t kAlign = 64;
  TCORE_CHECK(nbytes <= SIZE_MAX - kAlign, "DefaultCPUAllocator: can't allocate memory: you tried to allocate ",
              nbytes, " bytes.");
  const size_t rounded = (nbytes + kAlign - 1) / kAlign * kAlign;
  void* data = rounded ? std::aligned_alloc(kAlign, rounded) : nullptr;
  TCORE_CHECK(!rounded || data != nullptr, "DefaultCPUAllocator: can't allocate memory: you tried to allocate ",
              nbytes, " bytes. Error code 12 (Cannot allocate memory)");
  return Storage(std::make_shared<StorageImpl>(data, nbytes, Device(DeviceType::CPU), [](void* p) { std::free(p); }));
}

}  // namespace tcore
