#pragma once
// A number of one of three kinds, as Python gives them: bool, int or float.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tcore/core/Half.h"
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

  // The value as a T, checked as PyTorch's Scalar conversions are (c10's checked_convert):
  // an integer type refuses values outside its range ("value cannot be converted to type
  // int8_t without overflow", 127.5 included; from an int, unsigned types also take the negatives they wrap,
  // -255..-1 for uint8), NaN and infinities; the floating types refuse finite values beyond their
  // range (float16 above 65504, as torch's "c10::Half" one) and take NaN and the infinities; bool
  // converts as C++ does.
  template <typename T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return kind_ == Kind::Double ? v_.d != 0 : v_.i != 0;
    } else if constexpr (std::is_integral_v<T>) {
      if (kind_ == Kind::Double) {
        // torch's range [lowest, max], fractions truncated inside it (127.5 is beyond int8); int64's
        // top bound is 2^63 excluded (max is no double; 2^63 itself would not convert)
        const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
        const bool below_top = sizeof(T) < sizeof(int64_t) ? v_.d <= static_cast<double>(std::numeric_limits<T>::max())
                                                            : v_.d < 9223372036854775808.0;
        if (!(v_.d >= lo && below_top)) overflow(type_name<T>());
        return static_cast<T>(v_.d);
      }
      const int64_t v = v_.i;
      if constexpr (std::is_signed_v<T>) {
        if (v < static_cast<int64_t>(std::numeric_limits<T>::lowest()) ||
            v > static_cast<int64_t>(std::numeric_limits<T>::max()))
          overflow(type_name<T>());
      } else if constexpr (sizeof(T) < sizeof(int64_t)) {
        const int64_t max = static_cast<int64_t>(std::numeric_limits<T>::max());
        if (v > max || v < -max) overflow(type_name<T>());
      }
      return static_cast<T>(v);
    } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      const double d = kind_ == Kind::Double ? v_.d : static_cast<double>(v_.i);
      const double max = static_cast<double>(static_cast<float>(std::numeric_limits<T>::max()));
      if (std::isfinite(d) && (d > max || d < -max)) overflow(type_name<T>());
      return T(static_cast<float>(d));
    } else {
      return kind_ == Kind::Double ? static_cast<T>(v_.d) : static_cast<T>(v_.i);
    }
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
  [[noreturn]] static void overflow(const char* type);
  template <typename T>
  static constexpr const char* type_name() {
    if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
    else if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
    else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
    else if constexpr (std::is_same_v<T, int32_t>) return "int";
    else if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
    else if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, Half>) return "Half";
    else if constexpr (std::is_same_v<T, BFloat16>) return "BFloat16";
    else return "an integer type";
  }
  Kind kind_;
  union {
    int64_t i;
    double d;
  } v_;
};

}  // namespace tcore
