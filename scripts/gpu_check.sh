#!/usr/bin/env bash
# Everything that needs an NVIDIA GPU, in one run: build tcore with the CUDA backend, run the
# tests marked `gpu` (tests/test_cuda.py), survey the API on the device (scripts/probe_cuda.py),
# benchmark the CUDA kernels against torch's (scripts/bench_cuda.py) and run the small GPU
# tests under compute-sanitizer's memcheck when it is installed. Logs and JSON go to OUTDIR.
#
#   scripts/gpu_check.sh [OUTDIR]          (default build/gpu_check)
#
# Settings: CUDAARCHS (default 90, the H100/H200), MAX_JOBS (default: every core), GPU_CHECK_BUDGET
# (seconds for the whole run: each step's timeout is cut to what is left, a step with less than
# 20 s left is skipped; default: no budget). A folder
# .whl/ of wheels (doit, nanobind) is installed first, for machines without a package index.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-build/gpu_check}"
mkdir -p "$OUT"
if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi
export USE_CUDA=1 CUDAARCHS="${CUDAARCHS:-90}" TCORE_CPU_CAPABILITIES="${TCORE_CPU_CAPABILITIES:-default}" \
  MAX_JOBS="${MAX_JOBS:-$(nproc)}" TCORE_PROGRESS=plain PYTHONUNBUFFERED=1
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvcc --version | tail -1;
  python3 --version; } 2>&1 | tee "$OUT/machine.txt"
start=$(date +%s)
# the timeout of a step: its own, or what is left of the budget; 0 when too little is left
limit() {
  local want=$1 budget=${GPU_CHECK_BUDGET:-0}
  if [ "$budget" -le 0 ]; then echo "$want"; return; fi
  local left=$(( budget - ($(date +%s) - start) - 10 ))
  if [ "$left" -lt 20 ]; then echo 0; elif [ "$left" -lt "$want" ]; then echo "$left"; else echo "$want"; fi
}
skipped() { echo "gpu_check: $1 skipped (the budget is spent)" | tee -a "$OUT/machine.txt"; }
if ! python3 -m doit build >"$OUT/build.log" 2>&1; then
  tail -60 "$OUT/build.log"
  echo "gpu_check: the build failed" >&2
  exit 1
fi
echo "build: $(( $(date +%s) - start )) s" | tee -a "$OUT/machine.txt"
rc=0
# each test in a worker process when pytest-xdist is there, so that a crash loses one test, not the run
workers=$(python3 -c "import xdist" 2>/dev/null && echo "-n 6")
t=$(limit 300)
if [ "$t" -gt 0 ]; then
  timeout "$t" python3 -m pytest tests/test_cuda.py $workers -v -rs --tb=short -p no:cacheprovider >"$OUT/tests.log" 2>&1 || rc=1
  grep -E "FAILED|crashed|passed|failed" "$OUT/tests.log" | tail -20
else skipped tests; fi
t=$(limit 180)
if [ "$t" -gt 0 ]; then
  timeout "$t" python3 scripts/probe_cuda.py --json "$OUT/probe.json" 2>&1 | tee "$OUT/probe.log" | grep -v '^\.\.\. ' || rc=1
else skipped probe; fi
t=$(limit 240)
if [ "$t" -gt 0 ]; then
  timeout "$t" python3 scripts/bench_cuda.py --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log" || rc=1
else skipped bench; fi
t=$(limit 240)
if [ "$t" -gt 0 ] && command -v compute-sanitizer >/dev/null 2>&1; then
  timeout "$t" compute-sanitizer --tool memcheck --print-limit 20 python3 -m pytest tests/test_cuda.py -q -m gpu \
    -p no:cacheprovider -k "not 2_to_the_31 and not large_reductions" >"$OUT/memcheck.log" 2>&1
  tail -25 "$OUT/memcheck.log"
fi
exit $rc
