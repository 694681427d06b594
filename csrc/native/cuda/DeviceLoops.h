#pragma once
// The loops device-neutral kernels hand to a CUDA device: gather, scatter_add, index_select,
// index_add and advanced indexing (native/cpu/Indexing.cpp, AdvancedIndex.cpp), layer_norm
// (native/cpu/Normalization.cpp). Those kernels check their arguments and lay out their views
// once, for every device, and call these when the tensors are on a GPU. A build without CUDA
// has stubs that say so (cuda/NoCUDA.cpp).
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

// layer_norm of `rows` contiguous rows of n elements of x (w and b: n elements, or undefined):
// out = (x - mean) * rstd * w + b, and each row's mean and rstd = 1 / sqrt(var + eps); every
// tensor contiguous, of x's floating dtype.
void layer_norm_rows(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& out, const Tensor& mean,
                     const Tensor& rstd, int64_t rows, int64_t n, double eps);

}  // namespace tcore::native::cuda
