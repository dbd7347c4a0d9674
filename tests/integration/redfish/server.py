#!/usr/bin/env python3
"""server.py — a loopback Redfish mockup server for tests/integration/redfish_http.sh.

Serves a mockup tree (DMTF layout: GET /redfish/v1/<path> -> <root>/<path>/index.json)
on 127.0.0.1 only, on a free port it writes to --port-file. Python 3 standard
library only.

Every request re-reads the JSON control file (--control), so the test changes
the answers without restarting the server:
  {"mode": "ok"}            serve the tree (default; also when the file is absent)
  {"mode": "401"}           answer 401 with a Redfish error body
  {"mode": "500"}           answer 500 with a Redfish error body
  {"mode": "stall", "stall_s": 10}
                            wait stall_s seconds, then serve (the client must time out)
  {"mode": "badjson"}       answer 200 with a truncated JSON document
  {"mode": "huge"}          answer 200 with a 5 MiB JSON document (Content-Length)
  {"mode": "hugechunked"}   the same, chunked (no length announced)
  "watts": W                replace EnvironmentMetrics PowerWatts.Reading and
                            PowerControl[0].PowerConsumedWatts by W (null -> null)
  "hide": [paths]           answer 404 for these service paths
With --user and --password-file, requests without the matching HTTP basic
credentials get 401. Each request's path is appended to --request-log.
"""
import argparse
import base64
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PREFIX = "/redfish/v1"


def load_control(path):
    """The control file as a dict ({} when absent or unreadable mid-write)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def error_body(code, message):
    return json.dumps({"error": {"code": code, "message": message}}).encode()


def substitute_watts(doc, watts):
    """Puts the test's power value into the readings this tool looks at."""
    pw = doc.get("PowerWatts")
    if isinstance(pw, dict):
        pw["Reading"] = watts
    pc = doc.get("PowerControl")
    if isinstance(pc, list) and pc and isinstance(pc[0], dict):
        pc[0]["PowerConsumedWatts"] = watts


class Handler(BaseHTTPRequestHandler):
    server_version = "wattcal-test-redfish/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: the request log says enough
        pass

    def send(self, status, body, ctype="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="redfish"')
        self.end_headers()
        self.wfile.write(body)

    def send_chunked(self, body, chunk=65536):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for i in range(0, len(body), chunk):
                part = body[i:i + chunk]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up at its size cap, as it should

    def authorised(self):
        cfg = self.server.cfg
        if not cfg["user"]:
            return True
        want = base64.b64encode(f'{cfg["user"]}:{cfg["password"]}'.encode()).decode()
        return self.headers.get("Authorization", "") == "Basic " + want

    def file_for(self, path):
        """The index.json serving a service path, or None (404)."""
        if path != PREFIX and not path.startswith(PREFIX + "/"):
            return None
        rel = path[len(PREFIX):].strip("/")
        parts = [p for p in rel.split("/") if p]
        if any(p in (".", "..") for p in parts):
            return None
        f = os.path.join(self.server.cfg["root"], *parts, "index.json")
        return f if os.path.isfile(f) else None

    def do_GET(self):
        cfg = self.server.cfg
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if cfg["request_log"]:
            with self.server.log_lock, open(cfg["request_log"], "a", encoding="utf-8") as log:
                log.write(path + "\n")
        ctl = load_control(cfg["control"])
        mode = str(ctl.get("mode", "ok"))
        if mode == "stall":
            time.sleep(float(ctl.get("stall_s", 10)))
        if mode == "401" or not self.authorised():
            return self.send(401, error_body("Base.1.0.GeneralError", "Authentication failed"))
        if mode == "500":
            return self.send(500, error_body("Base.1.0.InternalError", "Injected server error"))
        norm = path.rstrip("/") or "/"
        f = None if norm in ctl.get("hide", []) else self.file_for(norm)
        if f is None:
            return self.send(404, error_body("Base.1.0.ResourceNotFound", "Not found: " + norm))
        if mode == "huge":
            pad = b" " * (5 * 1024 * 1024)
            return self.send(200, b'{"Pad": "' + pad + b'"}')
        if mode == "hugechunked":
            return self.send_chunked(b'{"Pad": "' + b" " * (5 * 1024 * 1024) + b'"}')
        if mode == "badjson":
            return self.send(200, b'{\n  "@odata.id": "' + norm.encode() + b'",\n  "Power')
        with open(f, encoding="utf-8") as fh:
            doc = json.load(fh)
        if "watts" in ctl:
            substitute_watts(doc, ctl["watts"])
        return self.send(200, json.dumps(doc, indent=1).encode())

    def do_POST(self):
        self.send(405, error_body("Base.1.0.ActionNotSupported", "read-only test server"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True, help="directory playing /redfish/v1")
    ap.add_argument("--control", required=True, help="JSON control file, re-read per request")
    ap.add_argument("--port-file", required=True, help="where the chosen port is written")
    ap.add_argument("--user", default="")
    ap.add_argument("--password-file", default="")
    ap.add_argument("--request-log", default="")
    args = ap.parse_args()
    password = ""
    if args.password_file:
        with open(args.password_file, encoding="utf-8") as f:
            password = f.readline().rstrip("\r\n")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.cfg = {"root": args.root, "control": args.control, "user": args.user,
                 "password": password, "request_log": args.request_log}
    httpd.log_lock = threading.Lock()
    tmp = args.port_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(str(httpd.server_address[1]) + "\n")
    os.rename(tmp, args.port_file)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
