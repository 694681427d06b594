#pragma once
// Reading IDX files (MNIST's format), the MNIST dataset, and a data loader with
// batching and seeded shuffling, for C++ programs linked against libtcore.
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tcore/core/Tensor.h"

namespace tcore::data {

// An IDX file that is missing, truncated or malformed; the message names the file.
struct TCORE_API IdxError : ValueError {
  using ValueError::ValueError;
};

// The whole IDX file as a tensor: the header's type (uint8, int8, int16, int32,
// float32, float64) and dimensions; magic number and file size are checked.
TCORE_API Tensor read_idx(const std::string& path);

// MNIST from a folder with train-/t10k- images and labels (decompressed).
// images: float32 [N, 784] scaled to [0, 1]; labels: int64 [N].
struct TCORE_API MNIST {
  MNIST(const std::string& root, bool train);
  int64_t size() const { return labels.sizes()[0]; }
  Tensor images;
  Tensor labels;
};

struct Batch {
  Tensor images;  // [B, 784]
  Tensor labels;  // [B]
};

// Batches of a dataset; with shuffle, each epoch has its own order, fixed by the seed.
class TCORE_API DataLoader {
 public:
  DataLoader(const MNIST& dataset, int64_t batch_size, bool shuffle, uint64_t seed = 0);
  void start_epoch(int64_t epoch);
  std::optional<Batch> next();
  int64_t batches_per_epoch() const;

 private:
  Tensor images_, labels_;
  int64_t batch_size_;
  bool shuffle_;
  uint64_t seed_;
  std::vector<int64_t> order_;
  size_t position_ = 0;
};

}  // namespace tcore::data
