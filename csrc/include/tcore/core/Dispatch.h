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
  // Every operator while tcore.func.functionalize runs (tcore/core/FunctionalTensor.h);
  // its generated kernels call the functional operators below it.
  Functionalize,
  Tracer,  // records operators into the IR while tcore::jit tracing is on
  Autograd,
  // View operators' outputs learn their base and how to replay the view (generated in the
  // autograd shards). Never picked by dispatch_key_of: a backend kernel lookup of an
  // operator that has one returns it first, unless the call is already below it.
  InplaceOrView,
  CPU,
  CUDA,
  HIP,
  // Tensors without data (device "meta"): the generated kernels run structured operators'
  // meta functions only (tcore/core/Structured.h).
  Meta,
  // Tensors on device "lazy": the generated kernels record IR nodes (tcore/lazy/Lazy.h).
  Lazy,
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
    // a backend or composite kernel (or an autograd fallback) is reached through the
    // in-place-or-view kernel when the operator has one
    if (key > DispatchKey::InplaceOrView || (key == DispatchKey::Autograd && fn == nullptr)) {
      AnyFn view = kernels_[static_cast<int>(DispatchKey::InplaceOrView)].load(std::memory_order_acquire);
      if (view != nullptr && !below_inplace_or_view()) return reinterpret_cast<Fn*>(view);
    }
    if (fn == nullptr) fn = fallback(key);
    return reinterpret_cast<Fn*>(fn);
  }

 private:
  static bool below_inplace_or_view();
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

// Grad mode (thread-local): autograd records operations only while it is enabled
// and the call is not already below the autograd layer.
struct TCORE_API GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};
struct TCORE_API AutoGradMode {
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};
struct TCORE_API NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};
// Forward-mode AD mode (thread-local): tangents propagate only while it is enabled; the
// generated kernels disable it while they evaluate a forward formula (whose operands' own
// tangents must not propagate again).
struct TCORE_API FwGradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};
struct TCORE_API AutoFwGradMode {
  explicit AutoFwGradMode(bool enabled) : prev_(FwGradMode::is_enabled()) { FwGradMode::set_enabled(enabled); }
  ~AutoFwGradMode() { FwGradMode::set_enabled(prev_); }
  AutoFwGradMode(const AutoFwGradMode&) = delete;
  AutoFwGradMode& operator=(const AutoFwGradMode&) = delete;

 private:
  bool prev_;
};
// Tracing (tcore/jit/tracer.h) is on for this thread; a process-wide count keeps the
// check free when no thread traces.
struct TCORE_API Tracing {
  static bool active();
  static void set_active(bool on);
};
// Functionalization is on for this thread (tcore.func.functionalize); a process-wide count
// keeps the check free when no thread functionalizes.
struct TCORE_API Functionalizing {
  static bool active();
  static void set_active(bool on);
};
struct TCORE_API AutoDispatchBelowFunctionalize {
  AutoDispatchBelowFunctionalize();
  ~AutoDispatchBelowFunctionalize();
  AutoDispatchBelowFunctionalize(const AutoDispatchBelowFunctionalize&) = delete;
  AutoDispatchBelowFunctionalize& operator=(const AutoDispatchBelowFunctionalize&) = delete;

 private:
  bool prev_;
};
struct TCORE_API AutoDispatchBelowTracer {
  AutoDispatchBelowTracer();
  ~AutoDispatchBelowTracer();
  AutoDispatchBelowTracer(const AutoDispatchBelowTracer&) = delete;
  AutoDispatchBelowTracer& operator=(const AutoDispatchBelowTracer&) = delete;

 private:
  bool prev_;
};

// Autograd kernels call the backend kernels under this guard.
struct TCORE_API AutoDispatchBelowAutograd {
  AutoDispatchBelowAutograd();
  ~AutoDispatchBelowAutograd();
  AutoDispatchBelowAutograd(const AutoDispatchBelowAutograd&) = delete;
  AutoDispatchBelowAutograd& operator=(const AutoDispatchBelowAutograd&) = delete;
  static bool active();

