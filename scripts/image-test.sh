#!/usr/bin/env bash
# image-test.sh proves the plantstore-mock image where no container can run:
# it builds the image with buildah (scripts/image.sh, vfs storage in a
# temporary directory), exports it as an OCI archive, and checks the archive
# with scripts/image_check.py: config, layer, and the extracted binary
# serving a create.
#
# It installs nothing. Without buildah it says how to install it, prints a
# SKIP line and exits 0; set IMAGE_TEST_REQUIRED=1 to fail instead. .ci/run
# installs buildah first when CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() {
	if [ "${IMAGE_TEST_REQUIRED:-0}" = 1 ]; then
		echo "image test: FAILED: $*" >&2
		exit 1
	fi
	echo "SKIP image test: $*"
	exit 0
}

if ! command -v buildah >/dev/null; then
	skip "buildah is not installed; install it (Debian/Ubuntu: sudo apt-get install buildah; Fedora: sudo dnf install buildah) and run again"
fi
command -v python3 >/dev/null || skip "python3 is not installed"

work=$(mktemp -d)
trap 'buildah --storage-driver vfs --root "$work/root" --runroot "$work/run" rm -a >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
IMAGE_TOOL=buildah BUILDAH_FLAGS="--storage-driver vfs --root $work/root --runroot $work/run" \
	scripts/image.sh -t plantstore-mock:test -o "$work/image.tar"
python3 scripts/image_check.py "$work/image.tar"
