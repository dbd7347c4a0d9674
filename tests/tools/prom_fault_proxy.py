#!/usr/bin/env python3
"""A fault-injecting HTTP proxy in front of a Prometheus server, on 127.0.0.1.

Forwards every GET to --upstream and logs each request (one line: the path
and query string as received) to --request-log. A JSON control file, re-read
per request, plants faults:

  {"mode": "ok"}        forward as is (the default; also when the file is absent)
  {"mode": "500"}       HTTP 500 with a Prometheus-style error body
  {"mode": "500text"}   HTTP 500 with a plain-text body (a broken gateway)
  {"mode": "hang", "hang_s": 10}   say nothing for hang_s seconds, then forward
  {"mode": "empty"}     a successful answer with an empty result
  {"mode": "badjson"}   HTTP 200 with a body cut in the middle
  {"token": "T"}        any mode: answer 401 unless "Authorization: Bearer T"

"paths": ["/api/v1/query_range", ...] limits the fault (not the token) to
requests of those paths; "match": "S" to requests whose decoded query string
contains S (e.g. one node's name: only that node's queries fail). Python 3 standard library only. Prints PORT=n on
stdout when listening (and writes it to --port-file).
"""
import argparse
import json
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def load_control(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, ctype="application/json"):
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout)

    def forward(self):
        url = self.server.cfg["upstream"] + self.path
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                return self.send(r.status, r.read(), r.headers.get("Content-Type", ""))
        except urllib.error.HTTPError as e:
            return self.send(e.code, e.read(), e.headers.get("Content-Type", ""))

    def do_GET(self):
        cfg = self.server.cfg
        with self.server.log_lock, open(cfg["log"], "a", encoding="utf-8") as log:
            log.write(self.path + "\n")
        ctl = load_control(cfg["control"])
        token = ctl.get("token")
        if token and self.headers.get("Authorization", "") != "Bearer " + token:
            return self.send(401, b"Unauthorized\n", "text/plain")
        path = self.path.split("?", 1)[0]
        mode = ctl.get("mode", "ok")
        if ctl.get("paths") and path not in ctl["paths"]:
            mode = "ok"
        query = urllib.parse.unquote_plus(self.path.split("?", 1)[1] if "?" in self.path else "")
        if ctl.get("match") and ctl["match"] not in query:
            mode = "ok"
        if mode == "500":
            return self.send(500, json.dumps({"status": "error", "errorType": "internal",
                                              "error": "injected server error"}).encode())
        if mode == "500text":
            return self.send(500, b"upstream connect error\n", "text/plain")
        if mode == "hang":
            time.sleep(float(ctl.get("hang_s", 10)))
        if mode == "empty":
            data = [] if path == "/api/v1/series" else {"resultType": "matrix", "result": []}
            return self.send(200, json.dumps({"status": "success", "data": data}).encode())
        if mode == "badjson":
            return self.send(200, b'{"status":"success","data":{"resultType":"matrix","resu')
        return self.forward()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--upstream", required=True, help="http://127.0.0.1:PORT")
    ap.add_argument("--control", required=True)
    ap.add_argument("--request-log", required=True)
    ap.add_argument("--port-file", default="")
    args = ap.parse_args()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.cfg = {"upstream": args.upstream.rstrip("/"), "control": args.control,
                 "log": args.request_log}
    httpd.log_lock = threading.Lock()
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
