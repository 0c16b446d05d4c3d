#!/usr/bin/env bash
# Release dry run: docs/releasing.md's tag order, followed in a throwaway
# clone of HEAD (with the working tree's changes to tracked files), and
# every module resolved from those tags as a user would.
#
# It reads the numbered tag order from docs/releasing.md (between the
# "tag order" markers). Step by step, in the clone, it points each module's
# requirements on its siblings at the release version, drops its replace
# directives (a user's build ignores them), runs `go mod tidy` (which must
# find every sibling it requires among the tags of the earlier steps),
# commits, tags (vX.Y.Z for the root, <dir>/vX.Y.Z for a nested module) and
# publishes each tagged module into a file-based module proxy. Then, in a
# scratch module on an empty module cache, it runs `go get` of every
# published module at the version and builds a program importing them, and
# `go install github.com/mcpwrap/mcpwrap/cmd/mcpwrap@<version>`, whose
# `-version` must print the version. Nothing is pushed; the clone, the
# proxy and the module cache are removed at the end.
#
# A module tagged before a sibling it requires fails its step's tidy; a
# published module missing from the order fails the run.
#
# Usage: scripts/release-dryrun.sh [version]   (default v0.1.0; .ci/run runs it)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=${1:-v0.1.0}
repo_module=github.com/mcpwrap/mcpwrap

tmp=$(mktemp -d)
cleanup() {
  chmod -R u+w "$tmp" 2>/dev/null || true # the module cache's files are read-only
  rm -rf "$tmp" || true
}
[ -n "${DRYRUN_KEEP:-}" ] || trap cleanup EXIT

# The tag order, one step a line: the backquoted directories of each
# numbered line between the markers.
steps=()
while IFS= read -r line; do
  dirs=$(grep -o '`[^`]*`' <<<"$line" | tr -d '`' | tr '\n' ' ')
  [ -n "$dirs" ] && steps+=("$dirs")
