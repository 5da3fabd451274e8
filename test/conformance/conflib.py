# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""Harness of the conformance suite: TAP wires, testpmd over a pipe, verdicts.

Two vPorts of one software device, each cabled to a Linux TAP interface
(`wire=tap:`), stand for DTS's two-link topology: the runner sends on the
TAP of port 0 and captures on the TAP of port 1 (AF_PACKET sockets), and
drives testpmd's interactive shell through its standard input. Every wait
has a deadline and ends as soon as its condition holds; nothing is judged
by how long something took. A frame that must not arrive is checked with a
marker frame sent after it on the same path: when the marker has arrived,
the first frame would have too.
"""

import os
import random
import re
import select
import shutil
import socket
import struct
import subprocess
import threading
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40
# struct tpacket_auxdata: status, len, snaplen, mac, net, vlan_tci, vlan_tpid
AUXDATA = struct.Struct("=IIIHHHH")
PORT_MAC = ["02:00:00:00:01:00", "02:00:00:00:01:01"]
TG_MAC = "02:00:00:00:aa:00"
PEER_MAC = ["02:00:00:00:00:00", "02:00:00:00:00:01"]	# testpmd's default eth-peers
TAP_MTU = 9200
PROMPT = b"testpmd> "

rng = random.Random(31)

CMD_TIMEOUT_S = 60
START_TIMEOUT_S = 120
FRAME_TIMEOUT_S = 20


class CaseFailed(Exception):
    """A check of a case failed: the message is the reason."""


class CaseNA(Exception):
    """The case tests what MANA hardware does not have: the message cites hardware.md."""


def verify(cond, why):
    if not cond:
        raise CaseFailed(why)


def sh(*argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


# ---- TAP wires ---------------------------------------------------------------

class Taps:
    """Two persistent TAP interfaces made before testpmd opens them (the
    software device attaches to an existing TAP and leaves it in place), with
    IPv6 off so that the kernel sends nothing of its own on them."""

    def __init__(self, tag):
        subprocess.run(["ip", "link", "set", "lo", "up"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        base = f"cf{os.getpid() % 100000}{tag}"[:13]
        self.names = [base + "a", base + "b"]
        for n in self.names:
            sh("ip", "tuntap", "add", "dev", n, "mode", "tap")
            path = f"/proc/sys/net/ipv6/conf/{n}/disable_ipv6"
            if os.path.exists(path):
                with open(path, "w") as f:
                    f.write("1\n")
            sh("ip", "link", "set", n, "mtu", str(TAP_MTU), "up")

    def remove(self):
        for n in self.names:
            subprocess.run(["ip", "link", "del", n], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)


class Wire:
    """An AF_PACKET socket on one TAP: frames sent on it reach the vPort; frames
    the vPort sends are read from it (the kernel's own transmissions skipped)."""

    def __init__(self, ifname):
        self.ifname = ifname
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind((ifname, ETH_P_ALL))
        # The kernel takes an 802.1Q tag out of a received frame into the
        # packet's metadata: PACKET_AUXDATA hands it back, and recv() puts it in again.
        self.sock.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        self.sock.setblocking(False)

    def send(self, frame):
        data = bytes(frame)
        # The kernel's TAP queue is finite: retry a full one instead of losing the frame.
        deadline = time.monotonic() + FRAME_TIMEOUT_S
        while True:
            try:
                self.sock.send(data)
                return
            except (BlockingIOError, OSError) as e:
                if isinstance(e, OSError) and e.errno not in (11, 105):
                    raise
                if time.monotonic() > deadline:
                    raise CaseFailed(f"{self.ifname}: send blocked for {FRAME_TIMEOUT_S} s")
                select.select([], [self.sock], [], 0.1)

    def recv(self):
        """One frame as it was on the wire (its VLAN tag back in place), and its address."""
        data, anc, _, addr = self.sock.recvmsg(65536, socket.CMSG_SPACE(AUXDATA.size))
        for level, kind, payload in anc:
            if level != SOL_PACKET or kind != PACKET_AUXDATA or len(payload) < AUXDATA.size:
                continue
            status, _, _, _, _, tci, tpid = AUXDATA.unpack(payload[:AUXDATA.size])
            if status & TP_STATUS_VLAN_VALID or tci:
                if not status & TP_STATUS_VLAN_TPID_VALID:
                    tpid = 0x8100
                data = data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
        return data, addr

    def drain(self):
        """Forget what has arrived so far."""
        while True:
            try:
                self.sock.recvfrom(65536)
            except BlockingIOError:
                return

    def collect(self, until, timeout=FRAME_TIMEOUT_S):
        """Frames read until until(frames) holds or the deadline passes; the list either way."""
        frames = []
        deadline = time.monotonic() + timeout
        while not until(frames):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            r, _, _ = select.select([self.sock], [], [], min(left, 0.5))
            if not r:
                continue
            while True:
                try:
                    data, addr = self.recv()
                except BlockingIOError:
                    break
                if addr[2] == socket.PACKET_OUTGOING:
                    continue
                frames.append(data)
        return frames

    def close(self):
        self.sock.close()


# ---- testpmd ------------------------------------------------------------------

class Testpmd:
    """One testpmd with two net_mana vPorts on the TAPs, driven over a pipe."""

    def __init__(self, ctx, app_args=(), mana=False, vdev_extra="", mbufs=8192):
        self.ctx = ctx
        binary = ctx.testpmd_mana if mana else ctx.testpmd
        self.prefix = f"conf_{ctx.suite}_{os.getpid()}_{ctx.seq}"
        ctx.seq += 1
        vdev = (f"net_mana0,ports=2,mac={PORT_MAC[0]},mac={PORT_MAC[1]},"
                f"wire=tap:{ctx.taps.names[0]},wire=tap:{ctx.taps.names[1]}{vdev_extra}")
        argv = ["stdbuf", "-oL", "-eL", binary, "-l", "0-1", "--no-huge", "-m", "512",
                "--file-prefix", self.prefix, "--log-level=pmd.net.mana.*:notice"]
        if not mana:
            argv += ["-d", "librte_net_mana.so"]
        argv += ["--vdev", vdev, "--", "-i", f"--total-num-mbufs={mbufs}"] + list(app_args)
        self.argv = argv
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = ctx.pmd_dir + (":" + env["LD_LIBRARY_PATH"]
                                                if env.get("LD_LIBRARY_PATH") else "")
        self.buf = bytearray()
        self.cv = threading.Condition()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=env)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.log_start = 0
        if not self._wait_prompt(0, START_TIMEOUT_S):
            self.close()
            raise CaseFailed("testpmd did not reach its prompt: " + self.tail())

    def _read(self):
        while True:
            data = self.proc.stdout.read1(65536)
            with self.cv:
                if not data:
                    self.cv.notify_all()
                    return
                self.buf += data
                self.cv.notify_all()

    def _wait_prompt(self, start, timeout):
        deadline = time.monotonic() + timeout
        with self.cv:
            while self.buf.find(PROMPT, start) < 0:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return self.buf.find(PROMPT, start) >= 0
                self.cv.wait(min(left, 0.5))
            return True

    def tail(self, n=1500):
        with self.cv:
            return self.buf[-n:].decode(errors="replace")

    def cmd(self, line, timeout=CMD_TIMEOUT_S):
        """Run one command; its output (up to the next prompt)."""
        with self.cv:
            start = len(self.buf)
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        if not self._wait_prompt(start, timeout):
            raise CaseFailed(f"testpmd: no prompt after '{line}' within {timeout} s")
        with self.cv:
            end = self.buf.find(PROMPT, start)
            return self.buf[start:end].decode(errors="replace")

    def output_since(self, start):
        with self.cv:
            return self.buf[start:].decode(errors="replace")

    def mark(self):
        with self.cv:
            return len(self.buf)

    def wait_output(self, start, pattern, timeout=FRAME_TIMEOUT_S):
        """Wait until the output since start matches pattern; the match or None."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cv:
            while True:
                m = rx.search(self.buf[start:].decode(errors="replace"))
                if m or time.monotonic() > deadline or self.proc.poll() is not None:
                    return m
                self.cv.wait(0.5)

    def port_stats(self, port):
        out = self.cmd(f"show port stats {port}")
        st = {}
        for k, v in re.findall(r"(RX-packets|RX-bytes|TX-packets|TX-bytes|RX-missed|RX-errors|"
                               r"TX-errors|RX-nombuf):\s*(\d+)", out):
            st[k] = int(v)
        return st

    def xstats(self, port):
        out = self.cmd(f"show port xstats {port}")
        return {k: int(v) for k, v in re.findall(r"^\s*(\w+):\s*(\d+)\s*$", out, re.M)}

    def wait_stat(self, port, pred, what, timeout=FRAME_TIMEOUT_S, xstats=False):
        """Poll a port's (x)stats until pred(stats) holds."""
        deadline = time.monotonic() + timeout
        while True:
            st = self.xstats(port) if xstats else self.port_stats(port)
            if pred(st):
                return st
            if time.monotonic() > deadline:
                raise CaseFailed(f"port {port}: {what} not reached within {timeout} s "
                                 f"({ {k: v for k, v in st.items() if v} })")
            time.sleep(0.1)

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"quit\n")
                self.proc.stdin.flush()
            except OSError:
                pass
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        self.reader.join(10)
        shutil.rmtree(f"/var/run/dpdk/{self.prefix}", ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def refused_line(out):
    """The line of testpmd's output that says the command failed, or None.
    Counter lines (RX-errors: 0) and log lines of the driver, the shim and
    the software device (`mana: func(): ...`, `mana_vs: ...`, `mana_model:
    ...`), which may arrive while any command runs (e.g. the error
    completion of a frame over the MTU), are no answer to the command; nor
    is `set verbose` output of a frame that arrives meanwhile (its
    `ol_flags: ... RTE_MBUF_F_RX_L4_CKSUM_BAD ...` line)."""
    rx = re.compile(r"(?i)(error|fail|not supported|invalid|bad |cannot|refused)")
    verbose = re.compile(r"\s*(ol_flags:|src=|port \d+/queue \d+: (received|sent) )")
    for line in out.splitlines():
        if re.search(r"[\w-]+:\s*\d", line) or re.match(r"\s*(mana|mana_vs|mana_model): ", line):
            continue
        if verbose.match(line):
            continue
        if rx.search(line):
            return line.strip()
    return None


def refused(out):
    return refused_line(out) is not None


# ---- verbose output ----------------------------------------------------------

VERBOSE_RX = re.compile(
    r"port (\d+)/queue (\d+): received \d+ packets?\n(?P<body>(?:  .*\n)+)")


def verbose_packets(text):
    """Packets of testpmd's `set verbose 1` RX output: dicts with port, queue,
    src, dst, length, hash, rss_queue, vlan, ol_flags."""
    pkts = []
    for m in VERBOSE_RX.finditer(text):
        port, queue = int(m.group(1)), int(m.group(2))
        body = m.group("body")
        # One packet: a "src=" line, then its "ol_flags:" line.
        for pm in re.finditer(r"src=(\S+) - dst=(\S+)(.*)\n\s*ol_flags: ([^\n]*)", body):
            rest = pm.group(3)
            p = {"port": port, "queue": queue, "src": pm.group(1).lower(),
                 "dst": pm.group(2).lower(), "flags": pm.group(4).split()}
            lm = re.search(r"length=(\d+)", rest)
            p["length"] = int(lm.group(1)) if lm else None
            hm = re.search(r"RSS hash=(0x[0-9a-fA-F]+)", rest)
            p["hash"] = int(hm.group(1), 16) if hm else None
            qm = re.search(r"RSS queue=(0x[0-9a-fA-F]+)", rest)
            p["rss_queue"] = int(qm.group(1), 16) if qm else None
            vm = re.search(r"VLAN tci=(0x[0-9a-fA-F]+)", rest)
            p["vlan"] = int(vm.group(1), 16) if vm else None
            pkts.append(p)
    return pkts


# ---- running cases -------------------------------------------------------------

class Context:
    def __init__(self, suite, testpmd, testpmd_mana, pmd_dir):
        self.suite = suite
        self.testpmd = testpmd
        self.testpmd_mana = testpmd_mana
        self.pmd_dir = pmd_dir
        self.seq = 0
        self.taps = None
        self.wires = None

    def open(self):
        self.taps = Taps(self.suite[:3])
        self.wires = [Wire(n) for n in self.taps.names]

    def close(self):
        for w in self.wires or []:
            w.close()
        if self.taps:
            self.taps.remove()


def run_cases(ctx, cases):
    """Run each case; print one verdict line per case; the counts."""
    counts = {"PASS": 0, "FAIL": 0, "N/A": 0}
    for name, fn in cases:
        try:
            reason = fn(ctx) or "ok"
            verdict = "PASS"
        except CaseNA as e:
            verdict, reason = "N/A", str(e)
        except CaseFailed as e:
            verdict, reason = "FAIL", str(e)
        except Exception as e:	# a fault of the runner is a failure too
            verdict, reason = "FAIL", f"{type(e).__name__}: {e}"
        counts[verdict] += 1
        print(f"{verdict} {ctx.suite}/{name}: {reason}", flush=True)
    return counts
