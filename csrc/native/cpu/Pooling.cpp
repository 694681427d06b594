// max_pool2d's kernel: the maximum of each window and where it was (the flat index within
// its H x W plane, as PyTorch's max_pool2d_with_indices), and the backward that adds each
// gradient back at that index. The first maximum of a window wins; a NaN wins over numbers, the
// last NaN of the window (torch's rule: every NaN takes the place).
// The geometry (output size, ceil_mode) is decided by max_pool2d (native/composite/
// Convolution.cpp), which passes output_size; padding reads as -inf, so it is skipped.
//
// avg_pool2d's kernel and its backward: each window's sum over the input cells it covers, divided as
// PyTorch divides (divisor_override; else the window's cells up to the padded edge with
// count_include_pad, never ceil_mode's extra ones; else the input cells only). It was a sum over
// window views and a second pass for the counts: (16, 32, 64, 64), 2x2, one thread, 9.1 ms, 2.5x
// torch's.
#include <algorithm>
#include <cmath>
#include <optional>

#include <tcore/ops/_avg_pool2d_backward_native.h>
#include <tcore/ops/_avg_pool2d_native.h>
#include <tcore/ops/_max_pool2d_indices_backward_native.h>
#include <tcore/ops/_max_pool2d_indices_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Parallel.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

int64_t at(IntArrayRef v, size_t i, const char* name) {
  TCORE_CHECK_VALUE(v.size() == 1 || v.size() == 2, "pooling: ", name, " must be one or two ints, got ",
                    shape_str(v));
  return v.size() == 1 ? v[0] : v[i];
}

// the kernel taps whose input cell is inside, [lo, hi): a window over the padding skips the rest
void inside_taps(int64_t start, int64_t k, int64_t dil, int64_t size, int64_t& lo, int64_t& hi) {
  lo = 0, hi = k;
  while (lo < k && start + lo * dil < 0) ++lo;
  while (hi > lo && start + (hi - 1) * dil >= size) --hi;
}

// Channels-last blocks: the channels are innermost, so a window's cells are C-vectors and every
// loop over c is contiguous (vectorizes). Work is split by (image, block of channels): the
// backward kernels add into input cells that overlapping windows share, which stay one task's.
constexpr int64_t kChannelBlock = 64;
template <typename F>
void each_image_and_channels(int64_t n, int64_t c, int64_t cells, const F& f) {
  const int64_t blocks = (c + kChannelBlock - 1) / kChannelBlock;
  const int64_t per_task = std::min(c, kChannelBlock) * std::max<int64_t>(cells, 1);
  parallel_for(0, n * blocks, std::max<int64_t>(1, kGrainSize / per_task), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t c0 = (t % blocks) * kChannelBlock;
      f(t / blocks, c0, std::min(c, c0 + kChannelBlock));
    }
  });
}

struct MaxPool {
  int64_t n, c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
};

