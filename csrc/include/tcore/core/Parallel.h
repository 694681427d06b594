#pragma once
// Intra-op parallelism: how many threads a large kernel may use (PyTorch's
// at::set_num_threads). The default is OpenMP's (OMP_NUM_THREADS, else the cores).
#include "tcore/core/Macros.h"

namespace tcore {

TCORE_API void set_num_threads(int n);
TCORE_API int get_num_threads();
// Whether the library was built with OpenMP (otherwise every kernel runs on one thread).
TCORE_API bool has_openmp();

}  // namespace tcore
