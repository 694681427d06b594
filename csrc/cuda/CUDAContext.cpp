// The CUDA backend's runtime (compiled by nvcc when CMake finds it; a ROCm build compiles
// its hipified translation with hipcc): device queries, the
// current device and per-thread current streams, a caching allocator, and copies that
// involve device memory.
#include <cuda_runtime.h>

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "native/TensorUtils.h"
#include "native/cpu/Copy.h"
#include "native/cuda/CopyKernel.h"
#include "tcore/cuda/CUDA.h"

namespace tcore::cuda {
namespace {

constexpr int kMaxDevices = 64;

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // clear it
    throw Error(detail::str_cat(what, ": ", cudaGetErrorString(err)));
  }
}

struct DeviceInfo {
  int count = 0;
  std::string reason;
};

const DeviceInfo& info() {
  static const DeviceInfo i = [] {
    DeviceInfo d;
    const cudaError_t err = cudaGetDeviceCount(&d.count);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      d.count = 0;
      d.reason = std::string("no usable CUDA device: ") + cudaGetErrorString(err);
    } else if (d.count == 0) {
      d.reason = "no CUDA device is visible (CUDA_VISIBLE_DEVICES?)";
    }
    return d;
  }();
  return i;
}

int resolve(int device) {
  if (device >= 0) {
    TCORE_CHECK_VALUE(device < device_count(), "CUDA device ", device, " does not exist (", device_count(),
                      " device(s) visible)");
    return device;
  }
  return current_device();
}

void require_available(const char* what) {
  TCORE_CHECK(is_available(), what, ": CUDA is not available (", unavailable_reason(), ")");
}

// ----------------------------------------------------------------- caching allocator
// Size classes: multiples of 512 bytes below 1 MiB, of 2 MiB above. A block belongs to the
// stream that was current when it was allocated (as in PyTorch): freed, it goes back to the
// free list of its (device, stream, class), and only an allocation on that stream reuses it, so
// work still queued on the stream that used it (a kernel reading a temporary) is ordered before
// the next use. A tensor handed to another stream must outlive that stream's work (PyTorch's
// record_stream case), or that stream be synchronized first.
size_t size_class(size_t nbytes) {
  constexpr size_t kSmall = 512, kLarge = size_t{2} << 20, kSmallLimit = size_t{1} << 20;
  if (nbytes <= kSmallLimit) return (nbytes + kSmall - 1) / kSmall * kSmall;
  return (nbytes + kLarge - 1) / kLarge * kLarge;
}

struct Allocator {
  using Key = std::tuple<int, cudaStream_t, size_t>;  // device, stream, size class
  std::mutex mutex;
  std::map<Key, std::vector<void*>> free_blocks;
  std::array<size_t, kMaxDevices> allocated{}, reserved{};

  void* take(int device, cudaStream_t stream, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = free_blocks.find({device, stream, bytes});
    if (it != free_blocks.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      allocated[device] += bytes;
      return p;
    }
    return nullptr;
  }

  void* fresh(int device, size_t bytes) {
    const DeviceGuard guard(device);
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, bytes);
    if (err == cudaErrorMemoryAllocation) {  // give the cached blocks back and try once more
      (void)cudaGetLastError();
      release_cached();
      err = cudaMalloc(&p, bytes);
    }
    check(err, "cudaMalloc");
    std::lock_guard<std::mutex> lock(mutex);
    allocated[device] += bytes;
    reserved[device] += bytes;
    return p;
  }

  void give_back(int device, cudaStream_t stream, size_t bytes, void* p) {
    std::lock_guard<std::mutex> lock(mutex);
    free_blocks[{device, stream, bytes}].push_back(p);
    allocated[device] -= bytes;
  }

  // A stream about to be destroyed: its work is finished (the caller synchronized it), so its
  // idle blocks join the default stream's lists (a later stream may get the same handle).
  void adopt_blocks_of(cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = free_blocks.begin(); it != free_blocks.end();) {
      const auto [device, owner, bytes] = it->first;
      if (owner != stream) {
        ++it;
        continue;
      }
      auto& target = free_blocks[{device, nullptr, bytes}];
      target.insert(target.end(), it->second.begin(), it->second.end());
      it = free_blocks.erase(it);
    }
  }

  void release_cached() {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& [key, list] : free_blocks) {
      for (void* p : list) {
        (void)cudaFree(p);
        reserved[std::get<0>(key)] -= std::get<2>(key);
      }
      list.clear();
    }
  }
};

Allocator& allocator() {
  static Allocator* a = new Allocator();  // never destroyed: blocks may be freed during exit
  return *a;
}

thread_local std::array<cudaStream_t, kMaxDevices> current_streams{};

}  // namespace

bool is_built() { return true; }

const char* runtime() {
#if defined(__HIP_PLATFORM_AMD__)
  static const std::string name = detail::str_cat("HIP ", HIP_VERSION_MAJOR, ".", HIP_VERSION_MINOR);
#else
  static const std::string name = detail::str_cat("CUDA ", CUDART_VERSION / 1000, ".", CUDART_VERSION % 1000 / 10);
#endif
  return name.c_str();
}
bool is_available() { return info().count > 0; }
int device_count() { return info().count; }
const char* unavailable_reason() { return info().reason.c_str(); }

int current_device() {
  require_available("current_device");
  int d = 0;
  check(cudaGetDevice(&d), "cudaGetDevice");
  return d;
}

void set_device(int device) {
  require_available("set_device");
  check(cudaSetDevice(resolve(device)), "cudaSetDevice");
}

