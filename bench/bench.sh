#!/usr/bin/env bash
# bench.sh measures what the plantstore SDK costs on top of a hand-written
# net/http call (package bench/internal/baseline), and prints the figures that
# BENCHMARKS.md records:
#
#  1. the Go benchmarks of bench_test.go, run ROUNDS times interleaved (each
#     round runs every benchmark once, so raw and sdk alternate), with
#     medians and the ratios SDK/Raw (time, bytes, allocations), the
#     plantstoretest/bare throughput ratio and the connection counts;
#  2. instructions per call under valgrind's callgrind: the client program
#     of internal/callgrind makes N sequential creates against the server
#     program, which runs in another process, for two values of N in each
#     mode; per call = Δinstructions / ΔN.
#
# Usage: bench/bench.sh [go|callgrind|all]   (default all)
#
# It installs nothing. The Go benchmarks need only Go; callgrind needs
# valgrind on the PATH, and the script says how to install it when it is
# missing. benchstat is fetched through the Go module proxy when available.
#
# Knobs (environment): ROUNDS (6), BENCHTIME (1s), REUSE_BENCHTIME (9600x:
# 32 goroutines × 300 creates, once per round), CG_N1 and CG_N2 (500 and 2500), CG_REPS
# (3 repetitions of the callgrind measurement, whose median is reported), OUT
# (a directory for the raw outputs; a new temporary one by default). A quick
# check: ROUNDS=2 BENCHTIME=200x CG_N1=100 CG_N2=300 CG_REPS=1 bench/bench.sh
set -euo pipefail
cd "$(dirname "$0")"   # the bench module

what=${1:-all}
case $what in go | callgrind | all) ;; *)
	echo "usage: $0 [go|callgrind|all]" >&2
	exit 2
	;;
esac

ROUNDS=${ROUNDS:-6}
BENCHTIME=${BENCHTIME:-1s}
REUSE_BENCHTIME=${REUSE_BENCHTIME:-9600x}
CG_N1=${CG_N1:-500}
CG_N2=${CG_N2:-2500}
CG_REPS=${CG_REPS:-3}
OUT=${OUT:-$(mktemp -d /tmp/plantstore-bench.XXXXXX)}
mkdir -p "$OUT"
# Pinned; fetched through the Go module proxy on first use.
BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

machine() {
	echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(go version | cut -d' ' -f3-)"
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "outputs in $OUT"
}

# median FILE PATTERN UNIT: the median of UNIT over the result lines of the
# benchmarks whose name (without the -GOMAXPROCS suffix) equals PATTERN.
median() {
	awk -v name="$2" -v unit="$3" '
		$1 ~ /^Benchmark/ {
			n = $1; sub(/-[0-9]+$/, "", n)
			if (n != name) next
			for (i = 3; i < NF; i++) if ($(i+1) == unit) v[c++] = $i + 0
		}
		END {
			if (c == 0) { print "NaN"; exit }
			for (i = 1; i < c; i++) { x = v[i]; for (j = i - 1; j >= 0 && v[j] > x; j--) v[j+1] = v[j]; v[j+1] = x }
			print (c % 2) ? v[int(c/2)] : (v[c/2-1] + v[c/2]) / 2
		}' "$1"
}

# maximum FILE PATTERN UNIT: as median, the largest value.
maximum() {
	awk -v name="$2" -v unit="$3" '
		$1 ~ /^Benchmark/ {
			n = $1; sub(/-[0-9]+$/, "", n)
			if (n != name) next
			for (i = 3; i < NF; i++) if ($(i+1) == unit && (c++ == 0 || $i + 0 > m)) m = $i + 0
		}
		END { print (c ? m : "NaN") }' "$1"
}

# ratio A B: A/B to three decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b == 0 ? 0 : a / b) }'; }

# check OK LABEL: "meets" or "MISSES" the bar, from an awk condition.
verdict() { awk "BEGIN { exit !($1) }" && echo "meets the bar" || echo "MISSES the bar"; }

