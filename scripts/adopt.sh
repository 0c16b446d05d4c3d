#!/usr/bin/env bash
# Adoption check: what adding mcpwrap does to a server's module graph.
#
# It makes a throwaway server module pinned to older OpenTelemetry (1.40)
# and Prometheus client (1.20) versions, with a main that uses both (its
# resource carries the semconv schema of otel/sdk 1.40, so a moved SDK
# fails at start-up with "conflicting Schema URL", as it did on a real
# server) and an mcp-go stdio server. Then, as a user would, it adds the
# README's retrofit to main.go and runs `go get github.com/mcpwrap/mcpwrap/wrap`
# (the module comes from this checkout through a replace), builds with the
# default -mod=readonly and no `go mod tidy`, starts the server and calls a
# tool. It prints the modules of `go list -m all` that moved and fails if an
# OpenTelemetry or Prometheus module moved, if the build needs a tidy, or if
# the server does not answer.
# Usage: scripts/adopt.sh        (.ci/run runs it)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
[ -n "${ADOPT_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# The server's own module, not this repository's workspace.
export GOWORK=off

# A file-based module proxy holding this checkout as one version of the root
# module (what a release would publish): go get then resolves, downloads and
# checks it as it would a tagged release, go.sum entries included.
version=$(cd "$root" && TZ=UTC git log -1 --date=format-local:%Y%m%d%H%M%S --format=v0.0.0-%cd-%h --abbrev=12 2>/dev/null || echo v0.0.0-20260101000000-000000000000)
mod=github.com/mcpwrap/mcpwrap
stage=$tmp/stage/$mod@$version
mkdir -p "$stage" "$tmp/proxy/$mod/@v"
(
  cd "$root"
  # Nested modules (their own go.mod) are not part of the root module's zip.
  nested=$(git ls-files --cached --others --exclude-standard -- '*/go.mod' | xargs -r -n1 dirname)
  git ls-files --cached --others --exclude-standard | while read -r f; do
    [ -f "$f" ] || continue
    skip=0
    for d in $nested; do case "$f" in "$d"/*) skip=1 ;; esac; done
    [ "$skip" = 0 ] && printf '%s\n' "$f"
  done
) >"$tmp/files.txt"
(cd "$root" && tar -cf - -T "$tmp/files.txt") | tar -xf - -C "$stage"
(cd "$tmp/stage" && zip -qr "$tmp/proxy/$mod/@v/$version.zip" "$mod@$version")
cp "$root/go.mod" "$tmp/proxy/$mod/@v/$version.mod"
printf '{"Version":"%s","Time":"2026-01-01T00:00:00Z"}\n' "$version" >"$tmp/proxy/$mod/@v/$version.info"
echo "$version" >"$tmp/proxy/$mod/@v/list"
mkdir -p "$tmp/work"
cd "$tmp/work"

cat >go.mod <<'EOF'
module example.com/adopter

go 1.25.5
EOF
mkdir bare
cat >main.go <<'EOF'
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
)

func main() {
	// The server's own telemetry set-up, as written against otel/sdk 1.40:
	// its default resource has semconv 1.39's schema.
	res, err := resource.Merge(resource.Default(),
		resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName("adopter")))
	if err != nil {
		fmt.Fprintln(os.Stderr, "start-up:", err)
		os.Exit(1)
	}
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithResource(res)))
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithResource(res)))
	calls := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "adopter_calls_total"}, []string{"tool"})
	prometheus.MustRegister(calls)

	s := server.NewMCPServer("adopter", "1.0.0") /*ATTACH*/
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.WithLabelValues("echo").Inc()
		return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
	})
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
EOF

echo "== the server before: otel 1.40, prometheus client_golang 1.20, mcp-go 1.2.1"
go get go.opentelemetry.io/otel@v1.40.0 go.opentelemetry.io/otel/sdk@v1.40.0 \
  go.opentelemetry.io/otel/sdk/metric@v1.40.0 github.com/prometheus/client_golang@v1.20.5 \
  github.com/mark3labs/mcp-go@v1.2.1 >/dev/null 2>&1
