import sys

sys.exit("hipify: the CUDA->HIP translator is not implemented yet (see the CUDA backend issue)")
