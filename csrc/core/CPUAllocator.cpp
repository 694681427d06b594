#include "tcore/core/CPUAllocator.h"

#include <sys/mman.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "tcore/core/Macros.h"

namespace tcore::cpu {
namespace {

constexpr size_t kAlign = 64;
constexpr size_t kHugePage = size_t{2} << 20;

// Size classes: powers of two up to 2 MiB (at most 2x for small blocks), then multiples of
// 2 MiB (at most 2 MiB more than asked).
size_t size_class(size_t nbytes) {
  if (nbytes >= kHugePage) return (nbytes + kHugePage - 1) / kHugePage * kHugePage;
  size_t s = kAlign;
  while (s < nbytes) s <<= 1;
  return s;
}

uint64_t cache_limit_from_env() {
  const char* v = std::getenv("TCORE_CPU_CACHE_MB");
  if (v == nullptr || *v == '\0') return uint64_t{1024} << 20;
  char* end = nullptr;
  const unsigned long long mb = std::strtoull(v, &end, 10);
  if (end == v || *end != '\0' || mb > (uint64_t{1} << 40)) return uint64_t{1024} << 20;  // a bad value: the default
  return static_cast<uint64_t>(mb) << 20;
}

struct Cache {
  std::mutex mutex;
  std::map<size_t, std::vector<void*>> free_blocks;  // size class -> blocks
  AllocatorStats stats;
  Cache() { stats.cache_limit_bytes = cache_limit_from_env(); }
};
Cache& cache() {
  static Cache* c = new Cache();  // never destroyed: storages may be freed during exit
  return *c;
}

void* system_allocate(size_t block) {
  const size_t align = block >= kHugePage ? kHugePage : kAlign;
  void* p = std::aligned_alloc(align, block);
  if (p != nullptr && block >= kHugePage) {
#ifdef MADV_HUGEPAGE
    madvise(p, block, MADV_HUGEPAGE);  // advice only: without THP the pages are ordinary
#endif
  }
  return p;
}

}  // namespace

void* allocate(size_t nbytes, size_t* block_size) {
  TCORE_CHECK(nbytes <= (SIZE_MAX >> 1), "DefaultCPUAllocator: can't allocate memory: you tried to allocate ",
              nbytes, " bytes.");
  const size_t block = size_class(nbytes);
  *block_size = block;
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.free_blocks.find(block);
    if (it != c.free_blocks.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      c.stats.cached_bytes -= block;
      c.stats.allocated_bytes += block;
      c.stats.cache_hits += 1;
      return p;
    }
    c.stats.cache_misses += 1;
  }
  void* p = system_allocate(block);
  if (p == nullptr) {  // maybe the cache holds what the system would give: return it and retry
    empty_cache();
    p = system_allocate(block);
  }
  TCORE_CHECK(p != nullptr, "DefaultCPUAllocator: can't allocate memory: you tried to allocate ", nbytes,
              " bytes. Error code 12 (Cannot allocate memory)");
  std::lock_guard<std::mutex> lock(c.mutex);
  c.stats.allocated_bytes += block;
  return p;
}

void release(void* ptr, size_t block_size) {
  if (ptr == nullptr) return;
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.stats.allocated_bytes -= block_size;
    if (c.stats.cached_bytes + block_size <= c.stats.cache_limit_bytes) {
      c.free_blocks[block_size].push_back(ptr);
      c.stats.cached_bytes += block_size;
      return;
    }
  }
  std::free(ptr);
}

void empty_cache() {
  std::vector<void*> blocks;
  {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    for (auto& [size, list] : c.free_blocks) blocks.insert(blocks.end(), list.begin(), list.end());
    c.free_blocks.clear();
    c.stats.cached_bytes = 0;
  }
  for (void* p : blocks) std::free(p);
}

AllocatorStats stats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.stats;
}

}  // namespace tcore::cpu
