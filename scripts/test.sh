#!/usr/bin/env bash
# The test suite of every module of this repository, the one command the
# README gives (.ci/run runs it). `go test ./...` at the root, even in the
# go.work workspace, covers the root module only: each nested module
# (cmd/mcpwrap, examples, observe/export, wrap/authz/cedarauthz,
# wrap/authz/jwtauth and its e2e, wrap/gosdk, wrap/limit/redislimit)
# is tested from its own directory. The root module is tested with
# GOWORK=off, so on the versions of its own go.mod, the floors its users
# get; the workspace would raise them to what the nested modules require.
# Every module is tested even when one fails; the script then exits 1 and
# names each failing module.
# Usage: scripts/test.sh [go test flags]
#   (default: -race -count=1 -vet=off -ldflags=-w)
# -vet=off: go test's own vet pass is a subset of `go vet`, which .ci/run
# runs over every module, tests included, before this script; run
# `go vet` yourself when you run this script alone. -ldflags=-w: the test
# binaries carry no DWARF (no debugger needs it here; stack traces and race
# reports keep their files and lines). Together they take about a quarter
# off compiling and linking the test binaries: the root module's 144 s to
# 107 s, cmd/mcpwrap's 204 s to 164 s, on empty caches on 2 cores.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(-race -count=1 -vet=off -ldflags=-w)
root=$PWD
# Under -race every test binary, and every child a test starts from it,
# sleeps a second at exit (the race runtime's atexit_sleep_ms, for reports
# from other threads; Go's race reports are written as they happen, and a
# race still fails the binary with exit status 66). No test may depend on
# that sleep: the buffered logger's last line did (logline's
# TestLastLineSurvivesAnExitOnSIGTERM) until a line waited for its write.
export GORACE="atexit_sleep_ms=0${GORACE:+ $GORACE}"
failed=()
dirs=$(go list -m -f '{{.Dir}}') || { echo "go list -m failed: the workspace does not load"; exit 1; }
nested=()
for dir in $dirs; do [ "$dir" = "$root" ] || nested+=("$dir"); done
echo "== module github.com/mcpwrap/mcpwrap (GOWORK=off)"
start=$SECONDS
GOWORK=off go test "${flags[@]}" ./... || failed+=("github.com/mcpwrap/mcpwrap")
echo "== took $((SECONDS - start)) s"
for dir in "${nested[@]}"; do
  mod=$(cd "$dir" && GOWORK=off go list -m) || mod=${dir#"$root"/}
  echo "== module $mod (workspace)"
  start=$SECONDS
  if [ "$mod" = "github.com/mcpwrap/mcpwrap/cmd/mcpwrap" ]; then
    # Its tests build the tool and the audit's fixture servers without
    # -race (go build), two test binaries at once compiling the same
    # packages: one go build first compiles them once, and theirs link.
    (cd "$dir" && go build ./...) || failed+=("$mod (go build)")
  fi
  (cd "$dir" && go test "${flags[@]}" ./...) || failed+=("$mod")
  echo "== took $((SECONDS - start)) s"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "== FAILED modules (${#failed[@]}):"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "== every module passed"
