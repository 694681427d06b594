#include "tcore/core/FunctionalTensor.h"

#include <algorithm>

#include <tcore/ops/clone.h>
#include <tcore/ops/contiguous.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/select_copy.h>
#include <tcore/ops/as_strided_copy.h>
#include <tcore/ops/as_strided_scatter.h>
#include <tcore/ops/slice_copy.h>
#include <tcore/ops/slice_scatter.h>
#include <tcore/ops/to.h>
#include <tcore/ops/view_copy.h>

#include "tcore/core/Dispatch.h"
#include "tcore/core/Macros.h"
#include "native/TensorUtils.h"

namespace tcore::functionalization {
namespace {

thread_local bool copies_for_views = false;

FunctionalState& state(const Tensor& t) { return *t.impl()->functional; }

// The wrapper's own metadata and storage mirror its value's, so sizes, strides and reads
// of the data outside functionalized operators see the current value.
void mirror(const Tensor& wrapper, const Tensor& value) {
  TensorImpl* impl = wrapper.impl();
  impl->set_storage(value.storage());
  impl->set_sizes_and_strides(value.sizes().vec(), value.strides().vec(), value.storage_offset());
}

Tensor make_wrapper(const Tensor& value, std::shared_ptr<Alias> alias, std::vector<ViewMeta> metas) {
  auto impl = std::make_shared<TensorImpl>(value.storage(), value.dtype(), value.sizes().vec(), value.strides().vec(),
                                           value.storage_offset());
  impl->is_wrapped_number = value.impl()->is_wrapped_number;
  auto st = std::make_shared<FunctionalState>();
  st->value = value;
  st->generation = alias->generation;
  st->alias = std::move(alias);
  st->metas = std::move(metas);
  impl->functional = std::move(st);
  return Tensor(std::move(impl));
}

Tensor replay(const Tensor& base, const std::vector<ViewMeta>& metas) {
  Tensor t = base;
  for (const auto& m : metas) t = m.forward(t);
  return t;
}

// Brings t's value up to date with the writes queued on its storage.
void sync(const Tensor& t) {
  FunctionalState& st = state(t);
  Alias& alias = *st.alias;
  if (st.generation == alias.generation) return;
  AutoDispatchBelowFunctionalize below;
  alias.apply_updates();
  st.value = replay(alias.base, st.metas);
  st.generation = alias.generation;
  mirror(t, st.value);
}

bool overlaps(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] > 1 && t.strides()[d] == 0) return true;
  return false;
}

// A copy of `piece`, a view of `base`, spelled by its position when it is a slice along one
// dimension (split's pieces) or an index of one (unbind's): slice_copy and select_copy hold in a
// graph whatever the layout of the tensor it runs on; else as_strided_copy of its geometry (which
// a traced graph would keep for inputs of another layout).
Tensor piece_copy(const Tensor& base, const Tensor& piece) {
  const int64_t n = base.dim();
  const int64_t shift = piece.storage_offset() - base.storage_offset();
  if (piece.dim() == n - 1) {  // base with dim d removed, at an index along it
    for (int64_t d = 0; d < n; ++d) {
      const int64_t stride = base.strides()[d];
      bool same = true;
      for (int64_t k = 0, j = 0; k < n && same; ++k) {
        if (k == d) continue;
        same = piece.sizes()[j] == base.sizes()[k] && piece.strides()[j] == base.strides()[k];
        ++j;
      }
      if (!same) continue;
      if (stride == 0 ? shift != 0 : shift % stride != 0) continue;
      const int64_t index = stride == 0 ? 0 : shift / stride;
      if (index >= 0 && index < base.sizes()[d]) return tcore::select_copy(base, d, index);
    }
  }
  if (piece.dim() == n) {
    int64_t d = -1;
    for (int64_t k = 0; k < n; ++k)
      if (piece.sizes()[k] != base.sizes()[k]) d = d < 0 ? k : -2;
    if (d == -1) return tcore::clone(piece);
    if (d >= 0 && piece.strides().vec() == base.strides().vec() && base.strides()[d] != 0 &&
        shift % base.strides()[d] == 0) {
      const int64_t start = shift / base.strides()[d];
      return tcore::slice_copy(base, d, start, start + piece.sizes()[d], 1);
    }
  }
  return tcore::as_strided_copy(base, piece.sizes(), piece.strides(), piece.storage_offset());
}

}  // namespace

void Alias::apply_updates() {
  for (auto& u : updates) {
    // the intermediate views from the base to the written one, then back up the chain
    std::vector<Tensor> chain{base};
    for (size_t i = 0; i + 1 < u.metas.size(); ++i) chain.push_back(u.metas[i].forward(chain.back()));
    Tensor value = u.value;
    for (size_t i = u.metas.size(); i-- > 0;) value = u.metas[i].reverse(chain[i], value);
    base = value;
  }
  updates.clear();
}

bool views_as_copies() { return copies_for_views; }
void set_views_as_copies(bool on) { copies_for_views = on; }

bool is_functional(const Tensor& t) { return t.defined() && t.impl()->functional != nullptr; }

Tensor wrap(const Tensor& value) {
  auto alias = std::make_shared<Alias>();
  alias->base = value;
  return make_wrapper(value, std::move(alias), {});
}

