// Uses the installed tcore: operators through the generated per-operator headers,
// and autograd through the C++ API. Prints values the test checks.
#include <cmath>
#include <cstdio>

#include <tcore/Functions.h>
#include <tcore/autograd/autograd.h>
#include <tcore/version.h>

int main() {
  using namespace tcore;
  Tensor a = ones({2, 3});
  Tensor b = full({3, 2}, 2.0);
  Tensor c = mm(add(a, a, 0.5), b);  // (1 + 0.5) * 2 * 3 = 9 everywhere
  std::printf("version %s\n", TCORE_VERSION);
  std::printf("mm %g %s\n", static_cast<double>(*sum(c).data_ptr<float>()), shape_str(c.sizes()).c_str());

  Tensor x = full({3}, 2.0);
  autograd::set_requires_grad(x, true);
  Tensor y = sum(mul(x, x));
  autograd::backward({y}, {});
  const float* g = autograd::grad(x).data_ptr<float>();
  std::printf("grad %g %g %g\n", g[0], g[1], g[2]);
  // the C++ operators (tcore/core/TensorOperators.h)
  Tensor v = full({3}, 3.0);
  Tensor w = (v * 2 + 1) / v - (1 - v) + (-v) * 0.5;  // 7/3 + 2 - 1.5
  Tensor z = 2 - full({1}, 2.0);                       // +0, as 2 - x rounds
  Tensor m = (v > 2) & ~(v != 3) | (2 < v);
  std::printf("operators %.4f %.4f %d %d\n", static_cast<double>(*w.data_ptr<float>()),
              static_cast<double>(*(2 / v).data_ptr<float>()), std::signbit(*z.data_ptr<float>()) ? 1 : 0,
              *m.data_ptr<bool>() ? 1 : 0);
  try {
    mm(ones({2, 3}), ones({2, 3}));
  } catch (const ValueError& e) {
    std::printf("error %s\n", e.what());
  }
  return 0;
}
