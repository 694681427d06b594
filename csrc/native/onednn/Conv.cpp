// conv2d through oneDNN (Conv.h). Each call describes the convolution on plain (N, C, H, W) /
// (O, C, kh, kw) tensors, lets oneDNN choose its blocked layouts (format_tag::any: its direct
// AVX-512/AVX2 kernels want channels in blocks of 16 or 8) and reorders into and out of them;
// oneDNN caches the generated kernels (its primitive cache), so a repeated shape costs the
// description only. (16, 32, 64, 64) by a 3x3 kernel to 32 channels, one thread: 12.7 ms with the
// reorders, 19.8 on the plain layouts (oneDNN's gemm there), tcore's own products 17.2.
#include "native/onednn/Conv.h"

#include "native/TensorUtils.h"
#include "tcore_build_config.h"  // TCORE_HAVE_ONEDNN (CMakeLists.txt)

#if TCORE_HAVE_ONEDNN
#include "native/onednn/Runtime.h"
#endif

namespace tcore::native::onednn {

#if TCORE_HAVE_ONEDNN
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// Below this many multiply-adds the description and reorders cost more than they save.
constexpr int64_t kMinMacs = int64_t{1} << 22;

// t itself when its elements fill a block (any order of the dims), else a contiguous copy
Tensor dense(const Tensor& t) { return non_overlapping_and_dense(t.sizes(), t.strides()) ? t : contiguous_copy(t); }

// t's shape, the layout left to oneDNN
memory::desc any_layout(const Tensor& t) { return memory::desc(dims_of(t), memory::data_type::f32, Tag::any); }

// `user` in the layout `want` (itself when it has it already)
memory into(memory user, const memory::desc& want, dnnl::stream& s) {
  if (user.get_desc() == want) return user;
  memory m(want, cpu());
  dnnl::reorder(user, m).execute(s, user, m);
  return m;
}
// Where a primitive writes a result bound for `user`: user itself when `want` is its layout, else
// a fresh memory whose values land() reorders into user.
memory landing(const memory& user, const memory::desc& want) {
  return user.get_desc() == want ? user : memory(want, cpu());
}
void land(memory written, memory user, dnnl::stream& s) {
  if (written != user) dnnl::reorder(written, user).execute(s, written, user);
}

struct Shape {
  memory::dims stride, dilation, pad_l, pad_r;
  bool fits;  // the padding on the far side is not negative (oneDNN's rule; else im2col)
};

Shape shape_of(const Tensor& input, const Tensor& weight, const Tensor& out, const Conv2dParams& p) {
  Shape s{{p.stride[0], p.stride[1]}, {p.dilation[0] - 1, p.dilation[1] - 1}, {p.padding[0], p.padding[1]}, {0, 0}, true};
  for (int i = 0; i < 2; ++i) {
    const int64_t extent = (weight.sizes()[2 + i] - 1) * p.dilation[i] + 1;
    s.pad_r[i] = (out.sizes()[2 + i] - 1) * p.stride[i] + extent - input.sizes()[2 + i] - p.padding[i];
    s.fits = s.fits && s.pad_r[i] >= 0;
  }
  return s;
}

// The weight as oneDNN reads a grouped convolution's: (G, O / G, C / G, kh, kw), a view of the
// same memory (itself with one group).
Tensor grouped(const Tensor& weight, int64_t groups) {
  if (groups == 1) return weight;
  const IntArrayRef sz = weight.sizes(), st = weight.strides();
  return make_view(weight, {groups, sz[0] / groups, sz[1], sz[2], sz[3]}, {st[0] * (sz[0] / groups), st[0], st[1], st[2], st[3]},
                   weight.storage_offset());
}

bool worth_it(const Tensor& input, const Tensor& weight, const Tensor& out) {
  const int64_t macs = out.numel() * weight.sizes()[1] * weight.sizes()[2] * weight.sizes()[3];
  return enabled() && input.dtype() == ScalarType::Float && macs >= kMinMacs;
}

dnnl::convolution_forward::primitive_desc forward_pd(const Tensor& input, const Tensor& weight, const Tensor& out,
                                                      const Shape& s) {
  const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                          any_layout(input), any_layout(weight), any_layout(out), s.stride, s.dilation,
                                          s.pad_l, s.pad_r);
  return dnnl::convolution_forward::primitive_desc(d, cpu());
}

}  // namespace

