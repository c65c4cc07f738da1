#!/usr/bin/env bash
# image.sh builds the plantstore-mock container image from Containerfile:
# first the static binary (CGO_ENABLED=0, go build), then the image FROM
# scratch around it, with docker, podman or buildah. No base image is
# pulled.
#
# Usage: scripts/image.sh [-t TAG] [-o FILE]
#
#   -t TAG   the image's name (default plantstore-mock:dev)
#   -o FILE  also write the image to FILE as an OCI archive (podman and
#            buildah only)
#
# The tool is $IMAGE_TOOL when set, else the first of docker (when its
# daemon answers), podman and buildah found. BUILDAH_FLAGS are global flags
# for buildah, such as "--storage-driver vfs" where overlay mounts are not
# allowed.
set -euo pipefail
cd "$(dirname "$0")/.."

tag=plantstore-mock:dev
archive=
while getopts 't:o:' opt; do
	case $opt in
	t) tag=$OPTARG ;;
	o) archive=$OPTARG ;;
	*)
		echo "usage: $0 [-t TAG] [-o FILE]" >&2
		exit 2
		;;
	esac
done

tool=${IMAGE_TOOL:-}
if [ -z "$tool" ]; then
	if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
		tool=docker
	elif command -v podman >/dev/null; then
		tool=podman
	elif command -v buildah >/dev/null; then
		tool=buildah
	else
		echo "image.sh: no docker (with a daemon), podman or buildah found" >&2
		exit 1
	fi
fi
if [ -n "$archive" ] && [ "$tool" = docker ]; then
	echo "image.sh: -o needs podman or buildah (docker save writes its own format)" >&2
	exit 2
fi

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$context/plantstore-mock" ./cmd/plantstore-mock
cp Containerfile LICENSE "$context/"

# shellcheck disable=SC2086 # BUILDAH_FLAGS is a list of flags
case $tool in
docker) docker build -q -f "$context/Containerfile" -t "$tag" "$context" ;;
podman) podman build -q -f "$context/Containerfile" -t "$tag" "$context" ;;
buildah) buildah ${BUILDAH_FLAGS:-} build -q -f "$context/Containerfile" -t "$tag" "$context" ;;
*)
	echo "image.sh: IMAGE_TOOL=$tool: want docker, podman or buildah" >&2
	exit 2
	;;
esac
if [ -n "$archive" ]; then
	case $tool in
	podman) podman save --format oci-archive -o "$archive" "$tag" ;;
	buildah) buildah ${BUILDAH_FLAGS:-} push -q "$tag" "oci-archive:$archive:$tag" ;;
	esac
	echo "image.sh: $tag built with $tool, written to $archive"
else
	echo "image.sh: $tag built with $tool"
fi