// max_pool2d of a channels_last input into channels_last values and indices: the taps in the
// window's order, the first maximum kept, a NaN taking the place (as the NCHW kernel).
template <typename T>
void max_pool_channels_last(const MaxPool& g, const T* in, T* out, int64_t* idx) {
  each_image_and_channels(g.n, g.c, g.oh * g.ow * g.kh * g.kw, [&](int64_t img, int64_t c0, int64_t c1) {
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      int64_t ky0, ky1;
      inside_taps(oy * g.sh - g.ph, g.kh, g.dh, g.h, ky0, ky1);
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        int64_t kx0, kx1;
        inside_taps(ox * g.sw - g.pw, g.kw, g.dw, g.w, kx0, kx1);
        T* best = out + ((img * g.oh + oy) * g.ow + ox) * g.c;
        int64_t* where = idx + ((img * g.oh + oy) * g.ow + ox) * g.c;
        if (ky0 == ky1 || kx0 == kx1) {  // padding only
          std::fill(best + c0, best + c1, static_cast<T>(-INFINITY));
          std::fill(where + c0, where + c1, int64_t{0});
          continue;
        }
        bool first = true;
        for (int64_t ky = ky0; ky < ky1; ++ky) {
          const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
          for (int64_t kx = kx0; kx < kx1; ++kx) {
            const int64_t at_ = iy * g.w + ox * g.sw - g.pw + kx * g.dw;
            const T* cell = in + (img * g.h * g.w + at_) * g.c;
            if (first) {
              std::copy(cell + c0, cell + c1, best + c0);
              std::fill(where + c0, where + c1, at_);
              first = false;
              continue;
            }
            for (int64_t ch = c0; ch < c1; ++ch) {
              const T v = cell[ch];
              const bool take = (v > best[ch]) | (v != v);  // a NaN wins, the last one (torch's rule)
              best[ch] = take ? v : best[ch];
              where[ch] = take ? at_ : where[ch];
            }
          }
        }
      }
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor> _max_pool2d_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                               IntArrayRef padding, IntArrayRef dilation, IntArrayRef output_size) {
  TCORE_CHECK_VALUE(self.dim() == 4, "_max_pool2d_indices: expected an (N, C, H, W) input, got ",
                    shape_str(self.sizes()));
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "max_pool2d: expected a floating point input, got ",
                   to_string(self.dtype()));
  const int64_t kh = at(kernel_size, 0, "kernel_size"), kw = at(kernel_size, 1, "kernel_size");
  const int64_t sh = at(stride, 0, "stride"), sw = at(stride, 1, "stride");
  const int64_t ph = at(padding, 0, "padding"), pw = at(padding, 1, "padding");
  const int64_t dh = at(dilation, 0, "dilation"), dw = at(dilation, 1, "dilation");
  const int64_t oh = at(output_size, 0, "output_size"), ow = at(output_size, 1, "output_size");
  TCORE_CHECK_VALUE(kh > 0 && kw > 0 && sh > 0 && sw > 0 && dh > 0 && dw > 0 && ph >= 0 && pw >= 0 && oh >= 0 &&
                        ow >= 0, "_max_pool2d_indices: bad geometry");
  const int64_t n = self.sizes()[0], c = self.sizes()[1], h = self.sizes()[2], w = self.sizes()[3];
  const ScalarType work = opmath_type(self.dtype());
  const MemoryFormat format = self.suggest_memory_format();  // channels_last results for a channels_last input
  if (format == MemoryFormat::ChannelsLast) {
    const Tensor src = in_format(cast(self, work), format);
    Tensor values = empty_in_format({n, c, oh, ow}, work, format);
    Tensor indices = empty_in_format({n, c, oh, ow}, ScalarType::Long, format);
    if (values.numel() > 0) {
      dispatch_floating(work, "max_pool2d", [&](auto tag) {
        using T = typename decltype(tag)::type;
        max_pool_channels_last<T>({n, c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow},
                                  static_cast<const T*>(src.data_ptr()), static_cast<T*>(values.data_ptr()),
                                  indices.data_ptr<int64_t>());
      });
    }
    return {in_format(cast(values, self.dtype()), format), indices};
  }
  const Tensor src = contiguous_copy(cast(self, work));
  Tensor values = empty_cpu({n, c, oh, ow}, work);
  Tensor indices = empty_cpu({n, c, oh, ow}, ScalarType::Long);
  const int64_t planes = n * c;
  if (values.numel() == 0) return {cast(values, self.dtype()), indices};
  dispatch_floating(work, "max_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(src.data_ptr());
    T* out = static_cast<T*>(values.data_ptr());
    int64_t* idx = indices.data_ptr<int64_t>();
    parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(h * w, 1)), [&](int64_t b, int64_t e) {
      const auto taps = inside_taps;
      // Windows whose columns are all inside go a row of outputs at a time, tap by tap in the
      // window's order, each tap a loop over the row that vectorizes (selects, where the one-window
      // loop's comparisons of random data mispredicted: 2x2 windows of (16, 32, 64, 64) took 16 ms,
      // 1.45x torch's); the windows at the left and right edges one by one, skipping the taps over
      // the padding. The columns inside: ox in [ox_lo, ox_hi).
      const int64_t ox_lo = std::min(ow, (pw + sw - 1) / sw);
      const int64_t ox_hi = std::max(ox_lo, std::min(ow, w - 1 - (kw - 1) * dw + pw >= 0
                                                             ? (w - 1 - (kw - 1) * dw + pw) / sw + 1 : 0));
      for (int64_t p = b; p < e; ++p) {
        const T* plane = in + p * h * w;
        for (int64_t oy = 0; oy < oh; ++oy) {
          T* best = out + (p * oh + oy) * ow;
          int64_t* where = idx + (p * oh + oy) * ow;
          int64_t ky0, ky1;
          taps(oy * sh - ph, kh, dh, h, ky0, ky1);
          if (ky0 == ky1) {  // rows of padding only
            std::fill(best, best + ow, static_cast<T>(-INFINITY));
            std::fill(where, where + ow, int64_t{0});
            continue;
          }
          const auto one = [&](int64_t ox) {
            int64_t kx0, kx1;
            taps(ox * sw - pw, kw, dw, w, kx0, kx1);
            if (kx0 == kx1) {  // columns of padding only
              best[ox] = -INFINITY;
              where[ox] = 0;
              return;
            }
            int64_t at_ = (oy * sh - ph + ky0 * dh) * w + ox * sw - pw + kx0 * dw;
            T m = plane[at_];
            for (int64_t ky = ky0; ky < ky1; ++ky) {
              const int64_t row = (oy * sh - ph + ky * dh) * w;
              for (int64_t kx = kx0; kx < kx1; ++kx) {
                const int64_t i = row + ox * sw - pw + kx * dw;
                const T v = plane[i];
                const bool take = (v > m) | (v != v);  // a NaN wins, the last one (torch's rule)
                m = take ? v : m;
                at_ = take ? i : at_;
              }
            }
            best[ox] = m;
            where[ox] = at_;
          };
          for (int64_t ox = 0; ox < ox_lo; ++ox) one(ox);
          for (int64_t ox = ox_hi; ox < ow; ++ox) one(ox);
          for (int64_t ky = ky0; ky < ky1; ++ky) {
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t tap = (oy * sh - ph + ky * dh) * w - pw + kx * dw;
              if (ky == ky0 && kx == 0) {  // the first tap starts every window of the row
                for (int64_t ox = ox_lo; ox < ox_hi; ++ox) {
                  best[ox] = plane[tap + ox * sw];
                  where[ox] = tap + ox * sw;
                }
                continue;
              }
              for (int64_t ox = ox_lo; ox < ox_hi; ++ox) {
                const T v = plane[tap + ox * sw];
                const bool take = (v > best[ox]) | (v != v);  // a NaN wins, the last one (torch's rule)
                best[ox] = take ? v : best[ox];
                where[ox] = take ? tap + ox * sw : where[ox];
              }
            }
          }
        }
      }
    });
  });
  return {cast(values, self.dtype()), indices};
}

