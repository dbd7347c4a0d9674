#!/usr/bin/env python3
"""replay_exporter.py — a Kepler v0.11 /metrics REPLAYED from a wattcal run.

A test helper (python3 standard library only). It serves, on 127.0.0.1, the
reference-model rows (node_attr, work_attr; kepler-0.11 by default) of a
wattcal run database as Kepler v0.10+/v0.11 would export them: node zone
counters (total, active, idle joules; watts), the usage ratio, process,
container and pod series with Kepler's labels, and kepler_build_info with
version="replay" (never a real release: wattcal labels what it scrapes from
here "replay of kepler-0.11 rows", see collector/exporter/exporter_table.c).
Its numbers are therefore a known answer: the exporter equals the reference
model except for the faults planted on purpose.

Run database: the run being recorded (SQLite in WAL mode is read while
`wattcal record` writes it; each request opens and closes its own read-only
connection, so the recorder can still leave WAL mode at its end), or a
finished run replayed at its own pace from the start (--from-start).

How the numbers are made (docs/kepler-model.md §4):
  node    kepler_node_cpu_joules_total = the raw counter, i.e. (active total
          + idle total) modulo the zone's range (the sum of the sockets'
          ranges for an aggregated zone, path "aggregated-<zone>"); active
          and idle totals and the watts of the last interval from node_attr;
          kepler_node_cpu_usage_ratio from node_attr.ratio.
  work    one series per running process (proc_sample of the tick), container
          and pod, per zone: a work_attr row gives its total and watts; no row
          means the total is unchanged and 0 W (how the store keeps rows).
          Pod name and namespace are invented from the uid ("pod-<uid8>",
          "replay"; wattcal records neither), container names "ctr-<id8>".
  truth   with --truth-gauge, ipmi_exporter's ipmi_dcmi_power_consumption_watts
          from the run's latest ok truth sample.
One refresh per recorded tick; a scrape exports the state of the newest tick
(with --refresh-every S, as Kepler's monitor.interval: a scrape refreshes only
when the last refresh is S seconds old or more, else it serves the same numbers).

Planted faults (each optional):
  --over-pod UID|top --over-pct P  one pod's series (joules and watts) over-
          reported by P % (default 20); "top" picks the pod with the largest
          energy when pods first have energy, printed as OVER_POD=<uid>.
          Only the pod's own series: its containers and processes stay right.
  --restart-at S    at S seconds of the run, every counter starts again from 0
          (an exporter restart): each series then exports value - value at S.
  --fake-path       node series carry Kepler's fake meter path
          (/sys/class/powercap/intel-rapl/energy_<zone>): "not measured".
          This is the DEFAULT when the replayed run's meter was not measured
          (its run row's provenance is not "measured", or any zone's is not):
          a replay of a simulated run never serves powercap-looking paths, so
          wattcal can never count it "measured". --meter-paths serves the
          run's own meter paths, and is refused (exit 2) unless the run was
          measured.
  --terminated      a process, container or pod whose processes ended is
          exported once with state="terminated" (its last total and last
          non-zero watts), then dropped at the next refresh after that export
          (Kepler's tracker, no energy threshold); without it, it just vanishes
          (maxTerminated: 0).
  --fail KIND:N[,N-M...]  on those request numbers (1 = the first GET
          /metrics): 500 (HTTP 500), hang (no answer for --hang-seconds, then
          the connection closes), garbage (HTTP 200 with bytes that are no
          exposition), truncate (HTTP 200 with the exposition cut mid-line).
          Repeatable.

Prints PORT=n on stdout once listening (--port 0: a free port), then
OVER_POD=<uid> when chosen. Exits on SIGTERM/SIGINT, or after --max-seconds.
--log FILE appends "N KIND SERIES" per request (KIND ok or the fault).
"""
import argparse
import http.server
import os
import signal
import socketserver
import sqlite3
import sys
import threading
import time

CT_TEXT = "text/plain; version=0.0.4; charset=utf-8"
FAULTS = ("500", "hang", "garbage", "truncate")
TERMINATED_FLAG = "terminated"

