// _im2col and _col2im: the patch matrix of a 2-D convolution and its adjoint.
//
// _im2col(x) of an (N, C, H, W) input is (N * oh * ow, C * kh * kw): row (n, oy, ox)
// holds the input window of that output position, zero where it falls in the padding,
// in one pass over the output (no padded copy, no permuted view). _col2im adds each row
// back into its window (overlapping windows accumulate), so each is the other's gradient.
// (Their derivatives.yaml entries make them each other's gradient.)
//
// _conv2d_im2col is conv2d's product (no groups, no bias; native/composite/Convolution.cpp adds
// those): a few images at a time, each image's patches as a (C * kh * kw, oh * ow) matrix (a row is
// one kernel tap's shifted input rows) multiplied by the (O, C * kh * kw) weight straight into the
// image's (O, oh, ow) output. The patches stay in the cache between the two passes, and the output
// needs no transposing copy: (16, 32, 64, 64) by a 3x3 kernel to 32 channels, one thread, 34.6 ms
// through the whole patch matrix (75 MB) and a permuted copy, 17 ms this way (torch 12.7, oneDNN's).
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include <tcore/ops/_col2im_native.h>
#include <tcore/ops/_conv2d_im2col_backward_native.h>
#include <tcore/ops/_conv2d_im2col_native.h>
#include <tcore/ops/_im2col_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/LinearAlgebra.h"
#include "native/cpu/Parallel.h"
#include "native/onednn/Conv.h"

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
  Tensor out = zeros_cpu(input_size, self.dtype());
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

namespace {
// The output columns [lo, hi) whose input column ox * sw + shift falls inside the image (a kernel
// tap's shift: kx * dw - pw).
std::pair<int64_t, int64_t> columns_inside(const Geometry& g, int64_t shift) {
  const int64_t lo = std::min(g.ow, shift >= 0 ? 0 : (-shift + g.sw - 1) / g.sw);
  const int64_t hi = std::max(lo, std::min(g.ow, g.w - shift > 0 ? (g.w - shift + g.sw - 1) / g.sw : 0));
  return {lo, hi};
}

// The patches of image `n` of x (strides st, elements) as a (c * kh * kw, oh * ow) matrix at `cols`.
template <typename T>
void image_patches(const Geometry& g, const T* x, IntArrayRef st, int64_t n, T* cols) {
  const int64_t per_image = g.oh * g.ow;
  const T zero = static_cast<T>(0.0f);
  for (int64_t c = 0; c < g.c; ++c) {
    const T* plane = x + n * st[0] + c * st[1];
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        T* row = cols + ((c * g.kh + ky) * g.kw + kx) * per_image;
        const int64_t shift = kx * g.dw - g.pw;  // ix = ox * sw + shift
        const auto [lo, hi] = columns_inside(g, shift);
        for (int64_t oy = 0; oy < g.oh; ++oy, row += g.ow) {
          const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
          if (iy < 0 || iy >= g.h) {
            std::fill(row, row + g.ow, zero);
            continue;
          }
          const T* in = plane + iy * st[2] + shift * st[3];
          std::fill(row, row + lo, zero);
          if (g.sw == 1 && st[3] == 1) {
            std::memcpy(row + lo, in + lo, static_cast<size_t>(hi - lo) * sizeof(T));
          } else {
            for (int64_t ox = lo; ox < hi; ++ox) row[ox] = in[ox * g.sw * st[3]];
          }
          std::fill(row + hi, row + g.ow, zero);
        }
      }
    }
  }
}
// image_patches' adjoint: each row of `cols` (c * kh * kw, oh * ow) added back into image `n` of dx
// (contiguous, (N, C, H, W)) where its input element came from.
template <typename T>
void add_image_patches(const Geometry& g, const T* cols, int64_t n, T* dx) {
  const int64_t per_image = g.oh * g.ow;
  for (int64_t c = 0; c < g.c; ++c) {
    T* plane = dx + (n * g.c + c) * g.h * g.w;
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        const T* row = cols + ((c * g.kh + ky) * g.kw + kx) * per_image;
        const int64_t shift = kx * g.dw - g.pw;
        const auto [lo, hi] = columns_inside(g, shift);
        for (int64_t oy = 0; oy < g.oh; ++oy, row += g.ow) {
          const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
          if (iy < 0 || iy >= g.h) continue;
          T* in = plane + iy * g.w + shift;
          for (int64_t ox = lo; ox < hi; ++ox) in[ox * g.sw] += row[ox];
        }
      }
    }
  }
}