run_go() {
	echo "== go benchmarks: $ROUNDS interleaved rounds, -benchtime $BENCHTIME (reuse: $REUSE_BENCHTIME)"
	go test -c -o "$OUT/plantstore.test" .
	: >"$OUT/bench.txt"
	for round in $(seq "$ROUNDS"); do
		echo "round $round/$ROUNDS"
		"$OUT/plantstore.test" -test.run '^$' -test.bench 'BenchmarkCreatePlant|BenchmarkServerThroughput' \
			-test.benchmem -test.benchtime "$BENCHTIME" >>"$OUT/bench.txt"
		"$OUT/plantstore.test" -test.run '^$' -test.bench 'BenchmarkConnectionReuse' \
			-test.benchtime "$REUSE_BENCHTIME" >>"$OUT/bench.txt"
	done
	local f=$OUT/bench.txt

	if go run "$BENCHSTAT" -h >/dev/null 2>&1; then
		echo
		echo "-- benchstat -col /impl (CreatePlant)"
		go run "$BENCHSTAT" -col /impl -filter '.name:CreatePlant' "$f" || true
		echo
		echo "-- benchstat -col /server (ServerThroughput)"
		go run "$BENCHSTAT" -col /server -filter '.name:ServerThroughput' "$f" || true
	else
		echo "(benchstat unavailable; medians below come from awk)"
	fi

	echo
	echo "-- medians and ratios (bar in brackets)"
	local mode t_raw t_sdk b_raw b_sdk a_raw a_sdk
	for mode in seq par; do
		t_raw=$(median "$f" "BenchmarkCreatePlant/mode=$mode/impl=raw" ns/op)
		t_sdk=$(median "$f" "BenchmarkCreatePlant/mode=$mode/impl=sdk" ns/op)
		b_raw=$(median "$f" "BenchmarkCreatePlant/mode=$mode/impl=raw" B/op)
		b_sdk=$(median "$f" "BenchmarkCreatePlant/mode=$mode/impl=sdk" B/op)
		a_raw=$(median "$f" "BenchmarkCreatePlant/mode=$mode/impl=raw" allocs/op)
		a_sdk=$(median "$f" "BenchmarkCreatePlant/mode=$mode/impl=sdk" allocs/op)
		printf '%s time     raw %9.0f ns  sdk %9.0f ns  sdk/raw %s [≤ 1.10] %s\n' "$mode" "$t_raw" "$t_sdk" \
			"$(ratio "$t_sdk" "$t_raw")" "$(verdict "$t_sdk <= 1.10 * $t_raw")"
		printf '%s bytes    raw %9.0f B   sdk %9.0f B   sdk/raw %s [≤ 1.5]  %s\n' "$mode" "$b_raw" "$b_sdk" \
			"$(ratio "$b_sdk" "$b_raw")" "$(verdict "$b_sdk <= 1.5 * $b_raw")"
		printf '%s allocs   raw %9.0f     sdk %9.0f     sdk-raw %+d [≤ +10]  %s\n' "$mode" "$a_raw" "$a_sdk" \
			"$(awk -v a="$a_sdk" -v b="$a_raw" 'BEGIN { printf "%d", a - b }')" "$(verdict "$a_sdk <= $a_raw + 10")"
	done

	local bare fake
	bare=$(median "$f" BenchmarkServerThroughput/server=bare ns/op)
	fake=$(median "$f" BenchmarkServerThroughput/server=fake ns/op)
	printf 'throughput bare %.0f creates/s  fake %.0f creates/s  fake/bare %s [≥ 0.8] %s\n' \
		"$(awk -v t="$bare" 'BEGIN { print 1e9 / t }')" "$(awk -v t="$fake" 'BEGIN { print 1e9 / t }')" \
		"$(ratio "$bare" "$fake")" "$(verdict "$bare >= 0.8 * $fake")"

	local calls impl med most limit
	for calls in ok 1in10-503; do
		limit=32
		[ "$calls" = ok ] || limit=40
		for impl in raw sdk; do
			med=$(median "$f" "BenchmarkConnectionReuse/calls=$calls/impl=$impl" conns)
			most=$(maximum "$f" "BenchmarkConnectionReuse/calls=$calls/impl=$impl" conns)
			printf 'connections, 32 callers × 300 creates, calls=%-9s %s: median %s, max %s over %s runs [≤ %s] %s\n' \
				"$calls" "$impl" "$med" "$most" "$ROUNDS" "$limit" "$(verdict "$most <= $limit")"
		done
	done
}

