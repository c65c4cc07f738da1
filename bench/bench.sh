#!/usr/bin/env bash
# bench.sh measures what the plantstore SDK costs against its peers (package
# bench/internal/baseline): the hand-written net/http call with four headers
# (raw) and with the six the SDK sends with its correlation headers (rawsix),
# and the oapi-codegen client sending the same six (oapi). It prints the
# figures that BENCHMARKS.md records:
#
#  1. the Go benchmarks, run ROUNDS times interleaved (each round runs every
#     benchmark once, so the implementations alternate), with medians and
#     the ratios sdk/rawsix (time, bytes, allocations), sdk/oapi and sdk/raw
#     (time, allocations), each server's throughput against the bare
#     handler's, the bytes per stored plant and the connection counts;
#  2. instructions per call under valgrind's callgrind: the client program
#     of internal/callgrind makes N sequential creates against the server
#     program, which runs in another process, for two values of N in each
#     mode (raw, rawsix, oapi, sdk, sdk-traffic) over HTTP/1.1, and for
#     rawsix and sdk over h2c too (issue 28; Go 1.24+); per call =
#     Δinstructions / ΔN.
#
# Usage: bench/bench.sh [go|callgrind|all]   (default all)
#
# It installs nothing. The Go benchmarks need only Go; callgrind needs
# valgrind on the PATH, and the script says how to install it when it is
# missing. benchstat is fetched through the Go module proxy when available.
#
# Knobs (environment): ROUNDS (6), BENCHTIME (1s), REUSE_BENCHTIME (9600x:
# 32 goroutines × 300 creates, once per round), MEM_BENCHTIME (100000x:
# plants stored per round for the bytes per plant), CG_N1 and CG_N2 (500 and 2500), CG_REPS
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
MEM_BENCHTIME=${MEM_BENCHTIME:-100000x}
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

# median_of VALUES…: the median of the numbers given.
median_of() {
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B: A/B to three decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b == 0 ? 0 : a / b) }'; }

# check OK LABEL: "meets" or "MISSES" the bar, from an awk condition.
verdict() { awk "BEGIN { exit !($1) }" && echo "meets the bar" || echo "MISSES the bar"; }

