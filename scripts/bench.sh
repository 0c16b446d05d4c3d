#!/usr/bin/env bash
# Runs every benchmark of the module COUNT times and summarises with benchstat.
# Usage: scripts/bench.sh [regexp]    (COUNT=10 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-10}
out=${OUT:-bench.txt}
go test -run '^$' -bench "${1:-.}" -benchmem -count "$count" ./... | tee "$out"
go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$out"
