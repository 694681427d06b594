#pragma once
// Where a tensor lives, how it is laid out, and memory formats.
#include <cstdint>
#include <ostream>
#include <string>

#include "tcore/core/Macros.h"

namespace tcore {

// Meta: tensors with sizes, strides and a dtype but no data (the Meta backend runs only the
// meta functions of structured kernels: tcore/core/Structured.h). Lazy: tensors whose contents
// are a pending IR graph (tcore/lazy/Lazy.h), computed when something reads them.
enum class DeviceType : int8_t { CPU, CUDA, HIP, Meta, Lazy };
using DeviceIndex = int8_t;

struct TCORE_API Device {
  DeviceType type = DeviceType::CPU;
  DeviceIndex index = -1;

  Device() = default;
  Device(DeviceType t, DeviceIndex i = -1) : type(t), index(i) {}
  explicit Device(const std::string& spec);  // "cpu", "cuda", "cuda:1", "meta", "lazy"

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_meta() const { return type == DeviceType::Meta; }
  bool is_lazy() const { return type == DeviceType::Lazy; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
};
TCORE_API std::ostream& operator<<(std::ostream& os, const Device& d);

enum class Layout : int8_t { Strided };
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast };

}  // namespace tcore
