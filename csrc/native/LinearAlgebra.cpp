// Meta functions of the structured mm, bmm and addmm: two matrices (two batches of as many
// matrices) whose inner sizes agree, of one dtype and device; the result has that dtype exactly (an
// out= of another dtype is an error, as in PyTorch). Kernels: native/cpu/LinearAlgebra.cpp,
// native/cuda/Blas.cu.
#include <tcore/ops/addmm_native.h>
#include <tcore/ops/bmm_native.h>
#include <tcore/ops/mm_native.h>

#include "native/TensorUtils.h"

namespace tcore::meta {

TCORE_META_FUNC(mm)(const Tensor& self, const Tensor& mat2) {
  native::check_mm(self, mat2);
  TCORE_CHECK_TYPE(self.dtype() != ScalarType::Bool, "mm: not implemented for 'bool' tensors");
  set_output(0, {self.sizes()[0], mat2.sizes()[1]}, self.dtype());
}

TCORE_META_FUNC(bmm)(const Tensor& self, const Tensor& mat2) {
  TCORE_CHECK_VALUE(self.dim() == 3, "batch1 must be a 3D tensor");
  TCORE_CHECK_VALUE(mat2.dim() == 3, "batch2 must be a 3D tensor");
  const int64_t b = self.sizes()[0], n = self.sizes()[1], k = self.sizes()[2];
  TCORE_CHECK_VALUE(mat2.sizes()[0] == b && mat2.sizes()[1] == k,
                    "Expected size for first two dimensions of batch2 tensor to be: [", b, ", ", k, "] but got: [",
                    mat2.sizes()[0], ", ", mat2.sizes()[1], "].");
  TCORE_CHECK_TYPE(self.dtype() == mat2.dtype(), "expected scalar type ", self.dtype(), " but found ", mat2.dtype());
  TCORE_CHECK_VALUE(self.device() == mat2.device(), "bmm: Expected all tensors to be on the same device, but found ",
                    self.device().str(), " and ", mat2.device().str());
  TCORE_CHECK_TYPE(self.dtype() != ScalarType::Bool, "bmm: not implemented for 'bool' tensors");
  set_output(0, {b, n, mat2.sizes()[2]}, self.dtype());
}

// torch's checks, in torch's order; self's broadcast to the result is checked by the kernels
// (expand's error)
TCORE_META_FUNC(addmm)(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar&, const Scalar&) {
  TCORE_CHECK_TYPE(self.dtype() == mat2.dtype(), "self and mat2 must have the same dtype, but got ", self.dtype(),
                   " and ", mat2.dtype());
  TCORE_CHECK_TYPE(mat1.dtype() == mat2.dtype(), "mat1 and mat2 must have the same dtype, but got ", mat1.dtype(),
                   " and ", mat2.dtype());
  TCORE_CHECK_VALUE(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  TCORE_CHECK_VALUE(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  TCORE_CHECK_VALUE(mat1.sizes()[1] == mat2.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (",
                    mat1.sizes()[0], "x", mat1.sizes()[1], " and ", mat2.sizes()[0], "x", mat2.sizes()[1], ")");
  TCORE_CHECK_TYPE(mat1.dtype() != ScalarType::Bool, "addmm: not implemented for 'bool' tensors");
  set_output(0, {mat1.sizes()[0], mat2.sizes()[1]}, mat1.dtype());
}

}  // namespace tcore::meta
