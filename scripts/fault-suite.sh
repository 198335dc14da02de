#!/usr/bin/env bash
# The fault suite (test/faults), run N times in a row (default 3): kill -9 of a worker at each
# durable step of a job and its delivery, connections terminated every 300 ms, PostgreSQL restarted,
# foreign transactions held open for a minute. Stops at the first failing run; prints each run's
# figures (one JSON line per fault) at the end. `npm test` runs the same files once.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
figures="$(mktemp)"
trap 'rm -f "$figures"' EXIT
for run in $(seq 1 "$runs"); do
  echo "fault suite: run $run of $runs"
  start=$(date +%s)
  SEQFLOW_FAULT_FIGURES="$figures" npx vitest run test/faults
  echo "{\"run\":$run,\"seconds\":$(( $(date +%s) - start ))}" >> "$figures"
done
echo "fault suite: $runs runs passed; figures:"
cat "$figures"