HELP = {
    "kepler_build_info": ("gauge", "A metric with a constant '1' value labeled with version information"),
    "kepler_node_cpu_joules_total": ("counter", "Energy consumption of cpu at node level in joules"),
    "kepler_node_cpu_active_joules_total": ("counter", "Energy consumption of cpu in active state at node level in joules"),
    "kepler_node_cpu_idle_joules_total": ("counter", "Energy consumption of cpu in idle state at node level in joules"),
    "kepler_node_cpu_watts": ("gauge", "Power consumption of cpu at node level in watts"),
    "kepler_node_cpu_active_watts": ("gauge", "Power consumption of cpu in active state at node level in watts"),
    "kepler_node_cpu_idle_watts": ("gauge", "Power consumption of cpu in idle state at node level in watts"),
    "kepler_node_cpu_usage_ratio": ("gauge", "CPU usage ratio of a node (value between 0.0 and 1.0)"),
    "kepler_process_cpu_joules_total": ("counter", "Energy consumption of cpu at process level in joules"),
    "kepler_process_cpu_watts": ("gauge", "Power consumption of cpu at process level in watts"),
    "kepler_process_cpu_seconds_total": ("counter", "Total user and system time of cpu at process level in seconds"),
    "kepler_container_cpu_joules_total": ("counter", "Energy consumption of cpu at container level in joules"),
    "kepler_container_cpu_watts": ("gauge", "Power consumption of cpu at container level in watts"),
    "kepler_pod_cpu_joules_total": ("counter", "Energy consumption of cpu at pod level in joules"),
    "kepler_pod_cpu_watts": ("gauge", "Power consumption of cpu at pod level in watts"),
    "ipmi_dcmi_power_consumption_watts": ("gauge", "Current power consumption in Watts."),
}


