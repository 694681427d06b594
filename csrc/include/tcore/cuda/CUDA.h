#pragma once
// The CUDA (or ROCm) backend's runtime: devices, the current device and stream, the caching
// allocator and copies between host and device memory. In a build without CUDA (no
// nvcc at configure time, or USE_CUDA=0) the same functions exist: nothing is
// available and anything that needs a device says why.
#include <cstddef>
#include <cstdint>

#include "tcore/core/Storage.h"
#include "tcore/core/Tensor.h"

namespace tcore::cuda {

// Whether this library was built with a GPU backend: CUDA, or ROCm, which masquerades as
// CUDA (its sources are the hipified CUDA ones; the device is still "cuda").
TCORE_API bool is_built();
// The GPU runtime compiled in: "CUDA 13.0", "HIP 5.2", or "" without a GPU backend.
TCORE_API const char* runtime();
// A device can be used: the build has CUDA, a driver is loaded and a GPU is visible.
TCORE_API bool is_available();
TCORE_API int device_count();
TCORE_API int current_device();
TCORE_API void set_device(int device);
// Waits for the work queued on the current stream of `device` (-1: the current device).
TCORE_API void synchronize(int device = -1);
// Why is_available() is false, in words (empty when it is true).
TCORE_API const char* unavailable_reason();

// Makes `device` the calling thread's current device while it lives and restores the
// previous one after (-1: nothing changes). Kernel launches and copies go through one, so
// work on a tensor of another GPU than the current one runs where its memory is.
class TCORE_API DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// The caching allocator: freed blocks are kept per device and size class and reused;
// cudaMalloc runs only on a miss (and, when it fails, once more after empty_cache()).
TCORE_API Storage allocate(size_t nbytes, int device);
TCORE_API size_t memory_allocated(int device = -1);  // bytes in live tensors
TCORE_API size_t memory_reserved(int device = -1);   // bytes held from cudaMalloc, cached included
TCORE_API void empty_cache();                         // returns the cached blocks to the driver

// The current stream of the calling thread on `device` (an opaque cudaStream_t; nullptr
// is the default stream), and a way to make another one current.
TCORE_API void* current_stream(int device = -1);
TCORE_API void set_current_stream(void* stream, int device = -1);
// Streams of one's own (tcore.cuda.Stream): a new non-blocking stream on `device`, freed by
// destroy_stream; stream_query says whether its queued work is done, stream_synchronize
// waits for it.
TCORE_API void* create_stream(int device = -1);
TCORE_API void destroy_stream(void* stream);
TCORE_API bool stream_query(void* stream);
TCORE_API void stream_synchronize(void* stream);

// dst[...] = src[...] where at least one of them is on a CUDA device (the same device,
// another one or the host): dtype conversion and broadcasting as copy_.
TCORE_API void copy(const Tensor& dst, const Tensor& src);

}  // namespace tcore::cuda
