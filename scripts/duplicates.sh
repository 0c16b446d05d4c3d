#!/usr/bin/env bash
# The duplicates count of this tree (the tool library's `duplicates`),
# twice: as the tool reads the tree, and with every Go import block
# written as single `import "path"` lines, which it passes over. The tool
# passes over import lines, but a grouped block's lines ("context",
# "testing", …) do not start with `import`: two files that import the
# same six packages are a pair, though neither repeats any code.
# Usage: scripts/duplicates.sh [duplicates flags]   (default: --most 8)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- --most 8
echo "== as the tool reads the tree"
duplicates "$@"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$tmp"
# import ( a \n b ) -> import a \n import b; comments and blank lines dropped.
find "$tmp" -name '*.go' -exec perl -0pi -e \
  's{^import \((.*?)^\)}{join "\n", map { "import $_" } grep { $_ ne "" && !m{^//} } map { s/^\s+|\s+$//gr } split /\n/, $1}gsme' {} +
echo "== with Go import blocks passed over"
duplicates --repo "$tmp" "$@"
