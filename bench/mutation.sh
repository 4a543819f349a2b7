#!/usr/bin/env bash
# Mutation score of the judges, the gate and the report against the unit tests alone (see bench/mutation.md).
#
# Runs mutmut 2.x (it mutates files in place) in copies of the checkout, never in the checkout itself:
#   python3 -m venv /tmp/mutvenv && /tmp/mutvenv/bin/pip install 'mutmut<3'
#   MUTMUT=/tmp/mutvenv/bin/mutmut bash bench/mutation.sh
# The files are split into SHARDS groups run side by side, one copy each under MUTATION_WORK
# (default /tmp/pyramid-mutation, wiped first). The summary and every survivor's diff go to stdout.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MUTATION_WORK:-/tmp/pyramid-mutation}
PY=${PYTHON:-$REPO/.venv/bin/python}
MUTMUT=${MUTMUT:-mutmut}
U=plugins/plugin_utils
# One shard per line, run side by side: the files it mutates | the unit tests that judge them, those
# that kill most first (-x stops at the first failure). The parser fixtures, the twin's formats, the
# CLI and the catalog's schema read none of these files.
JUDGE_TESTS="tests/unit/test_judge_data.py tests/unit/test_judges_switch.py tests/unit/test_judges_l5_l6.py tests/unit/test_judges_fabric.py"
JUDGE_TESTS="$JUDGE_TESTS tests/unit/test_fabric_rounds.py"
REPORT_TESTS="tests/unit/test_gate_report_data.py tests/unit/test_gate_and_report.py tests/unit/test_blocking.py tests/unit/test_climbs.py"
SHARDS=(
    "$U/report/go_no_go.py,$U/gate/blocking.py,$U/core/results.py|$REPORT_TESTS"
    "$U/judging/switch.py,$U/judging/workload.py,$U/judging/registry.py|$JUDGE_TESTS"
    "$U/judging/host.py,$U/judging/fabric.py|$JUDGE_TESTS"
)
# MUTATION_PYTEST_ARGS: more pytest arguments (e.g. --deselect of a test another change has broken for now)
PYTEST="$PY -m pytest -x -q -p no:cacheprovider"

"$(dirname "$MUTMUT")/pip" show mutmut 2>/dev/null | grep -i ^version || true
echo "runner: $PYTEST <the shard's tests> ${MUTATION_PYTEST_ARGS:-}"
date -u +"start %Y-%m-%dT%H:%M:%SZ"
rm -rf "$WORK"
for index in "${!SHARDS[@]}"; do
    copy="$WORK/$index"
    mkdir -p "$copy"
    git -C "$REPO" ls-files -co --exclude-standard | rsync -a --files-from=- "$REPO/" "$copy/"
    # tests/conftest.py links .collections/ansible_collections/gpufabric/pyramid to this copy
    paths=${SHARDS[$index]%%|*}
    tests=${SHARDS[$index]#*|}
    (cd "$copy" && "$MUTMUT" run --paths-to-mutate "$paths" --tests-dir tests/unit --runner "$PYTEST $tests ${MUTATION_PYTEST_ARGS:-}" \
        --no-progress > "$WORK/$index.log" 2>&1 || true) &
done
wait
date -u +"end %Y-%m-%dT%H:%M:%SZ"
for index in "${!SHARDS[@]}"; do
    echo "=== shard $index: ${SHARDS[$index]}"
    (cd "$WORK/$index" && "$PY" - <<'PYEOF'
import collections
import sqlite3

rows = sqlite3.connect(".mutmut-cache").execute("select status from Mutant").fetchall()
print(dict(collections.Counter(status for (status,) in rows)))
PYEOF
    )
    (cd "$WORK/$index" && "$MUTMUT" results || true)
    for id in $(cd "$WORK/$index" && "$MUTMUT" result-ids survived 2>/dev/null); do
        echo "--- mutant $index/$id"
        (cd "$WORK/$index" && "$MUTMUT" show "$id")
    done
done
