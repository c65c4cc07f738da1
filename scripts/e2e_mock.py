#!/usr/bin/env python3
"""End-to-end test of plantstore-mock, the way a non-Go consumer uses it.

Usage: e2e_mock.py PATH_TO_PLANTSTORE_MOCK

Python 3.9+ with the standard library only. Each test_* function starts the
binary as its own process, talks to it over HTTP with urllib, and stops it
with SIGTERM. The last line is "e2e: N passed, M failed"; the exit status is
0 only when nothing failed.
"""

import hashlib
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
import urllib.error
import urllib.request

# The checks are assert statements, which -O (or PYTHONOPTIMIZE) drops: this
# script, and any that imports it, refuses to run without them.
if not __debug__:
    sys.exit(f"{os.path.basename(sys.argv[0])}: its checks are assert statements, which -O (or PYTHONOPTIMIZE) drops; run it without")

API_TOKEN = "e2e-api-token"
ADMIN_TOKEN = "e2e-admin-token"
EXE = None


class Mock:
    """A running plantstore-mock: started on enter, stopped on exit."""

    def __init__(self, *args, addr="127.0.0.1:0"):
        self.args = ["-addr", addr, "-token", API_TOKEN] + list(args)

    def __enter__(self):
        self.stderr = tempfile.TemporaryFile(mode="w+")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLANTSTORE_")}
        self.proc = subprocess.Popen([EXE] + self.args, stdout=subprocess.PIPE, stderr=self.stderr, env=env, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on http://"):
            self.__exit__(None, None, None)
            raise AssertionError(f"first stdout line {line!r}, want 'listening on http://...'; stderr:\n{self.log()}")
        self.url = line.removeprefix("listening on ")
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        status = self.proc.wait(timeout=30)
        self.proc.stdout.close()
        if exc[0] is None and status != 0:
            raise AssertionError(f"plantstore-mock exited with {status} after SIGTERM; stderr:\n{self.log()}")

    def log(self):
        self.stderr.seek(0)
        return self.stderr.read()

    def call(self, method, path, body=None, token=None, headers=None):
        """Sends a request; returns (status, headers, parsed JSON body or text or None)."""
        data = None
        hdrs = dict(headers or {})
        if body is not None:
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        if token is not None:
            hdrs["Authorization"] = "Bearer " + token
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=hdrs)
        try:
            resp = urllib.request.urlopen(req, timeout=10)
        except urllib.error.HTTPError as e:
            resp = e
        with resp:
            raw = resp.read()
            ctype = resp.headers.get("Content-Type", "")
            parsed = json.loads(raw) if raw and ctype.startswith("application/json") else (raw.decode() or None)
            return resp.status, resp.headers, parsed

    def create(self, plant, token=API_TOKEN, headers=None):
        return self.call("POST", "/plants", plant, token=token, headers=headers)


def expect(got, want, what):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def expect_no_answer(m, plant, what):
    """Creates plant on m and expects no answer: the connection dropped."""
    try:
        status, _, _ = m.create(plant)
    except (urllib.error.URLError, ConnectionError, http.client.HTTPException):
        return
    raise AssertionError(f"{what} was answered {status}")


def test_health_probe_needs_no_credentials():
    with Mock("-admin-token", ADMIN_TOKEN) as m:
        status, _, body = m.call("GET", "/__plantstore/health")
        expect((status, body), (200, {"status": "ok"}), "GET /__plantstore/health")


def test_seed_then_create_in_arrival_order():
    with Mock() as m:
        status, _, body = m.call("POST", "/__plantstore/plants", [{"id": 1, "name": "Fern"}, {"id": 2, "name": "Ivy", "tag": "climber"}])
        expect((status, body), (201, {"added": 2}), "seed")
        status, _, body = m.create({"id": 3, "name": "Monstera", "tag": "indoor"})
        expect((status, body), (200, {"name": "Monstera", "tag": "indoor"}), "create")
        status, _, body = m.create({"id": 1, "name": "Fern again"})
        expect(status, 400, "create with a seeded id")
        _, _, plants = m.call("GET", "/__plantstore/plants")
        expect([p["id"] for p in plants], [1, 2, 3], "GET /__plantstore/plants ids")


