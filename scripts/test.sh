#!/usr/bin/env bash
# test.sh runs every test, example and contract check of every module in
# this repository, under the race detector: the root module (the SDK, the
# fake, the mock server and the examples) with coverage, then each nested
# module (contract/, bench/, and any other directory with a go.mod) in its
# own directory, against its own go.mod, as a user of that module builds it.
#
# Usage: scripts/test.sh [go test flags…]   e.g. scripts/test.sh -count=1
#
# Needs Go and a C compiler (gcc) on the PATH: -race needs cgo. Modules come
# through the Go module proxy. It goes on after a failing module and exits 1
# at the end if any failed, naming them.
#
# Why a script and not a go.work workspace: in a workspace every module is
# built with one merged build list, which no user of any one module builds
# with (a test-only dependency of contract/ could raise a version the SDK
# is tested with), and the workspace's go line must be the highest of all
# its modules, which would hide what the root module's go 1.23 promises.
set -uo pipefail
cd "$(dirname "$0")/.."

# The root module first; then the nested ones in a stable order.
modules=(.)
while IFS= read -r mod; do
	modules+=("$(dirname "$mod")")
done < <(find . -mindepth 2 -name go.mod -not -path './.git/*' -not -path '*/testdata/*' | sort)

failed=()
for dir in "${modules[@]}"; do
	cover=(-cover)
	# bench/ is measurement tooling: coverage of its programs means nothing.
	[ "$dir" = ./bench ] && cover=()
	echo "== $dir"
	if ! (cd "$dir" && go test -race "${cover[@]}" "$@" ./...); then
		failed+=("$dir")
	fi
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED modules: ${failed[*]}" >&2
	exit 1
fi
echo "all ${#modules[@]} modules passed: ${modules[*]}"
