#!/usr/bin/env bash
# Footprint check: builds the same minimal stdio mcp-go server twice, bare
# (scripts/footprint/bare) and with the README's one-line retrofit
# (scripts/footprint/wrapped), prints both sizes, and fails if the wrapped
# one links gRPC, an OTLP or Prometheus exporter, or grows by more than the
# budget (FOOTPRINT_BUDGET_BYTES, 3 MB by default).
# Usage: scripts/footprint.sh        (.ci/run runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
# What a server that imports wrap links, on the root module's own versions.
export GOWORK=off
budget=${FOOTPRINT_BUDGET_BYTES:-3000000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for v in bare wrapped; do
  go build -o "$out/$v" "./scripts/footprint/$v"
done

# Module paths and symbol prefixes that must stay out of a server that only
# imports wrap: they belong to observe/export.
heavy='google\.golang\.org/grpc|go\.opentelemetry\.io/otel/exporters|go\.opentelemetry\.io/proto/otlp|github\.com/prometheus'
fail=0
mods=$(go version -m "$out/wrapped" | awk '$1 == "dep" || $1 == "=>" {print $2}' | { grep -E "^($heavy)" || true; })
if [ -n "$mods" ]; then
  echo "FAIL: the wrapped server links these modules:"; echo "$mods" | sed 's/^/  /'
  fail=1
fi
syms=$(go tool nm "$out/wrapped" | awk '{print $NF}' | { grep -E "^($heavy)" || true; } | sort -u)
if [ -n "$syms" ]; then
  echo "FAIL: the wrapped server has $(echo "$syms" | wc -l) symbols of them, e.g.:"; echo "$syms" | sed -n '1,5s/^/  /p'
  fail=1
fi

bare=$(stat -c %s "$out/bare")
wrapped=$(stat -c %s "$out/wrapped")
diff=$((wrapped - bare))
mb() { awk -v b="$1" 'BEGIN { printf "%.2f MB", b / 1e6 }'; }
printf '%-30s %12s  %s\n' "stdio server" "bytes" "" \
  "bare mcp-go" "$bare" "$(mb "$bare")" \
  "with the one-line retrofit" "$wrapped" "$(mb "$wrapped")" \
  "difference" "$diff" "+$(mb "$diff")"
echo "modules linked: bare $(go version -m "$out/bare" | grep -c $'^\tdep'), wrapped $(go version -m "$out/wrapped" | grep -c $'^\tdep')"
if [ "$diff" -gt "$budget" ]; then
  echo "FAIL: the retrofit adds $diff bytes, over the budget of $budget"
  fail=1
fi
[ "$fail" = 0 ] && echo "footprint ok: no gRPC, no exporter, +$(mb "$diff") (budget +$(mb "$budget"))"
exit "$fail"
