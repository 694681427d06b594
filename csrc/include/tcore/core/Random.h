#pragma once
// The default random generator of the CPU kernels (rand, randn, randint, uniform_, normal_,
// random_): one 64-bit Mersenne Twister, seeded here (tcore.manual_seed in Python).
#include <cstdint>

#include "tcore/core/Macros.h"

namespace tcore {
TCORE_API void manual_seed(uint64_t seed);
}  // namespace tcore
