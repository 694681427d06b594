#pragma once
// Piecewise polynomials for the vector math (native/cpu/VecMath.h): a function of x in [lo, hi] as
// S polynomials of degree D in t = x - (the segment's centre), stored so that each coefficient of
// every segment fills one or two vector registers and a lane picks its segment's by a permute
// (vpermt2ps at AVX-512: S = 32; vpermps at AVX2: S = 8): an evaluation is D + 1 permutes and D
// FMAs, where the functions' usual vector forms spend an exp and a division.
//
// The tables are fitted when the library loads (SegmentPoly.cpp: baseline code, so it runs on every
// CPU; a capability's copy of the kernels must execute nothing at load time), by interpolation at
// the Chebyshev nodes of each segment (near-minimax), in double, each coefficient rounded once to
// float32. tests/test_segment_tables.py bounds what the functions built on them reach.
namespace tcore::native {

template <int S, int D>
struct SegmentPoly {
  static constexpr int kSegments = S, kDegree = D;
  alignas(64) float c[D + 1][S];  // c[k][s]: the coefficient of t^k in segment s
  float lo, w;                    // segment s is [lo + s w, lo + (s + 1) w]
};

// The tables of one segment count: Phi(-a) = erfc(a / sqrt 2) / 2 over [0, 4] (gelu); erf(a) / a - 1
// on the segments below 1 and erfc(a) from 1 to 4 (erf as x + x q, or 1 - erfc: each rounded once);
// log1p(u) / u - 1 over [0, 1] (softplus's log1p(e^-|z|) = u + u q). Degrees: the fit's own error
// (measured in float64) 1e-8 relative or below, under float32's roundings.
template <int S>
struct SegmentTables;
// And log1p(f) / f - 1 over [-5/16, 7/16] (log1p's reduced argument f = m - 1, m in [sqrt(1/2), sqrt(2)));
// tanh(a) / a - 1 on the 4 segments below 1.125 and tanh(a) from there to 9 (tanh as a + a q, or the
// value itself; past 9 tanh is 1 in float32).
template <>
struct SegmentTables<32> {
  static const SegmentPoly<32, 5> normal_upper_tail, erf, tanh;
  static const SegmentPoly<32, 4> log1p_over_x_less_1;
  static const SegmentPoly<32, 3> log1p_reduced;
};
template <>
struct SegmentTables<8> {
  static const SegmentPoly<8, 7> normal_upper_tail;
  static const SegmentPoly<8, 6> erf;
  static const SegmentPoly<8, 5> log1p_over_x_less_1, log1p_reduced;
};

}  // namespace tcore::native
