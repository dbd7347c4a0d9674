#!/usr/bin/env python3
"""grafana_check.py — the Grafana dashboard's PromQL against a real Prometheus with known series
(tests/integration/grafana_dashboard.sh).

usage: grafana_check.py data OUT --start S --end E     an OpenMetrics file (30 s step) to backfill
       grafana_check.py check DASHBOARD URL --time T   every panel target, as an instant query at T

The data: two nodes, counters growing linearly so every rate() is exact:
  n1  Kepler v0.11.4, measured powercap paths: package 60 W, dram 10 W, core 30 W (inside
      package), active package 40 W, pods default/p1 24 W and default/p2 12 W; its BMC
      (ipmi_dcmi_power_consumption_watts) 80 W; wattcal serve beside it: wattcal_truth_watts
      80 W, the reference model kepler-0.11's gap (pod idle 20 W, unattributed 3 W, over 0 W;
      container idle 20 W, unattributed 2 W), pods p1 22 W and p2 13 W, exporter minus
      reference p1 +2 W, p2 -1 W.
  n2  Kepler v0.11.3, the fake meter's paths: package 50 W, dram 5 W, active 30 W, pod
      kube-system/p3 15 W; its BMC 70 W; no wattcal serve.
check: template variables become $node=.+ and $model=kepler-0.11; each target's result must equal
EXPECTED (every label set, every value within 1e-6 relative); a target without an expectation,
an expectation without a target, or a panel without a query fails. Stdlib only.
"""
import json
import sys
import urllib.parse
import urllib.request

STEP = 30
POW = 'path="/sys/class/powercap/intel-rapl:0"'
FAKE = 'path="/sys/class/powercap/intel-rapl/energy_%s"'

EXPECTED = {
    (1, "A"): {("n1",): 70, ("n2",): 55},
    (1, "B"): {("n1",): 80, ("n2",): 70},
    (1, "C"): {("n1",): 80},
    (2, "A"): {("n1",): -12.5, ("n2",): 100 * (55 - 70) / 70.0},
    (3, "A"): {("pod", "idle"): 20, ("pod", "unattributed"): 3, ("pod", "over"): 0,
               ("container", "idle"): 20, ("container", "unattributed"): 2},
    (4, "A"): {("n1", "package"): 10, ("n2", "package"): 50},
    (5, "A"): {("n1", "default", "p1"): 24, ("n1", "default", "p2"): 12, ("n2", "kube-system", "p3"): 15},
    (5, "B"): {("n1", "default", "p1"): 22, ("n1", "default", "p2"): 13},
    (5, "C"): {("n1", "default", "p1"): 2, ("n1", "default", "p2"): -1},
    (6, "A"): {("n1",): 1, ("n2",): 0},
    (7, "A"): {("n1", "v0.11.4"): 1, ("n2", "v0.11.3"): 1},
}
KEYS = {1: ("node_name",), 2: ("node_name",), 3: ("level", "kind"), 4: ("node_name", "zone"),
        5: ("node_name", "pod_namespace", "pod_name"), 6: ("node_name",), 7: ("node_name", "version")}


