// bfloat16/float16 matrix products through oneDNN (Matmul.h). oneDNN's primitive cache keeps the
// kernel generated for a shape and layout, so a repeated product costs its description only.
// (1024, 1024) @ (1024, 1024) bfloat16, one thread, AVX512_BF16 (Zen 4): 20.8 ms through float32
// products, torch 9.7.
#include "native/onednn/Matmul.h"

#include <cstring>
#include <optional>

#include "tcore_build_config.h"  // TCORE_HAVE_ONEDNN (CMakeLists.txt)

#if TCORE_HAVE_ONEDNN
#include "native/onednn/Runtime.h"
#endif

namespace tcore::native::onednn {

#if TCORE_HAVE_ONEDNN
namespace {

// Below this many multiply-adds the float32 products are as fast as the description.
constexpr double kMinMacs = double(1 << 18);

// the primitive for this product, or none where oneDNN would run its reference kernels (slow
// loops: float16 on a CPU without AVX512_FP16)
// (alpha: the output scale; beta: a sum post-op, which adds beta * dst before the one rounding)
std::optional<dnnl::matmul::primitive_desc> matmul_for(const dnnl::memory& a, const dnnl::memory& b,
                                                        const dnnl::memory& c, float alpha, float beta) {
  const dnnl::matmul::desc d(a.get_desc(), b.get_desc(), c.get_desc());
  dnnl::primitive_attr attr;
  if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
  if (beta != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(beta);
    attr.set_post_ops(ops);
  }
  dnnl::matmul::primitive_desc pd(d, attr, cpu());
  if (std::strncmp(pd.impl_info_str(), "ref", 3) == 0) return std::nullopt;
  return pd;
}

}  // namespace

bool reduced_float_matmul(const Tensor& self, const Tensor& mat2, const Tensor& out, float alpha, float beta) {
  const ScalarType t = self.dtype();
  if (!enabled() || (t != ScalarType::BFloat16 && t != ScalarType::Half) || mat2.dtype() != t || out.dtype() != t ||
      self.dim() != mat2.dim() || (self.dim() != 2 && self.dim() != 3) || !out.is_contiguous())
    return false;
  const int64_t d = self.dim();
  const double macs = static_cast<double>(out.numel()) * static_cast<double>(self.sizes()[d - 1]);
  if (macs < kMinMacs || out.numel() == 0) return false;
  const auto type = t == ScalarType::BFloat16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f16;
  try {
    follow_threads();
    const dnnl::memory a = plain(self, type), b = plain(mat2, type), c = plain(out, type);
    const auto pd = matmul_for(a, b, c, alpha, beta);
    if (!pd) return false;
    dnnl::stream stream(cpu());
    dnnl::matmul(*pd).execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    stream.wait();
  } catch (const dnnl::error&) {  // a layout or dtype oneDNN has no kernel for: the caller's products
    return false;
  }
  return true;
}

#else  // built without oneDNN

bool reduced_float_matmul(const Tensor&, const Tensor&, const Tensor&, float, float) { return false; }

#endif

}  // namespace tcore::native::onednn
