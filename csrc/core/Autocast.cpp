#include "tcore/core/Autocast.h"

#include <atomic>
#include <memory>
#include <unordered_map>
#include <utility>

#include <tcore/ops/to.h>

#include "tcore/core/Dispatch.h"
#ifdef TCORE_WITH_AUTOGRAD
#include "tcore/autograd/autograd.h"
#endif

namespace tcore::autocast {

namespace {
constexpr int kDeviceTypes = static_cast<int>(DeviceType::Lazy) + 1;

struct State {
  bool enabled[kDeviceTypes] = {};
  ScalarType dtype[kDeviceTypes] = {ScalarType::BFloat16, ScalarType::Half, ScalarType::Half, ScalarType::BFloat16,
                                    ScalarType::BFloat16};
  bool below = false;
  bool cache_enabled = true;
  int64_t nesting = 0;
  int enabled_count = 0;
  // the casts of float32 leaves requiring grad, by the leaf (held weakly: a leaf that ends drops out)
  std::unordered_map<const TensorImpl*, std::pair<std::weak_ptr<TensorImpl>, Tensor>> cache;
};
thread_local State state;
std::atomic<int> autocasting_threads{0};  // (keeps active() free where no thread autocasts)

DeviceType device_type_of(const Tensor& t) { return t.device().type; }

bool eligible(const Tensor& t) {
  return t.defined() && is_floating(t.dtype()) && t.dtype() != ScalarType::Double &&
         state.enabled[static_cast<int>(device_type_of(t))];
}

bool cacheable(const Tensor& t, ScalarType to) {
  if (!state.cache_enabled || t.dtype() != ScalarType::Float || to != dtype(device_type_of(t)) ||
      !t.requires_grad() || t.is_view()) {
    return false;
  }
#ifdef TCORE_WITH_AUTOGRAD
  return autograd::grad_fn(t) == nullptr;
#else
  return false;
#endif
}
}  // namespace

bool active() {
  return autocasting_threads.load(std::memory_order_relaxed) != 0 && state.enabled_count != 0 && !state.below;
}
bool is_enabled(DeviceType device_type) { return state.enabled[static_cast<int>(device_type)]; }
void set_enabled(DeviceType device_type, bool enabled) {
  bool& on = state.enabled[static_cast<int>(device_type)];
  if (on == enabled) return;
  on = enabled;
  const int before = state.enabled_count;
  state.enabled_count += enabled ? 1 : -1;
  if ((before == 0) != (state.enabled_count == 0)) autocasting_threads.fetch_add(enabled ? 1 : -1);
}
ScalarType dtype(DeviceType device_type) { return state.dtype[static_cast<int>(device_type)]; }
void set_dtype(DeviceType device_type, ScalarType dtype) { state.dtype[static_cast<int>(device_type)] = dtype; }
bool is_cache_enabled() { return state.cache_enabled; }
void set_cache_enabled(bool enabled) { state.cache_enabled = enabled; }
void clear_cache() { state.cache.clear(); }
int64_t increment_nesting() { return ++state.nesting; }
int64_t decrement_nesting() { return --state.nesting; }

bool set_below(bool below) { return std::exchange(state.below, below); }
Below::Below() : prev_(set_below(true)) {}
Below::~Below() { state.below = prev_; }

// torch's at::autocast::prioritize: float64 ignored, float32 over the autocast dtype
void widen(Target& to, const Tensor& t) {
  if (!eligible(t)) return;
  const ScalarType lower = dtype(device_type_of(t));
  if (to.promoted == ScalarType::Undefined) to.promoted = lower;
  const ScalarType next = t.dtype();
  if (to.promoted == ScalarType::Float || next == ScalarType::Float) {
    to.promoted = ScalarType::Float;
  } else {
    TCORE_CHECK(to.promoted == lower && next == lower, "Unexpected floating ScalarType in at::autocast::prioritize");
  }
}

Tensor cast(const Target& to, const Tensor& t) {
  if (!eligible(t)) return t;
  ScalarType want = ScalarType::Float;
  if (to.policy == Policy::LowerPrecision) want = dtype(device_type_of(t));
  if (to.policy == Policy::Promote) want = to.promoted;
  if (want == ScalarType::Undefined || t.dtype() == want) return t;
  if (!cacheable(t, want)) return tcore::to(t, want);
  auto& slot = state.cache[t.impl()];
  if (slot.first.lock().get() != t.impl() || slot.second.dtype() != want) {
    // recorded whatever the grad mode: a cast first made under no_grad (an evaluation pass) serves
    // the training passes after it in the block (torch's cache, pytorch#165068)
    const AutoGradMode grad(true);
    slot = {t.impl_ptr(), tcore::to(t, want)};
  }
  return slot.second;
}

}  // namespace tcore::autocast
