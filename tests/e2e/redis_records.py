"""Reading fleetsweep's Redis records for the end-to-end tests: a tiny RESP client, the key schema of
docs/store.md, and a decoder of the protobuf wire format just sufficient for v1.Attempt and
v1.ConfigRecord (standard library only)."""
import socket
import struct

FAILURE_CLASSES = ["UNSPECIFIED", "TIMEOUT", "SIGNAL", "EXIT_CODE", "OUT_OF_MEMORY",
                   "NOT_IMPLEMENTED", "WRONG_RESULT", "BAD_OUTPUT", "REFUSED", "LAUNCH"]
CONFIG_STATES = ["UNSPECIFIED", "PENDING", "LEASED", "DONE", "INFEASIBLE"]


# ---- protobuf wire format (just enough for v1.Attempt and v1.ConfigRecord) ----

def _varint(buf, i):
    shift = result = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


def pb_fields(buf):
    """{field number: [values]}; varints as int, fixed64 as 8 raw bytes, length-delimited as bytes."""
    out = {}
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(buf, i)
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 2:
            n, i = _varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("unsupported wire type %d" % wt)
        out.setdefault(num, []).append(v)
    return out


def _s(f, n):
    return f[n][-1].decode("utf-8") if n in f else ""


def _i(f, n):
    v = f[n][-1] if n in f else 0
    return v - (1 << 64) if v >= 1 << 63 else v


def decode_attempt(buf):
    f = pb_fields(buf)
    samples = []
    for raw in f.get(10, []):
        sf = pb_fields(raw)
        value = struct.unpack("<d", sf[2][-1])[0] if 2 in sf else 0.0
        samples.append((_s(sf, 1), value))
    return {"config_key": _s(f, 1), "attempt_id": _s(f, 2), "worker_id": _s(f, 3),
            "node": _s(f, 4), "ok": bool(_i(f, 7)),
            "failure_class": FAILURE_CLASSES[_i(f, 8)], "failure_detail": _s(f, 9),
            "samples": samples, "reference": bool(_i(f, 19)), "started_unix_ms": _i(f, 15),
            "duration_seconds": struct.unpack("<d", f[16][-1])[0] if 16 in f else 0.0}


def decode_config(buf):
    f = pb_fields(buf)
    params = {}
    for raw in f.get(2, []):
        ef = pb_fields(raw)
        params[_s(ef, 1)] = _s(ef, 2)
    return {"config_key": _s(f, 1), "params": params, "state": CONFIG_STATES[_i(f, 3)],
            "failures": _i(f, 4), "last_failure": FAILURE_CLASSES[_i(f, 5)]}


# ---- Redis ----

class Resp:
    """A minimal synchronous RESP2 client."""

    def __init__(self, port, password=None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.buf = b""
        if password:
            self.call("AUTH", password)

    def close(self):
        self.sock.close()

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("redis closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("redis closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def _reply(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest.decode()
        if t == b"-":
            raise RuntimeError("redis: " + rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise RuntimeError("bad RESP reply %r" % line)

    def call(self, *args):
        parts = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(parts))
        return self._reply()

    def hgetall(self, key):
        flat = self.call("HGETALL", key)
        return {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}


class Store:
    """Reads one sweep's records (schema: docs/store.md)."""

    def __init__(self, port, sweep, password=None):
        self.port, self.sweep, self.password = port, sweep, password

    def _with(self, fn):
        r = Resp(self.port, self.password)
        try:
            return fn(r)
        finally:
            r.close()

    def key(self, what):
        return "fs:{%s}:%s" % (self.sweep, what)

    def count_attempts(self):
        return self._with(lambda r: r.call("HLEN", self.key("attempts")))

    def attempts(self):
        """{hash field: decoded Attempt}; the field is <config_key>/<attempt_id>."""
        raw = self._with(lambda r: r.hgetall(self.key("attempts")))
        return {k: decode_attempt(v) for k, v in raw.items()}

    def configs(self):
        raw = self._with(lambda r: r.hgetall(self.key("configs")))
        return {k: decode_config(v) for k, v in raw.items()}