// The convolution's parameters as oneDNN's path takes them.
onednn::Conv2dParams params_of(const Geometry& g, int64_t groups) {
  return {{g.sh, g.sw}, {g.ph, g.pw}, {g.dh, g.dw}, groups};
}

// The chunk of images a pass takes: one per thread (the products go to threads whole, bmm's rule).
int64_t images_a_pass(int64_t n) { return std::min<int64_t>(n, std::max(1, get_num_threads())); }

// The patches of images [n0, n0 + m) of self into cols (chunk x taps x per_image), an image a thread;
// returns them as an (m, taps, per_image) tensor.
Tensor chunk_patches(const Geometry& g, const Tensor& self, int64_t n0, int64_t m, const Tensor& cols) {
  const int64_t taps = g.c * g.kh * g.kw, per_image = g.oh * g.ow;
  const IntArrayRef st = self.strides();
  dispatch_all_types(self.dtype(), "_conv2d_im2col", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(self.data_ptr());
    T* c = static_cast<T*>(cols.data_ptr());
    parallel_for(0, m, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) image_patches<T>(g, x, st, n0 + i, c + i * taps * per_image);
    });
  });
  return make_view(cols, {m, taps, per_image}, {taps * per_image, per_image, 1}, 0);
}

}  // namespace

namespace {
// The results' layout: channels_last when the input or the weight suggests it (PyTorch's CPU
// convolution), the input's gradient and the weight's included.
MemoryFormat conv_format(const Tensor& self, const Tensor& weight) {
  return self.suggest_memory_format() == MemoryFormat::ChannelsLast ? MemoryFormat::ChannelsLast
                                                                     : weight.suggest_memory_format();
}
}  // namespace

namespace {
// Group k's channels [k * size, (k + 1) * size) of t along dim (a view).
Tensor group_of(const Tensor& t, int64_t dim, int64_t k, int64_t size) {
  std::vector<int64_t> sizes = t.sizes().vec();
  sizes[dim] = size;
  return make_view(t, sizes, t.strides().vec(), t.storage_offset() + k * size * t.strides()[dim]);
}

void check_groups(const Tensor& self, const Tensor& weight, int64_t groups, const char* op) {
  TCORE_CHECK_VALUE(groups > 0 && self.dim() == 4 && weight.dim() == 4 && weight.sizes()[1] * groups == self.sizes()[1] &&
                        weight.sizes()[0] % groups == 0,
                    op, ": expected an (N, C, H, W) input and an (O, C / groups, kh, kw) weight with O divisible by groups=",
                    groups, ", got ", shape_str(self.sizes()), " and ", shape_str(weight.sizes()));
}
}  // namespace

