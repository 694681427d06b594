#pragma once
// Element types, their C++ types, PyTorch's promotion rules and the dtype switch.
#include <cstdint>
#include <ostream>

#include "tcore/core/Half.h"
#include "tcore/core/Macros.h"

namespace tcore {

// The X-macro is the one table: C++ type, enum name, Python name.
#define TCORE_FORALL_SCALAR_TYPES(_) \
  _(bool, Bool, bool)                \
  _(uint8_t, Byte, uint8)            \
  _(int8_t, Char, int8)              \
  _(int16_t, Short, int16)           \
  _(int32_t, Int, int32)             \
  _(int64_t, Long, int64)            \
  _(float, Float, float32)           \
  _(double, Double, float64)

// The 16-bit floats: storage types (tensors, copies, conversions); kernels compute them
// in float32, so the dtype switch of the kernels (dispatch_dtype) does not include them.
#define TCORE_FORALL_REDUCED_FLOAT_TYPES(_) \
  _(tcore::Half, Half, float16)            \
  _(tcore::BFloat16, BFloat16, bfloat16)

#define TCORE_FORALL_ALL_SCALAR_TYPES(_) \
  TCORE_FORALL_SCALAR_TYPES(_)           \
  TCORE_FORALL_REDUCED_FLOAT_TYPES(_)

enum class ScalarType : int8_t {
#define TCORE_ENUM(cpp, name, py) name,
  TCORE_FORALL_ALL_SCALAR_TYPES(TCORE_ENUM)
#undef TCORE_ENUM
  Undefined,
};
constexpr int kNumScalarTypes = static_cast<int>(ScalarType::Undefined);

template <typename T>
struct type_tag {
  using type = T;
};

template <typename T>
struct scalar_type_of;
#define TCORE_TRAIT(cpp, name, py) \
  template <>                      \
  struct scalar_type_of<cpp> {     \
    static constexpr ScalarType value = ScalarType::name; \
  };
TCORE_FORALL_ALL_SCALAR_TYPES(TCORE_TRAIT)
#undef TCORE_TRAIT

TCORE_API const char* to_string(ScalarType t);       // "float32"
TCORE_API int64_t element_size(ScalarType t);
TCORE_API std::ostream& operator<<(std::ostream& os, ScalarType t);

inline bool is_reduced_float(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }
// The dtype a kernel computes values of dtype `t` in (torch's opmath type): float32 for the 16-bit
// floats, whose results are rounded once on store; every other dtype computes in itself.
inline ScalarType opmath_type(ScalarType t) { return is_reduced_float(t) ? ScalarType::Float : t; }
inline bool is_floating(ScalarType t) { return t == ScalarType::Float || t == ScalarType::Double || is_reduced_float(t); }
inline bool is_integral(ScalarType t, bool include_bool) {
  return (include_bool && t == ScalarType::Bool) ||
         (t != ScalarType::Bool && !is_floating(t) && t != ScalarType::Undefined);
}

// PyTorch's promote_types on this set of dtypes.
TCORE_API ScalarType promote_types(ScalarType a, ScalarType b);
// The dtype of Python floats and of floating results of integer operands (float32 unless
// tcore.set_default_dtype changed it; process-wide).
TCORE_API ScalarType default_float_dtype();
TCORE_API void set_default_float_dtype(ScalarType t);

// Calls f(type_tag<T>{}) for the C++ type T of `t`.
template <typename F>
decltype(auto) dispatch_dtype(ScalarType t, const char* op, F&& f) {
  switch (t) {
#define TCORE_CASE(cpp, name, py) \
  case ScalarType::name:          \
    return f(type_tag<cpp>{});
    TCORE_FORALL_SCALAR_TYPES(TCORE_CASE)
#undef TCORE_CASE
    default:
      break;
  }
  throw TypeError(detail::str_cat(op, ": not implemented for '", to_string(t), "'"));
}

// Every dtype, the 16-bit floats included (copies, fills, conversions).
template <typename F>
decltype(auto) dispatch_all_types(ScalarType t, const char* op, F&& f) {
  switch (t) {
#define TCORE_CASE(cpp, name, py) \
  case ScalarType::name:          \
    return f(type_tag<cpp>{});
    TCORE_FORALL_ALL_SCALAR_TYPES(TCORE_CASE)
#undef TCORE_CASE
    default:
      break;
  }
  throw TypeError(detail::str_cat(op, ": unsupported dtype ", to_string(t)));
}

// Only the numeric (non-bool) types; a bool tensor is a clear error.
template <typename F>
decltype(auto) dispatch_numeric(ScalarType t, const char* op, F&& f) {
  TCORE_CHECK_TYPE(t != ScalarType::Bool, op, ": not implemented for 'bool' tensors");
  return dispatch_dtype(t, op, std::forward<F>(f));
}

// Only floating types.
template <typename F>
decltype(auto) dispatch_floating(ScalarType t, const char* op, F&& f) {
  if (t == ScalarType::Float) return f(type_tag<float>{});
  if (t == ScalarType::Double) return f(type_tag<double>{});
  throw TypeError(detail::str_cat(op, ": not implemented for '", to_string(t), "'",
                                  is_floating(t) ? "" : " (floating dtypes only)"));
}

}  // namespace tcore
