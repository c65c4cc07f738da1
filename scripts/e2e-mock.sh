#!/usr/bin/env bash
# e2e-mock.sh tests plantstore-mock from outside Go, as a consumer in
# another language does: it builds the binary, runs scripts/e2e_mock.py
# (python3, standard library only) against it, -profile replaying a
# recording among its tests, h2c from python3 and node,
# then a short curl smoke, over HTTP/1.1 and h2c.
# The python test's last line is "e2e: N passed, M failed".
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
# Built as scripts/image.sh builds the image's binary, so that this tests
# what the image ships (and CI's image step finds it in the build cache).
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$work/plantstore-mock" ./cmd/plantstore-mock
python3 scripts/e2e_mock.py "$work/plantstore-mock"
# Namespaces (issue 23) from python3: the fixture of
# cmd/plantstore-mock/NAMESPACES.md as printed, on an open mock and on one
# with -admin-token; isolation, the cap, path tricks, the base_url of a
# create without a Host or with one that makes no URL.
python3 scripts/e2e_namespaces.py "$work/plantstore-mock"
# Its checks are assert statements, which python3 -O drops: it must refuse
# to run that way rather than pass without checking.
if PYTHONOPTIMIZE=1 python3 scripts/e2e_mock.py "$work/plantstore-mock" >"$work/optimized" 2>&1; then
	echo "e2e: FAILED: e2e_mock.py passed with PYTHONOPTIMIZE=1, its asserts stripped" >&2
	exit 1
fi

# drift (issue 29) as CI runs it: exit 0 when nothing moved, 1 with one line
# per change on stdout, 2 for a file without traffic.
recording() { # attempts, 503s: each 503 a run of its own, all in the 20 ms bucket
	printf '{"source":"e2e","traffic":{"attempts":%d,"outcomes":[' "$1"
	printf '{"kind":"2xx","status":201,"count":%d,"latency":[{"from_us":19483.97,"to_us":21247.42,"count":%d}]},' $(($1 - $2)) $(($1 - $2))
	printf '{"kind":"5xx","status":503,"count":%d,"latency":[{"from_us":19483.97,"to_us":21247.42,"count":%d}],"retry_after":[{"seconds":null,"count":%d}]}],' "$2" "$2" "$2"
	printf '"failure_runs":{"runs":%d,"failures":%d,"lengths":[{"length":1,"count":%d}]}}}\n' "$2" "$2" "$2"
}
recording 10000 100 >"$work/before.json"
recording 10000 102 >"$work/same.json"
recording 10000 400 >"$work/after.json"
echo '{"source":"no traffic"}' >"$work/profile.json"
drift() {
	set +e
	"$work/plantstore-mock" drift "$@" >"$work/drift.out" 2>"$work/drift.err"
	echo $?
	set -e
}
drift_check() {
	if [ "$2" != "$3" ]; then
		echo "drift: FAILED: $1: got $2, want $3" >&2
		cat "$work/drift.out" "$work/drift.err" >&2
		exit 1
	fi
}
drift_check "nothing moved" "$(drift "$work/before.json" "$work/same.json")" 0
drift_check "nothing on stdout" "$(wc -c <"$work/drift.out")" 0
# two recordings of one mock setting minutes apart: latency noise, no drift
drift_check "the machine's noise" "$(drift cmd/plantstore-mock/testdata/drift-same-a.json cmd/plantstore-mock/testdata/drift-same-b.json)" 0
drift_check "503 rate ×4" "$(drift "$work/before.json" "$work/after.json")" 1
drift_check "one line" "$(grep -c '^rate of 5xx 503: 1% (100 of 10000) -> 4% (400 of 10000) (chi-square' "$work/drift.out")" 1
drift_check "no traffic" "$(drift "$work/before.json" "$work/profile.json")" 2
drift_check "one file: its summary" "$(drift "$work/before.json")" 0
drift_check "the summary's first line" "$(grep -c '^10000 attempts; 1.00 % failed, in 100 runs' "$work/drift.out")" 1
drift_check "three files" "$(drift "$work/before.json" "$work/same.json" "$work/after.json")" 2
echo "drift: passed"

# start_mock runs a mock with the API token "smoke" and sets pid and url.
start_mock() {
	rm -f "$work/out"
	mkfifo "$work/out"
	"$work/plantstore-mock" -addr 127.0.0.1:0 -token smoke >"$work/out" 2>"$work/err" &
	pid=$!
	read -r _ _ url <"$work/out"
}
stop_mock() {
	kill "$pid"
	wait "$pid" || true
	pid=
}

# h2c (issue 28): HTTP/2 with prior knowledge, on the port that serves
# HTTP/1.1. python3's standard library has no HTTP/2 client and nothing is
# installed for this: e2e_h2c.py writes the frames itself. node has http2
# built in.
start_mock
python3 scripts/e2e_h2c.py "$url" smoke
if command -v node >/dev/null; then
	node scripts/e2e_h2c.mjs "$url" smoke
else
	echo "SKIP node h2c: node is not installed"
fi
stop_mock

if ! command -v curl >/dev/null; then
	echo "SKIP curl smoke: curl is not installed"
	exit 0
