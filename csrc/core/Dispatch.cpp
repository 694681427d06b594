#include "tcore/core/Dispatch.h"

#include <map>
#include <memory>
#include <mutex>

namespace tcore {

namespace {
thread_local bool grad_mode_enabled = true;
thread_local bool fw_grad_mode_enabled = true;
thread_local bool below_autograd = false;
thread_local bool below_inplace_or_view = false;
thread_local bool tracing = false;
thread_local bool below_tracer = false;
std::atomic<int> tracing_threads{0};
thread_local bool functionalizing = false;
thread_local bool below_functionalize = false;
std::atomic<int> functionalizing_threads{0};
}  // namespace

bool Functionalizing::active() {
  return functionalizing_threads.load(std::memory_order_relaxed) != 0 && functionalizing && !below_functionalize;
}
void Functionalizing::set_active(bool on) {
  if (on == functionalizing) return;
  functionalizing = on;
  functionalizing_threads.fetch_add(on ? 1 : -1, std::memory_order_relaxed);
}
AutoDispatchBelowFunctionalize::AutoDispatchBelowFunctionalize() : prev_(below_functionalize) {
  below_functionalize = true;
}
AutoDispatchBelowFunctionalize::~AutoDispatchBelowFunctionalize() { below_functionalize = prev_; }

bool Tracing::active() {
  return tracing_threads.load(std::memory_order_relaxed) != 0 && tracing && !below_tracer;
}
void Tracing::set_active(bool on) {
  if (on == tracing) return;
  tracing = on;
  tracing_threads.fetch_add(on ? 1 : -1, std::memory_order_relaxed);
}
AutoDispatchBelowTracer::AutoDispatchBelowTracer() : prev_(below_tracer) { below_tracer = true; }
AutoDispatchBelowTracer::~AutoDispatchBelowTracer() { below_tracer = prev_; }

bool GradMode::is_enabled() { return grad_mode_enabled; }
bool FwGradMode::is_enabled() { return fw_grad_mode_enabled; }
void FwGradMode::set_enabled(bool enabled) { fw_grad_mode_enabled = enabled; }
void GradMode::set_enabled(bool enabled) { grad_mode_enabled = enabled; }
AutoDispatchBelowAutograd::AutoDispatchBelowAutograd() : prev_(below_autograd) { below_autograd = true; }
AutoDispatchBelowAutograd::~AutoDispatchBelowAutograd() { below_autograd = prev_; }
bool AutoDispatchBelowAutograd::active() { return below_autograd; }
AutoDispatchBelowInplaceOrView::AutoDispatchBelowInplaceOrView() : prev_(below_inplace_or_view) {
  below_inplace_or_view = true;
}
AutoDispatchBelowInplaceOrView::~AutoDispatchBelowInplaceOrView() { below_inplace_or_view = prev_; }
bool AutoDispatchBelowInplaceOrView::active() { return below_inplace_or_view; }
bool OperatorEntry::below_inplace_or_view() { return AutoDispatchBelowInplaceOrView::active(); }

const char* to_string(DispatchKey k) {
  switch (k) {
    case DispatchKey::Functionalize: return "Functionalize";
    case DispatchKey::Tracer: return "Tracer";
    case DispatchKey::Autograd: return "Autograd";
    case DispatchKey::InplaceOrView: return "InplaceOrView";
    case DispatchKey::CPU: return "CPU";
    case DispatchKey::CUDA: return "CUDA";
    case DispatchKey::HIP: return "HIP";
    case DispatchKey::Meta: return "Meta";
    case DispatchKey::Lazy: return "Lazy";
    case DispatchKey::CompositeExplicitAutograd: return "CompositeExplicitAutograd";
    case DispatchKey::CompositeImplicitAutograd: return "CompositeImplicitAutograd";
    default: return "?";
  }
}

namespace {
struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<OperatorEntry>> entries;
  std::map<std::string, OperatorEntry*> by_name;
};
Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: kernels may run during exit
  return *r;
}
}  // namespace

