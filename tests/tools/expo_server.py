#!/usr/bin/env python3
"""A small Kepler v0.11-style exposition server on 127.0.0.1 with a known answer.

Serves GET /metrics (Prometheus text format 0.0.4) whose numbers are a pure
function of the seconds t since the server started, so a test can check what
a Prometheus scraping it (and `wattcal import --prometheus` reading that
Prometheus) holds:

  node NODE, zone package, path /sys/class/powercap/intel-rapl:0 (measured):
    kepler_node_cpu_joules_total = 50 t, _active_ = 30 t, _idle_ = 20 t,
    kepler_node_cpu_watts 50, _active_watts 30, _idle_watts 20,
    kepler_node_cpu_usage_ratio 0.4
  pods p0..p(N-1) (uid pod-uid-i, namespace ns-i mod 2), one container each
    (ctr-i), one process each (pid 1000+i): pod i gets share (i+1)/S of the
    active power, S = 1+2+..+N: kepler_{pod,container,process}_cpu_joules_total
    = 30 t (i+1)/S and _watts = 30 (i+1)/S
  kepler_build_info{version="test-static",revision="w3",...} 1,
    kepler_node_cpu_info{processor="0",...} 1 (no node_name, as Kepler does)
  a pod of ANOTHER node (node_name OTHER) that an import of NODE must leave out
  ipmi_dcmi_power_consumption_watts 120 (ground truth, ipmi_exporter's name)

With --layout legacy it serves Kepler <= 0.9's names instead (no node_name
label; the node is the instance label of the node series, which Prometheus
renames exported_instance): kepler_node_package_joules_total{instance=NODE,
mode="dynamic"|"idle",package="0"} = 30 t | 20 t, per pod i one container
(kepler_container_package_joules_total{container_id="lctr-i",pod_name=...,
container_namespace=..., mode="dynamic"}) and one process
(kepler_process_package_joules_total{pid=2000+i, command, container_id,
mode="dynamic"}) = 30 t (i+1)/S, and kepler_exporter_build_info.

Python 3 standard library only. Prints PORT=n on stdout when listening (and
writes it to --port-file). Stops on SIGTERM/SIGINT.
"""
import argparse
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PATH = "/sys/class/powercap/intel-rapl:0"


def legacy(node, pods, t):
    """The body at t seconds in Kepler <= 0.9's layout."""
    s = sum(range(1, pods + 1)) or 1
    out = ["# TYPE kepler_node_package_joules_total counter"]
    for mode, w in (("dynamic", 30.0), ("idle", 20.0)):
        out.append('kepler_node_package_joules_total{instance="%s",mode="%s",package="0",'
                   'source="rapl-sysfs"} %.6f' % (node, mode, w * t))
    out.append("# TYPE kepler_container_package_joules_total counter")
    for i in range(pods):
        out.append('kepler_container_package_joules_total{command="",container_id="lctr-%d",'
                   'container_name="c%d",container_namespace="ns-%d",mode="dynamic",'
                   'pod_name="lp%d"} %.6f' % (i, i, i % 2, i, 30.0 * (i + 1) / s * t))
    out.append("# TYPE kepler_process_package_joules_total counter")
    for i in range(pods):
        out.append('kepler_process_package_joules_total{command="lw%d",container_id="lctr-%d",'
                   'mode="dynamic",pid="%d",source="rapl-sysfs"} %.6f'
                   % (i, i, 2000 + i, 30.0 * (i + 1) / s * t))
    out.append("# TYPE kepler_exporter_build_info gauge")
    out.append('kepler_exporter_build_info{branch="",goversion="go1.20",revision="w3",'
               'version="0.7.11-test"} 1')
    return ("\n".join(out) + "\n").encode()


