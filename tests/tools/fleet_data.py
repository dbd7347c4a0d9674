#!/usr/bin/env python3
"""fleet_data.py — an OpenMetrics file of a Kepler v0.10+ fleet with a known answer, for
`promtool tsdb create-blocks-from openmetrics` (tests/integration/fleet.sh, bench/bench_fleet.sh,
tests/integration/grafana_dashboard.sh).

usage: fleet_data.py OUT --start S --end E [--step 30] [--nodes N] [--first I] [--pods P] [--plant]

Every node i (named node-%04d, or a planted name) is scraped as job="kepler",
instance="10.<i/250>.<i%250>.1:28282" and exports, every STEP seconds from S to E (Unix seconds):
  kepler_node_cpu_joules_total{node_name,zone=package|dram,path}   a measured powercap path
      package W(t) = 50 + 2 * (i % 10) + 20 * ((t / STEP) % 8 < 4)   (a square load wave),
      dram 10 W; counters are the exact integrals (J)
  kepler_node_cpu_joules_total{zone="core"}   30 W, inside package: never summed
  kepler_node_cpu_active_joules_total{zone="package"}   60 % of package
  kepler_pod_cpu_joules_total{pod_name=pod-<i>-<k>,pod_namespace=ns-<k%3>,zone="package"}
      P pods sharing 95 % of the active package energy (k+1 parts each: pod P-1 the largest)
  kepler_build_info{version="v0.11.4"} 1, kepler_node_cpu_info{model_name} 1 (hardware profile:
      "Intel Xeon Gold 6338" for even i, "AMD EPYC 7763" for odd i)
  ipmi_dcmi_power_consumption_watts{node_name}   wall power = package + dram of the interval
      ending at t, times (1 + 0.01 * sin(k)) (a BMC within 1 %)
With --plant, four nodes replace the first four names (the test's known answer):
  bad-fake      the fake meter's path (/sys/class/powercap/intel-rapl/energy_<zone>): not measured
  bad-off20     its BMC reads 1.25 x the exporter: the exporter is 20 % BELOW the truth
  bad-upgrade   v0.11.3 on instance ...:28282 for the first half, then v0.11.4 on a new instance
  nobmc         no BMC series: unchecked, never passed
With --legacy, one more node "old-legacy" in Kepler <= 0.9's layout (scraped with honor_labels
false: the node in exported_instance, instance="10.250.0.1:9102"):
  kepler_node_{package,dram}_joules_total{exported_instance,mode=dynamic|idle,package="0",
      source="rapl"}   (measured: its source label), 40 / 10 W, half dynamic
--first I and --nodes N write nodes I .. I+N-1 (batches for a large fleet; --plant applies to
nodes 0..3 only). Stdlib only.
"""
import argparse
import math

HW = ("Intel Xeon Gold 6338", "AMD EPYC 7763")
PLANTED = ("bad-fake", "bad-off20", "bad-upgrade", "nobmc")


def node_name(i, plant):
    return PLANTED[i] if plant and i < len(PLANTED) else "node-%04d" % i