def test_bad_seed_names_the_entry_and_stores_nothing():
    with Mock() as m:
        status, _, body = m.call("POST", "/__plantstore/plants", [{"id": 1, "name": "Fern"}, {"id": 2, "name": ""}])
        expect(status, 400, "seed with an empty name")
        assert "plant 1" in body["message"], body
        _, _, plants = m.call("GET", "/__plantstore/plants")
        expect(plants, [], "plants after a refused seed")


def test_seed_offsets_count_in_the_document():
    """A repeated field name and a syntax error at the same byte of a seed
    are reported at the same offset, counted from the document's start."""
    prefix = '[{"id": 1, "name": "Fern"}, {"id": 2, "name": "Ivy", '
    with Mock() as m:
        for what, rest in [("repeated field", '"name": "Ivy"}]'), ("syntax error", '7: "Ivy"}]')]:
            status, _, body = m.call("POST", "/__plantstore/plants", prefix + rest)
            expect(status, 400, f"seed with a {what}")
            assert body["message"].endswith(f"(at byte {len(prefix)})"), (what, body)


def test_seed_file_at_start():
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump([{"id": 10, "name": "Aloe"}], f)
    try:
        with Mock("-seed", f.name) as m:
            _, _, plants = m.call("GET", "/__plantstore/plants")
            expect(plants, [{"id": 10, "name": "Aloe"}], "plants seeded by -seed")
        with open(f.name, "w") as bad:
            json.dump([{"id": 10, "name": "Aloe"}, {"id": 10, "name": "Aloe twin"}], bad)
        proc = subprocess.run([EXE, "-addr", "127.0.0.1:0", "-seed", f.name], capture_output=True, text=True, timeout=30)
        expect(proc.returncode, 2, "exit status with a bad -seed file")
        assert "entry 1" in proc.stderr and proc.stdout == "", (proc.stdout, proc.stderr)
    finally:
        os.unlink(f.name)


def test_injected_503_is_served_and_journaled():
    with Mock() as m:
        status, _, fault = m.call("POST", "/__plantstore/faults", {"status": 503, "headers": {"Retry-After": "2"}})
        expect(status, 201, "POST /__plantstore/faults")
        _, _, pending = m.call("GET", "/__plantstore/faults")
        expect([(f["id"], f["status"], f["left"]) for f in pending], [(fault["id"], 503, 1)], "pending faults")

        status, headers, body = m.create({"id": 1, "name": "Fern"}, headers={"X-Request-Id": "req-1", "X-Retry-Count": "0"})
        expect((status, headers.get("Retry-After")), (503, "2"), "create answered by the fault")
        status, _, _ = m.create({"id": 1, "name": "Fern"}, headers={"X-Request-Id": "req-1", "X-Retry-Count": "1"})
        expect(status, 200, "the retry, after the fault is used up")

        _, _, journal = m.call("GET", "/__plantstore/requests")
        expect([(e["status"], e["outcome"], e["request_id"], e["retry_count"]) for e in journal],
               [(503, "sent", "req-1", 0), (200, "sent", "req-1", 1)], "journal (status, outcome, request_id, retry_count)")
        expect(journal[0]["fault"], f"inject#{fault['id']} {journal[0]['seq']}:503 retry-after=2", "fault of the first entry")
        expect(journal[1]["fault"], None, "fault of the second entry")
        expect(journal[0]["headers"]["Authorization"], ["Bearer REDACTED"], "journaled Authorization")
        assert API_TOKEN not in json.dumps(journal), "the journal holds the token"
        _, _, since = m.call("GET", f"/__plantstore/requests?since={journal[0]['seq']}")
        expect([e["seq"] for e in since], [journal[1]["seq"]], "?since= the first seq")
        _, _, pending = m.call("GET", "/__plantstore/faults")
        expect(pending, [], "pending faults once used")

        # A repeat of the stored id: the journal names the create that stored it.
        status, _, _ = m.create({"id": 1, "name": "Ivy"})
        expect(status, 400, "a repeated id")
        _, _, journal = m.call("GET", "/__plantstore/requests")
        expect([e["duplicate"] for e in journal], [None, None, {"stored_by": journal[1]["seq"], "same": False}],
               "journal duplicate: the repeat names the create that stored the id, another plant")


