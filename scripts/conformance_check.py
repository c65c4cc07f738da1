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
of every binary are identical. And it calibrates the first binary's mock to
a stand-in deployment (a python3 server that refuses a repeated id and
credentials otherwise than the fake, and echoes the token): -profile-out,
then -profile, then the same answers to the calibrated checks; and
against stand-ins whose answer to a repeated id has no message or no Error,
the pair the report prints. And it runs the first binary's kit against a target that sends characters that
drive a terminal: neither report holds one. Standard library only; exits 0 when all
holds. image_check.py runs check_binary on the binary it extracts from the
image.
"""

import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading

TOKEN = "conformance-py-token"
ADMIN = "conformance-py-admin"
# The forms the stand-in deployment echoes the token in: as written,
# percent-encoded and HTML-escaped, every character.
TOKEN_FORMS = [TOKEN, "".join("%%%02X" % ord(c) for c in TOKEN), "".join("&#%d;" % ord(c) for c in TOKEN)]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
    return cond


def clean_env():
    """The environment without PLANTSTORE_ variables, so that the user's
    settings change neither the mock nor the kit."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PLANTSTORE_")}


def kit(exe, *args):
    return subprocess.run([exe, "conformance", *args], capture_output=True, text=True, env=clean_env(), timeout=120)


def check_binary(exe):
    """Runs the kit against the mock exe serves; returns its observed answers."""
    env = clean_env()
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


class StandIn(http.server.BaseHTTPRequestHandler):
    """A stand-in for a real deployment that answers where the specification
    is silent otherwise than the fake: 409 and code 1009 for a repeated id,
    403 for another scheme, its own 401 body; and echoes the token, as
    written and escaped (TOKEN_FORMS)."""

    protocol_version = "HTTP/1.1"
    ids = set()
    lock = threading.Lock()

    def log_message(self, *args):
        pass

    def reply(self, status, obj, headers=()):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply(404, {"error": 404, "message": "not found"})

    def repeat(self, plant_id):
        self.reply(409, {"error": 1009, "message": "id %d is taken (%s)" % (plant_id, " ".join(TOKEN_FORMS))})

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        auth = self.headers.get("Authorization")
        if self.path != "/plants":
            return self.reply(404, {"error": 404, "message": "not found"})
        if auth is None or auth == "Bearer " or (auth.startswith("Bearer ") and auth != "Bearer " + TOKEN):
            return self.reply(401, {"error": 401, "message": "unauthorized"}, [("WWW-Authenticate", "Bearer")])
        if auth != "Bearer " + TOKEN:
            return self.reply(403, {"error": 403, "message": "forbidden: " + auth})
        try:
            p = json.loads(body)
        except ValueError:
            return self.reply(400, {"error": 100, "message": "invalid json"})
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or type(p.get("id")) is not int \
                or not -2**63 <= p["id"] < 2**63:
            return self.reply(400, {"error": 101, "message": "invalid plant"})
        with self.lock:
            if p["id"] in self.ids:
                return self.repeat(p["id"])
            self.ids.add(p["id"])
        out = {"name": p["name"]}
        if isinstance(p.get("tag"), str):
            out["tag"] = p["tag"]
        self.reply(200, out)


