#!/usr/bin/env bash
# Runtime truth on a GPU, in one command of a few minutes (issue 24, deliverable 5).
#
# From the repository root, on a machine with CUDA and torch:
#     OUT=/some/dir bash benchmarks/gpu_truth.sh
# writes under $OUT (at most 8 files, so the device tool brings them all back):
#     environment.txt     GPU, driver, compute capability, torch/CUDA/Python versions, commit
#     confirm-all.txt     `torchtype-lint confirm --device all` as a user sees it
#     confirm-all.json    the same run, every fixture's verdict per device (`confirm --json`)
#     check-confirm.json  `check --confirm` on the examples and every bad fixture: torch's
#                         verdict on each rebuilt operation, CPU and CUDA
#     check-confirm.err   its stderr (how many reproductions, on which devices, how long)
#     tests.txt           tests/test_harness_processes.py, whose real-CUDA cases run only here
#     op-contracts-cuda.json  every op-contract (op, dtype) pair run on this GPU
#                         (`python -m torchtype_lint.contracts observe`); commit it under
#                         torchtype_lint/data/cuda_observations/ and run `contracts merge`
#     summary.txt         exit status and wall time of each step
# How to run it through the device tool and what to commit afterwards: docs/harness.md,
# "Running on a GPU".
set -u -o pipefail

OUT=${OUT:?set OUT to the directory that receives the results}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1

# The GPU image has torch but not libcst: install the carried wheels (.whl/) when needed.
if ! "$PY" -c "import libcst" 2>/dev/null; then
    if ! ls .whl/*.whl >/dev/null 2>&1; then
        echo "libcst is not installed and no .whl/ was carried (docs/harness.md, Running on a GPU)" >&2
        exit 2
    fi
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/ttl-site .whl/*.whl || exit 2
    # Only the linter's own process needs it: the torch workers (python -I) import no libcst.
    export PYTHONPATH=/tmp/ttl-site${PYTHONPATH:+:$PYTHONPATH}
fi

{
    date -u +%Y-%m-%dT%H:%MZ
    echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "cpus $(nproc)"
    nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader
    "$PY" -c "import sys, numpy, torch
print('python', sys.version.split()[0]); print('numpy', numpy.__version__)
print('torch', torch.__version__, 'cuda', torch.version.cuda)
print('gpu', torch.cuda.get_device_name(), 'capability', torch.cuda.get_device_capability())"
} > "$OUT/environment.txt" 2>&1

step() {  # step NAME COMMAND...: run it, append its exit status and wall time to summary.txt
    local name=$1 start=$SECONDS status
    shift
    "$@"
    status=$?
    echo "$name: exit $status in $((SECONDS - start)) s" | tee -a "$OUT/summary.txt"
}

step "confirm --device all" sh -c "\"$PY\" -m torchtype_lint confirm --device all \
    --json \"$OUT/confirm-all.json\" > \"$OUT/confirm-all.txt\" 2>&1"
step "check --confirm (examples, bad fixtures)" sh -c "\"$PY\" -m torchtype_lint check --confirm \
    --isolated --no-cache --extend-select TTL9 --output-format json examples/ fixtures/TTL*/bad_*.py \
    > \"$OUT/check-confirm.json\" 2> \"$OUT/check-confirm.err\""
step "tests/test_harness_processes.py" sh -c "\"$PY\" -m pytest -q -p no:cacheprovider \
    tests/test_harness_processes.py > \"$OUT/tests.txt\" 2>&1"
# Last, with what time is left: the observation file is marked incomplete past its budget.
step "contracts observe --device cuda" sh -c "\"$PY\" -m torchtype_lint.contracts observe --device cuda \
    --budget ${OBSERVE_BUDGET:-240} --out \"$OUT/op-contracts-cuda.json\" >> \"$OUT/summary.txt\" 2>&1"
