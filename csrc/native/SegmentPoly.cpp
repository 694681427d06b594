#include "native/SegmentPoly.h"

#include <cmath>

namespace tcore::native {
namespace {

template <int S, int D>
SegmentPoly<S, D> fit(double (*f)(double), double lo, double hi) {
  SegmentPoly<S, D> p{};
  p.lo = static_cast<float>(lo);
  p.w = static_cast<float>((hi - lo) / S);
  const double h = (hi - lo) / S / 2, pi = 3.14159265358979323846;
  double T[D + 1][D + 1] = {};  // T[j][i]: the coefficient of u^i in the Chebyshev polynomial T_j(u)
  T[0][0] = 1;
  T[1][1] = 1;
  for (int j = 1; j < D; ++j) {
    for (int i = 0; i <= D; ++i) T[j + 1][i] = (i ? 2 * T[j][i - 1] : 0) - T[j - 1][i];
  }
  for (int s = 0; s < S; ++s) {
    const double centre = lo + (2 * s + 1) * h;
    double cheb[D + 1] = {};  // f on the segment in the Chebyshev basis of u = t / h
    for (int k = 0; k <= D; ++k) {  // node k: u = cos(theta)
      const double theta = pi * (k + 0.5) / (D + 1), y = f(centre + h * std::cos(theta));
      for (int j = 0; j <= D; ++j) cheb[j] += y * std::cos(j * theta) * (j ? 2.0 : 1.0) / (D + 1);
    }
    double scale = 1;  // h^-i: from powers of u to powers of t
    for (int i = 0; i <= D; ++i, scale /= h) {
      double m = 0;
      for (int j = i; j <= D; ++j) m += cheb[j] * T[j][i];
      p.c[i][s] = static_cast<float>(m * scale);
    }
  }
  return p;
}

double normal_upper_tail_at(double a) { return 0.5 * std::erfc(a * 0.70710678118654752440); }
double erf_table_at(double a) { return a < 1 ? std::erf(a) / a - 1 : std::erfc(a); }  // a > 0 at every node
double log1p_table_at(double u) { return std::log1p(u) / u - 1; }  // u != 0 at every node
double tanh_table_at(double a) { return a < 1.125 ? std::tanh(a) / a - 1 : std::tanh(a); }  // a node is never 0

}  // namespace
// (the functions' names differ from the members': inside a member's initializer the member wins)
const SegmentPoly<32, 5> SegmentTables<32>::normal_upper_tail = fit<32, 5>(normal_upper_tail_at, 0, 4);
const SegmentPoly<32, 5> SegmentTables<32>::erf = fit<32, 5>(erf_table_at, 0, 4);
const SegmentPoly<32, 5> SegmentTables<32>::tanh = fit<32, 5>(tanh_table_at, 0, 9);  // (w = 9/32: the centres exact)
const SegmentPoly<32, 4> SegmentTables<32>::log1p_over_x_less_1 = fit<32, 4>(log1p_table_at, 0, 1);
const SegmentPoly<8, 7> SegmentTables<8>::normal_upper_tail = fit<8, 7>(normal_upper_tail_at, 0, 4);
const SegmentPoly<8, 6> SegmentTables<8>::erf = fit<8, 6>(erf_table_at, 0, 4);
const SegmentPoly<8, 5> SegmentTables<8>::log1p_over_x_less_1 = fit<8, 5>(log1p_table_at, 0, 1);
const SegmentPoly<32, 3> SegmentTables<32>::log1p_reduced = fit<32, 3>(log1p_table_at, -0.3125, 0.4375);
const SegmentPoly<8, 5> SegmentTables<8>::log1p_reduced = fit<8, 5>(log1p_table_at, -0.3125, 0.4375);

}  // namespace tcore::native