run_go() {
	echo "== go benchmarks: $ROUNDS interleaved rounds, -benchtime $BENCHTIME (reuse: $REUSE_BENCHTIME, memory: $MEM_BENCHTIME)"
	go test -c -o "$OUT/plantstore.test" .
	: >"$OUT/bench.txt"
	for round in $(seq "$ROUNDS"); do
		echo "round $round/$ROUNDS"
		"$OUT/plantstore.test" -test.run '^$' -test.bench 'BenchmarkCreatePlant|BenchmarkServerThroughput' \
			-test.benchmem -test.benchtime "$BENCHTIME" >>"$OUT/bench.txt"
		"$OUT/plantstore.test" -test.run '^$' -test.bench 'BenchmarkConnectionReuse' \
			-test.benchtime "$REUSE_BENCHTIME" >>"$OUT/bench.txt"
		"$OUT/plantstore.test" -test.run '^$' -test.bench 'BenchmarkPlantMemory' \
			-test.benchtime "$MEM_BENCHTIME" >>"$OUT/bench.txt"
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
	local mode impl unit
	declare -A m
	for mode in seq par; do
		for impl in raw rawsix oapi sdk; do
			for unit in ns/op B/op allocs/op; do
				m[$mode.$impl.$unit]=$(median "$f" "BenchmarkCreatePlant/mode=$mode/impl=$impl" "$unit")
			done
		done
		printf '%s time     raw %9.0f ns  rawsix %9.0f ns  oapi %9.0f ns  sdk %9.0f ns\n' "$mode" \
			"${m[$mode.raw.ns/op]}" "${m[$mode.rawsix.ns/op]}" "${m[$mode.oapi.ns/op]}" "${m[$mode.sdk.ns/op]}"
		printf '%s bytes    raw %9.0f B   rawsix %9.0f B   oapi %9.0f B   sdk %9.0f B\n' "$mode" \
			"${m[$mode.raw.B/op]}" "${m[$mode.rawsix.B/op]}" "${m[$mode.oapi.B/op]}" "${m[$mode.sdk.B/op]}"
		printf '%s allocs   raw %9.0f     rawsix %9.0f     oapi %9.0f     sdk %9.0f\n' "$mode" \
			"${m[$mode.raw.allocs/op]}" "${m[$mode.rawsix.allocs/op]}" "${m[$mode.oapi.allocs/op]}" "${m[$mode.sdk.allocs/op]}"
	done
	# The SDK's bars (issue 5's, for time, bytes and allocations) hold
	# against rawsix, the hand-written call doing the SDK's whole wire job;
	# raw, which sends four headers where the SDK sends six, is printed for
	# continuity with the earlier figures, without a bar.
	for mode in seq par; do
		local t_sdk=${m[$mode.sdk.ns/op]} b_sdk=${m[$mode.sdk.B/op]} a_sdk=${m[$mode.sdk.allocs/op]}
		local t_six=${m[$mode.rawsix.ns/op]} b_six=${m[$mode.rawsix.B/op]} a_six=${m[$mode.rawsix.allocs/op]}
		printf '%s time     sdk/rawsix %s [≤ 1.10] %s\n' "$mode" "$(ratio "$t_sdk" "$t_six")" "$(verdict "$t_sdk <= 1.10 * $t_six")"
		printf '%s bytes    sdk/rawsix %s [≤ 1.5]  %s\n' "$mode" "$(ratio "$b_sdk" "$b_six")" "$(verdict "$b_sdk <= 1.5 * $b_six")"
		printf '%s allocs   sdk-rawsix %+d [≤ +10]  %s\n' "$mode" \
			"$(awk -v a="$a_sdk" -v b="$a_six" 'BEGIN { printf "%d", a - b }')" "$(verdict "$a_sdk <= $a_six + 10")"
		printf '%s time     sdk/oapi   %s (no bar)\n' "$mode" "$(ratio "$t_sdk" "${m[$mode.oapi.ns/op]}")"
		printf '%s allocs   sdk/oapi   %s [≤ 1.00] %s\n' "$mode" "$(ratio "$a_sdk" "${m[$mode.oapi.allocs/op]}")" \
			"$(verdict "$a_sdk <= ${m[$mode.oapi.allocs/op]}")"
		printf '%s time     sdk/raw    %s (four headers, not the same job: no bar)\n' "$mode" "$(ratio "$t_sdk" "${m[$mode.raw.ns/op]}")"
	done

	# Throughput of each server against the bare handler, with its bar:
	# from the wall time, and from the process's CPU time per create,
	# which the load of other work on the machine moves much less.
	local bare bare_cpu server t cpu bar
	bare=$(median "$f" BenchmarkServerThroughput/server=bare ns/op)
	bare_cpu=$(median "$f" BenchmarkServerThroughput/server=bare cpu-ns/op)
	printf 'throughput bare %.0f creates/s (wall), %.0f creates/s per CPU\n' \
		"$(awk -v t="$bare" 'BEGIN { print 1e9 / t }')" "$(awk -v t="$bare_cpu" 'BEGIN { print 1e9 / t }')"
	for server in fake mock mock-log; do
		t=$(median "$f" "BenchmarkServerThroughput/server=$server" ns/op)
		[ "$t" = NaN ] && continue
		cpu=$(median "$f" "BenchmarkServerThroughput/server=$server" cpu-ns/op)
		bar=0.8
		case $server in mock*) bar=0.85 ;; esac
		printf 'throughput %s %.0f creates/s (wall)  %s/bare %s [≥ %s] %s\n' "$server" \
			"$(awk -v t="$t" 'BEGIN { print 1e9 / t }')" "$server" "$(ratio "$bare" "$t")" "$bar" \
			"$(verdict "$bare >= $bar * $t")"
		printf 'throughput %s %.0f creates/s per CPU  %s/bare %s [≥ %s] %s\n' "$server" \
			"$(awk -v t="$cpu" 'BEGIN { print 1e9 / t }')" "$server" "$(ratio "$bare_cpu" "$cpu")" "$bar" \
			"$(verdict "$bare_cpu >= $bar * $cpu")"
	done

	local bpp
	for server in fake mock; do
		bpp=$(median "$f" "BenchmarkPlantMemory/server=$server" B/plant)
		[ "$bpp" = NaN ] && continue
		printf 'memory per stored plant beyond name and tag, %s: median %.1f B over %s runs of %s [≤ 100] %s\n' \
			"$server" "$bpp" "$ROUNDS" "$MEM_BENCHTIME" "$(verdict "$bpp <= 100")"
	done

	local calls med most limit
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
	local i
	declare -A url=([h1]="" [h2c]="")
	for i in $(seq 100); do # the server prints its h2c port, if any, first
		url[h1]=$(sed -n 's/^listening on //p' "$OUT/cg-server.out")
		url[h2c]=$(sed -n 's/^listening h2c on //p' "$OUT/cg-server.out")
		[ -n "${url[h1]}" ] && break
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "${url[h1]}" ]; then
		echo "the callgrind server did not start:" >&2
		cat "$OUT/cg-server.out" >&2
		exit 1
	fi

	# Each repetition measures every mode at both N, interleaved; the
	# figure is the median over repetitions of Δinstructions / ΔN. A run is
	# mode@protocol: every mode over HTTP/1.1, and the SDK and the
	# same-job hand-written call over h2c (issue 28), where the server has
	# it (Go 1.24+).
	local rep run mode proto n total per
	declare -A ir percall
	local runs=(raw@h1 rawsix@h1 oapi@h1 sdk@h1 sdk-traffic@h1)
	[ -n "${url[h2c]}" ] && runs+=(rawsix@h2c sdk@h2c)
	for rep in $(seq "$CG_REPS"); do
		for run in "${runs[@]}"; do
			mode=${run%@*} proto=${run#*@}
			for n in "$CG_N1" "$CG_N2"; do
				# cpu.rdtscp=off: on a CPU with RDTSCP, valgrind 3.19 stops a
				# Go 1.26 binary with SIGILL in runtime.cputicks, and the
				# count of a run cut short is no figure. A run counts only
				# if it ended saying it made all n creates.
				log=$OUT/callgrind.$mode.$proto.$n.$rep.log
				if ! GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=callgrind \
					--error-exitcode=3 --callgrind-out-file="$OUT/callgrind.$mode.$proto.$n.$rep.out" \
					"$OUT/cg-client" -mode "$mode" -proto "$proto" -n "$n" -url "${url[$proto]}" >"$log" 2>&1 ||
					! grep -qx "created $n plants" "$log"; then
					echo "the callgrind run of -mode $mode -proto $proto -n $n died or was cut short: no figure" >&2
					tail -20 "$log" >&2
					exit 1
				fi
				total=$(sed -n 's/^summary: //p' "$OUT/callgrind.$mode.$proto.$n.$rep.out")
				ir[$run.$n]=$total
			done
			per=$(awk -v a="${ir[$run.$CG_N2]}" -v b="${ir[$run.$CG_N1]}" -v n="$((CG_N2 - CG_N1))" 'BEGIN { printf "%.0f", (a - b) / n }')
			percall[$run]="${percall[$run]:-} $per"
			printf 'rep %s %s: N=%s %s, N=%s %s instructions; %s per create\n' "$rep" "$run" \
				"$CG_N1" "${ir[$run.$CG_N1]}" "$CG_N2" "${ir[$run.$CG_N2]}" "$per"
		done
	done
	declare -A med
	for run in "${runs[@]}"; do
		# shellcheck disable=SC2086 # one number per word
		med[$run]=$(median_of ${percall[$run]})
	done
	printf 'instructions per create over HTTP/1.1 (median of %s): raw %s, rawsix %s, oapi %s, sdk %s\n' "$CG_REPS" \
		"${med[raw@h1]}" "${med[rawsix@h1]}" "${med[oapi@h1]}" "${med[sdk@h1]}"
	printf 'instructions sdk/rawsix %s [≤ 1.00] %s\n' "$(ratio "${med[sdk@h1]}" "${med[rawsix@h1]}")" "$(verdict "${med[sdk@h1]} <= ${med[rawsix@h1]}")"
	printf 'instructions sdk/oapi   %s [≤ 1.00] %s\n' "$(ratio "${med[sdk@h1]}" "${med[oapi@h1]}")" "$(verdict "${med[sdk@h1]} <= ${med[oapi@h1]}")"
	printf 'instructions sdk/raw    %s (four headers, not the same job: no bar)\n' "$(ratio "${med[sdk@h1]}" "${med[raw@h1]}")"
	printf 'instructions sdk-traffic/sdk %s [≤ 1.02] %s (a traffic.Recorder, issue 29)\n' "$(ratio "${med[sdk-traffic@h1]}" "${med[sdk@h1]}")" "$(verdict "${med[sdk-traffic@h1]} <= 1.02 * ${med[sdk@h1]}")"
	if [ -z "${url[h2c]}" ]; then
		echo "instructions over h2c: not measured (the server needs Go 1.24 or later for h2c)"
		return
	fi
	# Issue 28: over h2c the SDK and rawsix share one transport
	# (baseline.NewHTTPClient's, speaking h2c; see the client's doc).
	printf 'instructions per create over h2c (median of %s): rawsix %s, sdk %s; h2c/h1: rawsix %s, sdk %s\n' "$CG_REPS" \
		"${med[rawsix@h2c]}" "${med[sdk@h2c]}" "$(ratio "${med[rawsix@h2c]}" "${med[rawsix@h1]}")" "$(ratio "${med[sdk@h2c]}" "${med[sdk@h1]}")"
	printf 'instructions sdk/rawsix over h2c %s [≤ 1.00] %s (over HTTP/1.1 %s)\n' "$(ratio "${med[sdk@h2c]}" "${med[rawsix@h2c]}")" \
		"$(verdict "${med[sdk@h2c]} <= ${med[rawsix@h2c]}")" "$(ratio "${med[sdk@h1]}" "${med[rawsix@h1]}")"
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