OperatorEntry::OperatorEntry(std::string name, std::string overload, std::string schema)
    : name_(std::move(name)), overload_(std::move(overload)), schema_(std::move(schema)) {
  for (auto& k : kernels_) k.store(nullptr, std::memory_order_relaxed);
}

OperatorEntry& OperatorEntry::define(const char* name, const char* overload, const char* schema) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::string key = std::string(name) + (overload[0] ? std::string(".") + overload : std::string());
  auto it = r.by_name.find(key);
  if (it != r.by_name.end()) return *it->second;
  r.entries.emplace_back(new OperatorEntry(name, overload, schema));
  r.by_name[key] = r.entries.back().get();
  return *r.entries.back();
}

std::vector<const OperatorEntry*> OperatorEntry::all() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<const OperatorEntry*> out;
  for (auto& e : r.entries) out.push_back(e.get());
  return out;
}

const OperatorEntry* OperatorEntry::find(const std::string& qualified_name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.by_name.find(qualified_name);
  return it == r.by_name.end() ? nullptr : it->second;
}

void OperatorEntry::set_kernel(DispatchKey key, AnyFn fn) {
  kernels_[static_cast<int>(key)].store(fn, std::memory_order_release);
}

bool OperatorEntry::has_kernel(DispatchKey key) const {
  return kernels_[static_cast<int>(key)].load(std::memory_order_acquire) != nullptr;
}

OperatorEntry::AnyFn OperatorEntry::fallback(DispatchKey key) const {
  // At the autograd layer only a CompositeImplicitAutograd kernel runs as is: the
  // operators it calls record the graph. An explicit composite kernel is opaque to
  // autograd: without a formula its result would silently have no gradient.
  const bool autograd = key == DispatchKey::Autograd;
  if (autograd) {
    AnyFn fn = kernels_[static_cast<int>(DispatchKey::CompositeImplicitAutograd)].load(std::memory_order_acquire);
    if (fn != nullptr) return fn;
    throw Error(detail::str_cat("the derivative for '", qualified_name(),
                                "' is not implemented (no formula in derivatives.yaml)"));
  }
  if (key == DispatchKey::Functionalize) {
    // A CompositeImplicitAutograd kernel decomposes into operators that functionalize
    // themselves; anything else here mutates without a functional counterpart.
    AnyFn fn = kernels_[static_cast<int>(DispatchKey::CompositeImplicitAutograd)].load(std::memory_order_acquire);
    if (fn != nullptr) return fn;
    throw Error(detail::str_cat("tcore.func.functionalize: operator ", qualified_name(),
                                " has no functionalization (it writes its arguments and has no functional "
                                "counterpart, or its types are not supported); schema: ", schema_));
  }
  const DispatchKey order[2] = {DispatchKey::CompositeExplicitAutograd, DispatchKey::CompositeImplicitAutograd};
  for (DispatchKey k : order) {
    AnyFn fn = kernels_[static_cast<int>(k)].load(std::memory_order_acquire);
    if (fn != nullptr) return fn;
  }
  if (is_unselected_operator(qualified_name())) {
    throw Error(detail::str_cat("operator tcore::", qualified_name(), " is not built in this selective build"));
  }
  throw Error(detail::str_cat("operator ", qualified_name(), " has no kernel for the ", to_string(key),
                              " backend (schema: ", schema_, ")"));
}

DispatchKey dispatch_key_for_device(Device device) {
  switch (device.type) {
    case DeviceType::CUDA: return DispatchKey::CUDA;
    case DeviceType::HIP: return DispatchKey::HIP;
    case DeviceType::Meta: return DispatchKey::Meta;
    case DeviceType::Lazy: return DispatchKey::Lazy;
    default: return DispatchKey::CPU;
  }
}


}  // namespace tcore
