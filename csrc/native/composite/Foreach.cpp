// Foreach operators: one call over lists of tensors (torch._foreach_*), element by element
// through the operators of one tensor; autograd records them from derivatives.yaml's
// formulas of element i, not through these calls (CompositeExplicitAutograd).
#include <string>

#include <tcore/ops/_foreach_add.h>
#include <tcore/ops/_foreach_add_native.h>
#include <tcore/ops/_foreach_div.h>
#include <tcore/ops/_foreach_div_native.h>
#include <tcore/ops/_foreach_mul.h>
#include <tcore/ops/_foreach_mul_native.h>
#include <tcore/ops/add.h>
#include <tcore/ops/div.h>
#include <tcore/ops/mul.h>

#include "tcore/core/Macros.h"

namespace tcore::native {
namespace {

void check_lists(const char* op, ArrayRef<Tensor> self, ArrayRef<Tensor> other) {
  TCORE_CHECK(self.size() == other.size(), op, ": tensor lists must have the same number of tensors, got ",
              self.size(), " and ", other.size());
}

}  // namespace

std::vector<Tensor> foreach_add_list(ArrayRef<Tensor> self, ArrayRef<Tensor> other, const Scalar& alpha) {
  check_lists("_foreach_add", self, other);
  std::vector<Tensor> out;
  out.reserve(self.size());
  for (size_t i = 0; i < self.size(); ++i) out.push_back(tcore::add(self[i], other[i], alpha));
  return out;
}

void foreach_add_list_(ArrayRef<Tensor> self, ArrayRef<Tensor> other, const Scalar& alpha) {
  check_lists("_foreach_add_", self, other);
  for (size_t i = 0; i < self.size(); ++i) tcore::add_(self[i], other[i], alpha);
}

std::vector<Tensor> foreach_mul_scalar(ArrayRef<Tensor> self, const Scalar& scalar) {
  std::vector<Tensor> out;
  out.reserve(self.size());
  for (const Tensor& t : self) out.push_back(tcore::mul(t, scalar));
  return out;
}

void foreach_mul_scalar_(ArrayRef<Tensor> self, const Scalar& scalar) {
  for (const Tensor& t : self) tcore::mul_(t, scalar);
}

std::vector<Tensor> foreach_div_list(ArrayRef<Tensor> self, ArrayRef<Tensor> other) {
  check_lists("_foreach_div", self, other);
  std::vector<Tensor> out;
  out.reserve(self.size());
  for (size_t i = 0; i < self.size(); ++i) out.push_back(tcore::div(self[i], other[i]));
  return out;
}

void foreach_div_list_(ArrayRef<Tensor> self, ArrayRef<Tensor> other) {
  check_lists("_foreach_div_", self, other);
  for (size_t i = 0; i < self.size(); ++i) tcore::div_(self[i], other[i]);
}

}  // namespace tcore::native
