#pragma once
// The version counter of a fresh result starts at 0, as torch's.
//
// tcore's kernels bump the version of what they write (the same code serves out= and in-place
// calls, whose writes saved tensors and views must see), so a functional call's result, written
// by its kernel, came back at version 1 and a composite's (zeros: empty, then fill_) at 1 or more;
// torch bumps only at the operator a program calls. The generated registrations of the functional
// operators whose returns alias nothing (codegen/gen_dispatch.py) put the count back to 0, below
// autograd, before a saved tensor records it: only a result that nothing else holds, neither its
// tensor nor its counter (views share it), so no reader can see the count change.
#include <tuple>
#include <utility>
#include <vector>

#include "tcore/core/Tensor.h"

namespace tcore::detail {

inline void fresh_version(Tensor& t) {
  if (!t.defined()) return;
  const std::shared_ptr<TensorImpl>& impl = t.impl_ptr();
  if (impl.use_count() == 1 && impl->version.use_count() == 1) impl->version->store(0, std::memory_order_relaxed);
}
inline void fresh_version(std::vector<Tensor>& ts) {
  for (Tensor& t : ts) fresh_version(t);
}
template <typename... T>
void fresh_version(std::tuple<T...>& ts) {
  std::apply([](auto&... t) { (fresh_version(t), ...); }, ts);
}

// FreshKernel<Schema>::call<&kernel>: the kernel, its result's version then put back to 0.
template <typename Schema>
struct FreshKernel;
template <typename R, typename... A>
struct FreshKernel<R(A...)> {
  template <R (*K)(A...)>
  static R call(A... a) {
    R result = K(std::forward<A>(a)...);
    fresh_version(result);
    return result;
  }
};

}  // namespace tcore::detail