def test_schedule_replays_what_explore_found():
    # The line a Go exploration hands over, replayed from python: first by
    # the flag, then through the control API, counting from the next request.
    with Mock("-schedule", "1:503") as m:
        assert 'msg="-schedule in force" schedule=1:503' in m.log(), m.log()
        expect(m.call("GET", "/__plantstore/schedule")[::2], (200, {"schedule": "1:503"}), "GET /__plantstore/schedule")
        status, headers, _ = m.create({"id": 1, "name": "Fern"})
        expect((status, headers.get("Retry-After")), (503, "1"), "request 1 under -schedule 1:503")
        status, _, _ = m.call("PUT", "/__plantstore/schedule", {"schedule": "1:store-drop,2:503"})
        expect(status, 204, "PUT /__plantstore/schedule")
        expect_no_answer(m, {"id": 2, "name": "Ivy"}, "the scheduled store-drop")  # stored, then dropped
        status, _, _ = m.create({"id": 2, "name": "Ivy"})
        expect(status, 503, "the next request, scheduled 503")
        status, _, body = m.create({"id": 2, "name": "Ivy"})
        expect((status, body["error"]), (400, 5), "the repeat after the schedule: the id is stored")
        _, _, journal = m.call("GET", "/__plantstore/requests")
        expect([(e["fault"], e["duplicate"]) for e in journal],
               [("schedule 1:503", None), ("schedule 2:store-drop", None), ("schedule 3:503", None),
                (None, {"stored_by": journal[1]["seq"], "same": True})], "journal (fault, duplicate)")
        status, _, err = m.call("PUT", "/__plantstore/schedule", {"schedule": "1:explode"})
        expect((status, '"explode" is no kind' in err["message"]), (400, True), "a kind that does not exist")
        expect(m.call("GET", "/__plantstore/schedule")[::2], (200, {"schedule": "1:store-drop,2:503"}),
               "GET /__plantstore/schedule after a refused PUT")
        # The longest schedule the control API's document allows (maxLength),
        # a fault on each request, is taken whole.
        items = [f"{i}:503" for i in range(1, 7405)]
        longest = ",".join(items).ljust(65536)
        expect(len(longest), 65536, "the longest schedule's length")
        expect(m.call("PUT", "/__plantstore/schedule", {"schedule": longest})[0], 204, "PUT a schedule of 65,536 characters")
        expect(m.call("GET", "/__plantstore/schedule")[2], {"schedule": ",".join(items)}, "GET the longest schedule")
        status, _, err = m.call("PUT", "/__plantstore/schedule", {"schedule": longest + " "})
        expect((status, err["error"], "at most 65536" in err["message"]), (400, 100, True), "PUT a schedule of 65,537 characters")


def test_reply_held_past_the_write_timeout_is_journaled_dropped():
    # A reply held longer than -write-timeout never reaches the client; the
    # journal says dropped, not "sent 200" (issue 41: -schedule 1:store-delay
    # held a minute against the default 30s).
    with Mock("-write-timeout", "200ms") as m:
        status, _, _ = m.call("POST", "/__plantstore/faults", {"store": True, "delay": "1s"})
        expect(status, 201, "POST /__plantstore/faults")
        expect_no_answer(m, {"id": 1, "name": "Fern"}, "the create held past -write-timeout")  # stored, then no reply
        expect(m.create({"id": 2, "name": "Ivy"})[0], 200, "a create in time")
        _, _, journal = m.call("GET", "/__plantstore/requests")
        expect([(e["outcome"], e["status"], e["fault"]) for e in journal],
               [("dropped", 0, "inject#1 1:store-delay after=1s"), ("sent", 200, None)], "journal (outcome, status, fault)")
        _, _, plants = m.call("GET", "/__plantstore/plants")
        expect([p["id"] for p in plants], [1, 2], "plants: the held create stored before its hold")


def test_journal_faults_are_schedule_items():
    # Every source's fault is journaled one way, "source Seq:kind" (issue
    # 42), and the journal's lines, pasted into -schedule, place the same
    # faults on the same requests.
    line = re.compile(r"^(rate-limit|inject#[1-9][0-9]*|schedule|chaos|traffic) ([1-9][0-9]*):(.+)$")
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(recording(), f)
        f.flush()
        with Mock("-profile", f.name, "-chaos", "0.3", "-chaos-seed", "3", "-rate-limit", "40/h", "-schedule", "2:503,3:store-drop") as m:
            status, _, _ = m.call("POST", "/__plantstore/faults", {"kind": "502 retry-after=7"})
            expect(status, 201, "POST /__plantstore/faults by kind")
            replay_outcomes(m, 60)
            _, _, journal = m.call("GET", "/__plantstore/requests")
    items, sources = [], set()
    for e in journal:
        if e["fault"] is None:
            continue
        match = line.match(e["fault"])
        assert match and int(match.group(2)) == e["seq"], e
        sources.add(match.group(1).split("#")[0])
        items.append(e["fault"])
    expect(sorted(sources), ["chaos", "inject", "rate-limit", "schedule", "traffic"], "the sources journaled")
    with Mock("-schedule", ",".join(items)) as m:
        want = ",".join(i.split(" ", 1)[1] for i in items)
        expect(m.call("GET", "/__plantstore/schedule")[2], {"schedule": want}, "the journal's faults as -schedule")