def escape(v):
    return str(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def fmt_labels(labels):
    return "{" + ",".join('%s="%s"' % (k, escape(v)) for k, v in sorted(labels.items())) + "}"


def u64(v):
    """A raw unsigned value the store kept as a signed INTEGER (bits unchanged)."""
    if v is None:
        return 0
    if isinstance(v, int) and v < 0:
        return v + (1 << 64)
    return v


class Workload:
    """One process, container or pod as the exporter holds it."""

    def __init__(self, labels):
        self.labels = labels          # identity labels (no zone, no state)
        self.total = {}               # zone -> µJ (exporter's running total)
        self.watts = {}               # zone -> µW of the last refresh
        self.last_watts = {}          # zone -> last non-zero µW (terminated export)
        self.cpu_s = None             # processes: cumulative CPU seconds
        self.state = "running"
        self.exported = False


class Replay:
    """The exporter's state, refreshed from the run at each request."""

    def __init__(self, args):
        self.a = args
        self.lock = threading.Lock()
        self.start = time.monotonic()
        self.static = None            # run row, model id, zones: read once present
        self.last_tick = 0
        self.first_mono = None
        self.node = {}                # zone -> dict(total, active, idle, w, aw, iw)
        self.ratio = 0.0
        self.procs, self.conts, self.pods = {}, {}, {}
        self.terminated = []          # (level, key, Workload)
        self.truth_w = None
        self.base = {}                # restart: series key -> value at the restart
        self.restarted = False
        self.over_pod = args.over_pod if args.over_pod not in (None, "top") else None
        self.requests = 0
        self.last_refresh = None      # --refresh-every: monotonic time of the last refresh

    # ---- reading the run ------------------------------------------------
    def connect(self):
        if not os.path.exists(self.a.db):
            return None
        db = sqlite3.connect("file:%s?mode=ro" % self.a.db, uri=True, timeout=5)
        db.execute("PRAGMA busy_timeout=5000")
        return db

    def load_static(self, db):
        run = db.execute("SELECT host, started_mono_ns, provenance FROM run WHERE id=1").fetchone()
        model = db.execute("SELECT id FROM model WHERE name=?", (self.a.model,)).fetchone()
        if not run or not model:
            return False
        zones = {}
        measured = run[2] == "measured"
        for zid, name, path, rng, prov in db.execute(
                "SELECT id, name, path, max_energy_range_uj, provenance FROM zone ORDER BY id"):
            measured = measured and prov == "measured"
            z = zones.setdefault(name, {"ids": [], "paths": [], "range": 0})
            z["ids"].append(zid)
            z["paths"].append(path or "")
            z["range"] += u64(rng)
        self.static = {"host": run[0], "start": run[1], "model": model[0], "zones": zones,
                       "fake": self.a.fake_path or not measured}
        return True

    def zone_path(self, zone):
        if self.static["fake"]:
            return "/sys/class/powercap/intel-rapl/energy_%s" % zone
        z = self.static["zones"].get(zone)
        if not z or len(z["ids"]) > 1:
            return "aggregated-%s" % zone
        p = z["paths"][0]
        i = p.find("/class/powercap/")
        return "/sys" + p[i:] if i >= 0 else p

    def refresh(self, db):
        """Applies every tick not yet seen (up to the replay's clock)."""
        if self.static is None and not self.load_static(db):
            return
        rows = db.execute("SELECT id, mono_ns FROM tick WHERE id > ? ORDER BY id",
                          (self.last_tick,)).fetchall()
        for tick_id, mono in rows:
            if self.first_mono is None:
                self.first_mono = mono
            if self.a.from_start and (mono - self.first_mono) / 1e9 > \
                    (time.monotonic() - self.start) * self.a.speed:
                break
            self.apply_tick(db, tick_id, mono)
            self.last_tick = tick_id

    def apply_tick(self, db, tick_id, mono):
        model = self.static["model"]
        self.terminated = [t for t in self.terminated if not t[2].exported]
        for zone, w, aw, iw, ratio, at, it in db.execute(
                "SELECT zone, power_uw, active_uw, idle_uw, ratio, active_total_uj,"
                " idle_total_uj FROM node_attr WHERE model_id=? AND tick_id=?", (model, tick_id)):
            rng = self.static["zones"].get(zone, {}).get("range", 0)
            tot = u64(at) + u64(it)
            self.node[zone] = {"total": tot % rng if rng else tot, "active": u64(at),
                               "idle": u64(it), "w": w or 0.0, "aw": aw or 0.0, "iw": iw or 0.0}
            self.ratio = ratio or 0.0
        running = self.running(db, tick_id)
        rows = db.execute("SELECT level, process_id, key, zone, total_uj, power_uw FROM work_attr"
                          " WHERE model_id=? AND tick_id=?", (model, tick_id)).fetchall()
        self.apply_rows(rows)
        self.truth(db, mono)
        self.pick_over_pod()
        if self.a.restart_at is not None and not self.restarted and \
                (mono - self.static["start"]) / 1e9 >= self.a.restart_at:
            self.restart()

    def live_processes(self, db, tick_id):
        """Every process alive at the tick with its cumulative CPU. A keyframe
        tick lists them all; a delta tick (tick.proc_delta = 1, docs/schema.md)
        only the changed and new ones: the others carry their last values
        until their process.last_tick_id has passed."""
        if not hasattr(self, "live"):
            self.live = {}
            cols = [r[1] for r in db.execute("PRAGMA table_info(tick)")]
            self.has_delta = "proc_delta" in cols
        delta = self.has_delta and db.execute(
            "SELECT proc_delta FROM tick WHERE id=?", (tick_id,)).fetchone()[0] == 1
        if not delta:
            self.live = {}
        else:
            for (gone,) in db.execute("SELECT id FROM process WHERE last_tick_id IS NOT NULL"
                                      " AND last_tick_id < ?", (tick_id,)):
                self.live.pop(gone, None)
        for row in db.execute(
                "SELECT p.id, p.pid, p.comm, p.exe, p.container_id, p.pod_uid, p.runtime,"
                " p.runtime_monitor, s.utime + s.stime FROM proc_sample s"
                " JOIN process p ON p.id = s.process_id WHERE s.tick_id=?", (tick_id,)):
            self.live[row[0]] = row[1:]
        return self.live

    def running(self, db, tick_id):
        """The running processes, containers and pods of the tick; the vanished
        ones become terminated (--terminated) or are dropped."""
        seen_p, seen_c, seen_pod = set(), set(), set()
        for pid_row, (pid, comm, exe, cid, uid, runtime, mon, cpu) in \
                self.live_processes(db, tick_id).items():
            cid = "" if mon else (cid or "")
            uid = uid or ""
            w = self.procs.get(pid_row)
            if w is None:
                w = self.procs[pid_row] = Workload({
                    "pid": str(pid), "comm": comm or "", "exe": exe or "",
                    "type": "container" if cid else "regular", "container_id": cid, "vm_id": ""})
            w.cpu_s = u64(cpu) / 100.0
            seen_p.add(pid_row)
            if cid:
                seen_c.add(cid)
                if cid not in self.conts:
                    self.conts[cid] = Workload({
                        "container_id": cid, "container_name": "ctr-" + cid[:8],
                        "runtime": runtime or "unknown", "pod_id": uid})
            if uid:
                seen_pod.add(uid)
                if uid not in self.pods:
                    self.pods[uid] = Workload({"pod_id": uid, "pod_name": "pod-" + uid[:8],
                                               "pod_namespace": "replay"})
        for level, table, seen in (("process", self.procs, seen_p),
                                   ("container", self.conts, seen_c), ("pod", self.pods, seen_pod)):
            for key in [k for k in table if k not in seen]:
                w = table.pop(key)
                if self.a.terminated:
                    w.state = TERMINATED_FLAG
                    w.watts = dict(w.last_watts)
                    self.terminated.append((level, key, w))

    def apply_rows(self, rows):
        for w in list(self.procs.values()) + list(self.conts.values()) + list(self.pods.values()):
            w.watts = {}
        for level, proc_id, key, zone, total, power in rows:
            table = {1: self.procs, 2: self.conts, 3: self.pods}.get(level)
            w = table.get(proc_id if level == 1 else key) if table is not None else None
            if w is None:
                continue
            w.total[zone] = u64(total) if isinstance(total, int) else total
            w.watts[zone] = power or 0.0
            if power:
                w.last_watts[zone] = power

    def truth(self, db, mono):
        if not self.a.truth_gauge:
            return
        row = db.execute("SELECT watts FROM truth_sample WHERE status IN ('ok','stale')"
                         " AND watts IS NOT NULL AND poll_mono_ns <= ?"
                         " ORDER BY poll_mono_ns DESC LIMIT 1", (mono,)).fetchone()
        if row:
            self.truth_w = row[0]

    def pick_over_pod(self):
        if self.a.over_pod != "top" or self.over_pod is not None:
            return
        best = max(self.pods.items(), key=lambda kv: sum(kv[1].total.values()), default=None)
        if best and sum(best[1].total.values()) > 0:
            self.over_pod = best[0]
            print("OVER_POD=%s" % best[0], flush=True)

    def restart(self):
        """Every counter starts again from 0: remember each series' value now."""
        self.restarted = True
        self.terminated = []
        for zone, n in self.node.items():
            for q in ("total", "active", "idle"):
                self.base[("node", zone, q)] = n[q]
        for level, table in (("process", self.procs), ("container", self.conts),
                             ("pod", self.pods)):
            for key, w in table.items():
                for zone, v in w.total.items():
                    self.base[(level, key, zone)] = self.scaled(level, key, v)
                if w.cpu_s is not None:
                    self.base[(level, key, "cpu_s")] = w.cpu_s

    # ---- the exposition ---------------------------------------------------
    def scaled(self, level, key, v):
        if level == "pod" and key == self.over_pod:
            return v * (1 + self.a.over_pct / 100.0)
        return v

    def counter(self, skey, v):
        """A counter's exported value after a restart (0-based from it)."""
        b = self.base.get(skey)
        if b is None:
            return v
        if v >= b:
            return v - b
        self.base[skey] = 0  # it fell below the base: a reset of its own
        return v

    def render(self):
        out = {}

        def add(metric, labels, value):
            out.setdefault(metric, []).append("%s%s %s" % (metric, fmt_labels(labels),
                                                           repr(float(value))))

        add("kepler_build_info", {"arch": "amd64", "branch": "wattcal-replay",
                                  "goversion": "none", "revision": self.a.model,
                                  "version": "replay"}, 1)
        node = self.a.node or (self.static["host"] if self.static else "replay")
        if self.static:
            self.render_node(add, node)
            self.render_work(add, node)
        if self.a.truth_gauge and self.truth_w is not None:
            out.setdefault("ipmi_dcmi_power_consumption_watts", []).append(
                "ipmi_dcmi_power_consumption_watts %s" % repr(float(self.truth_w)))
        text = []
        for metric, lines in out.items():
            kind, helptext = HELP[metric]
            text.append("# HELP %s %s" % (metric, helptext))
            text.append("# TYPE %s %s" % (metric, kind))
            text.extend(lines)
        return "\n".join(text) + "\n", sum(len(v) for v in out.values())

    def render_node(self, add, node):
        for zone in sorted(self.node):
            n = self.node[zone]
            lab = {"node_name": node, "path": self.zone_path(zone), "zone": zone}
            for q, metric in (("total", "kepler_node_cpu_joules_total"),
                              ("active", "kepler_node_cpu_active_joules_total"),
                              ("idle", "kepler_node_cpu_idle_joules_total")):
                add(metric, lab, self.counter(("node", zone, q), n[q]) / 1e6)
            add("kepler_node_cpu_watts", lab, n["w"] / 1e6)
            add("kepler_node_cpu_active_watts", lab, n["aw"] / 1e6)
            add("kepler_node_cpu_idle_watts", lab, n["iw"] / 1e6)
        if self.node:
            add("kepler_node_cpu_usage_ratio", {"node_name": node}, self.ratio)

    def render_work(self, add, node):
        items = [("process", k, w) for k, w in self.procs.items()]
        items += [("container", k, w) for k, w in self.conts.items()]
        items += [("pod", k, w) for k, w in self.pods.items()]
        items += self.terminated
        zones = sorted(self.node)
        for level, key, w in items:
            base = dict(w.labels, node_name=node)
            for zone in zones:
                lab = dict(base, state=w.state, zone=zone)
                v = self.scaled(level, key, w.total.get(zone, 0))
                add("kepler_%s_cpu_joules_total" % level, lab,
                    self.counter((level, key, zone), v) / 1e6)
                add("kepler_%s_cpu_watts" % level, lab,
                    self.scaled(level, key, w.watts.get(zone, 0.0)) / 1e6)
            if level == "process" and w.cpu_s is not None:
                add("kepler_process_cpu_seconds_total", base,
                    self.counter((level, key, "cpu_s"), w.cpu_s))
            if w.state == TERMINATED_FLAG:
                w.exported = True

    def exposition(self):
        with self.lock:
            db = self.connect()
            try:
                now = time.monotonic()
                due = self.a.refresh_every <= 0 or self.last_refresh is None or \
                    now - self.last_refresh >= self.a.refresh_every
                if db is not None and due:
                    self.refresh(db)
                    self.last_refresh = now if self.static is not None else None
            finally:
                if db is not None:
                    db.close()
            return self.render()


def parse_fail(specs):
    plan = {}
    for spec in specs or []:
        kind, _, nums = spec.partition(":")
        if kind not in FAULTS or not nums:
            raise SystemExit("replay_exporter: --fail %s: KIND:N[,N-M] with KIND one of %s"
                             % (spec, ", ".join(FAULTS)))
        for part in nums.split(","):
            lo, _, hi = part.partition("-")
            for n in range(int(lo), int(hi or lo) + 1):
                plan[n] = kind
    return plan


def make_handler(replay, plan, args):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def send(self, code, body, ctype=CT_TEXT):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path.split("?")[0] != "/metrics":
                return self.send(404, b"not found: try /metrics\n")
            with replay.lock:
                replay.requests += 1
                n = replay.requests
            kind = plan.get(n, "ok")
            series = 0
            if kind == "hang":
                log(args, n, kind, 0)
                time.sleep(args.hang_seconds)
                self.close_connection = True
                return
            if kind == "500":
                self.send(500, b"replay exporter: planted HTTP 500 on request %d\n" % n)
            elif kind == "garbage":
                self.send(200, b"\x00\x01\x02 {{{ this is not an exposition }}}\n\xff\xfe\n")
            else:
                text, series = replay.exposition()
                body = text.encode()
                if kind == "truncate":
                    cut = len(body) * 3 // 5
                    while cut > 1 and body[cut - 1:cut] == b"\n":
                        cut -= 1
                    body = body[:cut]
                self.send(200, body)
            log(args, n, kind, series)
    return Handler


def log(args, n, kind, series):
    if args.log:
        with open(args.log, "a") as f:
            f.write("%d %s %d\n" % (n, kind, series))


def run_measured(path):
    """True when the finished run at path was measured (run row and every zone)."""
    if not os.path.exists(path):
        return False
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=5)
    try:
        run = db.execute("SELECT provenance FROM run WHERE id=1").fetchone()
        bad = db.execute("SELECT COUNT(*) FROM zone WHERE provenance IS NOT 'measured'").fetchone()
        return bool(run) and run[0] == "measured" and bad[0] == 0
    finally:
        db.close()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # a client that hangs up (a scraper's timeout) is no error of ours


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--db", required=True, help="the wattcal run database (may be recording)")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    p.add_argument("--model", default="kepler-0.11", help="reference model whose rows to serve")
    p.add_argument("--node", help="node_name label (default: the run's host)")
    p.add_argument("--from-start", action="store_true",
                   help="replay a finished run from its first tick at its own pace")
    p.add_argument("--speed", type=float, default=1.0, help="with --from-start: pace factor")
    p.add_argument("--refresh-every", type=float, default=0.0,
                   help="seconds between refreshes (Kepler's monitor.interval; 0: every scrape)")
    p.add_argument("--max-seconds", type=float, default=600, help="exit after this long")
    p.add_argument("--over-pod", help="UID or top: that pod's series over-reported")
    p.add_argument("--over-pct", type=float, default=20.0, help="by this percentage")
    p.add_argument("--restart-at", type=float, help="run seconds at which counters restart")
    p.add_argument("--fake-path", action="store_true",
                   help="fake-meter path labels (the default for a run not measured)")
    p.add_argument("--meter-paths", action="store_true",
                   help="the run's own meter paths (refused unless the run was measured)")
    p.add_argument("--terminated", action="store_true",
                   help="export ended workloads once with state terminated")
    p.add_argument("--fail", action="append", help="KIND:N[,N-M]: 500, hang, garbage, truncate")
    p.add_argument("--hang-seconds", type=float, default=30.0, help="how long a hang lasts")
    p.add_argument("--truth-gauge", action="store_true",
                   help="also ipmi_dcmi_power_consumption_watts from the run's truth")
    p.add_argument("--log", help="append one line per request to this file")
    args = p.parse_args()
    plan = parse_fail(args.fail)
    if args.meter_paths and not run_measured(args.db):
        sys.stderr.write("replay_exporter: --meter-paths refused: %s holds no run whose meter "
                         "was measured (run and zone provenance)\n" % args.db)
        return 2
    replay = Replay(args)
    srv = Server(("127.0.0.1", args.port), make_handler(replay, plan, args))
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    print("PORT=%d" % srv.server_address[1], flush=True)
    stop.wait(args.max_seconds)
    srv.shutdown()
    srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
