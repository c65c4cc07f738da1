#!/usr/bin/env python3
"""Namespaces of plantstore-mock (issue 23), driven from python3 as a test
job in another language drives them.

Usage:
  e2e_namespaces.py PATH_TO_PLANTSTORE_MOCK   the end-to-end checks
  e2e_namespaces.py job MOCK_URL N [root]     one isolation job: N rounds of
      seed, queue a fault, create, read the journal, reset, in a namespace
      of its own; with "root", its creates go to the mock's root with the
      namespace's token. Exits 1 at the first thing outside its namespace.

Python 3.9+ with the standard library only; the mock and the test runner
are e2e_mock.py's. The last line of the checks is "e2e namespaces: N
passed, M failed".
"""

import contextlib
import json
import os
import socket
import struct
import sys
import unittest.mock

import e2e_h2c
import e2e_mock
from e2e_mock import ADMIN_TOKEN, API_TOKEN, Mock, expect


GUIDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cmd", "plantstore-mock", "NAMESPACES.md")


def guide_fixture():
    """The code block of NAMESPACES.md's "A python3 fixture", as printed."""
    with open(GUIDE) as f:
        section = f.read().split("## A python3 fixture", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


# The fixture NAMESPACES.md shows, run from the guide as printed: its
# definitions (call, Namespace), without the test that uses them. The
# checks below use them as a test job would.
_fixture = {}
exec(guide_fixture().split("\n# In a test", 1)[0], _fixture)
call, Namespace = _fixture["call"], _fixture["Namespace"]


def job(mock_url, rounds, root=False):
    """One isolation job; raises AssertionError at the first leak."""
    with Namespace(mock_url, label="python job") as ns:
        api = (mock_url if root else ns.base_url) + "/plants"
        for i in range(rounds):
            seed = {"id": 100000 + i, "name": "seed"}
            plant = {"id": i, "name": "p%d" % i}
            assert ns.control("POST", "plants", [seed]) == (201, {"added": 1})
            status, _ = ns.control("POST", "faults", {"status": 503, "match": {"id": i}})
            assert status == 201, status
            assert call("POST", api, plant, ns.token)[0] == 503, "round %d: the fault was not ours" % i
            assert call("POST", api, plant, ns.token) == (200, {"name": plant["name"]})
            status, journal = ns.control("GET", "requests")
            assert status == 200 and [e["status"] for e in journal] == [503, 200], (i, journal)
            assert all(json.loads(e["body"])["id"] == i for e in journal), (i, journal)
            assert ns.control("GET", "plants") == (200, [seed, plant]), i
            assert ns.control("GET", "faults") == (200, []), i
            assert ns.control("POST", "reset")[0] == 204, i


def test_fixture_and_isolation():
    with Mock() as m:
        job(m.url, 20)
        job(m.url, 20, root=True)
        assert call("GET", m.url + "/__plantstore/namespaces") == (200, [])
        assert call("GET", m.url + "/__plantstore/plants") == (200, [])


def test_lifecycle():
    with Mock("-max-namespaces", "2") as m:
        a, b = Namespace(m.url, "a").__enter__(), Namespace(m.url, "b").__enter__()
        status, err = call("POST", m.url + "/__plantstore/namespaces")
        assert status == 409 and "-max-namespaces" in err["message"], (status, err)
        status, listed = call("GET", m.url + "/__plantstore/namespaces")
        assert status == 200 and [n["label"] for n in listed] == ["a", "b"], listed
        assert a.token not in json.dumps(listed) and all("token" not in n for n in listed)
        # Another namespace's token opens neither its API nor its control API.
        assert call("POST", a.base_url + "/plants", {"id": 1, "name": "x"}, b.token)[0] == 401
        assert call("GET", a.base_url + "/__plantstore/requests", None, b.token)[0] == 401
        # The mock's API token opens a namespace's API.
        assert call("POST", a.base_url + "/plants", {"id": 1, "name": "x"}, API_TOKEN)[0] == 200
        a.__exit__(None, None, None)
        status, err = call("POST", a.base_url + "/plants", {"id": 2, "name": "x"}, a.token)
        assert status == 404 and "no namespace" in err["message"], (status, err)
        assert call("DELETE", m.url + "/__plantstore/namespaces/" + a.id)[0] == 404
        assert call("POST", m.url + "/__plantstore/namespaces", {"ttl": "2s"})[0] == 201
        assert call("POST", m.url + "/__plantstore/namespaces", {"ttl": "forever"})[0] == 400


def test_cap_of_one_in_the_singular():
    with Mock("-max-namespaces", "1") as m:
        with Namespace(m.url, "only"):
            status, err = call("POST", m.url + "/__plantstore/namespaces")
            assert status == 409 and err["message"].startswith("1 namespace live,"), (status, err)


def test_path_tricks():
    with Mock() as m, Namespace(m.url) as a:
        for trick in ["..", "%2e%2e", a.id + "%2F..", "x" * 1024, "%C3%A9" + a.id[2:], a.id.upper()]:
            status, err = call("POST", m.url + "/__plantstore/ns/" + trick + "/plants", {"id": 1, "name": "x"}, a.token)
            assert status == 404 and "no namespace" in err["message"], (trick, status, err)
        assert a.control("GET", "requests") == (200, [])


def test_guide_fixture_in_both_setups():
    """NAMESPACES.md's fixture, as printed, on an open loopback mock and on a
    mock with -admin-token on 0.0.0.0 (one container per CI pipeline), whose
    admin token the fixture reads from PLANTSTORE_ADMIN_TOKEN: it creates,
    uses and ends a namespace in both, the end by the namespace's own token."""
    code = guide_fixture()
    assert "http://127.0.0.1:8080" in code and "make_app(" in code, code
    for args, addr, admin in [((), "127.0.0.1:0", None), (("-admin-token", ADMIN_TOKEN), "0.0.0.0:0", ADMIN_TOKEN)]:
        with Mock(*args, addr=addr) as m, env("PLANTSTORE_ADMIN_TOKEN", admin):
            apps = []
            scope = {"make_app": lambda base_url, token: apps.append((base_url, token))}
            exec(code.replace("http://127.0.0.1:8080", m.url), scope)
            ns = scope["ns"]
            assert apps == [(ns.base_url, ns.token)], apps
            assert (scope["status"], scope["journal"]) == (200, []), (args, scope["status"], scope["journal"])
            # Ended on exit, its fault with it; the fault was its alone.
            assert call("GET", m.url + "/__plantstore/namespaces", token=admin) == (200, []), args
            status, err = ns.control("GET", "faults")
            assert status == 404 and "no namespace" in err["message"], (args, status, err)
            assert call("GET", m.url + "/__plantstore/faults", token=admin) == (200, []), args
            if admin:
                # Without the variable, the create is refused: it is what
                # the fixture needs there, and all it needs.
                with env("PLANTSTORE_ADMIN_TOKEN", None):
                    try:
                        exec(code.replace("http://127.0.0.1:8080", m.url), dict(scope))
                    except Exception as e:
                        assert "401" in str(e), e
                    else:
                        raise AssertionError("the fixture made a namespace without the admin token")


@contextlib.contextmanager
def env(name, value):
    """Sets (or, with None, unsets) an environment variable for a with block."""
    with unittest.mock.patch.dict(os.environ):
        os.environ.pop(name, None)
        if value is not None:
            os.environ[name] = value
        yield


def test_stored_bound():
    """-max-stored-mib bounds what every namespace keeps together."""
    with Mock("-max-stored-mib", "1") as m, Namespace(m.url) as a, Namespace(m.url) as b:
        name, kept = "n" * 100_000, 0
        for i in range(100):
            status, err = call("POST", (a, b)[i % 2].base_url + "/plants", {"id": i, "name": name}, (a, b)[i % 2].token)
            if status != 200:
                break
            kept += len(name)
        assert status == 400 and err["error"] == 11 and "-max-stored-mib" in err["message"], (status, err)
        assert 512 * 1024 < kept <= 1024 * 1024, kept
        status, err = b.control("POST", "faults", {"status": 503, "body": name})
        assert status == 400 and err["error"] == 11 and "-max-stored-mib" in err["message"], (status, err)
        # A schedule is kept too: refused, and the one in force stays.
        assert b.control("PUT", "schedule", {"schedule": "900:503"})[0] == 204
        before = b.control("GET", "schedule")
        status, err = b.control("PUT", "schedule", {"schedule": ",".join(f"{i}:503" for i in range(1, 5000))})
        assert status == 400 and err["error"] == 11 and "-max-stored-mib" in err["message"], (status, err)
        assert b.control("GET", "schedule") == before, (before, b.control("GET", "schedule"))
        # A reset gives the room back.
        assert a.control("POST", "reset")[0] == 204
        assert call("POST", b.base_url + "/plants", {"id": 1000, "name": name}, b.token)[0] == 200


def raw_create(mock_url, host, token):
    """Sends a create as raw HTTP/1.0 with Host host (none when None);
    returns (status, parsed JSON body)."""
    addr = mock_url.removeprefix("http://")
    head = "POST /__plantstore/namespaces HTTP/1.0\r\n"
    if host is not None:
        head += "Host: " + host + "\r\n"
    if token:
        head += "Authorization: Bearer " + token + "\r\n"
    with socket.create_connection(addr.rsplit(":", 1), timeout=10) as conn:
        conn.sendall((head + "Content-Length: 0\r\n\r\n").encode())
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    status_line, _, rest = reply.partition(b"\r\n")
    return int(status_line.split()[1]), json.loads(rest.partition(b"\r\n\r\n")[2])


def test_base_url_from_host():
    """NAMESPACES.md: without a Host, the listener's address; a Host that
    cannot make a URL, 400 naming it; open on loopback and with an admin
    token alike."""
    for args, token in [((), None), (("-admin-token", ADMIN_TOKEN), ADMIN_TOKEN)]:
        with Mock(*args) as m:
            status, ns = raw_create(m.url, None, token)
            assert status == 201 and ns["base_url"] == m.url + "/__plantstore/ns/" + ns["namespace"], (args, status, ns)
            assert call("POST", ns["base_url"] + "/plants", {"id": 1, "name": "Fern"}, ns["token"])[0] == 200
            bad = ["localhost:99999", "127.0.0.1:0", "localhost:"]  # loopback names, served while open
            if token:
                bad += ["x%2F..", "[::1", "evil.example:99999", "evil.example:80x", ":8080"]
            for host in bad:
                status, err = raw_create(m.url, host, token)
                assert status == 400 and json.dumps(host) in err["message"], (args, host, status, err)
            status, listed = call("GET", m.url + "/__plantstore/namespaces", None, token)
            assert status == 200 and len(listed) == 1, (args, listed)



def create_h1(mock_url, host, token):
    """Sends a create over HTTP/1.1 with Host host, raw (urllib would send a
    name in another script as its punycode); returns (status, body bytes)."""
    head = f"POST /__plantstore/namespaces HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    with socket.create_connection(mock_url.removeprefix("http://").rsplit(":", 1), timeout=10) as conn:
        conn.sendall(head.encode())
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    status_line, _, rest = reply.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def create_h2c(mock_url, host, token):
    """Sends a create over h2c with :authority host, in frames written by
    e2e_h2c.py's helpers; returns (status, body bytes). It reads :status
    only as net/http writes 400 (the static table's entry 12; RFC 7541,
    appendix A) and 201 (a literal, Huffman-coded)."""
    c = e2e_h2c.H2C(mock_url)
    h2 = e2e_h2c
    block = b"".join(h2.literal(k, v) for k, v in [(":method", "POST"), (":scheme", "http"), (":authority", host),
                                                  (":path", "/__plantstore/namespaces"), ("authorization", "Bearer " + token)])
    c.sock.sendall(h2.frame(h2.HEADERS, h2.END_HEADERS | h2.END_STREAM, 1, block))
    status, body = None, b""
    while True:
        length, kind, flags, sid = struct.unpack(">IBBI", b"\x00" + c.read(9))
        payload = c.read(length)
        if kind == h2.SETTINGS and not flags & h2.ACK:
            c.sock.sendall(h2.frame(h2.SETTINGS, h2.ACK, 0))
        assert kind not in (h2.GOAWAY, h2.RST_STREAM), (kind, payload)
        if sid == 1 and kind == h2.HEADERS:
            status = 400 if payload[:1] == b"\x8c" else 201 if payload[:4] == b"\x4e\x82\x10\x03" else payload[:4]
        elif sid == 1 and kind == h2.DATA:
            body += payload
        if sid == 1 and kind in (h2.HEADERS, h2.DATA) and flags & h2.END_STREAM:
            c.sock.close()
            return status, body


def test_host_alike_over_http1_and_h2c():
    """README: HTTP/1.1 and h2c answer the same. A Host no URI holds (a name
    in another script, not as its punycode) gets net/http's 400 on both,
    and creates nothing; its punycode makes the base_url."""
    with Mock("-admin-token", ADMIN_TOKEN) as m:
        for send in (create_h1, create_h2c):
            for host in ["ä.example", "ä.example:8080", "a b"]:
                got = send(m.url, host, ADMIN_TOKEN)
                expect(got, (400, b"400 Bad Request: malformed Host header"), f"{send.__name__} with Host {host!r}")
            status, body = send(m.url, "xn--4ca.example:8080", ADMIN_TOKEN)
            expect(status, 201, f"{send.__name__} with Host 'xn--4ca.example:8080'")
            assert json.loads(body)["base_url"].startswith("http://xn--4ca.example:8080/__plantstore/ns/"), body
        status, listed = call("GET", m.url + "/__plantstore/namespaces", None, ADMIN_TOKEN)
        expect((status, len(listed)), (200, 2), "namespaces listed")

if __name__ == "__main__":
    if sys.argv[1:2] == ["job"] and len(sys.argv) in (4, 5):
        job(sys.argv[2], int(sys.argv[3]), root=sys.argv[4:] == ["root"])
    else:
        e2e_mock.run_tests("e2e namespaces", globals())
