// mm: a packed, register-blocked loop over contiguous operands, column panels across threads.
#include <algorithm>
#include <memory>

#include <tcore/ops/mm_native.h>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cpu/Parallel.h"

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)
namespace {

// C[n x m] = A[n x k] @ B[k x m], all contiguous.
//
// For each panel of NR columns, B's panel is packed into a contiguous k x NR buffer;
// then each MR x NR block of C is accumulated in a local array (registers, once the
// compiler vectorizes the NR loop) over the whole k: one broadcast of A and one vector
// load of B feed MR fused multiply-adds. Edges fall back to a plain loop.
// C (n x m) = A (n x k) @ B (k x m), all contiguous. The columns are cut into panels of
// NR that are packed once and swept by MR-row register blocks; panels go to threads.
template <typename T>
void gemm(const T* A, const T* B, T* C, int64_t n, int64_t k, int64_t m) {
  constexpr int64_t MR = 4;
  constexpr int64_t NR = 64 / sizeof(T) * 2;  // two 64-byte vectors per row of the block
  const int64_t panels = m / NR;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n * k, 1));
  parallel_for(0, panels, grain, [&](int64_t first, int64_t last) {
    std::unique_ptr<T[]> packed(new T[static_cast<size_t>(k * NR)]);
    for (int64_t panel = first; panel < last; ++panel) {
      const int64_t j0 = panel * NR;
      for (int64_t p = 0; p < k; ++p)
        for (int64_t c = 0; c < NR; ++c) packed[p * NR + c] = B[p * m + j0 + c];
      int64_t i0 = 0;
      for (; i0 + MR <= n; i0 += MR) {
        T acc[MR][NR] = {};
        const T* a = A + i0 * k;
        for (int64_t p = 0; p < k; ++p) {
          const T* b = packed.get() + p * NR;
          for (int64_t r = 0; r < MR; ++r) {
            const T av = a[r * k + p];
            for (int64_t c = 0; c < NR; ++c) acc[r][c] = static_cast<T>(acc[r][c] + av * b[c]);
          }
        }
        for (int64_t r = 0; r < MR; ++r)
          for (int64_t c = 0; c < NR; ++c) C[(i0 + r) * m + j0 + c] = acc[r][c];
      }
      for (; i0 < n; ++i0) {
        T acc[NR] = {};
        for (int64_t p = 0; p < k; ++p) {
          const T av = A[i0 * k + p];
          for (int64_t c = 0; c < NR; ++c) acc[c] = static_cast<T>(acc[c] + av * packed[p * NR + c]);
        }
        for (int64_t c = 0; c < NR; ++c) C[i0 * m + j0 + c] = acc[c];
      }
    }
  });
  const int64_t j0 = panels * NR;
  if (j0 < m) {  // the last columns, fewer than NR: rows go to threads
    const int64_t grain2 = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(k * (m - j0), 1));
    parallel_for(0, n, grain2, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        T* c = C + i * m;
        for (int64_t j = j0; j < m; ++j) c[j] = T(0);
        for (int64_t p = 0; p < k; ++p) {
          const T av = A[i * k + p];
          const T* b = B + p * m;
          for (int64_t j = j0; j < m; ++j) c[j] = static_cast<T>(c[j] + av * b[j]);
        }
      }
    });
  }
}

Tensor mm_compute(const Tensor& self, const Tensor& mat2) {
  check_mm(self, mat2);
  if (is_reduced_float(self.dtype()))  // float16/bfloat16: float32 products and sums, rounded on store
    return cast(mm_compute(cast(self, ScalarType::Float), cast(mat2, ScalarType::Float)), self.dtype());
  const int64_t n = self.sizes()[0], k = self.sizes()[1], m = mat2.sizes()[1];
  Tensor out = empty_cpu({n, m}, self.dtype());
  const Tensor a = contiguous_copy(self), b = contiguous_copy(mat2);
  dispatch_numeric(self.dtype(), "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gemm<T>(a.template data_ptr<T>(), b.template data_ptr<T>(), out.template data_ptr<T>(), n, k, m);
  });
  return out;
}

}  // namespace

Tensor mm(const Tensor& self, const Tensor& mat2) { return mm_compute(self, mat2); }

Tensor mm_out(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  write_result(out, mm_compute(self, mat2), "mm");
  out.bump_version();
  return out;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
