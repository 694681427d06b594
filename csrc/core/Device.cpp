#include "tcore/core/Device.h"

#include <cctype>

namespace tcore {

Device::Device(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  if (kind == "cpu") {
    type = DeviceType::CPU;
  } else if (kind == "cuda") {
    type = DeviceType::CUDA;
  } else if (kind == "hip") {
    type = DeviceType::HIP;
  } else if (kind == "meta") {
    type = DeviceType::Meta;
  } else if (kind == "lazy") {
    type = DeviceType::Lazy;
  } else {
    throw ValueError("Expected one of cpu, cuda, hip, meta, lazy device type at start of device string: " + spec);
  }
  if (colon != std::string::npos) {
    const std::string idx = spec.substr(colon + 1);
    bool digits = !idx.empty() && idx.size() <= 3;
    for (char c : idx) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (!digits) throw ValueError("Invalid device string: '" + spec + "'");
    index = static_cast<DeviceIndex>(std::stoi(idx));
  }
}

std::string Device::str() const {
  const char* names[] = {"cpu", "cuda", "hip", "meta", "lazy"};
  std::string s = names[static_cast<int>(type)];
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace tcore
