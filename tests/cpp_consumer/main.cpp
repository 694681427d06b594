// Uses the installed tcore: operators through the generated per-operator headers,
// and autograd through the C++ API. Prints values the test checks.
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
  try {
    mm(ones({2, 3}), ones({2, 3}));
  } catch (const ValueError& e) {
    std::printf("error %s\n", e.what());
  }
  return 0;
}
