#include "tcore/core/Dispatch.h"

#include <map>
#include <memory>
#include <mutex>

namespace tcore {

const char* to_string(DispatchKey k) {
  switch (k) {
    case DispatchKey::CPU: return "CPU";
    case DispatchKey::CUDA: return "CUDA";
    case DispatchKey::HIP: return "HIP";
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
  for (DispatchKey k : {DispatchKey::CompositeExplicitAutograd, DispatchKey::CompositeImplicitAutograd}) {
    AnyFn fn = kernels_[static_cast<int>(k)].load(std::memory_order_acquire);
    if (fn != nullptr) return fn;
  }
  throw Error(detail::str_cat("operator ", qualified_name(), " has no kernel for the ", to_string(key),
                              " backend (schema: ", schema_, ")"));
}

DispatchKey dispatch_key_for(Device device) {
  switch (device.type) {
    case DeviceType::CUDA: return DispatchKey::CUDA;
    case DeviceType::HIP: return DispatchKey::HIP;
    default: return DispatchKey::CPU;
  }
}

DispatchKey dispatch_key_for(const std::optional<Device>& device) {
  return device ? dispatch_key_for(*device) : DispatchKey::CPU;
}

}  // namespace tcore
