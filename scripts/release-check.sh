#!/usr/bin/env bash
# release-check.sh proves a release before anyone tags it. It takes the
# version from CHANGELOG.md's newest released heading, read by
# scripts/changelog-version.sh (which a test holds equal to the version the
# client reports; a heading it cannot read, such as "## [0.3.0]" with no
# date, is an error naming the line), then:
#
#  1. builds a Go module proxy in a temporary directory holding the root
#     module and otel/ at that version, zipped as the go command zips them
#     (internal/tools/releasecheck, with golang.org/x/mod), and checks each
#     zip: the go command's own rules, a LICENSE, no file of a nested module
#     (otel/, bench/, contract/, wiretest/,
#     internal/tools/releasecheck/), and otel/
#     requiring the root at the same version;
#  2. in a fresh consumer module (go 1.23) with GOPROXY set to file://
#     proxies only (that one, and the module cache's download directory for
#     third-party modules), GOSUMDB=off and a module cache of its own, runs
#     go get of both modules at the version (the root's as README.md's
#     first command says it, which must name this version), builds and
#     runs a program that makes a call through the otel hooks (the
#     User-Agent must report the version, and the go line must stay 1.23),
#     and go installs
#     cmd/plantstore-mock@version into a temporary GOBIN, whose -version
#     must print the version.
#
# Nothing reaches the network after the first step's module download (the
# module cache is warmed through your usual GOPROXY, as any build would),
# and nothing is left in your module cache: a version that is not tagged
# yet must never be cached as if it were.
#
# Usage: scripts/release-check.sh
#
# In a git checkout with no uncommitted changes to tracked files, the
# modules are zipped from HEAD (git archive, as the go command fetches a
# tag); otherwise from the working directory, which it says. Needs Go and
# git.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
start=$SECONDS

# A heading it cannot read stops the check here, naming the line: never the
# release below it.
version=v$(scripts/changelog-version.sh CHANGELOG.md)
root=$(go list -m -f '{{.Path}}')
echo "release-check: $root and $root/otel at $version"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rev=()
if git rev-parse --verify -q HEAD >/dev/null 2>&1 && git diff --quiet HEAD -- 2>/dev/null; then
	rev=(-rev HEAD)
else
	echo "release-check: uncommitted changes (or no git): zipping the working directory, not HEAD"
fi
(cd internal/tools/releasecheck && go run . -repo "$repo" -version "$version" -out "$tmp/proxy" ${rev[@]+"${rev[@]}"})

# Third-party modules come from the module cache's download directory,
# which is in proxy layout: download what the two modules need into it
# first (a no-op when warm; on a fresh machine, through the usual GOPROXY).
go mod download
(cd otel && go mod download)
download=$(go env GOMODCACHE)/cache/download

consumer=$tmp/consumer
mkdir -p "$consumer" "$tmp/bin"
cat >"$consumer/go.mod" <<'EOF'
module example.com/consumer

go 1.23
EOF
cat >"$consumer/main.go" <<'EOF'
// Command consumer calls a test server through a plantstore client traced
// by plantstoreotel, and prints the User-Agent the server received.
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/plantstore/plantstore-go"
	plantstoreotel "github.com/plantstore/plantstore-go/otel"
)

func main() {
	agent := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agent <- r.Header.Get("User-Agent")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"Monstera"}`)
	}))
	defer srv.Close()
	hooks, err := plantstoreotel.NewHooks()
	if err != nil {
		log.Fatal(err)
	}
	client, err := plantstore.NewClient(srv.URL, plantstore.WithToken("release-check-token"), plantstore.WithHooks(hooks))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Monstera"}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(<-agent)
}
EOF

# The consumer's environment: file:// proxies and nothing else, no checksum
# database (the versions are not public), a module cache of its own
# (writable, so that it can be removed), no workspace, this Go only.
# -trimpath keeps build cache keys free of the temporary paths, so a warm
# run compiles nothing.
consumer_env=(
	GOPROXY="file://$tmp/proxy,file://$download"
	GOSUMDB=off GONOSUMDB= GOPRIVATE= GONOPROXY= GOINSECURE=
	GOFLAGS="-mod=mod -modcacherw -trimpath"
	GOMODCACHE="$tmp/modcache" GOWORK=off GOTOOLCHAIN=local
	GOBIN="$tmp/bin"
)
# The README's first command, which fails until the tag is published, is
# this one: what the consumer runs below proves it as written.
readme_get=$(grep -m 1 "^go get $root@" "$repo/README.md" || true)
if [ "$readme_get" != "go get $root@$version" ]; then
	echo "release-check: FAILED: README.md's first go get is '$readme_get', want 'go get $root@$version'" >&2
	exit 1
fi
cd "$consumer"
env "${consumer_env[@]}" go get "$root@$version"
echo "release-check: README.md's command works: $readme_get"
env "${consumer_env[@]}" go get "$root/otel@$version"
env "${consumer_env[@]}" go build -o "$tmp/consumer-bin" .
got=$("$tmp/consumer-bin")
want="plantstore-go/${version#v}"
echo "release-check: the consumer's call sent User-Agent: $got"
if [ "$got" != "$want" ]; then
	echo "release-check: FAILED: want User-Agent $want: the version constant and CHANGELOG.md disagree" >&2
	exit 1
fi
golang=$(env "${consumer_env[@]}" go mod edit -json | sed -nE 's/^[[:space:]]*"Go": "([^"]*)".*/\1/p')
case $golang in
1.23 | 1.23.*) echo "release-check: the consumer's go line is still $golang" ;;
*)
	echo "release-check: FAILED: getting the modules moved the consumer's go line from 1.23 to $golang" >&2
	exit 1
	;;
esac

env "${consumer_env[@]}" go install "$root/cmd/plantstore-mock@$version"
got=$("$tmp/bin/plantstore-mock" -version)
echo "release-check: go install $root/cmd/plantstore-mock@$version; plantstore-mock -version prints $got"
if [ "$got" != "$version" ]; then
	echo "release-check: FAILED: want $version" >&2
	exit 1
fi
echo "release-check: passed, in $((SECONDS - start))s"
