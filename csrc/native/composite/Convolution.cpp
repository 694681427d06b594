// constant_pad_nd, conv2d, max_pool2d (with indices) and avg_pool2d built from views: a (padded)
// input unfolded twice gives every window as a view (N, C, out_h, out_w, kh, kw);
// conv2d runs the grouped product (_conv2d_im2col: oneDNN, or patches by the weight, image by image), the
// pools reduce the windows with amax or sum. Autograd records the operators they call.
#include <limits>

#include <tcore/ops/_avg_pool2d.h>
#include <tcore/ops/_conv2d_im2col.h>
#include <tcore/ops/_max_pool2d_indices.h>
#include <tcore/ops/add.h>
#include <tcore/ops/amax.h>
#include <tcore/ops/avg_pool2d_native.h>
#include <tcore/ops/constant_pad_nd.h>
#include <tcore/ops/constant_pad_nd_native.h>
#include <tcore/ops/contiguous.h>
#include <tcore/ops/conv2d_native.h>
#include <tcore/ops/copy.h>
#include <tcore/ops/div.h>
#include <tcore/ops/empty.h>
#include <tcore/ops/fill.h>
#include <tcore/ops/matmul.h>
#include <tcore/ops/max_pool2d_native.h>
#include <tcore/ops/max_pool2d_with_indices_native.h>
#include <tcore/ops/narrow.h>
#include <tcore/ops/ones.h>
#include <tcore/ops/permute.h>
#include <tcore/ops/reshape.h>
#include <tcore/ops/slice.h>
#include <tcore/ops/squeeze.h>
#include <tcore/ops/sum.h>
#include <tcore/ops/unfold.h>
#include <tcore/ops/unsqueeze.h>
#include <tcore/ops/view.h>

#include "native/TensorUtils.h"
#include "tcore/core/SizeMath.h"

namespace tcore::native {

// ------------------------------------------------------------------ constant_pad_nd
// pad = [last_left, last_right, second_last_left, ...]; negative amounts crop.
Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  TCORE_CHECK_VALUE(pad.size() % 2 == 0, "Length of pad must be even but instead it equals ", pad.size());
  const int64_t dims = static_cast<int64_t>(pad.size()) / 2;
  TCORE_CHECK_VALUE(dims <= self.dim(), "Length of pad should be no more than twice the number of dimensions of the "
                    "input. Pad length is ", pad.size(), " while the input has ", self.dim(), " dimensions.");
  std::vector<int64_t> shape = self.sizes().vec();
  Tensor src = self;
  for (int64_t i = 0; i < dims; ++i) {
    const int64_t d = self.dim() - 1 - i;
    const int64_t left = pad[2 * i], right = pad[2 * i + 1];
    shape[d] = checked_add(checked_add(self.sizes()[d], left, "constant_pad_nd"), right, "constant_pad_nd");
    TCORE_CHECK_VALUE(shape[d] >= 0, "The input size ", self.sizes()[d], ", plus negative padding ", left, " and ",
                      right, " resulted in a negative output size, which is invalid. Check dimension ", d,
                      " of your input.");
    // pads within [-size, 2^62] here (shape[d] >= 0 and fits), so the negations cannot overflow
    const int64_t start = left < 0 ? std::min(-left, self.sizes()[d]) : 0;
    const int64_t crop_right = right < 0 ? std::min(-right, self.sizes()[d]) : 0;
    const int64_t length = std::max<int64_t>(self.sizes()[d] - start - crop_right, 0);
    src = tcore::narrow(src, d, std::min(start, self.sizes()[d]), length);
  }
  // in the layout self suggests (channels_last stays so), as PyTorch's
  Tensor out = tcore::empty(shape, self.dtype(), std::nullopt, self.device(), std::nullopt, self.suggest_memory_format());
  tcore::fill_(out, value);
  if (src.numel() == 0) return out;
  Tensor dst = out;
  for (int64_t i = 0; i < dims; ++i) {
    const int64_t d = self.dim() - 1 - i;
    dst = tcore::narrow(dst, d, std::max<int64_t>(pad[2 * i], 0), src.sizes()[d]);
  }
  tcore::copy_(dst, src);
  return out;
}

