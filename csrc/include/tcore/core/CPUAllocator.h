#pragma once
// The CPU allocator: 64-byte aligned blocks; blocks of 2 MiB and more are 2 MiB aligned and
// asked to be backed by transparent huge pages (madvise), so a fresh output pays one page
// fault per 2 MiB instead of per 4 KiB; freed blocks are kept by size class (bounded:
// TCORE_CPU_CACHE_MB, default 1024; 0 turns the cache off) and handed out again, already
// faulted in. empty_cache() gives the cached blocks back to the system.
#include <cstddef>
#include <cstdint>

#include "tcore/core/Macros.h"

namespace tcore::cpu {

struct AllocatorStats {
  uint64_t allocated_bytes = 0;  // in blocks handed out now
  uint64_t cached_bytes = 0;     // in freed blocks kept for reuse
  uint64_t cache_hits = 0;
  uint64_t cache_misses = 0;
  uint64_t cache_limit_bytes = 0;
};

// A block of at least nbytes; *block_size is what release() must be given back.
TCORE_API void* allocate(size_t nbytes, size_t* block_size);
TCORE_API void release(void* ptr, size_t block_size);
TCORE_API void empty_cache();
TCORE_API AllocatorStats stats();

}  // namespace tcore::cpu
