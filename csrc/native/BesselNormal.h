#pragma once
// The modified Bessel functions of the first kind (i0, i1 and their exponentially scaled i0e,
// i1e) and the normal distribution's functions beyond erf (ndtri, log_ndtr, erfcx), shared by the
// CPU and GPU kernels, computed in double whatever the tensor's dtype.
//   i0, i1: Cephes' Chebyshev expansions of e^-|x| I(x) on [0, 8] and of e^-x sqrt(x) I(x) on
//   (8, inf) in 32/x - 2 (the coefficient tables are Cephes', as SciPy's and torch's).
//   ndtri: Cephes' rational approximations (|y - 1/2| <= 3/8, then in sqrt(-2 log y)).
//   erfcx(x) = e^(x^2) erfc(x): below 4 the product, e^(x^2) with x^2 split exactly into
//   hi + lo (so its rounding does not grow with x); from 4 the continued fraction
//   1 / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))) cut at 40 terms (within 1e-15
//   of SciPy's on [0, 60]); for x < 0, 2 e^(x^2) - erfcx(-x).
//   log_ndtr(x) = log(Phi(x)): log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 below -1, else
//   log1p(-erfc(x / sqrt 2) / 2) (SciPy's split, as torch's).
#include <cmath>

#include "native/IntMath.h"  // TCORE_HOST_DEVICE

namespace tcore::native::special {

// Clenshaw's sum of a Chebyshev series (Cephes' chbevl: half the first coefficient's weight)
TCORE_HOST_DEVICE inline double chebyshev(double x, const double* c, int n) {
  double b0 = c[0], b1 = 0, b2 = 0;
  for (int i = 1; i < n; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = x * b1 - b2 + c[i];
  }
  return 0.5 * (b0 - b2);
}

// I0(x), or e^-|x| I0(x) (i0e) when scaled; I0(+-inf) = inf (SciPy's; torch's NaN)
TCORE_HOST_DEVICE inline double bessel_i0(double x, bool scaled) {
  constexpr double kA[30] = {
      -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
      1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
      -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
      9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
      -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
      1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
      -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
      1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
      -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
      1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1,
  };
  constexpr double kB[25] = {
      -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
      3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
      1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
      -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
      7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
      -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
      3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
      2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
      8.04490411014108831608E-1,
  };
  const double a = std::fabs(x);
  if (!scaled && a == HUGE_VAL) return HUGE_VAL;  // (the quotient below: inf / inf)
  const double e = scaled ? 1.0 : std::exp(a);
  if (a <= 8.0) return e * chebyshev(a / 2.0 - 2.0, kA, 30);
  return e * chebyshev(32.0 / a - 2.0, kB, 25) / std::sqrt(a);
}

// I1(x), or e^-|x| I1(x) (i1e) when scaled (odd)
TCORE_HOST_DEVICE inline double bessel_i1(double x, bool scaled) {
  constexpr double kA[29] = {
      2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
      -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
      3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
      -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
      9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
      -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
      4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
      -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
      2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
      -1.76416518357834055153E-1, 2.52587186443633654823E-1,
  };
  constexpr double kB[25] = {
      7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
      -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
      -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
      4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
      -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
      3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
      -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
      -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
      7.78576235018280120474E-1,
  };
  const double a = std::fabs(x);
  if (!scaled && a == HUGE_VAL) return x;
  const double e = scaled ? 1.0 : std::exp(a);
  const double r = a <= 8.0 ? e * a * chebyshev(a / 2.0 - 2.0, kA, 29)
                            : e * chebyshev(32.0 / a - 2.0, kB, 25) / std::sqrt(a);
  return x < 0 ? -r : r;
}

// sum c[i] x^(n-1-i), Horner's
TCORE_HOST_DEVICE inline double polynomial(double x, const double* c, int n) {
  double r = 0;
  for (int i = 0; i < n; ++i) r = r * x + c[i];
  return r;
}

// Phi^-1(y): -inf at 0, inf at 1, NaN outside [0, 1]
TCORE_HOST_DEVICE inline double ndtri(double y0) {
  constexpr double kP0[5] = {
      -5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
      1.39312609387279679503E1, -1.23916583867381258016E0,
  };
  constexpr double kQ0[9] = {
      1.00000000000000000000E0, 1.95448858338141759834E0, 4.67627912898881538453E0,
      8.63602421390890590575E1, -2.25462687854119370527E2, 2.00260212380060660359E2,
      -8.20372256168333339912E1, 1.59056225126211695515E1, -1.18331621121330003142E0,
  };
  constexpr double kP1[9] = {
      4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
      4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
      -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4,
  };
  constexpr double kQ1[9] = {
      1.00000000000000000000E0, 1.57799883256466749731E1, 4.53907635128879210584E1,
      4.13172038254672030440E1, 1.50425385692907503408E1, 2.50464946208309415979E0,
      -1.42182922854787788574E-1, -3.80806407691578277194E-2, -9.33259480895457427372E-4,
  };
  constexpr double kP2[9] = {
      3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
      1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
      3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9,
  };
  constexpr double kQ2[9] = {
      1.00000000000000000000E0, 6.02427039364742014255E0, 3.67983563856160859403E0,
      1.37702099489081330271E0, 2.16236993594496635890E-1, 1.34204006088543189037E-2,
      3.28014464682127739104E-4, 2.89247864745380683936E-6, 6.79019408009981274425E-9,
  };
  constexpr double kSqrt2Pi = 2.50662827463100050242;
  constexpr double kExpMinus2 = 0.13533528323661269189;
  if (y0 == 0) return -HUGE_VAL;
  if (y0 == 1) return HUGE_VAL;
  if (!(y0 > 0 && y0 < 1)) return NAN;
  const bool lower = y0 <= 1 - kExpMinus2;
  double y = lower ? y0 : 1 - y0;
  if (y > kExpMinus2) {  // the middle: a rational function of (y - 1/2)^2
    y -= 0.5;
    const double y2 = y * y;
    return (y + y * (y2 * polynomial(y2, kP0, 5) / polynomial(y2, kQ0, 9))) * kSqrt2Pi;
  }
  const double x = std::sqrt(-2.0 * std::log(y));
  const double z = 1.0 / x;
  const double x1 = x < 8.0 ? z * polynomial(z, kP1, 9) / polynomial(z, kQ1, 9)
                            : z * polynomial(z, kP2, 9) / polynomial(z, kQ2, 9);
  const double r = x - std::log(x) / x - x1;
  return lower ? -r : r;
}

// e^(x^2), x^2 = hi + lo exactly (fma): e^hi (1 + lo)
TCORE_HOST_DEVICE inline double exp_of_square(double x) {
  const double hi = x * x, lo = std::fma(x, x, -hi);
  return std::exp(hi) * (1.0 + lo);
}

TCORE_HOST_DEVICE inline double erfcx(double x) {
  constexpr double kInvSqrtPi = 0.56418958354775628694807945156;
  if (x != x) return x;  // NaN
  if (x < 0) {
    if (x < -26.7) return HUGE_VAL;
    return 2.0 * exp_of_square(x) - erfcx(-x);
  }
  if (x < 4.0) return exp_of_square(x) * std::erfc(x);
  double f = x;
  for (int k = 40; k >= 1; --k) f = x + (0.5 * k) / f;
  return kInvSqrtPi / f;
}

TCORE_HOST_DEVICE inline double log_ndtr(double x) {
  const double t = x * 0.70710678118654752440;
  if (x < -1.0) return std::log(erfcx(-t) / 2.0) - t * t;
  return std::log1p(-std::erfc(t) / 2.0);
}

}  // namespace tcore::native::special