// The gradient in self's layout (channels_last for a channels_last input, whatever grad_output's).
Tensor _max_pool2d_indices_backward(const Tensor& grad_output, const Tensor& self, const Tensor& indices) {
  const IntArrayRef input_size = self.sizes();
  TCORE_CHECK_VALUE(input_size.size() == 4 && grad_output.dim() == 4 && indices.sizes().vec() == grad_output.sizes().vec(),
                    "_max_pool2d_indices_backward: expected 4-D grad_output and indices of one shape and a 4-D "
                    "self, got ", shape_str(grad_output.sizes()), ", ", shape_str(indices.sizes()), ", ",
                    shape_str(input_size));
  const ScalarType work = opmath_type(grad_output.dtype());
  const int64_t planes = input_size[0] * input_size[1], hw = input_size[2] * input_size[3];
  const int64_t per = grad_output.sizes()[2] * grad_output.sizes()[3];
  const MemoryFormat format = self.suggest_memory_format();
  if (format == MemoryFormat::ChannelsLast) {  // each output cell's C gradients into their C input cells
    const Tensor g = in_format(cast(grad_output, work), format), ix = in_format(indices, format);
    Tensor out = empty_in_format(input_size, work, format);
    const int64_t c = input_size[1];
    dispatch_floating(work, "max_pool2d_backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* gp = static_cast<const T*>(g.data_ptr());
      const int64_t* ip = ix.data_ptr<int64_t>();
      T* op = static_cast<T*>(out.data_ptr());
      each_image_and_channels(input_size[0], c, per + hw, [&](int64_t img, int64_t c0, int64_t c1) {
        for (int64_t k = 0; k < hw; ++k) std::fill(op + (img * hw + k) * c + c0, op + (img * hw + k) * c + c1, T(0));
        for (int64_t k = 0; k < per; ++k) {
          const int64_t at_ = (img * per + k) * c;
          for (int64_t ch = c0; ch < c1; ++ch) {
            const int64_t where = ip[at_ + ch];
            if (where >= 0 && where < hw) op[(img * hw + where) * c + ch] += gp[at_ + ch];
          }
        }
      });
    });
    return in_format(cast(out, grad_output.dtype()), format);
  }
  const Tensor g = contiguous_copy(cast(grad_output, work));
  const Tensor ix = contiguous_copy(indices);
  Tensor out = zeros_cpu(input_size, work);
  dispatch_floating(work, "max_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gp = static_cast<const T*>(g.data_ptr());
    const int64_t* ip = ix.data_ptr<int64_t>();
    T* op = static_cast<T*>(out.data_ptr());
    parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(per, 1)), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p)
        for (int64_t k = 0; k < per; ++k) {
          const int64_t where = ip[p * per + k];
          if (where >= 0 && where < hw) op[p * hw + where] += gp[p * per + k];
        }
    });
  });
  return cast(out, grad_output.dtype());
}