Tensor unwrap(const Tensor& t) {
  if (!is_functional(t)) return t;
  sync(t);
  return state(t).value;
}
std::optional<Tensor> unwrap(const std::optional<Tensor>& t) {
  if (!t) return t;
  return unwrap(*t);
}
std::vector<Tensor> unwrap(ArrayRef<Tensor> ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(unwrap(t));
  return out;
}
std::vector<std::optional<Tensor>> unwrap(ArrayRef<std::optional<Tensor>> ts) {
  std::vector<std::optional<Tensor>> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(unwrap(t));
  return out;
}

Tensor wrap_view(const Tensor& self, const Tensor& value, ViewMeta meta) {
  if (!is_functional(self)) return value;  // a view of a tensor from outside the function
  const FunctionalState& st = state(self);
  const bool same = value.storage().data() == st.value.storage().data() &&
                    value.storage().nbytes() == st.value.storage().nbytes();
  if (!same && !views_as_copies()) {
    return wrap(value);  // the operator copied (reshape of a non-viewable tensor)
  }
  std::vector<ViewMeta> metas = st.metas;
  metas.push_back(std::move(meta));
  return make_wrapper(value, st.alias, std::move(metas));
}

void extend_view(const Tensor& self, const Tensor& value, ViewMeta meta) {
  TCORE_CHECK(is_functional(self), "tcore.func.functionalize: ", meta.op,
              " changes a tensor that is not functional (captured from outside the function): pass it as an input");
  FunctionalState& st = state(self);
  st.metas.push_back(std::move(meta));
  st.value = value;
  mirror(self, value);
}

void commit(const Tensor& self, const Tensor& value, const char* op, bool resizable) {
  TCORE_CHECK(is_functional(self), "tcore.func.functionalize: ", op,
              " writes to a tensor that is not functional (captured from outside the function, not an input "
              "nor computed inside it): pass it as an input");
  sync(self);
  FunctionalState& st = state(self);
  const bool is_view = !st.metas.empty();
  if (is_view && overlaps(st.value)) overlapping_write(op);
  Tensor v = value;
  if (v.sizes().vec() != st.value.sizes().vec()) {
    TCORE_CHECK(resizable && !is_view, op, ": output with shape ", shape_str(st.value.sizes()),
                " doesn't match the broadcast shape ", shape_str(v.sizes()));
  }
  if (v.dtype() != st.value.dtype()) {
    TCORE_CHECK_TYPE(native::can_cast(v.dtype(), st.value.dtype()), op, ": result type ", v.dtype(),
                     " can't be cast to the desired output type ", st.value.dtype());
    AutoDispatchBelowFunctionalize below;
    v = tcore::to(v, st.value.dtype());
  }
  Alias& alias = *st.alias;
  if (is_view) {
    alias.updates.push_back({v, st.metas});
  } else {
    alias.base = v;
  }
  alias.mutated = true;
  alias.generation += 1;
  st.value = v;
  st.generation = alias.generation;
  // the wrapper takes the new value's dtype-preserving geometry (a resize of out= included)
  mirror(self, v);
}

bool was_mutated(const Tensor& t) { return is_functional(t) && state(t).alias->mutated; }

std::vector<int64_t> inverse_permutation(IntArrayRef dims) {
  const int64_t n = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inverse(dims.size());
  for (int64_t i = 0; i < n; ++i) inverse[wrap_dim(dims[i], n)] = i;
  return inverse;
}

Tensor reshape_back(const Tensor& base, const Tensor& view) {
  if (views_as_copies()) return tcore::view_copy(view.is_contiguous() ? view : tcore::clone(view, MemoryFormat::Contiguous), base.sizes());
  return tcore::reshape(view, base.sizes());
}

Tensor slice_back(const Tensor& base, const Tensor& view, int64_t dim, int64_t start) {
  const int64_t d = wrap_dim(dim, base.dim());
  return tcore::slice_scatter(base, view, d, start, start + view.sizes()[d], 1);
}

Tensor strided_back(const Tensor& base, const Tensor& view, const char* op,
                    const std::function<Tensor(const Tensor&)>& forward) {
  // replayed on a contiguous copy of the base, as_strided_scatter's frame of reference
  Tensor frame = tcore::clone(base, MemoryFormat::Contiguous);
  Tensor g;
  {
    // only the view's geometry is wanted: the view itself, not its copy, and not traced
    AutoDispatchBelowTracer untraced;
    const bool copies = copies_for_views;
    copies_for_views = false;
    try {
      g = forward(frame);
    } catch (...) {
      copies_for_views = copies;
      throw;
    }
    copies_for_views = copies;
  }
  if (overlaps(g)) overlapping_write(op);
  return tcore::as_strided_scatter(frame, view, g.sizes(), g.strides(), g.storage_offset());
}

std::vector<Tensor> copies_of(const Tensor& base, const std::function<std::vector<Tensor>(const Tensor&)>& views) {
  std::vector<Tensor> pieces;
  {
    AutoDispatchBelowTracer untraced;
    pieces = views(base);
  }
  std::vector<Tensor> out;
  out.reserve(pieces.size());
  for (const auto& p : pieces) out.push_back(piece_copy(base, p));
  return out;
}

void overlapping_write(const char* op) {
  throw Error(detail::str_cat("unsupported operation: more than one element of the written-to tensor refers to a "
                              "single memory location (the output of ", op,
                              "). Please clone() the tensor before performing the operation."));
}

}  // namespace tcore::functionalization
