#pragma once
// What generated operator declarations need: the core types and the export macro.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "tcore/core/ArrayRef.h"
#include "tcore/core/Device.h"
#include "tcore/core/Random.h"
#include "tcore/core/Scalar.h"
#include "tcore/core/ScalarType.h"
#include "tcore/core/Storage.h"
#include "tcore/core/Tensor.h"

namespace tcore {
class OperatorEntry;
}
