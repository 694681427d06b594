#include "tcore/core/ScalarType.h"

#include <atomic>

#include "tcore/core/Scalar.h"

namespace tcore {

const char* to_string(ScalarType t) {
  switch (t) {
#define TCORE_CASE(cpp, name, py) \
  case ScalarType::name:          \
    return #py;
    TCORE_FORALL_ALL_SCALAR_TYPES(TCORE_CASE)
#undef TCORE_CASE
    default:
      return "undefined";
  }
}

int64_t element_size(ScalarType t) {
  switch (t) {
#define TCORE_CASE(cpp, name, py) \
  case ScalarType::name:          \
    return sizeof(cpp);
    TCORE_FORALL_ALL_SCALAR_TYPES(TCORE_CASE)
#undef TCORE_CASE
    default:
      throw TypeError("element_size of an undefined dtype");
  }
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << to_string(t); }

namespace {
std::atomic<ScalarType> default_float{ScalarType::Float};  // (tcore.set_default_dtype)
}  // namespace

ScalarType default_float_dtype() { return default_float.load(std::memory_order_relaxed); }

void set_default_float_dtype(ScalarType t) {
  if (!is_floating(t)) throw TypeError("only floating-point types are supported as the default type");
  default_float.store(t, std::memory_order_relaxed);
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  using S = ScalarType;
  if (a == b) return a;
  if (a == S::Undefined) return b;
  if (b == S::Undefined) return a;
  if (a == S::Bool) return b;
  if (b == S::Bool) return a;
  const bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if (is_reduced_float(a) && is_reduced_float(b)) return S::Float;  // float16 with bfloat16
    return element_size(a) >= element_size(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // both integral: uint8 with a signed type needs the next wider signed type
  if (a == S::Byte || b == S::Byte) {
    const S other = a == S::Byte ? b : a;
    return other == S::Char ? S::Short : other;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

void Scalar::overflow(const char* type) {
  throw Error(detail::str_cat("value cannot be converted to type ", type, " without overflow"));
}

}  // namespace tcore
