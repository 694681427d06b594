#include "native/cpu/Loops.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

std::vector<int64_t> broadcast_strides(const Tensor& t, IntArrayRef shape) {
  const size_t n = shape.size(), m = t.sizes().size();
  std::vector<int64_t> out(n, 0);
  const int64_t e = t.element_size();
  for (size_t i = 0; i < m; ++i) {
    const size_t d = n - m + i;
    out[d] = t.sizes()[i] == 1 && shape[d] != 1 ? 0 : t.strides()[i] * e;
  }
  return out;
}

LoopGeometry make_geometry(IntArrayRef shape, const std::vector<const Tensor*>& operands) {
  std::vector<std::vector<int64_t>> strides;
  for (const Tensor* t : operands) strides.push_back(broadcast_strides(*t, shape));
  LoopGeometry g;
  g.strides.resize(operands.size());
  for (const Tensor* t : operands) g.itemsize.push_back(t->element_size());
  // drop size-1 dims, then merge a dim into the next inner one when contiguous for all
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !g.shape.empty();
    if (merge) {
      for (size_t k = 0; k < operands.size(); ++k) merge = merge && g.strides[k].back() == strides[k][d] * shape[d];
    }
    if (merge) {
      g.shape.back() *= shape[d];
      for (size_t k = 0; k < operands.size(); ++k) g.strides[k].back() = strides[k][d];
    } else {
      g.shape.push_back(shape[d]);
      for (size_t k = 0; k < operands.size(); ++k) g.strides[k].push_back(strides[k][d]);
    }
  }
  if (g.shape.empty() && numel_of(shape) == 1) {
    g.shape.push_back(1);
    for (auto& s : g.strides) s.push_back(0);
  }
  return g;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
