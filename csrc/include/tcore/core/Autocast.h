#pragma once
// torch.autocast (thread-local): while autocast is on for a device type, the operators of torch's
// policy lists (codegen/autocast.py; the Python functionals marked with _autocast in
// tcore/nn/functional.py) first cast their floating arguments on that device type, then run below
// autocast (what they call is not cast again):
//   LowerPrecision: to the device type's autocast dtype (bfloat16 on the CPU by default);
//   Float32:        to float32;
//   Promote:        to the widest of them (float32 over the autocast dtype).
// float64 arguments are never cast. Casts of float32 leaves that require grad to the autocast
// dtype are cached until the outermost autocast block ends (its weights are cast once).
#include <optional>
#include <vector>

#include "tcore/core/ArrayRef.h"
#include "tcore/core/Tensor.h"

namespace tcore::autocast {

enum class Policy : uint8_t { LowerPrecision, Float32, Promote };

// Some device type's autocast is on for this thread and the call is not below an autocast operator.
TCORE_API bool active();
TCORE_API bool is_enabled(DeviceType device_type);
TCORE_API void set_enabled(DeviceType device_type, bool enabled);
TCORE_API ScalarType dtype(DeviceType device_type);
TCORE_API void set_dtype(DeviceType device_type, ScalarType dtype);
TCORE_API bool is_cache_enabled();
TCORE_API void set_cache_enabled(bool enabled);
TCORE_API void clear_cache();
TCORE_API int64_t increment_nesting();
TCORE_API int64_t decrement_nesting();  // (returns the depth left)

// Sets whether calls run below autocast (returns the previous setting); Below does it for a scope.
TCORE_API bool set_below(bool below);
// An autocast operator's own call runs under this guard.
struct TCORE_API Below {
  Below();
  ~Below();
  Below(const Below&) = delete;
  Below& operator=(const Below&) = delete;

 private:
  bool prev_;
};

// What an operator's arguments are cast to: the policy, and for Promote the widest type found.
struct Target {
  Policy policy;
  ScalarType promoted = ScalarType::Undefined;
};
TCORE_API void widen(Target& to, const Tensor& t);
inline void widen(Target& to, const std::optional<Tensor>& t) {
  if (t) widen(to, *t);
}
template <typename T>
void widen(Target& to, ArrayRef<T> ts) {
  for (const auto& t : ts) widen(to, t);
}
template <typename... Ts>
Target target(Policy policy, const Ts&... tensors) {
  Target to{policy};
  if (policy == Policy::Promote) (widen(to, tensors), ...);
  return to;
}

TCORE_API Tensor cast(const Target& to, const Tensor& t);
inline std::optional<Tensor> cast(const Target& to, const std::optional<Tensor>& t) {
  return t ? std::optional<Tensor>(cast(to, *t)) : std::nullopt;
}
template <typename T>
std::vector<T> cast(const Target& to, ArrayRef<T> ts) {
  std::vector<T> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(cast(to, t));
  return out;
}

}  // namespace tcore::autocast
