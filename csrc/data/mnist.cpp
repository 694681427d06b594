#include "tcore/data/mnist.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <numeric>

namespace tcore::data {
namespace {

ScalarType idx_type(uint8_t code, const std::string& path) {
  switch (code) {
    case 0x08: return ScalarType::Byte;
    case 0x09: return ScalarType::Char;
    case 0x0B: return ScalarType::Short;
    case 0x0C: return ScalarType::Int;
    case 0x0D: return ScalarType::Float;
    case 0x0E: return ScalarType::Double;
    default:
      throw IdxError(path + ": not an IDX file (unknown type code 0x" + std::to_string(code) + ")");
  }
}

uint32_t big_endian(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

void swap_bytes(char* data, int64_t count, int64_t size) {
  for (int64_t i = 0; i < count; ++i) std::reverse(data + i * size, data + (i + 1) * size);
}

}  // namespace

Tensor read_idx(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw IdxError(path + ": cannot open the file");
  const int64_t file_size = static_cast<int64_t>(in.tellg());
  in.seekg(0);
  unsigned char magic[4];
  if (file_size < 4 || !in.read(reinterpret_cast<char*>(magic), 4)) throw IdxError(path + ": too short for an IDX header");
  if (magic[0] != 0 || magic[1] != 0) {
    throw IdxError(path + ": not an IDX file (bad magic number " + std::to_string(big_endian(magic)) + ")");
  }
  const ScalarType dtype = idx_type(magic[2], path);
  const int ndim = magic[3];
  if (ndim < 1) throw IdxError(path + ": an IDX file needs at least one dimension");
  std::vector<int64_t> sizes(ndim);
  for (int d = 0; d < ndim; ++d) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) throw IdxError(path + ": truncated header (dimension " + std::to_string(d) + ")");
    sizes[d] = static_cast<int64_t>(big_endian(b));
  }
  const int64_t header = 4 + 4 * int64_t(ndim);
  const int64_t expected = header + numel_of(sizes) * element_size(dtype);
  if (file_size != expected) {
    throw IdxError(path + ": size " + std::to_string(file_size) + " bytes does not match its header " + shape_str(sizes) +
                   " (expected " + std::to_string(expected) + " bytes" + (file_size < expected ? ", truncated)" : ")"));
  }
  Tensor t = empty_cpu(sizes, dtype);
  if (!in.read(static_cast<char*>(t.data_ptr()), t.numel() * t.element_size())) throw IdxError(path + ": read failed");
  if (t.element_size() > 1) swap_bytes(static_cast<char*>(t.data_ptr()), t.numel(), t.element_size());  // stored big-endian
  return t;
}

MNIST::MNIST(const std::string& root, bool train) {
  const std::string prefix = root + "/" + (train ? "train" : "t10k");
  const Tensor raw_images = read_idx(prefix + "-images-idx3-ubyte");
  const Tensor raw_labels = read_idx(prefix + "-labels-idx1-ubyte");
  if (raw_images.dim() != 3 || raw_images.dtype() != ScalarType::Byte) {
    throw IdxError(prefix + "-images-idx3-ubyte: expected uint8 images [N, rows, cols], got " + shape_str(raw_images.sizes()));
  }
  if (raw_labels.dim() != 1 || raw_labels.sizes()[0] != raw_images.sizes()[0]) {
    throw IdxError(prefix + "-labels-idx1-ubyte: expected " + std::to_string(raw_images.sizes()[0]) + " labels, got " +
                   shape_str(raw_labels.sizes()));
  }
  const int64_t n = raw_images.sizes()[0], pixels = raw_images.sizes()[1] * raw_images.sizes()[2];
  images = empty_cpu({n, pixels}, ScalarType::Float);
  labels = empty_cpu({n}, ScalarType::Long);
  const uint8_t* src = raw_images.data_ptr<uint8_t>();
  float* dst = images.data_ptr<float>();
  for (int64_t i = 0; i < n * pixels; ++i) dst[i] = src[i] / 255.0f;
  const uint8_t* l = raw_labels.data_ptr<uint8_t>();
  int64_t* out = labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    if (l[i] > 9) throw IdxError(prefix + "-labels-idx1-ubyte: label " + std::to_string(l[i]) + " at " + std::to_string(i) + " is not a digit");
    out[i] = l[i];
  }
}

DataLoader::DataLoader(const MNIST& dataset, int64_t batch_size, bool shuffle, uint64_t seed)
    : images_(dataset.images), labels_(dataset.labels), batch_size_(batch_size), shuffle_(shuffle), seed_(seed) {
  TCORE_CHECK_VALUE(batch_size > 0, "DataLoader: batch_size must be positive");
  start_epoch(0);
}

void DataLoader::start_epoch(int64_t epoch) {
  order_.resize(static_cast<size_t>(labels_.sizes()[0]));
  std::iota(order_.begin(), order_.end(), 0);
  if (shuffle_) {
    std::mt19937_64 rng(seed_ * 1000003u + static_cast<uint64_t>(epoch));
    std::shuffle(order_.begin(), order_.end(), rng);
  }
  position_ = 0;
}

int64_t DataLoader::batches_per_epoch() const {
  return (labels_.sizes()[0] + batch_size_ - 1) / batch_size_;
}

std::optional<Batch> DataLoader::next() {
  if (position_ >= order_.size()) return std::nullopt;
  const int64_t b = std::min<int64_t>(batch_size_, static_cast<int64_t>(order_.size() - position_));
  const int64_t width = images_.sizes()[1];
  Batch batch{empty_cpu({b, width}, ScalarType::Float), empty_cpu({b}, ScalarType::Long)};
  const float* src = images_.data_ptr<float>();
  float* dst = batch.images.data_ptr<float>();
  for (int64_t i = 0; i < b; ++i) {
    const int64_t row = order_[position_ + i];
    std::memcpy(dst + i * width, src + row * width, width * sizeof(float));
    batch.labels.data_ptr<int64_t>()[i] = labels_.data_ptr<int64_t>()[row];
  }
  position_ += static_cast<size_t>(b);
  return batch;
}

}  // namespace tcore::data