def data(out, start, end):
    times = range(start, end + 1, STEP)
    lines = []

    def counter(name, labels, watts):
        lines.append("# TYPE %s counter" % name)
        for lab in labels:
            lines.extend('%s_total{%s} %.3f %d' % (name, lab[0], lab[1] * (t - start), t) for t in times)

    def gauge(name, labels):
        lines.append("# TYPE %s gauge" % name)
        for lab in labels:
            lines.extend('%s{%s} %g %d' % (name, lab[0], lab[1], t) for t in times)

    k1, k2 = 'instance="k1:28282",job="kepler",node_name="n1"', 'instance="k2:28282",job="kepler",node_name="n2"'
    counter("kepler_node_cpu_joules", [
        ('%s,%s,zone="package"' % (k1, POW), 60), ('%s,path="/sys/class/powercap/intel-rapl:0:0",zone="dram"' % k1, 10),
        ('%s,path="/sys/class/powercap/intel-rapl:0:1",zone="core"' % k1, 30),
        ('%s,%s,zone="package"' % (k2, FAKE % "package"), 50), ('%s,%s,zone="dram"' % (k2, FAKE % "dram"), 5)], None)
    counter("kepler_node_cpu_active_joules", [('%s,%s,zone="package"' % (k1, POW), 40),
                                              ('%s,%s,zone="package"' % (k2, FAKE % "package"), 30)], None)
    pod = '%s,pod_id="%s",pod_name="%s",pod_namespace="%s",state="running",zone="package"'
    counter("kepler_pod_cpu_joules", [(pod % (k1, "u1", "p1", "default"), 24), (pod % (k1, "u2", "p2", "default"), 12),
                                      (pod % (k2, "u3", "p3", "kube-system"), 15)], None)
    gauge("kepler_build_info", [('instance="k1:28282",job="kepler",version="v0.11.4"', 1),
                                ('instance="k2:28282",job="kepler",version="v0.11.3"', 1)])
    gauge("ipmi_dcmi_power_consumption_watts", [('instance="b1:9290",job="ipmi",node_name="n1"', 80),
                                                ('instance="b2:9290",job="ipmi",node_name="n2"', 70)])
    w = 'instance="w1:9877",job="wattcal",node_name="n1"'
    gauge("wattcal_truth_watts", [('%s,kind="ipmi",provenance="ground_truth",source="ipmi:local"' % w, 80)])
    gap = '%s,kind="%s",level="%s",model="kepler-0.11",provenance="measured",zone="package"'
    counter("wattcal_attribution_gap_joules", [
        (gap % (w, "idle", "pod"), 20), (gap % (w, "unattributed", "pod"), 3), (gap % (w, "over", "pod"), 0),
        (gap % (w, "idle", "container"), 20), (gap % (w, "unattributed", "container"), 2),
        ((gap % (w, "unattributed", "pod")).replace("kepler-0.11", "ideal"), 99)], None)
    wp = '%s,model="%s",pod_id="%s",pod_name="%s",pod_namespace="default",provenance="measured",state="running",zone="package"'
    counter("wattcal_pod_cpu_joules", [(wp % (w, "kepler-0.11", "u1", "p1"), 22), (wp % (w, "kepler-0.11", "u2", "p2"), 13),
                                       (wp % (w, "ideal", "u1", "p1"), 50)], None)
    d = '%s,exporter="kepler:http://k1:28282/metrics",model="kepler-0.11",pod_id="%s",pod_name="%s",pod_namespace="default",provenance="measured",zone="package"'
    gauge("wattcal_exporter_pod_minus_reference_watts", [(d % (w, "u1", "p1"), 2), (d % (w, "u2", "p2"), -1)])
    lines.append("# EOF")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


def query(url, expr, t):
    q = urllib.parse.urlencode({"query": expr, "time": t})
    with urllib.request.urlopen("%s/api/v1/query?%s" % (url, q), timeout=20) as r:
        ans = json.load(r)
    if ans["status"] != "success" or ans["data"]["resultType"] != "vector":
        raise SystemExit("query failed: %s: %s" % (expr, ans))
    return ans["data"]["result"]


def check(dash_path, url, t):
    dash = json.load(open(dash_path))
    seen, bad = set(), []
    for p in dash["panels"]:
        if not p.get("targets"):
            bad.append("panel %s (%s) has no query" % (p["id"], p["title"]))
        for tg in p.get("targets", []):
            key = (p["id"], tg["refId"])
            seen.add(key)
            expr = tg["expr"].replace("$node", ".+").replace("$model", "kepler-0.11")
            if "$" in expr:
                bad.append("%s: an unknown variable in %s" % (key, expr))
                continue
            if key not in EXPECTED:
                bad.append("%s (%s): no expected values" % (key, p["title"]))
                continue
            got = {tuple(r["metric"].get(k, "") for k in KEYS[p["id"]]): float(r["value"][1])
                   for r in query(url, expr, t)}
            want = EXPECTED[key]
            if set(got) != set(want) or any(abs(got[k] - want[k]) > 1e-6 * max(1, abs(want[k])) for k in want):
                bad.append("%s (%s): got %s, expected %s" % (key, p["title"], got, want))
    bad += ["%s: expected values for a target the dashboard lacks" % (k,) for k in EXPECTED if k not in seen]
    if bad:
        raise SystemExit("\n".join(bad))
    print("grafana_check: %d panels, %d queries, every value as expected" % (len(dash["panels"]), len(seen)))


if __name__ == "__main__":
    if sys.argv[1] == "data":
        data(sys.argv[2], int(sys.argv[4]), int(sys.argv[6]))
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[5])
