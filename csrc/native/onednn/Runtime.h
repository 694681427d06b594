#pragma once
// What tcore's oneDNN paths (Conv.cpp, Matmul.cpp) share: whether they are on, the CPU engine,
// tcore's thread count for oneDNN's OpenMP regions, and a tensor's memory as it is. Included only
// where TCORE_HAVE_ONEDNN is set.
#include <cstring>

#include <dnnl.hpp>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "tcore/core/CPUCapability.h"
#include "tcore/core/Parallel.h"
#include "tcore/core/Tensor.h"

namespace tcore::native::onednn {

// off with TCORE_USE_ONEDNN=0 (cpu_convolution() says which)
inline bool enabled() {
  static const bool on = std::strcmp(cpu_convolution(), "onednn") == 0;
  return on;
}

inline dnnl::engine& cpu() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// oneDNN's OpenMP regions take omp_get_max_threads(): tcore's count
inline void follow_threads() {
#ifdef _OPENMP
  const int threads = get_num_threads();
  if (omp_get_max_threads() != threads) omp_set_num_threads(threads);
#endif
}

inline dnnl::memory::dims dims_of(const Tensor& t) { return dnnl::memory::dims(t.sizes().begin(), t.sizes().end()); }

// t's memory as it is, described by its strides (oneDNN reads and writes dense and strided
// layouts alike: nchw, nhwc, transposed matrices)
inline dnnl::memory plain(const Tensor& t, dnnl::memory::data_type type = dnnl::memory::data_type::f32) {
  return dnnl::memory(dnnl::memory::desc(dims_of(t), type, dnnl::memory::dims(t.strides().begin(), t.strides().end())),
                      cpu(), t.data_ptr());
}

}  // namespace tcore::native::onednn
