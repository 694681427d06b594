// The lazy kernels the generator leaves to the runtime (codegen/gen_lazy.py HAND_WRITTEN):
// copy_ is where data crosses between lazy and other devices.
#include <tcore/ops/copy.h>
#include <tcore/ops/copy_ops.h>

#include "tcore/core/Dispatch.h"
#include "tcore/core/Macros.h"
#include "tcore/lazy/Lazy.h"

namespace tcore::lazy {
namespace {

// self's new contents: src broadcast and cast into self's shape and dtype, on the CPU.
struct CopyNode final : Node {
  using Node::Node;
  const char* op() const override { return "copy_"; }
  uint64_t attr_hash() const override { return hash_of("copy_"); }
  std::vector<Tensor> run(std::vector<Tensor>& in) const override {
    Tensor self = writable(in[0]);
    ops::copy_::call(self, in[1], false);
    return {self};
  }
};

Tensor copy_lazy(const Tensor& self, const Tensor& src, bool non_blocking) {
  if (!is_lazy(self)) {  // lazy -> another device: src's contents, materialized, copied there
    Tensor values = to_eager(src);
    AutoDispatchBelowAutograd below;
    return ops::copy_::call(self, values, non_blocking);
  }
  if (self.is_same(src)) return self;
  Value v;
  if (is_lazy(src)) {
    v = value_of(src, "copy_");
  } else {  // another device -> lazy: a snapshot of src's contents
    AutoDispatchBelowAutograd below;
    Tensor cpu = empty_cpu(src.sizes(), src.dtype());
    ops::copy_::call(cpu, src, false);
    v = data_value(cpu);
  }
  Shape self_shape{self.sizes().vec(), self.dtype()};
  {
    // the Meta function checks what eager mode checks (broadcastable, no internal overlap)
    Recorder check("copy_");
    Tensor m_self = check.meta_out(self);
    ops::copy_::call(m_self, check.meta_out(src), non_blocking);
  }
  if (src.sizes().vec() == self_shape.sizes && src.dtype() == self.dtype()) {
    write(self, std::move(v), self_shape, "copy_");
  } else {
    auto node = std::make_shared<CopyNode>(std::vector<Value>{value_of(self, "copy_"), std::move(v)},
                                           std::vector<Shape>{self_shape});
    write(self, Value{node, 0}, self_shape, "copy_");
  }
  return self;
}

const bool registered = register_kernel<ops::copy_>(DispatchKey::Lazy, &copy_lazy);

}  // namespace
}  // namespace tcore::lazy
