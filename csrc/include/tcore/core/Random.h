#pragma once
// Random generators of the CPU kernels (rand, randn, randint, uniform_, normal_, random_,
// dropout): a 64-bit Mersenne Twister per Generator. Copies of a Generator share one
// state, as PyTorch's Python Generator objects do; the default one is seeded by
// tcore.manual_seed. Each fill holds the generator's lock.
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "tcore/core/Macros.h"

namespace tcore {

class TCORE_API Generator {
 public:
  Generator();                       // seeded with PyTorch's default seed
  explicit Generator(uint64_t seed);

  Generator& manual_seed(uint64_t seed);
  uint64_t initial_seed() const;
  uint64_t seed();  // reseeds from std::random_device and returns the seed
  // The whole state (the engine's and the initial seed) as text, and back: tcore.get_rng_state's
  // bytes. set_state refuses text that is not such a state (a std::runtime_error naming it).
  std::string get_state() const;
  void set_state(const std::string& state);
  bool is_same(const Generator& other) const { return state_ == other.state_; }

  // The engine and the lock that guards it (kernels draw under the lock).
  std::mt19937_64& engine() const;
  std::mutex& mutex() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

TCORE_API Generator default_generator();
TCORE_API void manual_seed(uint64_t seed);

}  // namespace tcore
