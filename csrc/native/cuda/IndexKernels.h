#pragma once
// The index-driven loops of gather, scatter_add, index_select, index_add and advanced indexing
// (native/cpu/Indexing.cpp, AdvancedIndex.cpp) on a CUDA device: those kernels check their
// arguments and lay out their views once, for every device, and hand the loop to these when the
// tensors are on a GPU. A build without CUDA has stubs that say so (cuda/NoCUDA.cpp).
#include "tcore/core/Tensor.h"

namespace tcore::native::cuda {

// target[i] = src[i + k * stride] over `shape`, k = idx[i] (an index along `dim` in [-size, size),
// negative ones from the end; another is an IndexError). src is seen with `shape` (stride 0 along
// dim), stride is dim's byte stride; size < 0: idx holds byte offsets, already checked.
void index_take(const Tensor& target, const Tensor& src, const Tensor& idx, IntArrayRef shape, int64_t dim,
                int64_t size, int64_t stride, const char* op);

// dst[i + k * stride] += alpha * from[i] (accumulate) or = from[i], k as in index_take; atomic
// adds, so repeated indices sum.
void index_put(const Tensor& dst, const Tensor& from, const Tensor& idx, IntArrayRef shape, int64_t dim, int64_t size,
               int64_t stride, const Scalar& alpha, bool accumulate, const char* op);

// out = self where the element of the last two dims is on tril's (Lower) or triu's side of the
// diagonal, else 0; self and out contiguous, of one dtype.
void triangle(const Tensor& out, const Tensor& self, int64_t diagonal, bool lower);

}  // namespace tcore::native::cuda
