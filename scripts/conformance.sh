#!/usr/bin/env bash
# conformance.sh runs the conformance kit from outside Go, as a user without
# Go would (plantstore-mock conformance -json, read by python3), against two
# builds of plantstore-mock: a plain go build, and the binary built as
# scripts/image.sh builds the image's (static, trimmed). Every spec check
# must pass on each, and their observed answers must be identical and the
# fake's. It also calibrates the mock to a python3 stand-in for a real
# deployment (-profile-out, then -profile) and checks the round trip.
# scripts/image-test.sh runs the same check on the binary it
# extracts from the image itself. Installs nothing: it needs Go and python3.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v python3 >/dev/null; then
	echo "conformance.sh: python3 is needed (apt-get install python3)" >&2
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/plain/plantstore-mock" ./cmd/plantstore-mock
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$work/image/plantstore-mock" ./cmd/plantstore-mock
python3 scripts/conformance_check.py "$work/plain/plantstore-mock" "$work/image/plantstore-mock"