def test_schedule_runs():
    # A run of faults, "N-M:kind", answers each request from N to M (issue 43).
    with Mock("-schedule", "2-3:503") as m:
        got = [m.create({"id": i, "name": "Fern"})[0] for i in range(1, 5)]
        expect(got, [200, 503, 503, 200], "statuses under -schedule 2-3:503")
        status, _, _ = m.call("PUT", "/__plantstore/schedule", {"schedule": "1-2:429"})
        expect(status, 204, "PUT a run")
        got = [m.create({"id": i, "name": "Fern"})[0] for i in range(5, 8)]
        expect(got, [429, 429, 200], "statuses under PUT 1-2:429")
        expect(m.call("GET", "/__plantstore/schedule")[2], {"schedule": "1-2:429"}, "GET a run")


def test_crash_is_journaled_for_the_harness():
    # "N:crash" (issue 44): the mock stores the plant and drops the connection, as if the process
    # under test died before the answer; the journal names the crash and the plant it stored, so a
    # harness restarts its process, which sends the same id again: derived from the work's key as
    # plantstore.IDFor derives it, which is stable across languages.
    def id_for(key):
        return int.from_bytes(hashlib.sha256(b"plantstore.IDFor\0" + key.encode()).digest()[:8], "big") >> 1
    expect(id_for("orders/17"), 5804267392063540989, "IDFor(\"orders/17\") in python3")

    with Mock("-schedule", "2:crash") as m:
        plant = {"id": id_for("orders/17"), "name": "Fern"}
        expect(m.create({"id": 1, "name": "Ivy"})[0], 200, "request 1")
        expect_no_answer(m, plant, "the scheduled crash")
        _, _, journal = m.call("GET", "/__plantstore/requests")
        crashes = [(e["fault"], e["status"], json.loads(e["body"])["id"]) for e in journal if (e["fault"] or "").endswith(":crash")]
        expect(crashes, [("schedule 2:crash", 0, plant["id"])], "the journal's crash: fault, status, the plant it stored")
        status, _, body = m.create(plant)  # the restarted process
        expect((status, body["error"]), (400, 5), "the restarted process's create: the id is stored")
        _, _, plants = m.call("GET", "/__plantstore/plants")
        expect([p["id"] for p in plants], [1, plant["id"]], "stored once")
    with Mock("-schedule", "1:drop crash") as m:  # the process died as it sent: nothing stored
        plant = {"id": id_for("orders/18"), "name": "Fern"}
        expect_no_answer(m, plant, "the scheduled crash")
        _, _, journal = m.call("GET", "/__plantstore/requests")
        expect([(e["fault"], e["status"]) for e in journal], [("schedule 1:drop crash", 0)], "the journal's crash that stored nothing")
        expect(m.call("GET", "/__plantstore/plants")[2], [], "nothing stored")
        expect(m.create(plant)[0], 200, "the restarted process's create")


def test_fault_matches_by_method_and_path():
    with Mock() as m:
        status, _, fault = m.call("POST", "/__plantstore/faults", {"status": 503, "match": {"method": "PUT", "path": "/plants"}})
        expect((status, fault["match"]), (201, {"method": "PUT", "path": "/plants"}), "POST /__plantstore/faults with a method and path")
        status, _, _ = m.create({"id": 1, "name": "Fern"})
        expect(status, 200, "a create, which the fault does not match")
        status, _, body = m.call("PUT", "/plants", token=API_TOKEN)
        expect((status, body["error"]), (503, 9), "PUT /plants, answered by the fault instead of 405")
        _, _, pending = m.call("GET", "/__plantstore/faults")
        expect(pending, [], "pending faults once used")