namespace {
struct AvgPool {
  int64_t n, c, h, w, kh, kw, sh, sw, ph, pw, oh, ow;
  bool count_include_pad;
  std::optional<int64_t> divisor_override;

  // the window of output (oy, ox) clipped to the input, and what its sum is divided by
  struct Window {
    int64_t y0, y1, x0, x1, divisor;
  };
  Window window(int64_t oy, int64_t ox) const {
    int64_t y0 = oy * sh - ph, x0 = ox * sw - pw;
    int64_t y1 = std::min(y0 + kh, h + ph), x1 = std::min(x0 + kw, w + pw);
    const int64_t padded = (y1 - y0) * (x1 - x0);
    y0 = std::max<int64_t>(y0, 0), x0 = std::max<int64_t>(x0, 0);
    y1 = std::min(y1, h), x1 = std::min(x1, w);
    const int64_t divisor = divisor_override ? *divisor_override : count_include_pad ? padded : (y1 - y0) * (x1 - x0);
    return {y0, y1, x0, x1, divisor};
  }

  // f(p, o, window) for every output o of every plane p (planes across threads; a plane's input
  // cells are the plane's alone, so a backward may add into them)
  template <typename F>
  void each_window(const F& f) const {
    parallel_for(0, n * c, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(h * w, 1)), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p)
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox) f(p, (p * oh + oy) * ow + ox, window(oy, ox));
    });
  }
};

AvgPool avg_pool(IntArrayRef input, IntArrayRef output, IntArrayRef kernel_size, IntArrayRef stride,
                 IntArrayRef padding, bool count_include_pad, std::optional<int64_t> divisor_override, const char* op) {
  TCORE_CHECK_VALUE(input.size() == 4 && output.size() == 2, op, ": expected an (N, C, H, W) input and two output sizes");
  AvgPool g{input[0], input[1], input[2], input[3], at(kernel_size, 0, "kernel_size"), at(kernel_size, 1, "kernel_size"),
            at(stride, 0, "stride"), at(stride, 1, "stride"), at(padding, 0, "padding"), at(padding, 1, "padding"),
            output[0], output[1], count_include_pad, divisor_override};
  TCORE_CHECK_VALUE(g.kh > 0 && g.kw > 0 && g.sh > 0 && g.sw > 0 && g.ph >= 0 && g.pw >= 0 && g.oh >= 0 && g.ow >= 0 &&
                        (!divisor_override || *divisor_override != 0), op, ": bad geometry");
  return g;
}
}  // namespace

