#!/usr/bin/env bash
# Every rule's runtime claim under the oldest and the newest supported torch (issue 24).
#
# From the repository root:
#     bash benchmarks/confirm_torch_versions.sh            # torch 2.4.1, then the installed one
#     TORCH_VERSIONS="2.4.1 2.9.1" bash benchmarks/confirm_torch_versions.sh
# Each version gets a venv under ${VENVS:-/tmp/ttl-torch-venvs} (PyPI's wheel: on x86_64 a CUDA
# build, about 5 GB and 2-3 minutes to install; kept for the next run) with this checkout
# installed editable, numpy and jaxtyping; then `torchtype-lint confirm --device cpu` runs
# there. Measured on the development machine (2 cores): install 2 min 17 s, confirm 15 s for
# torch 2.4.1 (62 of 62 rules confirmed). Exit status: 0 when every version confirms every rule.
set -u -o pipefail

VENVS=${VENVS:-/tmp/ttl-torch-venvs}
status=0
for version in ${TORCH_VERSIONS:-2.4.1}; do
    venv="$VENVS/torch-$version"
    if [ ! -x "$venv/bin/torchtype-lint" ]; then
        python3 -m venv "$venv" && "$venv/bin/pip" install -q "torch==$version" numpy jaxtyping \
            && "$venv/bin/pip" install -q -e . || { echo "torch $version: install failed"; status=1; continue; }
    fi
    start=$SECONDS
    "$venv/bin/torchtype-lint" confirm --device cpu || status=1
    echo "torch $version: confirm took $((SECONDS - start)) s"
done
# The newest supported torch is the one the test extra pins (this checkout's .venv).
if [ -x .venv/bin/torchtype-lint ]; then
    .venv/bin/torchtype-lint confirm --device cpu || status=1
fi
exit $status