done < <(sed -n '/^<!-- tag order: begin/,/^<!-- tag order: end/p' "$root/docs/releasing.md" | grep -E '^[0-9]+\. ')
[ ${#steps[@]} -gt 0 ] || { echo "release-dryrun: no tag order found in docs/releasing.md"; exit 1; }

# The machine's module cache is a file-based proxy for every outside module
# already downloaded; the machine's GOPROXY serves the rest. Our modules
# come only from $tmp/proxy, and an empty module cache ($tmp/mod) is what a
# new user starts from. No checksum database knows our unpublished modules.
upstream=$(go env GOPROXY)
export GOPROXY="file://$tmp/proxy,file://$(go env GOMODCACHE)/cache/download,$upstream"
# -trimpath: compiled packages do not depend on where the module cache is,
# so the build cache of earlier runs serves this one's empty module cache.
export GOMODCACHE=$tmp/mod GOWORK=off GOFLAGS="-mod=mod -trimpath"
export GONOSUMDB=$repo_module GOPRIVATE= GONOPROXY= GOINSECURE= GOTOOLCHAIN=local
mkdir -p "$tmp/proxy" "$tmp/mod"

# HEAD, with the working tree's changes to tracked files (git stash create
# makes that commit without touching the tree or the stash list).
rev=$(cd "$root" && git stash create 2>/dev/null || true)
rev=${rev:-$(cd "$root" && git rev-parse HEAD)}
git clone -q --no-local --no-checkout "$root" "$tmp/repo"
cd "$tmp/repo"
git fetch -q "$root" "$rev" && git checkout -q --detach "$rev"
gitc() { git -c user.name=release-dryrun -c user.email=release-dryrun@invalid -c commit.gpgsign=false -c tag.gpgsign=false "$@"; }

# Every module of the repository but examples/, tools/ and the end-to-end
# tests (e2e/) is published.
published=$(git ls-files '*go.mod' | xargs -n1 dirname | grep -vE '(^|/)testdata(/|$)|^examples$|^tools/|(^|/)e2e$' | sort)
ordered=$(printf '%s\n' "${steps[@]}" | tr ' ' '\n' | grep -v '^$' | sort)
missing=$(comm -23 <(echo "$published") <(echo "$ordered"))
[ -z "$missing" ] || { echo "release-dryrun: published modules not in docs/releasing.md's tag order:"; echo "$missing"; exit 1; }
nested=$(git ls-files '*go.mod' | xargs -n1 dirname | grep -v '^\.$')

modpath() { (cd "$1" && go mod edit -json | sed -n 's/^[[:space:]]*"Path": "\(.*\)"$/\1/p' | head -1); }
tagname() { if [ "$1" = . ]; then echo "$version"; else echo "$1/$version"; fi; }

# publish DIR: the module in DIR at its tag, as a proxy serves it (its
# files, without those of a module nested in it).
publish() {
  local dir=$1 tag mod stage tree sub
  tag=$(tagname "$dir")
  mod=$(modpath "$dir")
  stage=$tmp/stage/$mod@$version
  rm -rf "$tmp/stage" && mkdir -p "$tmp/stage" "$tmp/proxy/$mod/@v"
  tree=$tag
  [ "$dir" = . ] || tree="$tag:$dir"
  git archive --format=tar --prefix="$mod@$version/" "$tree" | tar -xf - -C "$tmp/stage"
  for sub in $nested; do
    if [ "$dir" = . ]; then rm -rf "${stage:?}/$sub"; fi
    case "$sub" in "$dir"/*) rm -rf "${stage:?}/${sub#"$dir"/}" ;; esac
  done
  (cd "$tmp/stage" && zip -qrX "$tmp/proxy/$mod/@v/$version.zip" "$mod@$version")
  cp "$stage/go.mod" "$tmp/proxy/$mod/@v/$version.mod"
  printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$tmp/proxy/$mod/@v/$version.info"
  echo "$version" >>"$tmp/proxy/$mod/@v/list"
  echo "   tagged $tag, published $mod@$version ($(unzip -Z1 "$tmp/proxy/$mod/@v/$version.zip" | grep -vc '/$') files)"
}

n=0
for step in "${steps[@]}"; do
  n=$((n + 1))
  echo "== step $n: $step (${SECONDS}s)"
  for dir in $step; do
    [ -f "$dir/go.mod" ] || { echo "release-dryrun: step $n names $dir, which has no go.mod"; exit 1; }
    [ "$dir" = . ] && continue
    (
      cd "$dir"
      self=$(modpath .)
      # a user's build ignores replace directives: so does the dry run
      for p in $(go mod edit -json | grep -o "\"$repo_module[^\"]*\"" | tr -d '"' | sort -u); do
        go mod edit -dropreplace="$p"
      done
      for p in $(go mod edit -json | grep -o "\"$repo_module[^\"]*\"" | tr -d '"' | sort -u); do
        [ "$p" = "$self" ] || go mod edit -require="$p@$version"
      done
      if ! out=$(go mod tidy 2>&1); then
        echo "$out"
        echo "release-dryrun: step $n: $dir does not resolve at $version from the tags of the steps before it"
        echo "(a sibling it requires is tagged in a later step or not at all: fix the order in docs/releasing.md)"
        exit 1
      fi
    )
  done
  gitc add -A
  gitc diff --cached --quiet || gitc commit -qm "release $version, step $n: $step"
  for dir in $step; do gitc tag "$(tagname "$dir")"; done
  for dir in $step; do publish "$dir"; done
done

echo "== as a user: go get every module at $version into a new module, build it (${SECONDS}s)"
mkdir -p "$tmp/user" && cd "$tmp/user"
go mod init example.com/user >/dev/null 2>&1
imports=""
gets=()
for dir in $published; do
  mod=$(cd "$tmp/repo" && modpath "$dir")
  # one public package of each module (the module's own, or its first)
  pkg=$(cd "$tmp/repo/$dir" && go list -f '{{if ne .Name "main"}}{{.ImportPath}}{{end}}' ./... 2>/dev/null | grep -v /internal | head -1 || true)
  [ -n "$pkg" ] || continue
  imports+="	_ \"$pkg\""$'\n'
  gets+=("$pkg@$version")
done
printf 'package main\n\nimport (\n%s)\n\nfunc main() {}\n' "$imports" >main.go
if ! out=$(go get "${gets[@]}" 2>&1); then
  echo "$out"; echo "release-dryrun: go get ${gets[*]} failed"; exit 1
fi
grep -v '^go: added ' <<<"$out" || true
go build -o /dev/null .
go list -m all | grep "^$repo_module"

echo "== as a user: go install $repo_module/cmd/mcpwrap@$version, then mcpwrap -version (${SECONDS}s)"
cd "$tmp"
GOBIN=$tmp/bin go install "$repo_module/cmd/mcpwrap@$version"
got=$("$tmp/bin/mcpwrap" -version)
echo "$got"
[ "$got" = "mcpwrap $version" ] || { echo "release-dryrun: mcpwrap -version printed \"$got\", want \"mcpwrap $version\""; exit 1; }
echo "release dry run passed in ${SECONDS}s, tag order: $(printf '%s; ' "${steps[@]}")"