def test_bad_control_requests_change_nothing():
    with Mock() as m:
        for path, body in [("/__plantstore/faults", "{not json"), ("/__plantstore/faults", '{"status": 503, "colour": "red"}'),
                           ("/__plantstore/faults", '{"hang": true, "drop": true}'), ("/__plantstore/plants", "[{]"),
                           ("/__plantstore/reset", "{}")]:
            status, _, err = m.call("POST", path, body)
            expect(status, 400, f"POST {path} {body}")
            assert set(err) == {"error", "message"} and err["message"], err
        status, _, _ = m.call("GET", "/__plantstore/requests?since=minus-one")
        expect(status, 400, "GET /__plantstore/requests?since=minus-one")
        _, _, pending = m.call("GET", "/__plantstore/faults")
        expect(pending, [], "pending faults after bad requests")


def test_messages_name_what_the_user_typed():
    # The control API names JSON fields, not plantstoretest.Fault's Go fields.
    with Mock() as m:
        status, _, err = m.call("POST", "/__plantstore/faults", {"hang": True, "drop": True})
        expect((status, err["message"]), (400, 'invalid fault: "hang" and "drop" are alternatives; set one'),
               "POST /__plantstore/faults with hang and drop")
        # A value of the wrong type: the field by its JSON name, whichever
        # Go built the mock (Go 1.27's encoding/json names none).
        status, _, err = m.call("POST", "/__plantstore/faults", {"status": 503, "body": 5})
        expect((status, err["message"]), (400, 'field "body": want a string, got JSON number'),
               "POST /__plantstore/faults with a number for body")
    # The command line names flags, not conformance.Target's Go fields.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANTSTORE_")}
    done = subprocess.run([EXE, "conformance", "-url", "https://plants.example.com", "-token", "t"],
                          capture_output=True, text=True, env=env, timeout=30)
    expect(done.returncode, 2, "plantstore-mock conformance against a host not on loopback, without -live")
    assert done.stderr.startswith('plantstore-mock conformance: -url "https://plants.example.com" is not a loopback address'), done.stderr
    assert "pass -live" in done.stderr and "Target" not in done.stderr, done.stderr


def test_log_is_structured_and_names_the_profile():
    with tempfile.NamedTemporaryFile("w", suffix=".json") as profile:
        json.dump({"source": "https://ops:hunter2@plants.example.com", "auth_invalid": {"status": 403, "body": "no"}}, profile)
        profile.flush()
        with Mock("-profile", profile.name, "-log-level", "debug") as m:
            m.create({"id": 1, "name": "Fern"})
        lines = m.log().splitlines()
    assert lines and all(l.startswith("time=") and " level=" in l and " msg=" in l for l in lines), lines
    want = f'msg="-profile in force" profile={profile.name} source=https://ops:xxxxx@plants.example.com replies=auth_invalid'
    assert any(want in l for l in lines), lines
    assert not any("hunter2" in l for l in lines), lines


