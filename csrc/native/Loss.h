#pragma once
// The loss operators' `int reduction` argument (PyTorch's values: tcore/core/Reduction.h), checked
// in one place for the composites and the kernels.
#include <cstdint>

#include "tcore/core/Macros.h"
#include "tcore/core/Reduction.h"

namespace tcore::native {

inline void check_loss_reduction(int64_t reduction, const char* op) {
  TCORE_CHECK_VALUE(reduction >= Reduction::None && reduction <= Reduction::Sum, op,
                    ": reduction must be 0 (none), 1 (mean) or 2 (sum), got ", reduction);
}

}  // namespace tcore::native
