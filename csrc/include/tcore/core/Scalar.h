#pragma once
// A number of one of three kinds, as Python gives them: bool, int or float.
#include <cstdint>
#include <type_traits>

#include "tcore/core/ScalarType.h"

namespace tcore {

class TCORE_API Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Double };

  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool v) : kind_(Kind::Bool) { v_.i = v; }
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int) { v_.i = static_cast<int64_t>(v); }
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Double) { v_.d = static_cast<double>(v); }

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating_point() const { return kind_ == Kind::Double; }

  template <typename T>
  T to() const {
    if (kind_ == Kind::Double) return static_cast<T>(v_.d);
    if constexpr (std::is_same_v<T, bool>) return v_.i != 0;
    return static_cast<T>(v_.i);
  }
  double to_double() const { return to<double>(); }
  int64_t to_long() const { return to<int64_t>(); }

  // The dtype a Python number gets when it takes part in type promotion.
  ScalarType dtype() const {
    switch (kind_) {
      case Kind::Bool: return ScalarType::Bool;
      case Kind::Int: return ScalarType::Long;
      default: return default_float_dtype();
    }
  }

 private:
  Kind kind_;
  union {
    int64_t i;
    double d;
  } v_;
};

}  // namespace tcore
