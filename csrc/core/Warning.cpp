// tcore::warn: one process-wide handler (the Python module's raises UserWarning).
#include <atomic>
#include <iostream>

#include "tcore/core/Macros.h"

namespace tcore {
namespace {
std::atomic<WarningHandler> handler{nullptr};
}  // namespace

void set_warning_handler(WarningHandler h) { handler.store(h, std::memory_order_release); }

void warn(const std::string& message) {
  if (WarningHandler h = handler.load(std::memory_order_acquire)) {
    h(message);
    return;
  }
  std::cerr << "tcore warning: " << message << "\n";
}

}  // namespace tcore