fi
start_mock
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
create=(-H 'Authorization: Bearer smoke' -H 'Content-Type: application/json' -d '{"id":1,"name":"Fern"}' "$url/plants")
check() {
	if [ "$2" != "$3" ]; then
		echo "curl smoke: FAILED: $1: got $2, want $3" >&2
		cat "$work/err" >&2
		exit 1
	fi
}
check "health" "$(code "$url/__plantstore/health")" 200
# A browser's simple cross-site request, and a DNS-rebinding page's, are
# refused without changing anything; curl's default form type too.
check "a simple cross-site fault" "$(code -H 'Content-Type: text/plain' -H 'Origin: http://evil.example' -d '{"status":503}' "$url/__plantstore/faults")" 403
check "a rebinding page's reset" "$(code -X POST -H 'Host: rebind.evil.example' "$url/__plantstore/reset")" 403
check "a fault as a form" "$(code -d '{"status":503}' "$url/__plantstore/faults")" 415
check "a contradictory fault, in JSON terms" "$(curl -s -H 'Content-Type: application/json' -d '{"hang":true,"drop":true}' "$url/__plantstore/faults")" \
	'{"error":100,"message":"invalid fault: \"hang\" and \"drop\" are alternatives; set one"}'
check "no fault queued" "$(curl -s "$url/__plantstore/faults")" "[]"
check "inject a 503" "$(code -H 'Content-Type: application/json' -d '{"status":503,"headers":{"Retry-After":"1"}}' "$url/__plantstore/faults")" 201
check "create answered by the fault" "$(code "${create[@]}")" 503
check "create" "$(code "${create[@]}")" 200
check "journal" "$(curl -s "$url/__plantstore/requests" | grep -o '"status":[0-9]*' | tr '\n' ' ')" '"status":503 "status":200 '
check "reset" "$(code -X POST "$url/__plantstore/reset")" 204
# Namespaces from curl, as NAMESPACES.md shows them.
ns=$(curl -s -X POST "$url/__plantstore/namespaces")
base=$(sed -E 's/.*"base_url":"([^"]*)".*/\1/' <<<"$ns")
nstoken=$(sed -E 's/.*"token":"([^"]*)".*/\1/' <<<"$ns")
nsid=$(sed -E 's/.*"namespace":"([^"]*)".*/\1/' <<<"$ns")
nscreate=(-H "Authorization: Bearer $nstoken" -H 'Content-Type: application/json' -d '{"id":1,"name":"Fern"}')
check "a namespace's create" "$(code "${nscreate[@]}" "$base/plants")" 200
check "a namespace's create at the root, by its token: a duplicate there" "$(code "${nscreate[@]}" "$url/plants")" 400
check "the namespace holds its plant" "$(curl -s -H "Authorization: Bearer $nstoken" "$base/__plantstore/plants")" '[{"id":1,"name":"Fern"}]'
check "the default holds nothing" "$(curl -s "$url/__plantstore/plants")" "[]"
check "the list shows no token" "$(curl -s "$url/__plantstore/namespaces" | grep -c "$nstoken")" 0
check "its token ends it" "$(code -X DELETE -H "Authorization: Bearer $nstoken" "$url/__plantstore/namespaces/$nsid")" 204
check "an ended namespace" "$(code "${nscreate[@]}" "$base/plants")" 404
# The READMEs' commands use curl --json (curl 7.82 and later).
if curl --help all 2>/dev/null | grep -q -- '--json'; then
	check "a seed as the README sends it (--json)" "$(code --json '[{"id": 1, "name": "Fern"}]' "$url/__plantstore/plants")" 201
	check "a fault as the README sends it (--json)" "$(code --json '{"store": true, "drop": true}' "$url/__plantstore/faults")" 201
else
	echo "SKIP curl --json: this curl is older than 7.82"
fi
if curl -V | grep -qiw http2; then
	check "reset before h2c" "$(code -X POST "$url/__plantstore/reset")" 204
	h2=(--http2-prior-knowledge -s -o /dev/null -w '%{http_version} %{http_code}')
	check "h2c health" "$(curl "${h2[@]}" "$url/__plantstore/health")" "2 200"
	check "h2c create" "$(curl "${h2[@]}" "${create[@]}")" "2 200"
	# A drop after the store resets the stream on HTTP/2: curl says
	# INTERNAL_ERROR, and the plant is stored.
	check "inject a store and drop" "$(code -H 'Content-Type: application/json' -d '{"store":true,"drop":true}' "$url/__plantstore/faults")" 201
	check "h2c create reset after the store" "$(curl --http2-prior-knowledge -sS -o /dev/null -H 'Authorization: Bearer smoke' -H 'Content-Type: application/json' \
		-d '{"id":2,"name":"Ivy"}' "$url/plants" 2>&1 | grep -o INTERNAL_ERROR)" INTERNAL_ERROR
	check "h2c journal" "$(curl -s --http2-prior-knowledge "$url/__plantstore/requests" | grep -o '"outcome":"[a-z]*"' | tr '\n' ' ')" '"outcome":"sent" "outcome":"dropped" '
	check "both stored" "$(curl -s --http2-prior-knowledge "$url/__plantstore/plants")" '[{"id":1,"name":"Fern"},{"id":2,"name":"Ivy"}]'
	# A header block over the bound (16 KiB) ends the h2c connection
	# (net/http's HPACK decoder refuses it: COMPRESSION_ERROR), and the mock
	# goes on serving.
	check "h2c with an oversized header" "$(curl "${h2[@]}" -H "X-Padding: $(head -c 30000 /dev/zero | tr '\0' x)" "$url/__plantstore/health" || true)" "0 000"
	check "health after it" "$(code "$url/__plantstore/health")" 200
else
	echo "SKIP curl h2c: this curl has no HTTP/2 (curl -V lists no http2 feature)"
fi
echo "curl smoke: passed"