Tensor _conv2d_im2col(const Tensor& self, const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
                      IntArrayRef dilation, int64_t groups) {
  check_groups(self, weight, groups, "_conv2d_im2col");
  TCORE_CHECK_TYPE(self.dtype() == weight.dtype(), "_conv2d_im2col: expected the input and the weight of one dtype, got ",
                   self.dtype(), " and ", weight.dtype());
  const Geometry g = geometry(self.sizes(), {weight.sizes()[2], weight.sizes()[3]}, dilation, padding, stride,
                              "_conv2d_im2col");
  const int64_t out_channels = weight.sizes()[0], taps = g.c / groups * g.kh * g.kw, per_image = g.oh * g.ow;
  const MemoryFormat format = conv_format(self, weight);
  if (taps == 0) return in_format(zeros_cpu({g.n, out_channels, g.oh, g.ow}, self.dtype()), format);  // an empty sum
  Tensor result = empty_in_format({g.n, out_channels, g.oh, g.ow}, self.dtype(), format);
  if (result.numel() == 0) return result;
  if (onednn::conv2d_forward(self, weight, result, params_of(g, groups))) return result;
  if (groups > 1) {  // each group's product into its channels of the result
    const int64_t cg = g.c / groups, og = out_channels / groups;
    for (int64_t k = 0; k < groups; ++k)
      copy_kernel(group_of(result, 1, k, og),
                  _conv2d_im2col(group_of(self, 1, k, cg), group_of(weight, 0, k, og), stride, padding, dilation, 1));
    return result;
  }
  const Tensor out = format == MemoryFormat::Contiguous ? result : empty_cpu(result.sizes(), self.dtype());
  const int64_t chunk = images_a_pass(g.n);
  const Tensor w = contiguous_copy(weight);  // (O, C * kh * kw), the same matrix for every image
  const Tensor cols = empty_cpu({chunk, taps, per_image}, self.dtype());
  for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
    const int64_t m = std::min(chunk, g.n - n0);
    products_into(make_view(w, {m, out_channels, taps}, {0, taps, 1}, w.storage_offset()),
                  chunk_patches(g, self, n0, m, cols),
                  make_view(out, {m, out_channels, per_image}, {out_channels * per_image, per_image, 1},
                            n0 * out_channels * per_image));
  }
  if (!out.is_same(result)) copy_kernel(result, out);
  return result;
}

