// The CUDA runtime API of a build without a GPU backend: nothing is available, and
// every call that needs a device says so (CMake compiles this file instead of
// CUDAContext.cpp when neither CUDA nor ROCm is built).
#include "native/cuda/DeviceLoops.h"
#include "tcore/cuda/CUDA.h"

namespace tcore::cuda {
namespace {
[[noreturn]] void unavailable(const char* what) {
  throw Error(detail::str_cat(what, ": tcore was built without CUDA (no nvcc or hipcc at configure time, or USE_CUDA=0); ",
                              "rebuild on a machine with the CUDA toolkit"));
}
}  // namespace

bool is_built() { return false; }
const char* runtime() { return ""; }
bool is_available() { return false; }
int device_count() { return 0; }
int current_device() { unavailable("current_device"); }
void set_device(int) { unavailable("set_device"); }
void synchronize(int) { unavailable("synchronize"); }
const char* unavailable_reason() { return "tcore was built without CUDA (no nvcc or hipcc at configure time, or USE_CUDA=0)"; }
Storage allocate(size_t, int) { unavailable("allocating CUDA memory"); }
size_t memory_allocated(int) { return 0; }
size_t memory_reserved(int) { return 0; }
void empty_cache() {}
DeviceGuard::DeviceGuard(int) {}
DeviceGuard::~DeviceGuard() = default;
void* current_stream(int) { unavailable("current_stream"); }
void set_current_stream(void*, int) { unavailable("set_current_stream"); }
void* create_stream(int) { unavailable("create_stream"); }
void destroy_stream(void*) {}
bool stream_query(void*) { unavailable("stream_query"); }
void stream_synchronize(void*) { unavailable("stream_synchronize"); }
void copy(const Tensor&, const Tensor&) { unavailable("copying to or from a CUDA device"); }

}  // namespace tcore::cuda

namespace tcore::native::cuda {
void index_take(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, int64_t, int64_t, int64_t, const char* op) {
  tcore::cuda::unavailable(op);
}
void index_put(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, int64_t, int64_t, int64_t, const Scalar&, bool,
               const char* op) {
  tcore::cuda::unavailable(op);
}
void triangle(const Tensor&, const Tensor&, int64_t, bool) { tcore::cuda::unavailable("tril/triu"); }
void layer_norm_rows(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, int64_t,
                     int64_t, double) {
  tcore::cuda::unavailable("layer_norm");
}
}  // namespace tcore::native::cuda
