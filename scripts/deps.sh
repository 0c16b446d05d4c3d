#!/usr/bin/env bash
# The SDK-neutral core links no MCP SDK: go list -deps of errs (with the
# internal errbase and errmap), validate,
# observe (and its engine, internal/obs) and the chain (wrap, internal/call, internal/adapter,
# wrap/limit, wrap/upstream) names
# neither github.com/mark3labs/mcp-go nor github.com/modelcontextprotocol/go-sdk.
# An adapter links its own SDK only: wrap/mcpgo no go-sdk, wrap/gosdk no mcp-go.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
check() { # check <package> <forbidden module regexp>
  local bad
  bad=$(go list -deps "$1" | grep -E "$2" || true)
  if [ -n "$bad" ]; then echo "$1 links: $bad" | head -5; fail=1; else echo "$1: links no ${3}"; fi
}
for p in ./errs ./internal/errbase ./internal/errmap ./validate ./observe ./internal/obs ./wrap ./internal/call ./internal/adapter ./wrap/limit ./wrap/upstream; do
  check "$p" '^github.com/(mark3labs/mcp-go|modelcontextprotocol/go-sdk)(/|$)' "MCP SDK"
done
# errs is the vocabulary every package imports: it imports nothing of ours.
ours=$(go list -deps ./errs | grep -E '^github.com/mcpwrap/mcpwrap/' | grep -vx 'github.com/mcpwrap/mcpwrap/errs' || true)
if [ -n "$ours" ]; then echo "./errs imports: $ours" | head -5; fail=1; else echo "./errs: imports nothing of mcpwrap"; fi
check ./wrap/mcpgo '^github.com/modelcontextprotocol/go-sdk(/|$)' "go-sdk"
if [ -d wrap/gosdk ]; then check ./wrap/gosdk '^github.com/mark3labs/mcp-go(/|$)' "mcp-go"; fi
if [ -d examples/gosdk ]; then check ./examples/gosdk '^github.com/mark3labs/mcp-go(/|$)' "mcp-go"; fi
exit $fail
