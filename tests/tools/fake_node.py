#!/usr/bin/env python3
"""fake_node.py — a small Kubernetes node as a --procfs-root tree, animated.

A test helper (python3 standard library only) for runs that need pods: this
machine has none, and the project's fixture trees do not move. It writes
DIR/stat (the aggregate and per-CPU lines) and DIR/<pid>/{stat,cgroup,comm}
for a few host processes and PODS pods (one containerd container each, two
processes per container, cgroup v2 kubepods paths), and advances every
process's CPU time at a fixed rate, every 50 ms, by atomic renames. So
`wattcal record --meter sim --procfs-root DIR` records a node whose CPU use,
and hence the simulated power and the reference model's per-pod energy, is
known in advance and does not depend on what else runs on the machine.

Pod i (0-based) has uid aaaaaaaa-0000-4000-8000-00000000000<i>, container id
"c<i>" repeated to 64 hex digits, and burns (PODS - i) x 0.3 CPUs: pod 0 is
the top pod. With --end-pod-at S the last pod's processes exit at S seconds
(their directories vanish), as a finished Job's would.

Prints READY once the tree is complete; exits on SIGTERM/SIGINT or after
--max-seconds.
"""
import argparse
import os
import signal
import sys
import threading
import time

HZ = 100  # USER_HZ: /proc times are in 1/100 s


def uid(i):
    return "aaaaaaaa-0000-4000-8000-%012d" % i


def cid(i):
    return ("c%d" % i * 64)[:64]


class Proc:
    def __init__(self, pid, comm, rate, cgroup, start):
        self.pid, self.comm, self.rate, self.cgroup = pid, comm, rate, cgroup
        self.start = start        # starttime, ticks since boot
        self.utime = self.stime = 0.0


def build(pods):
    procs = [Proc(1, "systemd", 0.02, "0::/init.scope", 1),
             Proc(40, "kubelet", 0.1, "0::/system.slice/kubelet.service", 40)]
    pid = 1000
    for i in range(pods):
        u = uid(i).replace("-", "_")
        cg = ("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/"
              "cri-containerd-%s.scope" % (u, cid(i)))
        rate = (pods - i) * 0.3
        procs.append(Proc(pid, "app-%d" % i, rate * 2 / 3, cg, pid))
        procs.append(Proc(pid + 1, "sidecar-%d" % i, rate / 3, cg, pid + 1))
        pid += 10
    return procs


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def stat_line(p):
    return ("%d (%s) R 1 %d %d 0 -1 4194560 100 0 0 0 %d %d 0 0 20 0 1 0 %d 104857600 2500 "
            "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n"
            % (p.pid, p.comm, p.pid, p.pid, int(p.utime), int(p.stime), p.start))


def write_tree(root, procs, ncpus, elapsed, retired):
    # /proc/stat is cumulative: the CPU of exited processes stays counted
    busy_user = sum(p.utime for p in procs) + retired[0] + 1000
    busy_sys = sum(p.stime for p in procs) + retired[1] + 500
    total = ncpus * HZ * elapsed + 200000
    idle = max(0, total - busy_user - busy_sys)
    lines = ["cpu  %d 0 %d %d 0 0 0 0 0 0" % (busy_user, busy_sys, idle)]
    for c in range(ncpus):
        lines.append("cpu%d %d 0 %d %d 0 0 0 0 0 0" % (c, busy_user / ncpus, busy_sys / ncpus,
                                                      idle / ncpus))
    lines += ["intr 0", "ctxt 0", "btime 1700000000", "processes 100", "procs_running 1"]
    write(os.path.join(root, "stat"), "\n".join(lines) + "\n")
    for p in procs:
        d = os.path.join(root, str(p.pid))
        os.makedirs(d, exist_ok=True)
        write(os.path.join(d, "stat"), stat_line(p))
        if not os.path.exists(os.path.join(d, "cgroup")):
            write(os.path.join(d, "cgroup"), p.cgroup + "\n")
            write(os.path.join(d, "comm"), p.comm + "\n")


def remove(root, p):
    d = os.path.join(root, str(p.pid))
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    os.rmdir(d)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True, help="the tree to write (created)")
    ap.add_argument("--pods", type=int, default=3)
    ap.add_argument("--ncpus", type=int, default=4)
    ap.add_argument("--end-pod-at", type=float, help="seconds: the last pod's processes exit")
    ap.add_argument("--max-seconds", type=float, default=300)
    a = ap.parse_args()
    os.makedirs(a.root, exist_ok=True)
    procs = build(a.pods)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    t0 = time.monotonic()
    last = t0
    retired = [0.0, 0.0]
    write_tree(a.root, procs, a.ncpus, 0, retired)
    print("READY", flush=True)
    ended = False
    while not stop.wait(0.05):
        now = time.monotonic()
        if now - t0 > a.max_seconds:
            break
        for p in procs:
            p.utime += p.rate * 0.8 * HZ * (now - last)
            p.stime += p.rate * 0.2 * HZ * (now - last)
        last = now
        if a.end_pod_at is not None and not ended and now - t0 >= a.end_pod_at:
            ended = True
            gone = [p for p in procs if p.cgroup.find(uid(a.pods - 1).replace("-", "_")) >= 0]
            for p in gone:
                procs.remove(p)
                remove(a.root, p)
                retired[0] += p.utime
                retired[1] += p.stime
        write_tree(a.root, procs, a.ncpus, now - t0, retired)
    return 0


if __name__ == "__main__":
    sys.exit(main())
