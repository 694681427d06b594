#pragma once
// Elementary functions the compiler can vectorize (no libm call, no branch): the float32
// loops of exp and softmax use them. Accuracy: within 2 ulp of e^x over the normal range.
#include "tcore/core/CPUCapability.h"
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "native/cpu/Parallel.h"
#include <limits>

namespace tcore::native {
inline namespace TCORE_CPU_NS {  // one copy per CPU capability (tcore/core/CPUCapability.h)

// e^x as 2^n * e^r with n = round(x / ln 2) and |r| <= ln(2) / 2 (Cody-Waite split of ln 2),
// e^r by a degree-6 polynomial; overflow gives inf, underflow denormals then 0, NaN stays NaN.
inline float exp_vectorizable(float x) {
  // selects and adds only (no libm call, no branch), so that the loop vectorizes
  const float clamped = x < -104.0f ? -104.0f : (x > 88.8f ? 88.8f : x);
  const float t = clamped * 1.44269504088896341f;
  const float n = (t + 12582912.0f) - 12582912.0f;  // round to nearest: 1.5 * 2^23 pushes out the fraction
  const float r = (clamped - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n in two factors, each a normal float: n runs from -150 (gradual underflow) to 128
  const int32_t n1 = static_cast<int32_t>(n) >> 1, n2 = static_cast<int32_t>(n) - n1;
  const int32_t bits1 = (n1 + 127) << 23, bits2 = (n2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &bits1, sizeof s1);
  std::memcpy(&s2, &bits2, sizeof s2);
  const float y = p * s1 * s2;
  return x != x ? x : (x > 88.72283935546875f ? std::numeric_limits<float>::infinity() : y);
}

// The sum of a contiguous row of floats: 16 lanes the compiler vectorizes, within blocks of
// 4096 elements that are added up in double (a cascade: accurate for long rows, and fast).
template <typename T>
double sum_row(const T* row, int64_t n) {
  constexpr int64_t kLanes = 16, kBlock = 4096;
  double total = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t end = b + kBlock < n ? b + kBlock : n;
    T lanes[kLanes] = {};
    int64_t i = b;
    for (; i + kLanes <= end; i += kLanes)
      for (int64_t j = 0; j < kLanes; ++j) lanes[j] += row[i + j];
    double block = 0;
    for (; i < end; ++i) block += row[i];
    for (int64_t j = 0; j < kLanes; ++j) block += lanes[j];
    total += block;
  }
  return total;
}

// sum_row with its 4096-element blocks spread over the threads; the block sums are
// added in order, so the result is the same for any number of threads.
template <typename T>
double parallel_sum_row(const T* row, int64_t n) {
  constexpr int64_t kBlock = 4096;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<double> partial(static_cast<size_t>(blocks));
  parallel_for(0, blocks, kGrainSize / kBlock, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) partial[k] = sum_row(row + k * kBlock, std::min(kBlock, n - k * kBlock));
  });
  double total = 0;
  for (double p : partial) total += p;
  return total;
}

// The largest element of a contiguous row (n > 0), NaN if there is one, in 16 lanes.
template <typename T>
T max_row(const T* row, int64_t n) {
  constexpr int64_t kLanes = 16;
  T lanes[kLanes];
  for (int64_t j = 0; j < kLanes; ++j) lanes[j] = row[0];
  bool nan = false;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) {
      const T v = row[i + j];
      nan |= v != v;
      lanes[j] = v > lanes[j] ? v : lanes[j];
    }
  }
  T m = lanes[0];
  for (int64_t j = 1; j < kLanes; ++j) m = lanes[j] > m ? lanes[j] : m;
  for (; i < n; ++i) {
    nan |= row[i] != row[i];
    m = row[i] > m ? row[i] : m;
  }
  return nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

}  // namespace TCORE_CPU_NS
}  // namespace tcore::native