void synchronize(int device) {
  require_available("synchronize");
  const int d = resolve(device);
  const DeviceGuard guard(d);
  check(cudaStreamSynchronize(current_streams[d]), "cudaStreamSynchronize");
}

Storage allocate(size_t nbytes, int device) {
  require_available("allocating CUDA memory");
  const int d = resolve(device);
  if (nbytes == 0) return Storage(std::make_shared<StorageImpl>(nullptr, 0, Device(DeviceType::CUDA, d), nullptr, true));
  const size_t bytes = size_class(nbytes);
  const cudaStream_t stream = current_streams[d];
  void* p = allocator().take(d, stream, bytes);
  if (!p) p = allocator().fresh(d, bytes);
  return Storage(std::make_shared<StorageImpl>(p, nbytes, Device(DeviceType::CUDA, static_cast<DeviceIndex>(d)),
                                               [d, stream, bytes](void* q) { allocator().give_back(d, stream, bytes, q); },
                                               true));
}

size_t memory_allocated(int device) {
  if (!is_available()) return 0;
  std::lock_guard<std::mutex> lock(allocator().mutex);
  return allocator().allocated[resolve(device)];
}

size_t memory_reserved(int device) {
  if (!is_available()) return 0;
  std::lock_guard<std::mutex> lock(allocator().mutex);
  return allocator().reserved[resolve(device)];
}

void empty_cache() {
  if (is_available()) allocator().release_cached();
}

DeviceGuard::DeviceGuard(int device) {
  if (device < 0) return;
  int current = 0;
  check(cudaGetDevice(&current), "cudaGetDevice");
  if (current == device) return;
  check(cudaSetDevice(device), "cudaSetDevice");
  previous_ = current;
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0) (void)cudaSetDevice(previous_);
}

void* current_stream(int device) { return current_streams[resolve(device)]; }
void set_current_stream(void* stream, int device) {
  current_streams[resolve(device)] = static_cast<cudaStream_t>(stream);
}

void* create_stream(int device) {
  require_available("create_stream");
  const DeviceGuard guard(resolve(device));
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return stream;
}

void destroy_stream(void* stream) {
  if (!stream) return;
  const auto s = static_cast<cudaStream_t>(stream);
  (void)cudaStreamSynchronize(s);  // its blocks are idle now: the default stream's lists take them
  allocator().adopt_blocks_of(s);
  (void)cudaStreamDestroy(s);
}

bool stream_query(void* stream) {
  require_available("stream_query");
  const cudaError_t err = cudaStreamQuery(static_cast<cudaStream_t>(stream));
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  check(err, "cudaStreamQuery");
  return true;
}

void stream_synchronize(void* stream) {
  require_available("stream_synchronize");
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

// ----------------------------------------------------------------- copies
namespace {

int index_of(const Tensor& t) { return t.device().index < 0 ? current_device() : t.device().index; }

void memcpy_sync(void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind, int device) {
  if (nbytes == 0) return;
  const DeviceGuard guard(device);
  auto stream = static_cast<cudaStream_t>(current_stream(device));
  check(cudaMemcpyAsync(dst, src, nbytes, kind, stream), "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

}  // namespace

void copy(const Tensor& dst, const Tensor& src) {
  require_available("copy");
  const bool dst_cuda = dst.device().type == DeviceType::CUDA, src_cuda = src.device().type == DeviceType::CUDA;
  if (dst_cuda && src_cuda && index_of(dst) == index_of(src)) {
    native::cuda::copy_same_device(dst, src);
    return;
  }
  if (dst_cuda && !src_cuda) {
    // host -> device: broadcast and convert on the host, one transfer, then lay out on the device
    Tensor staged = empty_cpu(dst.sizes(), dst.dtype());
    native::copy_kernel(staged, src);
    Tensor landing = dst.is_contiguous() ? dst : empty_on(dst.sizes(), dst.dtype(), dst.device());
    memcpy_sync(landing.data_ptr(), staged.data_ptr(), static_cast<size_t>(staged.numel() * staged.element_size()),
                cudaMemcpyHostToDevice, index_of(dst));
    if (!landing.is_same(dst)) native::cuda::copy_same_device(dst, landing);
    return;
  }
  if (dst_cuda && src_cuda) {
    // device -> another device: packed on the source, one peer transfer (the driver routes it
    // directly when the devices can access each other, through the host otherwise), then
    // broadcast and converted on the destination
    const int from = index_of(src), to = index_of(dst);
    const Tensor packed = native::contiguous_copy(src);
    check(cudaStreamSynchronize(static_cast<cudaStream_t>(current_stream(from))), "cudaStreamSynchronize");
    Tensor landing = empty_on(src.sizes(), src.dtype(), Device(DeviceType::CUDA, static_cast<DeviceIndex>(to)));
    const auto nbytes = static_cast<size_t>(packed.numel() * packed.element_size());
    if (nbytes > 0) {
      const DeviceGuard guard(to);
      auto stream = static_cast<cudaStream_t>(current_stream(to));
      check(cudaMemcpyPeerAsync(landing.data_ptr(), to, packed.data_ptr(), from, nbytes, stream), "cudaMemcpyPeerAsync");
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
    native::cuda::copy_same_device(dst, landing);
    return;
  }
  // device -> host
  const Tensor packed = native::contiguous_copy(src);
  Tensor staged = empty_cpu(src.sizes(), src.dtype());
  memcpy_sync(staged.data_ptr(), packed.data_ptr(), static_cast<size_t>(staged.numel() * staged.element_size()),
              cudaMemcpyDeviceToHost, index_of(src));
  native::copy_kernel(dst, staged);
}

}  // namespace tcore::cuda
