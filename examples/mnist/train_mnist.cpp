// Trains an MLP (784-H-10, ReLU, softmax cross-entropy) on MNIST with tcore's C++
// autograd API and plain SGD; prints loss and accuracy per epoch.
//
//   train_mnist DATA_DIR [--epochs N] [--batch B] [--lr LR] [--hidden H] [--seed S]
//                        [--expect-accuracy A]
// With --expect-accuracy the exit status says whether the loss fell and the final
// test accuracy reached A (what the CTest test checks).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include <tcore/Functions.h>
#include <tcore/autograd/autograd.h>
#include <tcore/data/mnist.h>

using namespace tcore;
namespace ag = tcore::autograd;

namespace {

Tensor parameter(int64_t rows, int64_t cols, float scale, std::mt19937_64& rng) {
  Tensor t = empty_cpu({rows, cols}, ScalarType::Float);
  std::normal_distribution<float> normal(0.0f, scale);
  float* p = t.data_ptr<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = normal(rng);
  ag::set_requires_grad(t, true);
  return t;
}

struct Model {
  Tensor w1, b1, w2, b2;
  Tensor forward(const Tensor& x) const { return add(mm(relu(add(mm(x, w1), b1)), w2), b2); }
  void step(float lr) {
    NoGradGuard no_grad;
    for (Tensor* p : {&w1, &b1, &w2, &b2}) {
      sub_(*p, mul(ag::grad(*p), lr));
      ag::set_grad(*p, Tensor());
    }
  }
};

double accuracy(const Model& model, const data::MNIST& set) {
  NoGradGuard no_grad;
  const Tensor logits = model.forward(set.images);
  const float* p = logits.data_ptr<float>();
  int64_t right = 0;
  for (int64_t i = 0; i < set.size(); ++i) {
    int64_t best = 0;
    for (int64_t c = 1; c < 10; ++c)
      if (p[i * 10 + c] > p[i * 10 + best]) best = c;
    right += best == set.labels.data_ptr<int64_t>()[i];
  }
  return static_cast<double>(right) / static_cast<double>(set.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DATA_DIR [--epochs N] [--batch B] [--lr LR] [--hidden H] [--seed S] "
                         "[--expect-accuracy A]\n", argv[0]);
    return 2;
  }
  int epochs = 5, batch = 64, hidden = 128;
  float lr = 0.1f;
  uint64_t seed = 0;
  double expect = -1.0;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--epochs") epochs = std::atoi(argv[i + 1]);
    else if (flag == "--batch") batch = std::atoi(argv[i + 1]);
    else if (flag == "--lr") lr = static_cast<float>(std::atof(argv[i + 1]));
    else if (flag == "--hidden") hidden = std::atoi(argv[i + 1]);
    else if (flag == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--expect-accuracy") expect = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  try {
    const data::MNIST train(argv[1], true), test(argv[1], false);
    std::printf("train %lld, test %lld examples\n", static_cast<long long>(train.size()),
                static_cast<long long>(test.size()));
    std::mt19937_64 rng(seed);
    Model model{parameter(784, hidden, std::sqrt(2.0f / 784), rng), zeros({hidden}),
                parameter(hidden, 10, std::sqrt(1.0f / hidden), rng), zeros({10})};
    ag::set_requires_grad(model.b1, true);
    ag::set_requires_grad(model.b2, true);
    data::DataLoader loader(train, batch, /*shuffle=*/true, seed);
    double first_loss = -1, last_loss = 0, acc = 0;
    for (int epoch = 0; epoch < epochs; ++epoch) {
      const auto start = std::chrono::steady_clock::now();
      loader.start_epoch(epoch);
      double total = 0;
      int64_t batches = 0;
      while (auto b = loader.next()) {
        // mean over the batch of -log softmax(logits)[label]
        Tensor loss = tcore::cross_entropy(model.forward(b->images), b->labels);
        ag::backward({loss}, {});
        model.step(lr);
        total += *loss.data_ptr<float>();
        ++batches;
      }
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      last_loss = total / static_cast<double>(batches);
      if (first_loss < 0) first_loss = last_loss;
      acc = accuracy(model, test);
      std::printf("epoch %d: loss %.4f, test accuracy %.2f%%, %.2f s\n", epoch + 1, last_loss, 100 * acc, seconds);
      std::fflush(stdout);
    }
    if (expect >= 0) {
      const bool ok = last_loss < first_loss && acc >= expect;
      std::printf("%s: loss %.4f -> %.4f, accuracy %.4f (expected at least %.4f)\n", ok ? "PASS" : "FAIL", first_loss,
                  last_loss, acc, expect);
      return ok ? 0 : 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_mnist: %s\n", e.what());
    return 1;
  }
  return 0;
}
