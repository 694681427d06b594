#pragma once
// Functionalization (PyTorch's FunctionalTensorWrapper and ViewMeta): while
// tcore.func.functionalize runs a function, every operator lands in its generated
// Functionalize kernel (generated/functionalization/Functionalize_N.cpp). Tensors are
// wrappers around a value that is never written in place:
//   - a functional operator runs on the values and wraps its outputs;
//   - a view operator runs on the value and records a ViewMeta (how to replay the view
//     from its base, and how to write a changed view back: select -> select_scatter, ...);
//   - a mutating operator (add_, add.out) runs its functional counterpart (add) and
//     replaces the value; a write through a view is queued on the base, which every other
//     view of that base replays lazily (generation counters) the next time it is used.
// Below the Functionalize kernels only functional operators run, so a trace of a
// functionalized function holds no in-place or out= operator.
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "tcore/core/Tensor.h"

namespace tcore::functionalization {

struct ViewMeta {
  std::function<Tensor(const Tensor& base)> forward;
  // The base after `view` (the result of `forward(base)`, changed) is written back.
  std::function<Tensor(const Tensor& base, const Tensor& view)> reverse;
  const char* op;
};

// The state shared by a base and every view of it (PyTorch's FunctionalStorageImpl).
struct Alias {
  struct Update {
    Tensor value;
    std::vector<ViewMeta> metas;
  };
  Tensor base;  // the value of the base, up to the pending updates
  std::vector<Update> updates;
  uint64_t generation = 0;
  bool mutated = false;  // some write reached this storage (an input must be copied back)
  void apply_updates();
};

struct FunctionalState {
  Tensor value;
  std::shared_ptr<Alias> alias;
  std::vector<ViewMeta> metas;  // from alias->base to this tensor
  uint64_t generation = 0;
};

TCORE_API bool is_functional(const Tensor& t);
// remove="mutations_and_views" (thread-local): views run as their view_copy operators
// (select_copy, ...), so no value aliases another, traced graphs included.
TCORE_API bool views_as_copies();
TCORE_API void set_views_as_copies(bool on);
// A wrapper of `value` with a storage of its own (inputs, outputs of functional operators).
TCORE_API Tensor wrap(const Tensor& value);
// The value of t, brought up to date with the writes made through its base or other views;
// t itself when it is not a wrapper (a tensor from outside the function).
TCORE_API Tensor unwrap(const Tensor& t);
TCORE_API std::optional<Tensor> unwrap(const std::optional<Tensor>& t);
TCORE_API std::vector<Tensor> unwrap(ArrayRef<Tensor> ts);
TCORE_API std::vector<std::optional<Tensor>> unwrap(ArrayRef<std::optional<Tensor>> ts);
// The output of a view operator on `self`: a wrapper sharing self's storage, or a fresh
// wrapper when the operator copied (reshape of a non-viewable tensor, contiguous, to).
TCORE_API Tensor wrap_view(const Tensor& self, const Tensor& value, ViewMeta meta);
// An in-place view operator (transpose_, ...) changed self's view of its storage.
TCORE_API void extend_view(const Tensor& self, const Tensor& value, ViewMeta meta);
// A mutating operator wrote `value` into `self` (`resizable`: an out= argument that is not
// a view may change shape). Checks what eager mode checks (shape, dtype, overlap).
TCORE_API void commit(const Tensor& self, const Tensor& value, const char* op, bool resizable);
// Whether a write reached t's storage while functionalized.
TCORE_API bool was_mutated(const Tensor& t);

// Outputs of functional operators, wrapped (tuples and lists element by element).
inline Tensor wrap_outputs(const Tensor& t) { return t.defined() ? wrap(t) : t; }
inline std::vector<Tensor> wrap_outputs(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(wrap_outputs(t));
  return out;
}
inline std::optional<Tensor> wrap_outputs(const std::optional<Tensor>& t) {
  return t ? std::optional<Tensor>(wrap_outputs(*t)) : t;
}
template <typename T>
T wrap_outputs(const T& v) {
  return v;  // numbers, bools, shapes
}
template <typename... Ts>
std::tuple<Ts...> wrap_outputs(const std::tuple<Ts...>& t) {
  return std::apply([](const auto&... x) { return std::tuple<Ts...>(wrap_outputs(x)...); }, t);
}

// Helpers the generated reverse functions use.
TCORE_API std::vector<int64_t> inverse_permutation(IntArrayRef dims);
TCORE_API Tensor reshape_back(const Tensor& base, const Tensor& view);  // view, squeeze, unsqueeze (a copy under views_as_copies)
inline int64_t prefix_sum(IntArrayRef sizes, size_t n) {
  int64_t s = 0;
  for (size_t k = 0; k < n && k < sizes.size(); ++k) s += sizes[k];
  return s;
}
TCORE_API Tensor slice_back(const Tensor& base, const Tensor& view, int64_t dim, int64_t start);  // split's pieces
TCORE_API Tensor strided_back(const Tensor& base, const Tensor& view, const char* op,
                              const std::function<Tensor(const Tensor&)>& forward);  // unfold
[[noreturn]] TCORE_API void overlapping_write(const char* op);
// A multi-output view's outputs as copies (remove="mutations_and_views"): the slice_copy of
// base a piece of split is, else the as_strided_copy of its geometry (views computed untraced).
TCORE_API std::vector<Tensor> copies_of(const Tensor& base,
                                        const std::function<std::vector<Tensor>(const Tensor&)>& views);

}  // namespace tcore::functionalization