Tensor _avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                   bool count_include_pad, std::optional<int64_t> divisor_override, IntArrayRef output_size) {
  TCORE_CHECK_TYPE(is_floating(self.dtype()), "avg_pool2d: expected a floating point input, got ", to_string(self.dtype()));
  const AvgPool g = avg_pool(self.sizes(), output_size, kernel_size, stride, padding, count_include_pad,
                             divisor_override, "_avg_pool2d");
  const ScalarType work = opmath_type(self.dtype());
  const MemoryFormat format = self.suggest_memory_format();  // channels_last stays so
  if (format == MemoryFormat::ChannelsLast) {  // a window's C-vectors summed in the NCHW kernel's order
    const Tensor src = in_format(cast(self, work), format);
    Tensor out = empty_in_format({g.n, g.c, g.oh, g.ow}, work, format);
    if (out.numel() > 0) {
      dispatch_floating(work, "avg_pool2d", [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* in = static_cast<const T*>(src.data_ptr());
        T* o = static_cast<T*>(out.data_ptr());
        each_image_and_channels(g.n, g.c, g.oh * g.ow * g.kh * g.kw, [&](int64_t img, int64_t c0, int64_t c1) {
          for (int64_t oy = 0; oy < g.oh; ++oy)
            for (int64_t ox = 0; ox < g.ow; ++ox) {
              const AvgPool::Window win = g.window(oy, ox);
              T* sum = o + ((img * g.oh + oy) * g.ow + ox) * g.c;
              std::fill(sum + c0, sum + c1, T(0));
              for (int64_t y = win.y0; y < win.y1; ++y)
                for (int64_t x = win.x0; x < win.x1; ++x) {
                  const T* cell = in + ((img * g.h + y) * g.w + x) * g.c;
                  for (int64_t ch = c0; ch < c1; ++ch) sum[ch] += cell[ch];
                }
              const T divisor = static_cast<T>(win.divisor);
              for (int64_t ch = c0; ch < c1; ++ch) sum[ch] /= divisor;
            }
        });
      });
    }
    return in_format(cast(out, self.dtype()), format);
  }
  const Tensor src = contiguous_copy(cast(self, work));
  Tensor out = empty_cpu({g.n, g.c, g.oh, g.ow}, work);
  if (out.numel() == 0) return cast(out, self.dtype());
  dispatch_floating(work, "avg_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(src.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    g.each_window([&](int64_t p, int64_t i, const AvgPool::Window& win) {
      const T* plane = in + p * g.h * g.w;
      T sum = 0;
      for (int64_t y = win.y0; y < win.y1; ++y)
        for (int64_t x = win.x0; x < win.x1; ++x) sum += plane[y * g.w + x];
      o[i] = sum / static_cast<T>(win.divisor);
    });
  });
  return cast(out, self.dtype());
}

Tensor _avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                            IntArrayRef padding, bool count_include_pad, std::optional<int64_t> divisor_override) {
  TCORE_CHECK_VALUE(grad_output.dim() == 4 && self.dim() == 4, "_avg_pool2d_backward: expected 4-D grad_output and self");
  const AvgPool g = avg_pool(self.sizes(), {grad_output.sizes()[2], grad_output.sizes()[3]}, kernel_size, stride,
                             padding, count_include_pad, divisor_override, "_avg_pool2d_backward");
  const ScalarType work = opmath_type(grad_output.dtype());
  const MemoryFormat format = self.suggest_memory_format();
  if (format == MemoryFormat::ChannelsLast) {  // each window's C shares added into its C-vectors
    const Tensor gy = in_format(cast(grad_output, work), format);
    Tensor out = empty_in_format(self.sizes(), work, format);
    dispatch_floating(work, "avg_pool2d_backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* gp = static_cast<const T*>(gy.data_ptr());
      T* dx = static_cast<T*>(out.data_ptr());
      each_image_and_channels(g.n, g.c, g.h * g.w + g.oh * g.ow * g.kh * g.kw, [&](int64_t img, int64_t c0, int64_t c1) {
        for (int64_t k = 0; k < g.h * g.w; ++k)
          std::fill(dx + (img * g.h * g.w + k) * g.c + c0, dx + (img * g.h * g.w + k) * g.c + c1, T(0));
        for (int64_t oy = 0; oy < g.oh; ++oy)
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            const AvgPool::Window win = g.window(oy, ox);
            const T* grad = gp + ((img * g.oh + oy) * g.ow + ox) * g.c;
            const T divisor = static_cast<T>(win.divisor);
            for (int64_t y = win.y0; y < win.y1; ++y)
              for (int64_t x = win.x0; x < win.x1; ++x) {
                T* cell = dx + ((img * g.h + y) * g.w + x) * g.c;
                for (int64_t ch = c0; ch < c1; ++ch) cell[ch] += grad[ch] / divisor;
              }
          }
      });
    });
    return in_format(cast(out, grad_output.dtype()), format);
  }
  const Tensor gy = contiguous_copy(cast(grad_output, work));
  Tensor out = zeros_cpu(self.sizes(), work);
  if (out.numel() == 0 || g.oh * g.ow == 0) return cast(out, grad_output.dtype());
  dispatch_floating(work, "avg_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gp = static_cast<const T*>(gy.data_ptr());
    T* dx = static_cast<T*>(out.data_ptr());
    g.each_window([&](int64_t p, int64_t i, const AvgPool::Window& win) {
      T* plane = dx + p * g.h * g.w;
      const T share = gp[i] / static_cast<T>(win.divisor);
      for (int64_t y = win.y0; y < win.y1; ++y)
        for (int64_t x = win.x0; x < win.x1; ++x) plane[y * g.w + x] += share;
    });
  });
  return cast(out, grad_output.dtype());
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