def check_calibration(exe, workdir):
    """Calibrates the mock to the stand-in deployment, as the README says, and
    checks that the kit then sees the calibrated answers there too."""
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    srv.handle_error = lambda *args: None  # a client that closes after a refused 1 MiB body
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    profile = os.path.join(workdir, "deploy.json")
    try:
        url = "http://127.0.0.1:%d" % srv.server_address[1]
        res = kit(exe, "-url", url, "-token", TOKEN, "-json", "-profile-out", profile)
        check(res.returncode == 0, f"conformance against the stand-in deployment exits 0 ({res.returncode}; {res.stderr[-300:]!r})")
        target = json.loads(res.stdout)
        stored = len(StandIn.ids)
        text = kit(exe, "-url", url, "-token", TOKEN)
    finally:
        srv.shutdown()
        srv.server_close()
    check(not any(f in res.stdout or f in text.stdout for f in TOKEN_FORMS),
          "neither report shows the token the stand-in echoed, as written, percent-encoded or HTML-escaped")
    check(stored <= 10 and all(i >= 9_000_000_000_000_000_000 for i in StandIn.ids),
          f"the stand-in stored at most 10 plants, all with ids from 9e18 up ({stored})")
    calibrated = {c["id"]: c.get("answer") for c in target["checks"] if c.get("calibrated")}
    check(sorted(calibrated) == ["auth-missing", "auth-wrong-scheme", "auth-wrong-token", "duplicate-id"],
          f"the calibrated checks are the repeated id and the three refused credentials ({sorted(calibrated)})")
    check(set(calibrated) <= set(target["differences"]), "each of them differed from the fake")
    with open(profile) as f:
        text = f.read()
    check(not any(f in text for f in TOKEN_FORMS) and "REDACTED" in text,
          "the profile holds REDACTED, not the token the stand-in echoed")
    check(json.loads(text)["duplicate_id"]["status"] == 409, "the profile's repeated id is the stand-in's 409")

    env = clean_env()
    proc = subprocess.Popen([exe, "-addr", "127.0.0.1:0", "-token", TOKEN, "-profile", profile],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    try:
        url = proc.stdout.readline().strip().removeprefix("listening on ")
        res = kit(exe, "-url", url, "-token", TOKEN, "-json")
        again = {c["id"]: c.get("answer") for c in json.loads(res.stdout)["checks"]}
        check(all(again[k] == v for k, v in calibrated.items()),
              "the mock started with -profile gives the stand-in's answers to the calibrated checks")
        text = kit(exe, "-url", url, "-token", TOKEN)
        check("repeated id: status 409, error code 1009 (plantstore.WithAlreadyExists(409, 1009))" in text.stdout,
              "the text report of the calibrated mock gives the stand-in's duplicate code")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


class Hostile(http.server.BaseHTTPRequestHandler):
    """A target that tries to drive the terminal of the kit's user: it
    answers every request 400 with an erase, a window title ended by BEL, a
    carriage return and a line that reads as a pass, a C1 CSI and DEL in its
    body, and a C1 CSI (a byte 0x9b) in WWW-Authenticate."""

    protocol_version = "HTTP/1.1"
    BODY = b"\x1b[2J\x1b]0;owned\x07\r\nPASS     spec     FORGED\r\xc2\x9b2J\x7f"

    def log_message(self, *args):
        pass

    def answer(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("WWW-Authenticate", "Bearer \x9b2J")
        self.send_header("Content-Length", str(len(self.BODY)))
        self.end_headers()
        self.wfile.write(self.BODY)

    do_GET = do_POST = answer


def check_terminal(exe):
    """Runs the kit against the Hostile target: its text and -json reports
    hold no character that drives a terminal (newlines aside), and no line
    of the target's own."""
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    srv.handle_error = lambda *args: None
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = "http://127.0.0.1:%d" % srv.server_address[1]
        for args in ([], ["-json"]):
            res = subprocess.run([exe, "conformance", "-url", url, "-token", TOKEN, *args],
                                 capture_output=True, env=clean_env(), timeout=120)
            out = res.stdout.decode("utf-8", errors="surrogateescape")
            bad = [c for c in out if c != "\n" and not c.isprintable()]
            forged = [l for l in out.split("\n") if l.startswith("PASS") and "FORGED" in l]
            check(res.returncode == 1 and not bad and not forged,
                  f"conformance{''.join(' ' + a for a in args)} against a target that sends control characters: exit 1 ({res.returncode}), "
                  f"none in the report ({bad[:5]!r}), no line of its own ({forged[:1]!r})")
    finally:
        srv.shutdown()
        srv.server_close()


def check_repeat_answers(exe):
    """Runs the kit against stand-ins that answer a repeated id without an
    Error's message, or with no Error at all: the text report's last line
    gives the pair plantstore.WithAlreadyExists matches (the client, the
    kit and the profile read an answer one way)."""
    for content_type, body, pair in [("application/json", b'{"error":1009}', "(409, 1009)"),
                                     ("application/json", b'{"error":1009,"message":null}', "(409, 1009)"),
                                     ("text/html", b"<h1>taken</h1>", "(409, 0)"),
                                     ("text/plain", b"", "(409, 0)")]:
        class Repeat(StandIn):
            ids = set()

            def repeat(self, plant_id):
                self.send_response(409)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Repeat)
        srv.handle_error = lambda *args: None
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        try:
            res = kit(exe, "-url", "http://127.0.0.1:%d" % srv.server_address[1], "-token", TOKEN)
        finally:
            srv.shutdown()
            srv.server_close()
        want = "(plantstore.WithAlreadyExists%s)" % pair
        last = res.stdout.rstrip("\n").rsplit("\n", 1)[-1]
        check(last.endswith(want), f"a repeated id answered {body!r}: the report's last line ends {want} ({last!r})")


def main(binaries):
    with tempfile.TemporaryDirectory() as workdir:
        check_calibration(binaries[0], workdir)
    check_repeat_answers(binaries[0])
    check_terminal(binaries[0])
    answers = [check_binary(exe) for exe in binaries]
    if len(answers) > 1 and all(a is not None for a in answers):
        check(all(a == answers[0] for a in answers[1:]), "the observed answers of every binary are identical")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: conformance_check.py BINARY [BINARY...]")
    main(sys.argv[1:])
    print(f"conformance check: {'FAILED: ' + '; '.join(failures) if failures else 'passed'}")
    sys.exit(1 if failures else 0)
