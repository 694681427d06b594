#pragma once
// The dispatcher: one OperatorEntry per overload holds a kernel per dispatch key.
// Generated Register<KEY>_N.cpp files fill it at load time (register_kernel is
// type-checked against the schema); generated Operators_N.cpp call through it.
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "tcore/core/OpDecl.h"

namespace tcore {

enum class DispatchKey : uint8_t {
  CPU,
  CUDA,
  HIP,
  CompositeExplicitAutograd,
  CompositeImplicitAutograd,
  NumKeys,
};
TCORE_API const char* to_string(DispatchKey k);

class TCORE_API OperatorEntry {
 public:
  using AnyFn = void (*)();

  // Creates (once) and returns the entry of "name.overload".
  static OperatorEntry& define(const char* name, const char* overload, const char* schema);
  // Every entry defined so far, in definition order.
  static std::vector<const OperatorEntry*> all();
  static const OperatorEntry* find(const std::string& qualified_name);

  const std::string& name() const { return name_; }
  const std::string& overload() const { return overload_; }
  const std::string& schema() const { return schema_; }
  std::string qualified_name() const { return overload_.empty() ? name_ : name_ + "." + overload_; }

  void set_kernel(DispatchKey key, AnyFn fn);
  bool has_kernel(DispatchKey key) const;

  template <typename Fn>
  Fn* kernel(DispatchKey key) const {
    AnyFn fn = kernels_[static_cast<int>(key)].load(std::memory_order_acquire);
    if (fn == nullptr) fn = fallback(key);
    return reinterpret_cast<Fn*>(fn);
  }

 private:
  OperatorEntry(std::string name, std::string overload, std::string schema);
  AnyFn fallback(DispatchKey key) const;  // composite kernels, else a clear error
  std::string name_, overload_, schema_;
  std::atomic<AnyFn> kernels_[static_cast<int>(DispatchKey::NumKeys)];
};

template <typename Op>
bool register_kernel(DispatchKey key, typename Op::schema* fn) {
  Op::entry().set_kernel(key, reinterpret_cast<OperatorEntry::AnyFn>(fn));
  return true;
}

TCORE_API DispatchKey dispatch_key_for(Device device);
TCORE_API DispatchKey dispatch_key_for(const std::optional<Device>& device);

namespace detail {
inline const Tensor* first_defined(const Tensor& t) { return t.defined() ? &t : nullptr; }
inline const Tensor* first_defined(const std::optional<Tensor>& t) {
  return t && t->defined() ? &*t : nullptr;
}
inline const Tensor* first_defined(ArrayRef<Tensor> ts) {
  for (const auto& t : ts)
    if (t.defined()) return &t;
  return nullptr;
}
inline const Tensor* first_defined(ArrayRef<std::optional<Tensor>> ts) {
  for (const auto& t : ts)
    if (t && t->defined()) return &*t;
  return nullptr;
}
}  // namespace detail

// The backend of the first defined tensor argument (CPU when there is none).
template <typename... Ts>
DispatchKey dispatch_key_of(const Ts&... args) {
  const Tensor* found = nullptr;
  ((found = found ? found : detail::first_defined(args)), ...);
  return found ? dispatch_key_for(found->device()) : DispatchKey::CPU;
}

}  // namespace tcore