def exposition(node, other, pods, t):
    """The body at t seconds."""
    s = sum(range(1, pods + 1)) or 1
    out = []

    def fam(name, typ, help_text):
        out.append("# HELP %s %s" % (name, help_text))
        out.append("# TYPE %s %s" % (name, typ))

    nl = 'node_name="%s"' % node
    for q, w in (("", 50.0), ("active_", 30.0), ("idle_", 20.0)):
        fam("kepler_node_cpu_%sjoules_total" % q, "counter", "node energy")
        out.append('kepler_node_cpu_%sjoules_total{%s,path="%s",zone="package"} %.6f'
                   % (q, nl, PATH, w * t))
        fam("kepler_node_cpu_%swatts" % q, "gauge", "node power")
        out.append('kepler_node_cpu_%swatts{%s,path="%s",zone="package"} %.6f' % (q, nl, PATH, w))
    fam("kepler_node_cpu_usage_ratio", "gauge", "usage")
    out.append("kepler_node_cpu_usage_ratio{%s} 0.4" % nl)
    for level in ("pod", "container", "process"):
        fam("kepler_%s_cpu_joules_total" % level, "counter", level + " energy")
        fam("kepler_%s_cpu_watts" % level, "gauge", level + " power")
    for i in range(pods):
        w = 30.0 * (i + 1) / s
        ids = {
            "pod": 'pod_id="pod-uid-%d",pod_name="p%d",pod_namespace="ns-%d",state="running",'
                   'zone="package"' % (i, i, i % 2),
            "container": 'container_id="ctr-%d",container_name="c%d",pod_id="pod-uid-%d",'
                         'runtime="containerd",state="running",zone="package"' % (i, i, i),
            "process": 'comm="worker%d",container_id="ctr-%d",exe="/bin/w",pid="%d",'
                       'state="running",type="container",vm_id="",zone="package"'
                       % (i, i, 1000 + i),
        }
        for level, lab in ids.items():
            out.append("kepler_%s_cpu_joules_total{%s,%s} %.6f" % (level, lab, nl, w * t))
            out.append("kepler_%s_cpu_watts{%s,%s} %.6f" % (level, lab, nl, w))
    out.append('kepler_pod_cpu_joules_total{node_name="%s",pod_id="other-uid",pod_name="o",'
               'pod_namespace="x",state="running",zone="package"} %.6f' % (other, 7.0 * t))
    fam("kepler_build_info", "gauge", "build")
    out.append('kepler_build_info{arch="amd64",branch="test",goversion="go1.22",'
               'revision="w3",version="test-static"} 1')
    fam("kepler_node_cpu_info", "gauge", "cpu")
    out.append('kepler_node_cpu_info{core_id="0",model_name="Test CPU",physical_id="0",'
               'processor="0",vendor_id="GenuineIntel"} 1')
    fam("ipmi_dcmi_power_consumption_watts", "gauge", "BMC power")
    out.append("ipmi_dcmi_power_consumption_watts 120")
    return ("\n".join(out) + "\n").encode()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        cfg = self.server.cfg
        if self.path.split("?", 1)[0] != "/metrics":
            self.send_response(404)
            self.end_headers()
            return
        t = time.time() - cfg["t0"]
        body = (legacy(cfg["node"], cfg["pods"], t) if cfg["layout"] == "legacy"
                else exposition(cfg["node"], cfg["other"], cfg["pods"], t))
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0, help="0: a free port")
    ap.add_argument("--port-file", default="")
    ap.add_argument("--node", default="n1")
    ap.add_argument("--other-node", default="n2")
    ap.add_argument("--pods", type=int, default=3)
    ap.add_argument("--layout", choices=("v0.11", "legacy"), default="v0.11")
    args = ap.parse_args()
    httpd = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    httpd.daemon_threads = True
    httpd.cfg = {"node": args.node, "other": args.other_node, "pods": args.pods,
                 "layout": args.layout, "t0": time.time()}
    port = httpd.server_address[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w", encoding="utf-8") as f:
            f.write("%d\n" % port)
        os.replace(args.port_file + ".tmp", args.port_file)
    print("PORT=%d" % port, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=httpd.shutdown).start())
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
