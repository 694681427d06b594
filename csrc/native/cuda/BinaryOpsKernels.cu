// CUDA kernels of add and mul over the shared launcher (Loops.cuh). Not yet part of
// the build (the CUDA backend issue wires them into dispatch); hipify translates them
// and the tests compile both versions with nvcc and hipcc.
#include "Loops.cuh"

namespace tcore::native::cuda {

struct AddFunctor {
  float alpha;
  __device__ float operator()(float x, float y) const { return x + alpha * y; }
};

struct MulFunctor {
  __device__ float operator()(float x, float y) const { return x * y; }
};

void add_kernel_cuda(char* out, const char* a, const char* b, const OffsetCalculator<3>& calc, int64_t n, float alpha,
                     cudaStream_t stream) {
  launch_binary<float>(out, a, b, calc, n, AddFunctor{alpha}, stream);
}

void mul_kernel_cuda(char* out, const char* a, const char* b, const OffsetCalculator<3>& calc, int64_t n,
                     cudaStream_t stream) {
  launch_binary<float>(out, a, b, calc, n, MulFunctor{}, stream);
}

// Copies between host and device memory, on the given stream.
void copy_between_devices(void* dst, const void* src, size_t nbytes, bool to_device, cudaStream_t stream) {
  check(cudaMemcpyAsync(dst, src, nbytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

}  // namespace tcore::native::cuda
