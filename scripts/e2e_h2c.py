#!/usr/bin/env python3
"""h2c check of a running plantstore-mock from python3, standard library only.

Usage: e2e_h2c.py BASE_URL API_TOKEN

Python's standard library has no HTTP/2 client, and this check installs
nothing: it speaks just enough HTTP/2 with prior knowledge (RFC 9113) over a
socket to send a create and read the journal, on one connection, two streams.
Its HPACK encoder sends every field as a literal, and its decoder reads only
a :status of 200, which the server sends as the static table's entry 8; any
other status fails the check. Exits 0 when every check passed.
"""

import json
import socket
import struct
import sys
import urllib.parse

if not __debug__:
    sys.exit("e2e_h2c.py: its checks are assert statements, which -O (or PYTHONOPTIMIZE) drops; run it without")

DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY = 0x0, 0x1, 0x3, 0x4, 0x6, 0x7
END_STREAM, END_HEADERS, ACK = 0x1, 0x4, 0x1


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(name, value):
    """An HPACK literal header field without indexing, new name, no Huffman."""
    out = b"\x00"
    for s in (name.encode(), value.encode()):
        assert len(s) < 127, f"{s!r} is too long for this encoder"
        out += bytes([len(s)]) + s
    return out


class H2C:
    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        assert u.scheme == "http", f"h2c needs an http URL, got {url}"
        self.authority, self.prefix = u.netloc, u.path.rstrip("/")
        self.sock = socket.create_connection((u.hostname, u.port), timeout=10)
        self.buf = b""
        self.next_stream = 1
        self.sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(SETTINGS, 0, 0))

    def read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            assert chunk, "the server closed the connection"
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def request(self, method, path, headers=(), body=b""):
        """Sends a request on a new stream; returns (status, body)."""
        stream, self.next_stream = self.next_stream, self.next_stream + 2
        block = b"".join(literal(k, v) for k, v in
                         [(":method", method), (":scheme", "http"), (":authority", self.authority),
                          (":path", self.prefix + path)] + list(headers))
        out = frame(HEADERS, END_HEADERS | (0 if body else END_STREAM), stream, block)
        if body:
            out += frame(DATA, END_STREAM, stream, body)
        self.sock.sendall(out)
        status, data = None, b""
        while True:
            length, kind, flags, sid = struct.unpack(">IBBI", b"\x00" + self.read(9))
            payload = self.read(length)
            if kind == SETTINGS and not flags & ACK:
                self.sock.sendall(frame(SETTINGS, ACK, 0))
            elif kind == PING and not flags & ACK:
                self.sock.sendall(frame(PING, ACK, 0, payload))
            elif kind == GOAWAY:
                raise AssertionError(f"GOAWAY: {payload.hex()}")
            elif sid == stream and kind == RST_STREAM:
                raise AssertionError(f"stream {stream} reset: error code {int.from_bytes(payload, 'big')}")
            elif sid == stream and kind == HEADERS:
                assert flags & END_HEADERS, "the response's headers continue; this client reads one frame"
                assert payload[0] == 0x88, f"response header block starts {payload[:1].hex()}, want 88 (:status 200)"
                status = 200
            elif sid == stream and kind == DATA:
                data += payload
            if sid == stream and kind in (HEADERS, DATA) and flags & END_STREAM:
                return status, data


def main():
    url, token = sys.argv[1], sys.argv[2]
    c = H2C(url)
    auth = ("authorization", "Bearer " + token)
    status, body = c.request("POST", "/plants", [auth, ("content-type", "application/json")],
                             json.dumps({"id": 42, "name": "Fern over h2c"}).encode())
    assert status == 200 and json.loads(body)["name"] == "Fern over h2c", (status, body)
    status, body = c.request("GET", "/__plantstore/requests")
    journal = json.loads(body)
    assert any(r["method"] == "POST" and r["status"] == 200 and json.loads(r["body"])["id"] == 42 for r in journal), journal
    print("e2e h2c (python3, raw frames): passed")


if __name__ == "__main__":
    main()
