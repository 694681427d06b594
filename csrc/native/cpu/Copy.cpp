#include "native/cpu/Copy.h"

#include <cstring>
#include <type_traits>

#if defined(__F16C__)
#include <immintrin.h>
#endif

#include <tcore/ops/copy_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Loops.h"
#include "tcore/cuda/CUDA.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// float32 <-> float16 through the F16C instructions where this copy's capability has them (AVX2 and
// AVX-512: vcvtps2ph rounds to nearest even, as Half's own conversion; NaN stays NaN, its sign kept),
// 8 or 16 lanes a run: Half::from_float's branches made a 4M-element .half() 18.6 ms, 30x torch's.
// Elsewhere (and for every other pair) static_cast. (The AVX-512 forms are the masked ones with
// every lane on: GCC 12 warns of an uninitialized operand inside the unmasked ones.)
template <typename D, typename S>
void convert_run(D* o, const S* x, int64_t n) {
#if defined(__F16C__)
  if constexpr (std::is_same_v<D, Half> && std::is_same_v<S, float>) {
    int64_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), _mm512_maskz_cvtps_ph(0xffff, _mm512_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
#endif
    for (; i + 8 <= n; i += 8)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; ++i) o[i] = Half::from_bits(static_cast<uint16_t>(_cvtss_sh(x[i], _MM_FROUND_TO_NEAREST_INT)));
    return;
  } else if constexpr (std::is_same_v<D, float> && std::is_same_v<S, Half>) {
    int64_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16)
      _mm512_storeu_ps(o + i, _mm512_maskz_cvtph_ps(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i))));
#endif
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_ps(o + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
    for (; i < n; ++i) o[i] = _cvtsh_ss(x[i].x);
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<D>(x[i]);
}

template <typename D, typename S>
D convert_one(S v) {
  D d;
  convert_run<D, S>(&d, &v, 1);
  return d;
}

const bool registered = register_cpu_kernels(TCORE_CPU_NS_NAME, [] { chosen_copy_kernel = &copy_kernel; });

}  // namespace

void copy_kernel(const Tensor& dst, const Tensor& src) {
  if (chosen_copy_kernel != nullptr && chosen_copy_kernel != &copy_kernel) return chosen_copy_kernel(dst, src);
  if (src.device().is_meta() || dst.device().is_meta()) {
    throw NotImplementedError(src.device().is_meta() ? "Cannot copy out of meta tensor; no data!"
                                                     : "Cannot copy into a meta tensor here: it has no data");
  }
  if (!dst.device().is_cpu() || !src.device().is_cpu()) {  // a device is involved: its backend copies
    cuda::copy(dst, src);
    return;
  }
  broadcast_shapes(dst.sizes(), src.sizes());  // validates
  TCORE_CHECK_VALUE(src.dim() <= dst.dim(), "copy_: source of shape ", shape_str(src.sizes()),
                    " cannot be broadcast to destination of shape ", shape_str(dst.sizes()));
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() && dst.numel() == src.numel()) {
    if (dst.numel() > 0) std::memmove(dst.data_ptr(), src.data_ptr(), dst.numel() * dst.element_size());
    return;
  }
  dispatch_all_types(dst.dtype(), "copy_", [&](auto dt) {
    using D = typename decltype(dt)::type;
    dispatch_all_types(src.dtype(), "copy_", [&](auto st) {
      using S = typename decltype(st)::type;
      unary_loop_runs<D, S>(dst, src, convert_one<D, S>, convert_run<D, S>);
    });
  });
}

Tensor copy_(const Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;
  if (self.is_same(src)) return self;
  broadcast_shapes(self.sizes(), src.sizes());
  TCORE_CHECK_VALUE(numel_of(broadcast_shapes(self.sizes(), src.sizes())) == self.numel() && src.dim() <= self.dim(),
                    "copy_: source of shape ", shape_str(src.sizes()), " cannot be broadcast to destination of shape ",
                    shape_str(self.sizes()));
  if (partially_overlaps(self, src)) {
    Tensor tmp = empty_cpu(src.sizes(), src.dtype());
    copy_kernel(tmp, src);
    copy_kernel(self, tmp);
  } else {
    copy_kernel(self, src);
  }
  self.bump_version();
  return self;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
