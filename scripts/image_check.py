#!/usr/bin/env python3
"""Checks a plantstore-mock OCI image archive without running a container.

Usage: image_check.py IMAGE.tar

It reads the archive's index, manifest and config with the standard library
only, and checks what Containerfile promises: a non-root user (65532:65532),
port 8080, an entrypoint that listens on 0.0.0.0:8080, one layer holding a
static binary and the repository's LICENSE, unchanged. Then it extracts the
binary, runs it with the image's entrypoint (plus -addr 127.0.0.1:0, since
the port may be taken here), serves a create and a health probe with it,
and runs the conformance kit against it (conformance_check.py: every spec
check passes, and the observed answers are the fake's). Exits 0 when all
holds.
"""

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import urllib.request

sys.dont_write_bytecode = True  # leave no scripts/__pycache__ in the work tree
from conformance_check import check, check_binary, clean_env, failures  # noqa: E402


def blob(archive, digest):
    algo, hexdigest = digest.split(":", 1)
    return archive.extractfile(f"blobs/{algo}/{hexdigest}").read()


def is_static_elf(data):
    """Reports whether data is an ELF executable with no program interpreter."""
    if data[:4] != b"\x7fELF" or data[4] != 2:  # 64-bit only
        return False
    little = data[5] == 1
    order = "little" if little else "big"
    phoff = int.from_bytes(data[0x20:0x28], order)
    phentsize = int.from_bytes(data[0x36:0x38], order)
    phnum = int.from_bytes(data[0x38:0x3A], order)
    for i in range(phnum):
        off = phoff + i * phentsize
        if int.from_bytes(data[off : off + 4], order) == 3:  # PT_INTERP
            return False
    return True


def main(path):
    with tarfile.open(path) as archive:
        index = json.loads(archive.extractfile("index.json").read())
        manifest = json.loads(blob(archive, index["manifests"][0]["digest"]))
        config = json.loads(blob(archive, manifest["config"]["digest"]))
        layers = [blob(archive, layer["digest"]) for layer in manifest["layers"]]
    cfg = config.get("config", {})
    entrypoint = cfg.get("Entrypoint") or []
    check(cfg.get("User") == "65532:65532", f"runs as 65532:65532 (User {cfg.get('User')!r})")
    check("8080/tcp" in (cfg.get("ExposedPorts") or {}), "exposes 8080/tcp")
    check(entrypoint == ["/plantstore-mock", "-addr", "0.0.0.0:8080"], f"entrypoint listens on 0.0.0.0:8080 ({entrypoint})")
    check(len(layers) == 1, f"one layer ({len(layers)})")

    binary = None
    licence = None
    files = []
    for layer in layers:
        with tarfile.open(fileobj=io.BytesIO(layer)) as t:
            for m in t.getmembers():
                files.append(m.name)
                name = m.name.lstrip("./")
                if name == "plantstore-mock":
                    binary = t.extractfile(m).read()
                elif name == "LICENSE":
                    licence = t.extractfile(m).read()
    check(sorted(f.lstrip("./") for f in files) == ["LICENSE", "plantstore-mock"],
          f"the layer holds the binary and LICENSE, nothing else ({files})")
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "LICENSE"), "rb") as f:
        check(licence == f.read(), "/LICENSE is the repository's LICENSE (Apache-2.0)")
    if not check(binary is not None, "the layer holds /plantstore-mock"):
        return
    check(is_static_elf(binary), "the binary is a static ELF executable (no program interpreter)")
    print(f"     image: {sum(len(l) for l in layers) / 2**20:.1f} MiB of layers, binary {len(binary) / 2**20:.1f} MiB")

    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "plantstore-mock")
        with open(exe, "wb") as f:
            f.write(binary)
        os.chmod(exe, 0o755)
        env = clean_env()
        proc = subprocess.Popen(
            [exe] + entrypoint[1:] + ["-addr", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
        )
        try:
            line = proc.stdout.readline().strip()
            if not check(line.startswith("listening on http://127.0.0.1:"), f"the extracted binary serves ({line!r})"):
                return
            url = line.removeprefix("listening on ")
            req = urllib.request.Request(
                url + "/plants",
                data=json.dumps({"id": 1, "name": "Monstera"}).encode(),
                headers={"Authorization": "Bearer plantstoretest-token", "Content-Type": "application/json"},
            )
            with urllib.request.urlopen(req, timeout=10) as resp:
                check(resp.status == 200 and json.load(resp) == {"name": "Monstera"}, "it serves a create: 200 {\"name\": \"Monstera\"}")
            with urllib.request.urlopen(url + "/__plantstore/health", timeout=10) as resp:
                check(resp.status == 200, "it answers the health probe")
            # The compose healthcheck: the image has no curl, so the binary
            # checks itself.
            hc = subprocess.run([exe, "-healthcheck", "-addr", url.removeprefix("http://")], env=env, timeout=10)
            check(hc.returncode == 0, "-healthcheck exits 0 while it serves")
        finally:
            proc.terminate()
            check(proc.wait(timeout=30) == 0, "it exits with status 0 on SIGTERM")
        # The conformance kit, from the image's own binary against itself.
        check_binary(exe)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: image_check.py IMAGE.tar")
    main(sys.argv[1])
    print(f"image check: {'FAILED: ' + '; '.join(failures) if failures else 'passed'}")
    sys.exit(1 if failures else 0)
