#pragma once
// The `int reduction` argument of the loss operators, with PyTorch's values (at::Reduction):
// formulas write tcore::Reduction::None, and a loss called from C++ may too.
#include <cstdint>

namespace tcore::Reduction {
enum Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };
}  // namespace tcore::Reduction
