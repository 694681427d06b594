#include "tcore/core/Parallel.h"

#include <atomic>

#include "native/cpu/Parallel.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tcore {
namespace {

int default_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

std::atomic<int>& thread_count() {
  static std::atomic<int> n{default_threads()};
  return n;
}

}  // namespace

void set_num_threads(int n) {
  TCORE_CHECK_VALUE(n > 0, "set_num_threads expects a positive integer, got ", n);
  thread_count().store(n);
}

int get_num_threads() { return thread_count().load(); }

bool has_openmp() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

}  // namespace tcore
