#!/usr/bin/env bash
# ns_job_curl.sh MOCK_URL N: one isolation job of plantstore-mock's
# namespaces (issue 23) in curl, as a shell test would run it: create a
# namespace, then N rounds of seed, queue a fault, create (answered by the
# fault), create, read the journal and the plants, reset, one curl process
# a round; then end the namespace. Exits 1 at the first thing outside its
# namespace. Used by cmd/plantstore-mock's TestNamespaceIsolationBattery.
set -euo pipefail
url=$1 rounds=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ns=$(curl -sf -X POST "$url/__plantstore/namespaces")
field() { sed -E 's/.*"'"$1"'":"([^"]*)".*/\1/' <<<"$ns"; }
id=$(field namespace) token=$(field token) base=$(field base_url)
# Options do not carry past --next: each request names its own.
auth=(-w '%{http_code} ' -H "Authorization: Bearer $token")
json=(-H 'Content-Type: application/json')
fail() {
	echo "curl job $id round $i: $*" >&2
	exit 1
}
for ((i = 0; i < rounds; i++)); do
	plant="{\"id\":$i,\"name\":\"p$i\"}"
	codes=$(curl -s \
		-o "$work/seed" "${auth[@]}" "${json[@]}" -d "[{\"id\":$((100000 + i)),\"name\":\"seed\"}]" "$base/__plantstore/plants" --next \
		-o "$work/fault" "${auth[@]}" "${json[@]}" -d "{\"status\":503,\"match\":{\"id\":$i}}" "$base/__plantstore/faults" --next \
		-o "$work/c1" "${auth[@]}" "${json[@]}" -d "$plant" "$base/plants" --next \
		-o "$work/c2" "${auth[@]}" "${json[@]}" -d "$plant" "$base/plants" --next \
		-o "$work/journal" "${auth[@]}" "$base/__plantstore/requests" --next \
		-o "$work/plants" "${auth[@]}" "$base/__plantstore/plants" --next \
		-o "$work/faults" "${auth[@]}" "$base/__plantstore/faults" --next \
		-o /dev/null "${auth[@]}" -X POST "$base/__plantstore/reset")
	[ "$codes" = "201 201 503 200 200 200 200 204 " ] || fail "statuses $codes"
	statuses=$(grep -o '"status":[0-9]*' "$work/journal" | tr '\n' ' ')
	[ "$statuses" = '"status":503 "status":200 ' ] || fail "journal statuses $statuses"
	[ "$(grep -o '"seq"' "$work/journal" | wc -l)" -eq 2 ] || fail "journal: $(cat "$work/journal")"
	want="[{\"id\":$((100000 + i)),\"name\":\"seed\"},{\"id\":$i,\"name\":\"p$i\"}]"
	[ "$(cat "$work/plants")" = "$want" ] || fail "plants $(cat "$work/plants")"
	[ "$(cat "$work/faults")" = "[]" ] || fail "faults $(cat "$work/faults")"
done
[ "$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$url/__plantstore/namespaces/$id")" = 204 ] || fail "DELETE"
