// _im2col and _col2im: the patch matrix of a 2-D convolution and its adjoint.
//
// _im2col(x) of an (N, C, H, W) input is (N * oh * ow, C * kh * kw): row (n, oy, ox)
// holds the input window of that output position, zero where it falls in the padding,
// in one pass over the output (no padded copy, no permuted view). _col2im adds each row
// back into its window (overlapping windows accumulate), so each is the other's gradient.
// conv2d multiplies the patch matrix by the weight (native/composite/Convolution.cpp).
#include <cstring>
#include <vector>

#include <tcore/ops/_col2im_native.h>
#include <tcore/ops/_im2col_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Parallel.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

struct Geometry {
  int64_t n, c, h, w, kh, kw, dh, dw, ph, pw, sh, sw, oh, ow;
};

Geometry geometry(IntArrayRef input, IntArrayRef kernel, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride,
                  const char* op) {
  TCORE_CHECK_VALUE(input.size() == 4, op, ": expected an (N, C, H, W) input, got ", shape_str(input));
  auto pick = [&](IntArrayRef v, const char* name, int64_t i) {
    TCORE_CHECK_VALUE(v.size() == 1 || v.size() == 2, op, ": ", name, " must be one or two ints, got ", shape_str(v));
    return v.size() == 1 ? v[0] : v[i];
  };
  Geometry g{input[0], input[1], input[2], input[3], pick(kernel, "kernel_size", 0), pick(kernel, "kernel_size", 1),
             pick(dilation, "dilation", 0), pick(dilation, "dilation", 1), pick(padding, "padding", 0),
             pick(padding, "padding", 1), pick(stride, "stride", 0), pick(stride, "stride", 1), 0, 0};
  TCORE_CHECK_VALUE(g.kh > 0 && g.kw > 0 && g.dh > 0 && g.dw > 0 && g.sh > 0 && g.sw > 0 && g.ph >= 0 && g.pw >= 0,
                    op, ": kernel_size, dilation and stride must be positive and padding non-negative");
  g.oh = (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
  TCORE_CHECK_VALUE(g.oh > 0 && g.ow > 0, op, ": the kernel (", g.kh, "x", g.kw, ", dilation ", g.dh, "x", g.dw,
                    ") does not fit the padded input (", g.h + 2 * g.ph, "x", g.w + 2 * g.pw, ")");
  return g;
}

}  // namespace

Tensor _im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  const Geometry g = geometry(self.sizes(), kernel_size, dilation, padding, stride, "_im2col");
  const int64_t rows = g.n * g.oh * g.ow, cols = g.c * g.kh * g.kw;
  Tensor out = empty_cpu({rows, cols}, self.dtype());
  if (out.numel() == 0) return out;
  const IntArrayRef st = self.strides();
  // each column's offset from its window's corner: a row inside the input is a gather
  std::vector<int64_t> off;
  off.reserve(static_cast<size_t>(cols));
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t ky = 0; ky < g.kh; ++ky)
      for (int64_t kx = 0; kx < g.kw; ++kx) off.push_back(c * st[1] + ky * g.dh * st[2] + kx * g.dw * st[3]);
  dispatch_all_types(self.dtype(), "_im2col", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T zero = static_cast<T>(0.0f);
    const T* x = static_cast<const T*>(self.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t ox = r % g.ow, oy = (r / g.ow) % g.oh, n = r / (g.ow * g.oh);
        const int64_t iy0 = oy * g.sh - g.ph, ix0 = ox * g.sw - g.pw;
        T* row = o + r * cols;
        if (iy0 >= 0 && iy0 + g.dh * (g.kh - 1) < g.h && ix0 >= 0 && ix0 + g.dw * (g.kw - 1) < g.w) {
          const T* corner = x + n * st[0] + iy0 * st[2] + ix0 * st[3];
          for (int64_t j = 0; j < cols; ++j) row[j] = corner[off[j]];
          continue;
        }
        for (int64_t c = 0; c < g.c; ++c) {  // a window over the padding
          const T* plane = x + n * st[0] + c * st[1];
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            const int64_t iy = iy0 + ky * g.dh;
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              const int64_t ix = ix0 + kx * g.dw;
              *row++ = (iy >= 0 && iy < g.h && ix >= 0 && ix < g.w) ? plane[iy * st[2] + ix * st[3]] : zero;
            }
          }
        }
      }
    });
  });
  return out;
}

Tensor _col2im(const Tensor& self, IntArrayRef input_size, IntArrayRef kernel_size, IntArrayRef dilation,
               IntArrayRef padding, IntArrayRef stride) {
  const Geometry g = geometry(input_size, kernel_size, dilation, padding, stride, "_col2im");
  const int64_t rows = g.n * g.oh * g.ow, cols = g.c * g.kh * g.kw;
  TCORE_CHECK_VALUE(self.dim() == 2 && self.sizes()[0] == rows && self.sizes()[1] == cols, "_col2im: expected a (",
                    rows, ", ", cols, ") patch matrix, got ", shape_str(self.sizes()));
  const Tensor src = contiguous_copy(self);
  Tensor out = empty_cpu(input_size, self.dtype());
  std::memset(out.data_ptr(), 0, static_cast<size_t>(out.numel() * out.element_size()));
  if (rows == 0 || cols == 0) return out;
  std::vector<int64_t> off;  // each column's offset from its window's corner in the output
  off.reserve(static_cast<size_t>(cols));
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t ky = 0; ky < g.kh; ++ky)
      for (int64_t kx = 0; kx < g.kw; ++kx) off.push_back(c * g.h * g.w + ky * g.dh * g.w + kx * g.dw);
  dispatch_dtype(self.dtype(), "_col2im", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(src.data_ptr());
    T* x = static_cast<T*>(out.data_ptr());
    const int64_t plane = g.h * g.w, per_image = g.oh * g.ow;
    parallel_for(0, g.n, 1, [&](int64_t b, int64_t e) {  // images are disjoint: one thread each
      for (int64_t n = b; n < e; ++n) {
        for (int64_t p = 0; p < per_image; ++p) {
          const int64_t ox = p % g.ow, oy = p / g.ow;
          const int64_t iy0 = oy * g.sh - g.ph, ix0 = ox * g.sw - g.pw;
          const T* row = in + (n * per_image + p) * cols;
          if (iy0 >= 0 && iy0 + g.dh * (g.kh - 1) < g.h && ix0 >= 0 && ix0 + g.dw * (g.kw - 1) < g.w) {
            T* corner = x + n * g.c * plane + iy0 * g.w + ix0;
            for (int64_t j = 0; j < cols; ++j) corner[off[j]] += row[j];
            continue;
          }
          for (int64_t c = 0; c < g.c; ++c) {
            T* img = x + (n * g.c + c) * plane;
            for (int64_t ky = 0; ky < g.kh; ++ky) {
              const int64_t iy = iy0 + ky * g.dh;
              for (int64_t kx = 0; kx < g.kw; ++kx, ++row) {
                const int64_t ix = ix0 + kx * g.dw;
                if (iy >= 0 && iy < g.h && ix >= 0 && ix < g.w) img[iy * g.w + ix] += *row;
              }
            }
          }
        }
      }
    });
  });
  return out;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
