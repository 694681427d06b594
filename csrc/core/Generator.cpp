// The random number generator of the random operators: a 64-bit Mersenne Twister behind a
// shared state, seeded by tcore.manual_seed (tcore/core/Random.h). Compiled once (not per CPU
// capability, as the kernels that draw from it are).
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tcore/core/Random.h"

namespace tcore {

struct Generator::State {
  std::mt19937_64 engine;
  uint64_t initial_seed;
  std::mutex mutex;
  explicit State(uint64_t seed) : engine(seed), initial_seed(seed) {}
};

Generator::Generator() : Generator(67280421310721ULL) {}  // PyTorch's default seed, for the same habit
Generator::Generator(uint64_t seed) : state_(std::make_shared<State>(seed)) {}

Generator& Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->engine.seed(seed);
  state_->initial_seed = seed;
  return *this;
}

uint64_t Generator::initial_seed() const { return state_->initial_seed; }

uint64_t Generator::seed() {
  std::random_device device;
  const uint64_t s = (static_cast<uint64_t>(device()) << 32) ^ device();
  manual_seed(s);
  return s;
}

std::string Generator::get_state() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  std::ostringstream out;
  out << "tcore-mt19937_64 " << state_->initial_seed << ' ' << state_->engine;
  return out.str();
}

void Generator::set_state(const std::string& state) {
  std::istringstream in(state);
  std::string tag;
  uint64_t seed = 0;
  std::mt19937_64 engine;
  in >> tag >> seed >> engine;
  if (tag != "tcore-mt19937_64" || in.fail())
    throw std::runtime_error("set_state: the state is not one that get_state (tcore.get_rng_state) gave");
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->engine = engine;
  state_->initial_seed = seed;
}

std::mt19937_64& Generator::engine() const { return state_->engine; }
std::mutex& Generator::mutex() const { return state_->mutex; }

Generator default_generator() {
  static const Generator g;
  return g;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace tcore
