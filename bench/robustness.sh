#!/usr/bin/env bash
# The hostile-input suite (tests/property, docs/robustness.md) with many more examples than `make test`.
#
#   bash bench/robustness.sh                 # 500 drawn examples per parser and per damaged output
#   EXAMPLES=2000 RANDOM_DRAWS=1 bash bench/robustness.sh   # new draws each run (prints @reproduce_failure)
#
# `make test` runs the same tests derandomized with 25 (parsers) and 20 (checks) examples each, in
# about two minutes on 2 cores; the sweeps (cut at every line, a bad value at every number, a 100 kB
# line) are the same in both. This run takes about EXAMPLES/20 times the drawn part: 500 examples is
# roughly 30 to 60 minutes on 2 cores. pytest's summary lists every test with an example that failed.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
export PYRAMID_HYPOTHESIS_EXAMPLES="${EXAMPLES:-500}"
export PYRAMID_HYPOTHESIS_RANDOM="${RANDOM_DRAWS:-0}"
export PYRAMID_HYPOTHESIS_SHRINK="${SHRINK:-1}"
exec "${PYTHON:-$REPO/.venv/bin/python}" -m pytest -q -k "drawn or no_exception" tests/property "$@"
