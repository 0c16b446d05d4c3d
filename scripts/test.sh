#!/usr/bin/env bash
# The test suite of every module of this repository, the one command the
# README gives (.ci/run runs it). `go test ./...` at the root, even in the
# go.work workspace, covers the root module only: each nested module
# (observe/export, wrap/limit/redislimit, examples) is tested from its own
# directory. The root module is tested with GOWORK=off, so on the versions
# of its own go.mod, the floors its users get; the workspace would raise
# them to what the nested modules require.
# Usage: scripts/test.sh [go test flags]   (default: -race -count=1)
set -euo pipefail
cd "$(dirname "$0")/.."
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(-race -count=1)
root=$PWD
echo "== module github.com/mcpwrap/mcpwrap (GOWORK=off)"
GOWORK=off go test "${flags[@]}" ./...
for dir in $(go list -m -f '{{.Dir}}'); do
  [ "$dir" = "$root" ] && continue
  echo "== module $(cd "$dir" && GOWORK=off go list -m) (workspace)"
  (cd "$dir" && go test "${flags[@]}" ./...)
done