 private:
  bool prev_;
};

// The in-place-or-view kernels call the backend kernels under this guard.
struct TCORE_API AutoDispatchBelowInplaceOrView {
  AutoDispatchBelowInplaceOrView();
  ~AutoDispatchBelowInplaceOrView();
  AutoDispatchBelowInplaceOrView(const AutoDispatchBelowInplaceOrView&) = delete;
  AutoDispatchBelowInplaceOrView& operator=(const AutoDispatchBelowInplaceOrView&) = delete;
  static bool active();

 private:
  bool prev_;
};

// Operators a selective build leaves out (generated dispatch/Selection.cpp).
TCORE_API const std::vector<std::string>& unselected_operators();
TCORE_API bool is_unselected_operator(const std::string& name);

TCORE_API DispatchKey dispatch_key_for_device(Device device);
inline DispatchKey dispatch_key_for(Device device) {
  if (Functionalizing::active()) return DispatchKey::Functionalize;
  return Tracing::active() ? DispatchKey::Tracer : dispatch_key_for_device(device);
}
inline DispatchKey dispatch_key_for(const std::optional<Device>& device) {
  return dispatch_key_for(device.value_or(Device(DeviceType::CPU)));
}

namespace detail {
inline bool needs_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }
inline bool needs_grad(const std::optional<Tensor>& t) { return t && needs_grad(*t); }
inline bool needs_grad(ArrayRef<Tensor> ts) {
  for (const auto& t : ts)
    if (needs_grad(t)) return true;
  return false;
}
inline bool needs_grad(ArrayRef<std::optional<Tensor>> ts) {
  for (const auto& t : ts)
    if (needs_grad(t)) return true;
  return false;
}
// A forward-mode tangent on an argument also routes the call through autograd.
inline bool has_fw_grad(const Tensor& t) { return t.defined() && t.impl()->has_fw_grad && FwGradMode::is_enabled(); }
inline bool has_fw_grad(const std::optional<Tensor>& t) { return t && has_fw_grad(*t); }
inline bool has_fw_grad(ArrayRef<Tensor> ts) {
  for (const auto& t : ts)
    if (has_fw_grad(t)) return true;
  return false;
}
inline bool has_fw_grad(ArrayRef<std::optional<Tensor>> ts) {
  for (const auto& t : ts)
    if (has_fw_grad(t)) return true;
  return false;
}
// A lazy tensor among the arguments makes the call lazy (a CPU number tensor may come first).
inline bool is_lazy(const Tensor& t) { return t.defined() && t.device().type == DeviceType::Lazy; }
inline bool is_lazy(const std::optional<Tensor>& t) { return t && is_lazy(*t); }
inline bool is_lazy(ArrayRef<Tensor> ts) {
  for (const auto& t : ts)
    if (is_lazy(t)) return true;
  return false;
}
inline bool is_lazy(ArrayRef<std::optional<Tensor>> ts) {
  for (const auto& t : ts)
    if (is_lazy(t)) return true;
  return false;
}
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

// Autograd when grad mode is on and a tensor argument requires grad, or when an argument
// carries a forward-mode tangent; else the
// backend of the first defined tensor argument (CPU when there is none; Lazy when that one is
// on the CPU and another is lazy).
template <typename... Ts>
DispatchKey dispatch_key_of(const Ts&... args) {
  if (Functionalizing::active()) return DispatchKey::Functionalize;
  if (Tracing::active()) return DispatchKey::Tracer;
  if (!AutoDispatchBelowAutograd::active() &&
      ((GradMode::is_enabled() && (detail::needs_grad(args) || ...)) || (detail::has_fw_grad(args) || ...))) {
    return DispatchKey::Autograd;
  }
  const Tensor* found = nullptr;
  ((found = found ? found : detail::first_defined(args)), ...);
  if (found == nullptr) return DispatchKey::CPU;
  if (found->device().type == DeviceType::CPU && (detail::is_lazy(args) || ...)) return DispatchKey::Lazy;
  return dispatch_key_for_device(found->device());
}

}  // namespace tcore