namespace {

struct Pair {
  int64_t h, w;
};

// An int[2] argument: one value stands for both (PyTorch's expand_param_if_needed).
Pair pair_of(IntArrayRef v, const char* op, const char* name, std::optional<Pair> if_empty = std::nullopt) {
  if (v.empty() && if_empty) return *if_empty;
  TCORE_CHECK_VALUE(v.size() == 1 || v.size() == 2, op, ": ", name, " must be a single int or a pair of ints, got ",
                    shape_str(v));
  return v.size() == 1 ? Pair{v[0], v[0]} : Pair{v[0], v[1]};
}

// (N, C, H, W) -> (N, C, out_h, out_w, kh, kw): every window, a view of `x`.
Tensor windows(const Tensor& x, Pair kernel, Pair stride, Pair dilation) {
  const Tensor rows = tcore::unfold(x, 2, dilation.h * (kernel.h - 1) + 1, stride.h);
  Tensor both = tcore::unfold(rows, 3, dilation.w * (kernel.w - 1) + 1, stride.w);
  if (dilation.h > 1) both = tcore::slice(both, 4, std::nullopt, std::nullopt, dilation.h);
  if (dilation.w > 1) both = tcore::slice(both, 5, std::nullopt, std::nullopt, dilation.w);
  return both;
}

// A 3-D input is one unbatched image: add the batch dim and remember to drop it.
std::pair<Tensor, bool> batched(const Tensor& input, const char* op) {
  TCORE_CHECK_VALUE(input.dim() == 3 || input.dim() == 4, op, ": Expected 3D (unbatched) or 4D (batched) input, but "
                    "got input of size: ", shape_str(input.sizes()));
  if (input.dim() == 3) return {tcore::unsqueeze(input, 0), true};
  return {input, false};
}

// The pools' output size, PyTorch's pooling_output_shape (ceil_mode keeps the last
// window only if it starts inside the input or the left padding).
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;  // floor division
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

struct PoolGeometry {
  Pair kernel, stride, padding, dilation;
  int64_t out_h, out_w;
  int64_t extra_h, extra_w;  // padding on the bottom/right that ceil_mode needs
};

PoolGeometry pool_geometry(const Tensor& x, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                           IntArrayRef dilation, bool ceil_mode, const char* op) {
  PoolGeometry g;
  g.kernel = pair_of(kernel_size, op, "kernel_size");
  g.stride = pair_of(stride, op, "stride", g.kernel);
  g.padding = pair_of(padding, op, "padding");
  g.dilation = pair_of(dilation, op, "dilation");
  TCORE_CHECK_VALUE(g.kernel.h > 0 && g.kernel.w > 0, op, ": kernel_size must be greater than zero");
  TCORE_CHECK_VALUE(g.stride.h > 0 && g.stride.w > 0, op, ": stride must be greater than zero");
  TCORE_CHECK_VALUE(g.dilation.h > 0 && g.dilation.w > 0, op, ": dilation must be greater than zero");
  TCORE_CHECK_VALUE(g.padding.h >= 0 && g.padding.w >= 0 && g.padding.h <= g.kernel.h / 2 &&
                        g.padding.w <= g.kernel.w / 2,
                    op, ": pad should be at most half of effective kernel size, but got pad=", shape_str(padding),
                    ", kernel_size=", shape_str(kernel_size));
  const int64_t h = x.sizes()[2], w = x.sizes()[3];
  g.out_h = pooled_size(h, g.kernel.h, g.padding.h, g.stride.h, g.dilation.h, ceil_mode);
  g.out_w = pooled_size(w, g.kernel.w, g.padding.w, g.stride.w, g.dilation.w, ceil_mode);
  TCORE_CHECK_VALUE(g.out_h > 0 && g.out_w > 0, op, ": Given input size: (", x.sizes()[1], "x", h, "x", w,
                    "). Calculated output size: (", x.sizes()[1], "x", g.out_h, "x", g.out_w,
                    "). Output size is too small");
  g.extra_h = std::max<int64_t>((g.out_h - 1) * g.stride.h + g.dilation.h * (g.kernel.h - 1) + 1 - (h + 2 * g.padding.h), 0);
  g.extra_w = std::max<int64_t>((g.out_w - 1) * g.stride.w + g.dilation.w * (g.kernel.w - 1) + 1 - (w + 2 * g.padding.w), 0);
  return g;
}

// The windows of x padded with `value` (plus ceil_mode's extra rows/cols), cut to out_h x out_w.
Tensor pool_windows(const Tensor& x, const PoolGeometry& g, const Scalar& value) {
  Tensor padded = x;
  if (g.padding.h || g.padding.w || g.extra_h || g.extra_w) {
    const std::vector<int64_t> pad{g.padding.w, g.padding.w + g.extra_w, g.padding.h, g.padding.h + g.extra_h};
    padded = tcore::constant_pad_nd(x, pad, value);
  }
  Tensor win = windows(padded, g.kernel, g.stride, g.dilation);
  return tcore::narrow(tcore::narrow(win, 2, 0, g.out_h), 3, 0, g.out_w);
}

}  // namespace

