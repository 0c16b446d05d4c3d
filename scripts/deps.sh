#!/usr/bin/env bash
# The SDK-neutral core links no MCP SDK: go list -deps of errs (with the
# internal errbase and errmap), validate,
# observe (and its engine, internal/obs, with internal/redact and internal/logline), the chain (wrap, internal/call, internal/adapter, internal/result,
# internal/policy, wrap/limit, wrap/upstream) and authorization (wrap/authz, the jwtauth module) names
# neither github.com/mark3labs/mcp-go nor github.com/modelcontextprotocol/go-sdk.
# An adapter links its own SDK only: wrap/mcpgo no go-sdk, wrap/gosdk no mcp-go.
# wrap/authz/cedarauthz serves both SDKs, so it links neither; and no package
# of the root module links cedar-go (it is the nested module's to pay for).
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
check() { # check <package> <forbidden module regexp>
  local bad
  bad=$(go list -deps "$1" | grep -E "$2" || true)
  if [ -n "$bad" ]; then echo "$1 links: $bad" | head -5; fail=1; else echo "$1: links no ${3}"; fi
}
for p in ./wrap/authz/cedarauthz ./errs ./internal/errbase ./internal/errmap ./validate ./observe ./internal/obs ./internal/redact ./internal/logline ./wrap ./internal/call ./internal/adapter ./internal/result ./internal/policy ./wrap/limit ./wrap/upstream ./wrap/authz ./wrap/authz/jwtauth; do
  check "$p" '^github.com/(mark3labs/mcp-go|modelcontextprotocol/go-sdk)(/|$)' "MCP SDK"
done
bad=$(GOWORK=off go list -deps ./... | grep -E '^github.com/cedar-policy/' || true)
if [ -n "$bad" ]; then echo "the root module links cedar-go: $bad" | head -5; fail=1; else echo "the root module: links no cedar-go"; fi
# errs is the vocabulary every package imports: of ours it imports only the
# leaf internal/errbase, which imports nothing of ours.
ours=$(go list -deps ./errs | grep -E '^github.com/mcpwrap/mcpwrap/' | grep -vx 'github.com/mcpwrap/mcpwrap/errs' | grep -vx 'github.com/mcpwrap/mcpwrap/internal/errbase' || true)
if [ -n "$ours" ]; then echo "./errs imports: $ours" | head -5; fail=1; else echo "./errs: imports nothing of mcpwrap but the leaf internal/errbase"; fi
check ./wrap/mcpgo '^github.com/modelcontextprotocol/go-sdk(/|$)' "go-sdk"
if [ -d wrap/gosdk ]; then check ./wrap/gosdk '^github.com/mark3labs/mcp-go(/|$)' "mcp-go"; fi
if [ -d examples/gosdk ]; then check ./examples/gosdk '^github.com/mark3labs/mcp-go(/|$)' "mcp-go"; fi
exit $fail