def recording(attempts=10000, ok=7000, r429=1000, r503=1500, broken=500):
    """A recording as traffic.Recorder writes it: 429s with Retry-After 1,
    503s with 2, breaks after sending; failures in runs of 1 and 3, mean 2;
    every latency in the scheme's 1 us bucket, so the replay waits nothing."""
    lat = lambda n: [{"from_us": 1, "to_us": 1.090508, "count": n}]
    failures = r429 + r503 + broken
    return {"source": "traffic.Recorder: https://plants.example.com", "traffic": {
        "attempts": attempts,
        "outcomes": [
            {"kind": "2xx", "status": 200, "count": ok, "latency": lat(ok)},
            {"kind": "429", "status": 429, "count": r429, "latency": lat(r429), "retry_after": [{"seconds": 1, "count": r429}]},
            {"kind": "5xx", "status": 503, "count": r503, "latency": lat(r503), "retry_after": [{"seconds": 2, "count": r503}]},
            {"kind": "broken_after_send", "count": broken, "latency": lat(broken)}],
        "failure_runs": {"runs": failures // 2, "failures": failures,
                         "lengths": [{"length": 1, "count": failures // 4}, {"length": 3, "count": failures // 4}]}}}


def replay_outcomes(m, n):
    """Sends n creates, one at a time, and returns each one's outcome: its
    status and Retry-After, or "dropped" for a connection that broke."""
    out = []
    for i in range(1, n + 1):
        try:
            status, headers, _ = m.create({"id": i, "name": "Fern"})
        except (urllib.error.URLError, ConnectionError, http.client.HTTPException):
            out.append("dropped")
            continue
        out.append(f"{status} {headers.get('Retry-After')}")
    return out


def test_profile_replays_a_recording_deterministically():
    """-profile with a recording's traffic and -chaos-seed: the mock answers
    with the recorded mix, breaks after sending store the plant, and the same
    seed gives the same sequence of outcomes."""
    # What a traffic.Recorder wrote (plantstoretest/testdata/traffic.json,
    # which a Go test keeps byte for byte its output) loads as it is.
    written = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plantstoretest", "testdata", "traffic.json")
    with Mock("-profile", written, "-chaos-seed", "7") as m:
        pass
    with open(written) as f:
        attempts = json.load(f)["traffic"]["attempts"]
    assert f"traffic_attempts={attempts} " in m.log(), m.log()
    n = 1000
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(recording(), f)
        f.flush()
        runs = {}
        for seed in ["7", "7", "8"]:
            with Mock("-profile", f.name, "-chaos-seed", seed) as m:
                got = replay_outcomes(m, n)
                _, _, journal = m.call("GET", "/__plantstore/requests")
                _, _, plants = m.call("GET", "/__plantstore/plants")
            runs.setdefault(seed, []).append(got)
            want = {"200 None": 0.70, "429 1": 0.10, "503 2": 0.15, "dropped": 0.05}
            assert set(got) <= set(want), sorted(set(got) - set(want))
            for outcome, p in want.items():
                # Failures come in runs of mean 2, which widens the spread of
                # a count (design effect about 3): 5 such standard deviations.
                sd = (n * p * (1 - p) * 3) ** 0.5
                assert abs(got.count(outcome) - n * p) <= 5 * sd, (seed, outcome, got.count(outcome), n * p, 5 * sd)
            fails = [o != "200 None" for o in got]
            runs_seen = sum(1 for i, x in enumerate(fails) if x and (i == 0 or not fails[i - 1]))
            mean_run = sum(fails) / runs_seen
            assert 1.5 <= mean_run <= 2.5, (seed, mean_run)
            faults = [e["fault"] for e in journal]
            kinds = [f.split(":", 1)[1].split(" ") for f in faults if f]  # "traffic 9:503 after=1µs retry-after=2"
            expect(sum(k[0] == "503" and "retry-after=2" in k for k in kinds), got.count("503 2"), f"seed {seed}: journaled 503s")
            expect(sum(k[0] == "store-drop" for k in kinds), got.count("dropped"), f"seed {seed}: journaled breaks")
            stored = {p["id"] for p in plants}
            dropped = {i + 1 for i, o in enumerate(got) if o == "dropped"}
            assert dropped <= stored, f"seed {seed}: plants dropped after sending but not stored: {sorted(dropped - stored)[:5]}"
        expect(runs["7"][0], runs["7"][1], "outcomes of two runs with -chaos-seed 7")
        assert runs["7"][0] != runs["8"][0], "-chaos-seed 7 and 8 gave the same outcomes"


def test_web_pages_cannot_drive_the_open_control_api():
    with Mock() as m:
        m.create({"id": 1, "name": "Fern"})
        refused = [
            # A browser's "simple" cross-site request: no preflight.
            ("POST", "/__plantstore/faults", '{"status": 503}', {"Content-Type": "text/plain", "Origin": "http://evil.example"}, 403),
            ("POST", "/__plantstore/reset", None, {"Origin": "http://evil.example"}, 403),
            ("DELETE", "/__plantstore/requests", None, {"Sec-Fetch-Site": "cross-site"}, 403),
            # A DNS-rebinding page: its own name, now resolving to 127.0.0.1.
            ("POST", "/__plantstore/reset", None, {"Host": "rebind.evil.example"}, 403),
            # A body that is not JSON, from anyone.
            ("POST", "/__plantstore/faults", '{"status": 503}', {"Content-Type": "text/plain"}, 415),
            ("POST", "/__plantstore/plants", '[{"id": 2, "name": "Ivy"}]', {"Content-Type": "application/x-www-form-urlencoded"}, 415),
        ]
        for method, path, body, headers, want in refused:
            status, _, err = m.call(method, path, body, headers=headers)
            expect(status, want, f"{method} {path} with {headers}")
            assert set(err) == {"error", "message"} and err["message"], err
        _, _, plants = m.call("GET", "/__plantstore/plants")
        expect([p["id"] for p in plants], [1], "plants after the refused requests")
        _, _, pending = m.call("GET", "/__plantstore/faults")
        expect(pending, [], "faults after the refused requests")
        _, _, journal = m.call("GET", "/__plantstore/requests")
        expect(len(journal), 1, "journal entries after the refused requests")


def test_reset_clears_plants_journal_and_faults():
    with Mock() as m:
        m.create({"id": 1, "name": "Fern"})
        m.call("POST", "/__plantstore/faults", {"status": 500, "times": 3})
        status, _, _ = m.call("POST", "/__plantstore/reset")
        expect(status, 204, "POST /__plantstore/reset")
        for path in ["/__plantstore/plants", "/__plantstore/requests", "/__plantstore/faults"]:
            _, _, got = m.call("GET", path)
            expect(got, [], f"GET {path} after reset")


def test_admin_and_api_tokens_are_separate():
    with Mock("-admin-token", ADMIN_TOKEN) as m:
        for token in [None, API_TOKEN, "wrong"]:
            status, headers, _ = m.call("GET", "/__plantstore/plants", token=token)
            expect(status, 401, f"GET /__plantstore/plants with token {token!r}")
            assert 'realm="plantstore-control"' in headers.get("WWW-Authenticate", ""), headers
        status, _, _ = m.call("GET", "/__plantstore/plants", token=ADMIN_TOKEN)
        expect(status, 200, "GET /__plantstore/plants with the admin token")
        status, _, _ = m.create({"id": 1, "name": "Fern"}, token=ADMIN_TOKEN)
        expect(status, 401, "POST /plants with the admin token")
        status, _, _ = m.create({"id": 1, "name": "Fern"})
        expect(status, 200, "POST /plants with the API token")
        assert ADMIN_TOKEN not in m.log() and API_TOKEN not in m.log(), "a token in the log"


def test_control_api_off_on_a_non_loopback_address():
    with Mock(addr="0.0.0.0:0") as m:
        assert "control API is off" in m.log(), m.log()
        status, _, err = m.call("GET", "/__plantstore/plants")
        expect(status, 404, "GET /__plantstore/plants on 0.0.0.0 without an admin token")
        assert "-admin-token" in err["message"] and "PLANTSTORE_ADMIN_TOKEN" in err["message"], err
        status, _, _ = m.call("GET", "/__plantstore/health")
        expect(status, 200, "health on 0.0.0.0")
        status, _, _ = m.create({"id": 1, "name": "Fern"})
        expect(status, 200, "create on 0.0.0.0")
    with Mock("-admin-token", ADMIN_TOKEN, addr="0.0.0.0:0") as m:
        status, _, _ = m.call("GET", "/__plantstore/plants", token=ADMIN_TOKEN)
        expect(status, 200, "GET /__plantstore/plants on 0.0.0.0 with the admin token")


def test_openapi_documents():
    with Mock() as m:
        status, headers, doc = m.call("GET", "/__plantstore/openapi.yaml")
        expect(status, 200, "GET /__plantstore/openapi.yaml")
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "openapi.yaml")
        with open(root) as f:
            expect(doc, f.read(), "served openapi.yaml vs the repository's")
        status, _, doc = m.call("GET", "/__plantstore/control.openapi.yaml")
        expect(status, 200, "GET /__plantstore/control.openapi.yaml")
        assert "/__plantstore/faults:" in doc


def run_tests(label, scope):
    """Runs the test_* functions of scope against the binary the command line
    names; prints "LABEL: N passed, M failed" last and exits 1 if any failed."""
    global EXE
    if len(sys.argv) != 2:
        sys.exit(f"usage: {os.path.basename(sys.argv[0])} PATH_TO_PLANTSTORE_MOCK")
    EXE = os.path.abspath(sys.argv[1])
    tests = [(n, f) for n, f in scope.items() if n.startswith("test_") and callable(f)]
    passed = failed = 0
    for name, fn in tests:
        try:
            fn()
        except Exception:
            failed += 1
            print(f"FAIL {name}\n{traceback.format_exc()}")
        else:
            passed += 1
            print(f"ok   {name}")
    print(f"{label}: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    run_tests("e2e", globals())
