#!/usr/bin/env python3
"""Runs the conformance kit from outside Go against plantstore-mock binaries.

Usage: conformance_check.py BINARY [BINARY...]

For each binary it starts the mock on a free loopback port (with an admin
token, so the control API is used as a real user would), runs the binary's
own `conformance` subcommand against it with -json, and reads the report as
a user outside Go does: every spec check passed, no observed answer differs
from the fake's, 25 checks or more of both tags, at most 10 creates, no
token in the output. It also checks the text report, and that a URL off
loopback is refused without -live. Then it checks that the observed answers
of every binary are identical. Standard library only; exits 0 when all
holds. image_check.py runs check_binary on the binary it extracts from the
image.
"""

import json
import os
import subprocess
import sys

TOKEN = "conformance-py-token"
ADMIN = "conformance-py-admin"
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
    return cond


def kit(exe, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANTSTORE_")}
    return subprocess.run([exe, "conformance", *args], capture_output=True, text=True, env=env, timeout=120)


def check_binary(exe, check=check):
    """Runs the kit against the mock exe serves; returns its observed answers."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANTSTORE_")}
    proc = subprocess.Popen(
        [exe, "-addr", "127.0.0.1:0", "-token", TOKEN, "-admin-token", ADMIN],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True,
    )
    try:
        line = proc.stdout.readline().strip()
        if not check(line.startswith("listening on http://127.0.0.1:"), f"{exe}: the mock serves ({line!r})"):
            return None
        url = line.removeprefix("listening on ")
        res = kit(exe, "-url", url, "-token", TOKEN, "-control-url", url + "/__plantstore", "-admin-token", ADMIN, "-json")
        check(res.returncode == 0, f"conformance -json exits 0 ({res.returncode}; stderr {res.stderr[-300:]!r})")
        try:
            rep = json.loads(res.stdout)
        except json.JSONDecodeError as e:
            check(False, f"the -json report is JSON ({e})")
            return None
        tags = {}
        for c in rep["checks"]:
            tags[c["tag"]] = tags.get(c["tag"], 0) + 1
        failed = [c["id"] for c in rep["checks"] if c["outcome"] == "fail"]
        check(rep["passed"] is True and not failed, f"every spec check passes (failed: {failed})")
        check(rep["differences"] == [], f"no observed answer differs from the fake's ({rep['differences']})")
        check(len(rep["checks"]) >= 25 and tags.get("spec", 0) > 0 and tags.get("observed", 0) > 0,
              f"25 checks or more, of both tags ({len(rep['checks'])}: {tags})")
        check(rep["control"] is True and all(c["outcome"] != "skipped" for c in rep["checks"]),
              "with the control API, no check is skipped")
        check(rep["creates"] <= rep["max_creates"] == 10, f"at most 10 creates ({rep['creates']} of {rep['max_creates']})")
        check(rep["first_id"] >= 9_000_000_000_000_000_000 and rep["name_prefix"].startswith("conformance-"),
              f"ids from 9e18 up, names with a run-unique prefix ({rep['first_id']}, {rep['name_prefix']!r})")
        check(TOKEN not in res.stdout and ADMIN not in res.stdout, "no token in the report")

        text = kit(exe, "-url", url, "-token", TOKEN)
        check(text.returncode == 0 and "0 spec failed, 0 observed differ from the fake" in text.stdout,
              f"the text report says all agree ({text.stdout.strip().splitlines()[-2:] if text.stdout else text.stderr!r})")
        live = kit(exe, "-url", "https://plants.example.com", "-token", TOKEN)
        check(live.returncode == 2 and "-live" in live.stderr and live.stdout == "",
              f"a URL off loopback is refused without -live ({live.returncode}, {live.stderr.strip()!r})")
        return {c["id"]: c.get("answer") for c in rep["checks"] if c["tag"] == "observed"}
    finally:
        proc.terminate()
        check(proc.wait(timeout=30) == 0, f"{exe}: the mock exits with status 0 on SIGTERM")


def main(binaries):
    answers = [check_binary(exe) for exe in binaries]
    if len(answers) > 1 and all(a is not None for a in answers):
        check(all(a == answers[0] for a in answers[1:]), "the observed answers of every binary are identical")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: conformance_check.py BINARY [BINARY...]")
    main(sys.argv[1:])
    print(f"conformance check: {'FAILED: ' + '; '.join(failures) if failures else 'passed'}")
    sys.exit(1 if failures else 0)