// ------------------------------------------------------------------ conv2d
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  auto [x, unbatched] = batched(input, "conv2d");
  TCORE_CHECK_VALUE(weight.dim() == 4, "conv2d: weight should be 4-D (out_channels, in_channels / groups, kH, kW), "
                    "got ", shape_str(weight.sizes()));
  TCORE_CHECK_VALUE(groups > 0, "non-positive groups is not supported");
  const Pair s = pair_of(stride, "conv2d", "stride"), p = pair_of(padding, "conv2d", "padding"),
             d = pair_of(dilation, "conv2d", "dilation");
  TCORE_CHECK_VALUE(s.h > 0 && s.w > 0, "non-positive stride is not supported");
  TCORE_CHECK_VALUE(p.h >= 0 && p.w >= 0, "negative padding is not supported");
  TCORE_CHECK_VALUE(d.h > 0 && d.w > 0, "dilation should be greater than zero");
  const int64_t channels = x.sizes()[1], out_channels = weight.sizes()[0];
  TCORE_CHECK_VALUE(channels == weight.sizes()[1] * groups, "Given groups=", groups, ", weight of size ",
                    shape_str(weight.sizes()), ", expected input", shape_str(x.sizes()), " to have ",
                    weight.sizes()[1] * groups, " channels, but got ", channels, " channels instead");
  TCORE_CHECK_VALUE(out_channels % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ",
                    groups, " at dimension 0, but got weight of size ", shape_str(weight.sizes()), " instead");
  const Pair k{weight.sizes()[2], weight.sizes()[3]};
  const int64_t ph = x.sizes()[2] + 2 * p.h, pw = x.sizes()[3] + 2 * p.w;
  TCORE_CHECK_VALUE(ph >= d.h * (k.h - 1) + 1 && pw >= d.w * (k.w - 1) + 1, "Calculated padded input size per channel: (",
                    ph, " x ", pw, "). Kernel size: (", d.h * (k.h - 1) + 1, " x ", d.w * (k.w - 1) + 1,
                    "). Kernel size can't be greater than actual input size");
  if (bias) {
    TCORE_CHECK_VALUE(bias->dim() == 1 && bias->sizes()[0] == out_channels, "Given weight of size ",
                      shape_str(weight.sizes()), ", expected bias to be 1-dimensional with ", out_channels,
                      " elements, but got bias of size ", shape_str(bias->sizes()), " instead");
  }
  // (N, O, oh, ow): oneDNN's convolution (its groups native), or each image's patches by the
  // weight, group by group (native/cpu/Im2Col.cpp)
  Tensor out = tcore::_conv2d_im2col(x, weight, {s.h, s.w}, {p.h, p.w}, {d.h, d.w}, groups);
  if (bias) out = tcore::add(out, tcore::view(*bias, {out_channels, 1, 1}));
  return unbatched ? tcore::squeeze(out, 0) : out;
}

// ------------------------------------------------------------------ max_pool2d, avg_pool2d
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  auto [x, unbatched] = batched(self, "max_pool2d");
  TCORE_CHECK_TYPE(is_floating(x.dtype()), "max_pool2d: expected a floating point input, got ", to_string(x.dtype()));
  const PoolGeometry g = pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d");
  // one pass per window, the gradient to its maximum (the last NaN, else the first maximum), as
  // PyTorch (native/cpu/Pooling.cpp)
  auto [values, indices] = tcore::_max_pool2d_indices(x, {g.kernel.h, g.kernel.w}, {g.stride.h, g.stride.w},
                                                      {g.padding.h, g.padding.w}, {g.dilation.h, g.dilation.w},
                                                      {g.out_h, g.out_w});
  if (unbatched) return {tcore::squeeze(values, 0), tcore::squeeze(indices, 0)};
  return {values, indices};
}

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  auto [x, unbatched] = batched(self, "avg_pool2d");
  TCORE_CHECK_TYPE(is_floating(x.dtype()), "avg_pool2d: expected a floating point input, got ", to_string(x.dtype()));
  TCORE_CHECK_VALUE(!divisor_override || *divisor_override != 0, "avg_pool2d: divisor must be not zero");
  const PoolGeometry g = pool_geometry(x, kernel_size, stride, padding, {1}, ceil_mode, "avg_pool2d");
  if (x.device().is_cpu()) {  // one pass (native/cpu/Pooling.cpp); elsewhere the windows' views below
    const Tensor out = tcore::_avg_pool2d(x, {g.kernel.h, g.kernel.w}, {g.stride.h, g.stride.w},
                                          {g.padding.h, g.padding.w}, count_include_pad, divisor_override,
                                          {g.out_h, g.out_w});
    return unbatched ? tcore::squeeze(out, 0) : out;
  }
  const Tensor sums = tcore::sum(pool_windows(x, g, Scalar(0)), IntArrayRef({4, 5}), false);
  Tensor out;
  if (divisor_override) {
    out = tcore::div(sums, Scalar(*divisor_override));
  } else {
    // How many cells each window averages: the input's, plus the padding's with
    // count_include_pad (never ceil_mode's extra cells), as PyTorch counts them.
    const Tensor ones = tcore::ones({1, 1, x.sizes()[2], x.sizes()[3]}, x.dtype(), std::nullopt, x.device());
    Tensor counted = ones;
    if (count_include_pad && (g.padding.h || g.padding.w))
      counted = tcore::constant_pad_nd(ones, {g.padding.w, g.padding.w, g.padding.h, g.padding.h}, Scalar(1));
    PoolGeometry rest = g;
    if (count_include_pad) rest.padding = {0, 0};
    const Tensor counts = tcore::sum(pool_windows(counted, rest, Scalar(0)), IntArrayRef({4, 5}), false);
    out = tcore::div(sums, counts);
  }
  return unbatched ? tcore::squeeze(out, 0) : out;
}

}  // namespace tcore::native