bool conv2d_forward(const Tensor& input_, const Tensor& weight_, const Tensor& out, const Conv2dParams& p) {
  const Shape s = shape_of(input_, weight_, out, p);
  if (!s.fits || !worth_it(input_, weight_, out)) return false;
  const Tensor input = dense(input_), weight = grouped(dense(weight_), p.groups);
  follow_threads();
  try {
  dnnl::stream stream(cpu());
  const auto pd = forward_pd(input, weight, out, s);
  memory x = plain(input), w = plain(weight), y = plain(out);
  memory xb = into(x, pd.src_desc(), stream), wb = into(w, pd.weights_desc(), stream);
  memory yb = landing(y, pd.dst_desc());
  dnnl::convolution_forward(pd).execute(stream, {{DNNL_ARG_SRC, xb}, {DNNL_ARG_WEIGHTS, wb}, {DNNL_ARG_DST, yb}});
  land(yb, y, stream);
  stream.wait();
  } catch (const dnnl::error&) {  // a convolution oneDNN has no kernel for: the caller's products
    return false;
  }
  return true;
}

bool conv2d_backward(const Tensor& grad_output_, const Tensor& input_, const Tensor& weight_, const Tensor& grad_input,
                     const Tensor& grad_weight, const Conv2dParams& p) {
  const Shape s = shape_of(input_, weight_, grad_output_, p);
  if (!s.fits || !worth_it(input_, weight_, grad_output_)) return false;
  const Tensor grad_output = dense(grad_output_), input = dense(input_), weight = grouped(dense(weight_), p.groups);
  follow_threads();
  try {
  dnnl::stream stream(cpu());
  const auto hint = forward_pd(input, weight, grad_output, s);
  const memory dy = plain(grad_output);
  memory dyb = dy;  // grad_output in the layout the last primitive asked for: reordered once when both agree
  const auto dy_as = [&](const memory::desc& want) {
    if (dyb.get_desc() != want) dyb = into(dy, want, stream);
    return dyb;
  };
  if (grad_input.defined()) {
    const dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, any_layout(input),
                                                  any_layout(weight), any_layout(grad_output), s.stride, s.dilation,
                                                  s.pad_l, s.pad_r);
    const dnnl::convolution_backward_data::primitive_desc pd(d, cpu(), hint);
    memory dx = plain(grad_input);
    memory dxb = landing(dx, pd.diff_src_desc());
    dnnl::convolution_backward_data(pd).execute(
        stream, {{DNNL_ARG_DIFF_DST, dy_as(pd.diff_dst_desc())},
                 {DNNL_ARG_WEIGHTS, into(plain(weight), pd.weights_desc(), stream)},
                 {DNNL_ARG_DIFF_SRC, dxb}});
    land(dxb, dx, stream);
  }
  if (grad_weight.defined()) {
    const dnnl::convolution_backward_weights::desc d(dnnl::algorithm::convolution_direct, any_layout(input),
                                                     any_layout(weight), any_layout(grad_output), s.stride,
                                                     s.dilation, s.pad_l, s.pad_r);
    const dnnl::convolution_backward_weights::primitive_desc pd(d, cpu(), hint);
    memory dw = plain(grouped(grad_weight, p.groups));
    memory dwb = landing(dw, pd.diff_weights_desc());
    dnnl::convolution_backward_weights(pd).execute(
        stream, {{DNNL_ARG_SRC, into(plain(input), pd.src_desc(), stream)},
                 {DNNL_ARG_DIFF_DST, dy_as(pd.diff_dst_desc())}, {DNNL_ARG_DIFF_WEIGHTS, dwb}});
    land(dwb, dw, stream);
  }
  stream.wait();
  } catch (const dnnl::error&) {  // as above; the caller overwrites whatever was written
    return false;
  }
  return true;
}

#else  // built without oneDNN

bool conv2d_forward(const Tensor&, const Tensor&, const Tensor&, const Conv2dParams&) { return false; }
bool conv2d_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Conv2dParams&) {
  return false;
}

#endif

}  // namespace tcore::native::onednn
