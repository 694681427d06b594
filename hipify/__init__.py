"""CUDA -> HIP source translator (python -m hipify). The translator arrives with the
CUDA backend; `doit hipify` already exists and reports that csrc/ has no CUDA sources."""