go mod tidy >/dev/null 2>&1
go build -o bare/server .
go list -m all | sort >before.txt
go_before=$(go mod edit -json | sed -n 's/^[[:space:]]*"Go": "\(.*\)",*$/\1/p')

# The checkout's proxy in front of the machine's: see scripts/adoptproxy.
upstream=$(go env GOPROXY | tr ',|' '\n\n' | grep -v '^direct$' | grep -v '^off$' | head -1)
(cd "$root" && go build -o "$tmp/adoptproxy" ./scripts/adoptproxy)
"$tmp/adoptproxy" -dir "$tmp/proxy" -upstream "${upstream:-https://proxy.golang.org}" -addr-file "$tmp/proxy.addr" 2>"$tmp/proxy.log" &
proxy_pid=$!
trap 'kill "$proxy_pid" 2>/dev/null || true; [ -n "${ADOPT_KEEP:-}" ] || rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do [ -s "$tmp/proxy.addr" ] && break; sleep 0.1; done
export GOPROXY=$(cat "$tmp/proxy.addr") GONOSUMDB=$mod
echo "== adding mcpwrap: the README's import, then go get github.com/mcpwrap/mcpwrap/wrap (no tidy)"
sed -i 's#"github.com/mark3labs/mcp-go/server"#&\n\t"github.com/mcpwrap/mcpwrap/wrap"\n\t"github.com/mcpwrap/mcpwrap/wrap/mcpgo"\n\t"log/slog"#' main.go
sed -i 's#/\*ATTACH\*/#; mcpgo.Attach(s, wrap.New(wrap.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))), wrap.WithTimeout(30*time.Second)))#' main.go
sed -i 's#"context"#&\n\t"time"#' main.go
gofmt -w main.go
go get "github.com/mcpwrap/mcpwrap/wrap@$version" "github.com/mcpwrap/mcpwrap/wrap/mcpgo@$version" 2>&1 | sed 's/^/  /'
fail=0
if ! go build -o server . 2>build.err; then
  echo "FAIL: the build after go get (no tidy) fails:"; sed 's/^/  /' build.err
  exit 1
fi
go list -m all | sort >after.txt
go_after=$(go mod edit -json | sed -n 's/^[[:space:]]*"Go": "\(.*\)",*$/\1/p')

echo "== start-up and one call"
req='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"adopt","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}'
out=$( { printf '%s\n' "$req"; sleep 1; } | timeout 20 ./server 2>server.err || true)
if ! grep -q 'echo: hi' <<<"$out"; then
  echo "FAIL: the wrapped server did not answer the call:"; sed 's/^/  /' server.err; echo "$out" | sed 's/^/  /'
  fail=1
else
  echo "the wrapped server started and answered the call"
fi

# A module moved if its version in the build list changed; added modules
# are new to the server (mcpwrap and what only it needs).
moved=$(join -j1 <(awk 'NF>=2 {print $1, $2}' before.txt) <(awk 'NF>=2 {print $1, $2}' after.txt) | awk '$2 != $3 {print $1, $2, "->", $3}')
added=$(join -v2 -j1 <(awk '{print $1}' before.txt) <(awk '{print $1}' after.txt))
echo "== go directive: $go_before -> $go_after"
echo "== modules moved: $(grep -c . <<<"$moved" || true) (of $(grep -c . before.txt) before)"
[ -n "$moved" ] && echo "$moved" | sed 's/^/  /'
echo "== modules added: $(grep -c . <<<"$added" || true)"
[ -n "$added" ] && echo "$added" | sed 's/^/  /'
if grep -E '^(go\.opentelemetry\.io|github\.com/prometheus)/' <<<"$moved" >/dev/null; then
  echo "FAIL: adding mcpwrap moved the server's OpenTelemetry or Prometheus modules"
  fail=1
fi
[ "$fail" = 0 ] && echo "adopt ok: OpenTelemetry and Prometheus stay where the server pinned them"
exit "$fail"
