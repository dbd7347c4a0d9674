#!/usr/bin/env python3
"""A static, large Kepler v0.11-style exposition on 127.0.0.1, for load tests.

Serves GET /metrics: one body built once at start with N pods (--series N),
each a kepler_pod_cpu_joules_total{pod_id="uid-i",...,zone="package"} series
whose value is i (a known answer: series i holds i), plus the node counter.
Every answer is the same body, so a test can count what was stored
(--empty: an empty 200 answer instead). Used by
tests/integration/exporter_big.sh to prove that a big scrape never delays
the recorder's sampler.

Python 3 standard library only. Prints PORT=n on stdout when listening.
Stops on SIGTERM/SIGINT, or after --max-seconds.
"""
import argparse
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def body(n, node):
    """The exposition: the node counter and n pod series (series i = i)."""
    out = ["# TYPE kepler_node_cpu_joules_total counter",
           'kepler_node_cpu_joules_total{node_name="%s",path="/sys/class/powercap/'
           'intel-rapl:0",zone="package"} 1000' % node,
           "# TYPE kepler_pod_cpu_joules_total counter"]
    for i in range(n):
        out.append('kepler_pod_cpu_joules_total{node_name="%s",pod_id="uid-%d",'
                   'pod_name="pod-%d",pod_namespace="ns-%d",zone="package"} %d'
                   % (node, i, i, i % 7, i))
    return ("\n".join(out) + "\n").encode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--series", type=int, default=50000)
    ap.add_argument("--node", default="big")
    ap.add_argument("--max-seconds", type=float, default=120)
    ap.add_argument("--empty", action="store_true", help="answer 200 with an empty body")
    a = ap.parse_args()
    data = b"" if a.empty else body(a.series, a.node)

    class H(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.split("?", 1)[0] != "/metrics":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    srv.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=srv.shutdown).start())
    timer = threading.Timer(a.max_seconds, srv.shutdown)
    timer.daemon = True
    timer.start()
    print("PORT=%d" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
