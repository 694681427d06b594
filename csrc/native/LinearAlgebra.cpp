// Meta function of the structured mm: two matrices whose inner sizes agree, of one dtype and
// device; the result has that dtype exactly (an out= of another dtype is an error, as in
// PyTorch). Kernels: native/cpu/LinearAlgebra.cpp, native/cuda/Blas.cu.
#include <tcore/ops/mm_native.h>

#include "native/TensorUtils.h"

namespace tcore::meta {

TCORE_META_FUNC(mm)(const Tensor& self, const Tensor& mat2) {
  native::check_mm(self, mat2);
  TCORE_CHECK_TYPE(self.dtype() != ScalarType::Bool, "mm: not implemented for 'bool' tensors");
  set_output(0, {self.sizes()[0], mat2.sizes()[1]}, self.dtype());
}

}  // namespace tcore::meta
