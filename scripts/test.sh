#!/usr/bin/env bash
# test.sh runs every test, example and contract check of every module in
# this repository, under the race detector: the root module (the SDK, the
# fake, the mock server and the examples) with coverage, then each nested
# module (contract/, bench/, and any other directory with a go.mod) in its
# own directory, against its own go.mod, as a user of that module builds it.
#
# Usage: scripts/test.sh [-long] [go test flags…]   e.g. scripts/test.sh -count=1
#
# Without -long it skips the long tests: the batteries that drive the built
# mock from python3 and curl, the memory measurements and the soaks. -long
# runs them too (it sets PLANTSTORE_LONG=1, which internal/testenv reads),
# as CI does. README.md says what each takes.
#
# It prints each package's result as the package finishes, and the output
# of each test that fails: go test -json, read by scripts/testprogress.go.
# That is built with -race, like the tests, so that it reuses the standard
# library compiled for them instead of compiling one of its own.
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

# -long is this script's; the rest go to go test. With -json, -v, -bench,
# -fuzz or -list the caller reads go test's own output, which then passes
# through as it is.
args=()
plain=
for arg in "$@"; do
	case $arg in
	# The soaks of one package take up to 10 minutes under -race on two
	# busy cores, go test's default timeout: -long gives each package 30
	# (a -timeout given after it still wins).
	-long)
		export PLANTSTORE_LONG=1
		args=(-timeout 30m ${args[@]+"${args[@]}"})
		;;
	-json | -json=* | -v | -v=* | -bench | -bench=* | -fuzz | -fuzz=* | -list | -list=*) plain=1 args+=("$arg") ;;
	*) args+=("$arg") ;;
	esac
done

# The race detector sleeps a second as each process exits (GORACE's
# atexit_sleep_ms, 1000 by default), in case a goroutine still running has
# a race to report: a second for each test binary and each child process a
# test starts. The tests end what they start (goleak checks the client,
# the fake and the mock server), so the wait is dropped.
export GORACE=${GORACE:-atexit_sleep_ms=0}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$plain" ]; then
	go build -race -o "$tmp/testprogress" scripts/testprogress.go || exit 1
fi

# test_module tests the module in directory $1 and leaves go test's status
# in $tmp/status.$2.
test_module() {
	local dir=$1 cover=(-cover)
	# bench/ is measurement tooling: coverage of its programs means nothing.
	[ "$dir" = ./bench ] && cover=()
	echo "== $dir${PLANTSTORE_LONG:+ (PLANTSTORE_LONG=$PLANTSTORE_LONG)}" >&2
	local gotest=(go test -race "${cover[@]}" ${args[@]+"${args[@]}"})
	if [ -n "$plain" ]; then
		(cd "$dir" && "${gotest[@]}" ./...)
		echo $? >"$tmp/status.$2"
	else
		(cd "$dir" && "${gotest[@]}" -json ./...) | "$tmp/testprogress"
		echo "${PIPESTATUS[0]}" >"$tmp/status.$2"
	fi
}

# The nested modules are small, and some wait more than they compute (a
# contract check of a 16 MiB body): they run beside the root module, each
# into a file printed, in order, once the root module is done.
for i in "${!modules[@]}"; do
	[ "$i" = 0 ] || test_module "${modules[$i]}" "$i" >"$tmp/out.$i" 2>&1 &
done
test_module . 0
wait
failed=()
for i in "${!modules[@]}"; do
	[ "$i" = 0 ] || cat "$tmp/out.$i"
	[ "$(cat "$tmp/status.$i")" = 0 ] || failed+=("${modules[$i]}")
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED modules: ${failed[*]}" >&2
	exit 1
fi
echo "all ${#modules[@]} modules passed: ${modules[*]}"
