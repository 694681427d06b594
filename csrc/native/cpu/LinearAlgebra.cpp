// mm: an i-k-j loop over contiguous operands (the inner loop is a vectorizable axpy).
#include <tcore/ops/mm_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"

namespace tcore::native {
namespace {

Tensor contiguous_cpu(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = empty_cpu(t.sizes(), t.dtype());
  copy_kernel(out, t);
  return out;
}

void check_mm(const Tensor& a, const Tensor& b) {
  TCORE_CHECK_VALUE(a.dim() == 2, "self must be a matrix (got a ", a.dim(), "-D tensor)");
  TCORE_CHECK_VALUE(b.dim() == 2, "mat2 must be a matrix (got a ", b.dim(), "-D tensor)");
  TCORE_CHECK_VALUE(a.sizes()[1] == b.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (", a.sizes()[0], "x",
                    a.sizes()[1], " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  TCORE_CHECK_TYPE(a.dtype() == b.dtype(), "expected m1 and m2 to have the same dtype, but got: ", a.dtype(),
                   " != ", b.dtype());
}

Tensor mm_compute(const Tensor& self, const Tensor& mat2) {
  check_mm(self, mat2);
  const int64_t n = self.sizes()[0], k = self.sizes()[1], m = mat2.sizes()[1];
  Tensor out = empty_cpu({n, m}, self.dtype());
  const Tensor a = contiguous_cpu(self), b = contiguous_cpu(mat2);
  dispatch_numeric(self.dtype(), "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* A = a.template data_ptr<T>();
    const T* B = b.template data_ptr<T>();
    T* C = out.template data_ptr<T>();
    for (int64_t i = 0; i < n * m; ++i) C[i] = T(0);
    for (int64_t i = 0; i < n; ++i) {
      T* c = C + i * m;
      for (int64_t p = 0; p < k; ++p) {
        const T av = A[i * k + p];
        const T* brow = B + p * m;
        for (int64_t j = 0; j < m; ++j) c[j] = static_cast<T>(c[j] + av * brow[j]);
      }
    }
  });
  return out;
}

}  // namespace

Tensor mm(const Tensor& self, const Tensor& mat2) { return mm_compute(self, mat2); }

Tensor mm_out(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  write_result(out, mm_compute(self, mat2), "mm");
  out.bump_version();
  return out;
}

}  // namespace tcore::native
