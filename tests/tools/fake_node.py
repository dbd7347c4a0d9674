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
With --reuse-pid-at S two host processes share the comm "worker" (pid 60 at
0.1 CPU, pid 61 at 0.3 CPU); at S seconds pid 61 exits and a new "worker"
takes its pid (another starttime) at 0.2 CPU: a reused pid under the same
name, which only the start time (or the lifetime) tells apart.

With --sysfs-root SYS it also writes the cgroup v2 CPU accounting a kubelet
reads, SYS/fs/cgroup/<cgroup dir>/cpu.stat (usage_usec, user_usec,
system_usec), for every container scope and pod slice: each the exact CPU
of its processes (a pod's = its container's), the same CPU /proc shows, so
`wattcal record --sysfs-root SYS` records each pod's share of CPU as the
kernel accounts it (pod i: (PODS - i) / (PODS (PODS + 1) / 2) of the pods'
CPU). A finished pod's files are removed with its processes.

With --vms it adds three QEMU processes outside any container, with a
libvirt-style DIR/<pid>/cmdline (NUL-separated): VM "vm-a" (-uuid VM_A)
runs as pids 3000 (0.4 CPUs) and 3001 (0.2 CPUs), VM "vm-b" (-uuid VM_B)
as pid 3010 (0.3 CPUs); collector/procfs/cmdline.h detects them as kvm VMs.

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
VM_A = "11111111-2222-4333-8444-555555555555"
VM_B = "66666666-7777-4888-8999-aaaaaaaaaaaa"


def uid(i):
    return "aaaaaaaa-0000-4000-8000-%012d" % i


def cid(i):
    return ("c%d" % i * 64)[:64]


class Proc:
    def __init__(self, pid, comm, rate, cgroup, start):
        self.pid, self.comm, self.rate, self.cgroup = pid, comm, rate, cgroup
        self.start = start        # starttime, ticks since boot
        self.utime = self.stime = 0.0
        self.cmdline = None       # NUL-separated args, written once when set


def qemu(pid, rate, vm_uuid, name):
    p = Proc(pid, "qemu-system-x86", rate, "0::/system.slice/libvirtd.service", pid)
    args = ["/usr/bin/qemu-system-x86_64", "-name", "guest=%s,debug-threads=on" % name,
            "-uuid", vm_uuid, "-machine", "pc-q35-8.2,accel=kvm", "-m", "2048"]
    p.cmdline = "\0".join(args) + "\0"
    return p


def vm_procs():
    return [qemu(3000, 0.4, VM_A, "vm-a"), qemu(3001, 0.2, VM_A, "vm-a"),
            qemu(3010, 0.3, VM_B, "vm-b")]


WORKER_CG = "0::/system.slice/worker.service"


def build(pods, workers):
    procs = [Proc(1, "systemd", 0.02, "0::/init.scope", 1),
             Proc(40, "kubelet", 0.1, "0::/system.slice/kubelet.service", 40)]
    if workers:
        procs += [Proc(60, "worker", 0.1, WORKER_CG, 60), Proc(61, "worker", 0.3, WORKER_CG, 61)]
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
            if p.cmdline is not None:
                write(os.path.join(d, "cmdline"), p.cmdline)


def cgroup_dirs(p):
    """The container scope and pod slice of a pod process (None for host ones)."""
    path = p.cgroup.split("::", 1)[1]
    if "/kubepods" not in path:
        return []
    return [path, path.rsplit("/", 1)[0]]


def write_cgroups(sysroot, procs):
    usage = {}
    for p in procs:
        for d in cgroup_dirs(p):
            u = usage.setdefault(d, [0.0, 0.0])
            u[0] += p.utime
            u[1] += p.stime
    for d, (ut, st) in usage.items():
        full = os.path.join(sysroot, "fs/cgroup", d.lstrip("/"))
        os.makedirs(full, exist_ok=True)
        us, ss = int(ut * 1e6 / HZ), int(st * 1e6 / HZ)
        write(os.path.join(full, "cpu.stat"),
              "usage_usec %d\nuser_usec %d\nsystem_usec %d\nnr_periods 0\nnr_throttled 0\n"
              "throttled_usec 0\n" % (us + ss, us, ss))


def remove_cgroups(sysroot, p):
    for d in cgroup_dirs(p):
        full = os.path.join(sysroot, "fs/cgroup", d.lstrip("/"))
        if os.path.exists(os.path.join(full, "cpu.stat")):
            os.unlink(os.path.join(full, "cpu.stat"))


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
    ap.add_argument("--sysfs-root", help="also write cgroup v2 cpu.stat files below this root")
    ap.add_argument("--reuse-pid-at", type=float,
                    help="seconds: worker pid 61 exits and a new worker takes its pid")
    ap.add_argument("--vms", action="store_true", help="add two QEMU VMs (three processes)")
    a = ap.parse_args()
    os.makedirs(a.root, exist_ok=True)
    procs = build(a.pods, a.reuse_pid_at is not None) + (vm_procs() if a.vms else [])
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    t0 = time.monotonic()
    last = t0
    retired = [0.0, 0.0]
    write_tree(a.root, procs, a.ncpus, 0, retired)
    if a.sysfs_root:
        write_cgroups(a.sysfs_root, procs)
    print("READY", flush=True)
    ended = reused = False
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
                if a.sysfs_root:
                    remove_cgroups(a.sysfs_root, p)
                retired[0] += p.utime
                retired[1] += p.stime
        if a.reuse_pid_at is not None and not reused and now - t0 >= a.reuse_pid_at:
            reused = True
            old = [p for p in procs if p.pid == 61][0]
            procs.remove(old)
            remove(a.root, old)
            retired[0] += old.utime
            retired[1] += old.stime
            procs.append(Proc(61, "worker", 0.2, WORKER_CG, 61 + int(a.reuse_pid_at * HZ) + 1000))
        write_tree(a.root, procs, a.ncpus, now - t0, retired)
        if a.sysfs_root:
            write_cgroups(a.sysfs_root, procs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