// The gradients of _conv2d_im2col, chunk by chunk of images as the forward: the weight's, each
// image's grad (O, oh * ow) by its patches transposed, summed over the images; the input's, the
// weight transposed by each image's grad, added back through the patches' places.
std::tuple<Tensor, Tensor> _conv2d_im2col_backward(const Tensor& grad_output, const Tensor& self, const Tensor& weight,
                                                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                   int64_t groups, std::array<bool, 2> output_mask) {
  check_groups(self, weight, groups, "_conv2d_im2col_backward");
  const Geometry g = geometry(self.sizes(), {weight.sizes()[2], weight.sizes()[3]}, dilation, padding, stride,
                              "_conv2d_im2col_backward");
  const int64_t out_channels = weight.sizes()[0], taps = g.c / groups * g.kh * g.kw, per_image = g.oh * g.ow;
  TCORE_CHECK_VALUE(grad_output.dim() == 4 && grad_output.sizes()[0] == g.n && grad_output.sizes()[1] == out_channels &&
                        grad_output.sizes()[2] == g.oh && grad_output.sizes()[3] == g.ow,
                    "_conv2d_im2col_backward: expected a grad of (", g.n, ", ", out_channels, ", ", g.oh, ", ", g.ow,
                    "), got ", shape_str(grad_output.sizes()));
  const ScalarType t = self.dtype();
  if (is_reduced_float(t)) {  // float16/bfloat16: in float32, rounded once
    const auto [dx, dw] = _conv2d_im2col_backward(cast(grad_output, ScalarType::Float), cast(self, ScalarType::Float),
                                                  cast(weight, ScalarType::Float), stride, padding, dilation, groups,
                                                  output_mask);
    const MemoryFormat format = conv_format(self, weight);
    return {dx.defined() ? in_format(cast(dx, t), format) : dx, dw.defined() ? in_format(cast(dw, t), format) : dw};
  }
  const MemoryFormat format = conv_format(self, weight);
  if (output_mask[0] || output_mask[1]) {
    const Tensor dx = output_mask[0] ? empty_in_format(self.sizes(), t, format) : Tensor();
    const Tensor dw = output_mask[1] ? empty_in_format(weight.sizes(), t, format) : Tensor();
    if (g.n > 0 && taps > 0 && onednn::conv2d_backward(cast(grad_output, t), self, weight, dx, dw, params_of(g, groups)))
      return {dx, dw};
    if (groups > 1) {  // each group's gradients into its channels
      const int64_t cg = g.c / groups, og = out_channels / groups;
      for (int64_t k = 0; k < groups; ++k) {
        const auto [dxk, dwk] = _conv2d_im2col_backward(group_of(grad_output, 1, k, og), group_of(self, 1, k, cg),
                                                        group_of(weight, 0, k, og), stride, padding, dilation, 1,
                                                        output_mask);
        if (dx.defined()) copy_kernel(group_of(dx, 1, k, cg), dxk);
        if (dw.defined()) copy_kernel(group_of(dw, 0, k, og), dwk);
      }
      return {dx, dw};
    }
  }
  const auto laid_out = [format](const Tensor& r) { return r.defined() ? in_format(r, format) : r; };
  const Tensor gy = contiguous_copy(cast(grad_output, t));
  const Tensor dx = output_mask[0] ? zeros_cpu(self.sizes(), t) : Tensor();
  const Tensor dw = output_mask[1] ? zeros_cpu(weight.sizes(), t) : Tensor();
  if (g.n == 0 || taps == 0 || per_image == 0 || out_channels == 0) return {laid_out(dx), laid_out(dw)};
  const int64_t chunk = images_a_pass(g.n);
  const Tensor w = contiguous_copy(weight);
  const Tensor cols = empty_cpu({chunk, taps, per_image}, t);
  const Tensor dw_parts = output_mask[1] ? empty_cpu({chunk, taps, out_channels}, t) : Tensor();
  for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
    const int64_t m = std::min(chunk, g.n - n0);
    const Tensor grads = make_view(gy, {m, out_channels, per_image}, {out_channels * per_image, per_image, 1},
                                   gy.storage_offset() + n0 * out_channels * per_image);
    if (output_mask[1]) {
      chunk_patches(g, self, n0, m, cols);
      // each image's weight gradient transposed, (taps, O) = patches (taps, pos) @ grads^T (pos, O):
      // OpenBLAS runs this layout at 78 GFLOP/s, grads @ patches^T at 49 (per image (32 x 4096) by
      // (4096 x 288)); the transposes are added into dw
      const Tensor parts = make_view(dw_parts, {m, taps, out_channels}, {out_channels * taps, out_channels, 1}, 0);
      products_into(make_view(cols, {m, taps, per_image}, {taps * per_image, per_image, 1}, 0),
                    make_view(grads, {m, per_image, out_channels}, {out_channels * per_image, 1, per_image},
                              grads.storage_offset()), parts);
      dispatch_dtype(t, "_conv2d_im2col_backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* acc = static_cast<T*>(dw.data_ptr());
        const T* part = static_cast<const T*>(dw_parts.data_ptr());
        for (int64_t i = 0; i < m; ++i)
          for (int64_t o = 0; o < out_channels; ++o)
            for (int64_t k = 0; k < taps; ++k) acc[o * taps + k] += part[(i * taps + k) * out_channels + o];
      });
    }
    if (output_mask[0]) {  // the patches' gradients overwrite the patches
      products_into(make_view(w, {m, taps, out_channels}, {0, 1, taps}, w.storage_offset()), grads,
                    make_view(cols, {m, taps, per_image}, {taps * per_image, per_image, 1}, 0));
      dispatch_dtype(t, "_conv2d_im2col_backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* c = static_cast<const T*>(cols.data_ptr());
        T* d = static_cast<T*>(dx.data_ptr());
        parallel_for(0, m, 1, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) add_image_patches<T>(g, c + i * taps * per_image, n0 + i, d);
        });
      });
    }
  }
  return {laid_out(dx), laid_out(dw)};
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
