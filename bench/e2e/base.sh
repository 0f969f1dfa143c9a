#!/usr/bin/env bash
# base.sh: build a commit's cmd/audit once and print the binary's path.
#
# usage: base.sh BASE_REF DIR
#   the binary is DIR/audit-<sha>, built from `git archive` of the commit
#   (no worktree or checkout is touched) when it is not there yet.
set -euo pipefail
base_ref=$1 dir=$2
mkdir -p "$dir"
sha=$(git rev-parse --short=12 "$base_ref^{commit}")
base_bin=$dir/audit-$sha
if [ ! -x "$base_bin" ]; then
	echo "building the baseline $sha into $base_bin" >&2
	src=$dir/src-$sha
	rm -rf "$src" && mkdir -p "$src"
	git archive "$sha" | tar -x -C "$src"
	(cd "$src" && go build -o "$dir/audit-$sha.tmp" ./cmd/audit)
	mv "$dir/audit-$sha.tmp" "$base_bin"
	rm -rf "$src"
fi
echo "$base_bin"
