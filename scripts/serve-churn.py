#!/usr/bin/env python3
"""Test churn against `peakbench serve` (issue #27 item 1), and the server's memory.

Starts the given peakbench binary as `serve` on 127.0.0.1 (an ephemeral port, no
token), then repeats: hello, a TCP test of STREAMS x MSG (download by default), attach
every stream, start, close everything CLOSE_MS later. Samples the server's VmRSS every
10 ms from /proc/PID/status, and prints per round the RSS and the server's threads,
then the peak (VmHWM), and the RSS after the rounds and 10 s later. Stops early (and
says so) when the RSS passes --ceiling, so a server without limits cannot exhaust the
machine. Refusals (busy, over the budget) are counted and printed.

    scripts/serve-churn.py target/release/peakbench --rounds 8
    scripts/serve-churn.py target/release/peakbench --direction bidir -- --max-memory 2GiB
"""

import argparse
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0]) * 1024
            elif k == "Threads":
                out[k] = int(v)
    return out


def send(sock, msg):
    body = json.dumps(msg).encode()
    sock.sendall(struct.pack(">I", len(body)) + body)


def recv(sock):
    def exact(n):
        b = b""
        while len(b) < n:
            chunk = sock.recv(n - len(b))
            if not chunk:
                raise ConnectionError("closed")
            b += chunk
        return b

    (n,) = struct.unpack(">I", exact(4))
    return json.loads(exact(n))


def round_once(addr, spec, close_ms):
    """One churn round; returns None when the test ran, else the refusal."""
    c = socket.create_connection(addr, timeout=15)
    try:
        g = recv(c)
        assert g["type"] == "greeting", g
        send(c, {"type": "hello", "version": g["version"], "nonce": "ab" * 32, "proof": None})
        w = recv(c)
        if w["type"] != "welcome":
            return w.get("message", str(w))
        send(c, {"type": "test", "spec": spec})
        r = recv(c)
        if r["type"] != "ready":
            return r.get("message", str(r))
        cookie = bytes.fromhex(r["cookie"])
        data = []
        for i in range(spec["streams"] * (2 if spec["direction"] == "bidir" else 1)):
            d = socket.create_connection((addr[0], r["ports"][0]), timeout=15)
            d.sendall(b"PKBNDATA" + cookie + struct.pack(">I", i))
            data.append(d)
        a = recv(c)
        assert a["type"] == "attached", a
        send(c, {"type": "start"})
        time.sleep(close_ms / 1000)
        for d in data:
            d.close()
        return None
    finally:
        c.close()


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, epilog="more `serve` flags after --"
    )
    ap.add_argument("binary")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--streams", type=int, default=128)
    ap.add_argument("--msg", type=int, default=16 << 20)
    ap.add_argument("--direction", default="down", choices=["up", "down", "bidir"])
    ap.add_argument("--close-ms", type=int, default=50)
    ap.add_argument("--ceiling", type=float, default=4.0, help="GiB of RSS that stops the run")
    ap.add_argument("--after", type=float, default=10.0, help="seconds to watch the RSS after the rounds")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    a = ap.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    a.serve_args = extra

    srv = subprocess.Popen(
        [a.binary, "serve", "--bind", "127.0.0.1:0", *a.serve_args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = srv.stderr.readline()
    host, port = line.split("listening on ")[1].split()[0].rsplit(":", 1)
    addr = (host, int(port))
    threading.Thread(target=lambda: srv.stderr.read(), daemon=True).start()
    print(line.strip())
    idle = status(srv.pid)["VmRSS"]
    peak = [idle]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], status(srv.pid)["VmRSS"])
            except (OSError, KeyError):
                return
            if peak[0] > a.ceiling * 2**30:
                srv.kill()
                return
            time.sleep(0.01)

    threading.Thread(target=sample, daemon=True).start()
    spec = {
        "proto": "tcp",
        "test": "throughput",
        "msg": a.msg,
        "streams": a.streams,
        "direction": a.direction,
        "omit_ms": 0,
        "interval_ms": 100,
        "intervals": 600,
        "rate_bps": None,
        "zerocopy": False,
    }
    mib = lambda b: f"{b / 2**20:.0f} MiB"
    print(f"idle RSS {mib(idle)}")
    t0 = time.time()
    done = refused = 0
    busy = 0
    # Until ROUNDS tests ran; a busy server is asked again (for at most 120 s), any
    # other refusal counts as a round.
    while done + refused < a.rounds and srv.poll() is None and time.time() - t0 < 120:
        try:
            why = round_once(addr, spec, a.close_ms)
        except (OSError, ConnectionError, AssertionError) as e:
            why = f"connection failed: {e}"
        if why is not None and "busy" in why:
            busy += 1
            time.sleep(0.02)
            continue
        if why is None:
            done += 1
        else:
            refused += 1
            print(f"  refused: {why}")
        if srv.poll() is not None:
            break
        s = status(srv.pid)
        print(f"round {done + refused}: {time.time() - t0:5.1f} s  RSS {mib(s['VmRSS'])}  peak {mib(peak[0])}  threads {s['Threads']}  (busy replies so far: {busy})")
    if srv.poll() is not None:
        print(f"stopped: RSS passed the {a.ceiling} GiB ceiling after {time.time() - t0:.1f} s (peak sampled {mib(peak[0])})")
        return 1
    s = status(srv.pid)
    print(f"after {done} tests ({refused} refused): peak RSS (VmHWM) {mib(s['VmHWM'])}, RSS now {mib(s['VmRSS'])}")
    time.sleep(a.after)
    s = status(srv.pid)
    print(f"{a.after:.0f} s later: RSS {mib(s['VmRSS'])}, threads {s['Threads']}")
    stop.set()
    srv.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