run_callgrind() {
	echo "== callgrind: instructions per create, N = $CG_N1 and $CG_N2, $CG_REPS repetitions"
	if ! command -v valgrind >/dev/null; then
		echo "bench.sh callgrind needs valgrind, which is not on the PATH. Install it, e.g." >&2
		echo "  sudo apt-get install valgrind     # Debian, Ubuntu" >&2
		echo "  sudo dnf install valgrind         # Fedora" >&2
		echo "then run this again, or run only the Go benchmarks: $0 go" >&2
		exit 1
	fi
	go build -o "$OUT/cg-client" ./internal/callgrind/client
	go build -o "$OUT/cg-server" ./internal/callgrind/server

	"$OUT/cg-server" -addr 127.0.0.1:0 >"$OUT/cg-server.out" 2>&1 &
	server_pid=$!
	local url= i
	for i in $(seq 100); do
		url=$(sed -n 's/^listening on //p' "$OUT/cg-server.out")
		[ -n "$url" ] && break
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$url" ]; then
		echo "the callgrind server did not start:" >&2
		cat "$OUT/cg-server.out" >&2
		exit 1
	fi

	# Each repetition measures both modes at both N, interleaved; the
	# figure is the median over repetitions of Δinstructions / ΔN.
	local rep mode n total per
	declare -A ir
	declare -A percall=([raw]="" [sdk]="")
	for rep in $(seq "$CG_REPS"); do
		for mode in raw sdk; do
			for n in "$CG_N1" "$CG_N2"; do
				GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
					--callgrind-out-file="$OUT/callgrind.$mode.$n.$rep.out" \
					"$OUT/cg-client" -mode "$mode" -n "$n" -url "$url" >"$OUT/callgrind.$mode.$n.$rep.log" 2>&1 || {
					echo "valgrind failed for -mode $mode -n $n:" >&2
					tail -20 "$OUT/callgrind.$mode.$n.$rep.log" >&2
					exit 1
				}
				total=$(sed -n 's/^summary: //p' "$OUT/callgrind.$mode.$n.$rep.out")
				ir[$mode.$n]=$total
			done
			per=$(awk -v a="${ir[$mode.$CG_N2]}" -v b="${ir[$mode.$CG_N1]}" -v n="$((CG_N2 - CG_N1))" 'BEGIN { printf "%.0f", (a - b) / n }')
			percall[$mode]="${percall[$mode]} $per"
			printf 'rep %s %s: N=%s %s, N=%s %s instructions; %s per create\n' "$rep" "$mode" \
				"$CG_N1" "${ir[$mode.$CG_N1]}" "$CG_N2" "${ir[$mode.$CG_N2]}" "$per"
		done
	done
	local raw sdk
	raw=$(echo ${percall[raw]} | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	sdk=$(echo ${percall[sdk]} | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	printf 'instructions per create (median of %s): raw %s, sdk %s, sdk/raw %s [≤ 1.05] %s\n' "$CG_REPS" "$raw" "$sdk" \
		"$(ratio "$sdk" "$raw")" "$(verdict "$sdk <= 1.05 * $raw")"
}

machine
case $what in
go) run_go ;;
callgrind) run_callgrind ;;
all)
	run_go
	echo
	run_callgrind
	;;
esac
