#pragma once
// parallel_for: [begin, end) cut into one contiguous chunk per thread, when the range is
// larger than `grain` elements (PyTorch's GRAIN_SIZE: smaller work is not worth a
// thread). Nested calls run serially. The body must not throw.
#include "tcore/core/CPUCapability.h"
#include <algorithm>
#include <cstdint>

#include "tcore/core/Parallel.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

constexpr int64_t kGrainSize = 32768;

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
#ifdef _OPENMP
  const int64_t threads = std::min<int64_t>(get_num_threads(), (n + grain - 1) / std::max<int64_t>(grain, 1));
  if (threads > 1 && !omp_in_parallel()) {
#pragma omp parallel num_threads(static_cast<int>(threads))
    {
      const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      const int64_t chunk = (n + nt - 1) / nt;
      const int64_t b = begin + t * chunk, e = std::min(end, b + chunk);
      if (b < e) f(b, e);
    }
    return;
  }
#endif
  f(begin, end);
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