def write_node(f, i, a):
    name = node_name(i, a.plant)
    times = list(range(a.start, a.end + 1, a.step))
    inst = "10.%d.%d.1:28282" % (i // 250, i % 250)
    nl = 'node_name="%s"' % name
    fake = name == "bad-fake"
    pkg_path = "/sys/class/powercap/intel-rapl/energy_package" if fake else "/sys/class/powercap/intel-rapl:0"
    dram_path = "/sys/class/powercap/intel-rapl/energy_dram" if fake else "/sys/class/powercap/intel-rapl:0:0"
    core_path = "/sys/class/powercap/intel-rapl/energy_core" if fake else "/sys/class/powercap/intel-rapl:0:1"
    half = times[len(times) // 2]

    def inst_at(t):
        return "10.99.%d.2:28282" % (i % 250) if name == "bad-upgrade" and t >= half else inst

    def pkg_w(k):
        return 50.0 + 2 * (i % 10) + (20.0 if k % 8 < 4 else 0.0)

    def counter(metric, labels, watts):
        e = 0.0
        out = []
        for k, t in enumerate(times):
            if k:
                e += watts(k) * a.step
            out.append('%s{%s,instance="%s",job="kepler"} %.3f %d\n' % (metric, labels, inst_at(t), e, t))
        f.write("".join(out))

    f.write("# TYPE kepler_node_cpu_joules counter\n")
    counter("kepler_node_cpu_joules_total", '%s,path="%s",zone="package"' % (nl, pkg_path), pkg_w)
    counter("kepler_node_cpu_joules_total", '%s,path="%s",zone="dram"' % (nl, dram_path), lambda k: 10.0)
    counter("kepler_node_cpu_joules_total", '%s,path="%s",zone="core"' % (nl, core_path), lambda k: 30.0)
    f.write("# TYPE kepler_node_cpu_active_joules counter\n")
    counter("kepler_node_cpu_active_joules_total", '%s,path="%s",zone="package"' % (nl, pkg_path),
            lambda k: 0.6 * pkg_w(k))
    f.write("# TYPE kepler_pod_cpu_joules counter\n")
    parts = a.pods * (a.pods + 1) / 2.0
    for p in range(a.pods):
        lab = '%s,pod_id="uid-%d-%d",pod_name="pod-%d-%d",pod_namespace="ns-%d",state="running",zone="package"' % (
            nl, i, p, i, p, p % 3)
        counter("kepler_pod_cpu_joules_total", lab, lambda k, s=(p + 1) / parts: 0.95 * 0.6 * pkg_w(k) * s)
    f.write("# TYPE kepler_build_info gauge\n")
    for t in times:
        v = "v0.11.3" if name == "bad-upgrade" and t < half else "v0.11.4"
        f.write('kepler_build_info{arch="amd64",instance="%s",job="kepler",revision="r",version="%s"} 1 %d\n'
                % (inst_at(t), v, t))
    f.write("# TYPE kepler_node_cpu_info gauge\n")
    for t in times:
        f.write('kepler_node_cpu_info{instance="%s",job="kepler",model_name="%s",processor="0"} 1 %d\n'
                % (inst_at(t), HW[i % 2], t))
    if name == "nobmc":
        return
    scale = 1.25 if name == "bad-off20" else 1.0
    f.write("# TYPE ipmi_dcmi_power_consumption_watts gauge\n")
    out = []
    for k, t in enumerate(times):
        w = (pkg_w(k) + 10.0) * scale * (1 + 0.01 * math.sin(k)) if k else (pkg_w(1) + 10.0) * scale
        out.append('ipmi_dcmi_power_consumption_watts{instance="bmc-%d:9290",job="ipmi",%s} %.3f %d\n'
                   % (i, nl, w, t))
    f.write("".join(out))


def write_legacy(f, a):
    times = list(range(a.start, a.end + 1, a.step))
    for zone, watts in (("package", 40.0), ("dram", 10.0)):
        f.write("# TYPE kepler_node_%s_joules counter\n" % zone)
        for mode in ("dynamic", "idle"):
            f.write("".join('kepler_node_%s_joules_total{exported_instance="old-legacy",'
                            'instance="10.250.0.1:9102",job="kepler",mode="%s",package="0",'
                            'source="rapl"} %.3f %d\n' % (zone, mode, k * a.step * watts / 2, t)
                            for k, t in enumerate(times)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--start", type=int, required=True)
    p.add_argument("--end", type=int, required=True)
    p.add_argument("--step", type=int, default=30)
    p.add_argument("--nodes", type=int, default=8)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--pods", type=int, default=3)
    p.add_argument("--plant", action="store_true")
    p.add_argument("--legacy", action="store_true")
    a = p.parse_args()
    # OpenMetrics: a metric family's samples must be contiguous, so one family per node and
    # metric name would repeat a family; promtool accepts repeated TYPE lines per node batch only
    # when families are not interleaved: write each node's families, then the next node.
    with open(a.out, "w") as f:
        for i in range(a.first, a.first + a.nodes):
            write_node(f, i, a)
        if a.legacy:
            write_legacy(f, a)
        f.write("# EOF\n")


if __name__ == "__main__":
    main()
