# Sourced by tests that need a real Prometheus server (after lib/common.sh:
# uses $T, fail, skip). Debian's `prometheus` package (scripts/install-deps.sh;
# promtool comes with it), found on PATH or as $PROMETHEUS_BIN / $PROMTOOL_BIN.
#
#   prom_require                 skip (77) unless prometheus, promtool, python3 are there
#   prom_start DIR [TARGET...]   start Prometheus on 127.0.0.1 at a free port with its own
#                                config (scrape_interval 1s, job "kepler", honor_labels
#                                false, each TARGET host:port) and storage in DIR; wait for
#                                /-/ready (30 s at most); sets PROM_PORT, PROM_URL, PROM_PID
#   prom_stop                    stop it (SIGTERM, then SIGKILL after 10 s); also at exit
#   prom_api PATH?QUERY          GET from the API through python3 (the answer on stdout)
#   free_port                    a port free on 127.0.0.1 now
#
# Everything listens on loopback only; every wait is bounded.

PROMETHEUS=${PROMETHEUS_BIN:-prometheus}
PROMTOOL=${PROMTOOL_BIN:-promtool}
PROM_PID=""

prom_require() {
    command -v python3 >/dev/null 2>&1 || skip "python3 not found"
    command -v "$PROMETHEUS" >/dev/null 2>&1 ||
        skip "prometheus not found (Debian package prometheus; make deps installs it)"
    command -v "$PROMTOOL" >/dev/null 2>&1 || skip "promtool not found (package prometheus)"
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

prom_stop() {
    [ -n "$PROM_PID" ] || return 0
    kill "$PROM_PID" 2>/dev/null
    i=0
    while kill -0 "$PROM_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$PROM_PID" 2>/dev/null
    wait "$PROM_PID" 2>/dev/null
    PROM_PID=""
}

# Writes DIR/prometheus.yml scraping each target every second.
prom_config() { # dir target...
    dir=$1
    shift
    {
        echo "global:"
        echo "  scrape_interval: 1s"
        echo "  evaluation_interval: 1s"
        echo "scrape_configs:"
        echo "  - job_name: kepler"
        echo "    static_configs:"
        echo "      - targets:"
        for t in "$@"; do echo "          - '$t'"; done
    } >"$dir/prometheus.yml"
}

prom_start() { # dir target...
    dir=$1
    shift
    mkdir -p "$dir/data" || fail "cannot create $dir/data"
    if [ $# -gt 0 ]; then prom_config "$dir" "$@"; else prom_config "$dir"; fi
    "$PROMTOOL" check config "$dir/prometheus.yml" >"$dir/check.log" 2>&1 ||
        { cat "$dir/check.log"; fail "promtool refuses the test's Prometheus config"; }
    tries=0
    while :; do
        tries=$((tries + 1))
        PROM_PORT=$(free_port)
        PROM_URL="http://127.0.0.1:$PROM_PORT"
        "$PROMETHEUS" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
            --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn \
            --storage.tsdb.retention.time=1d >>"$dir/prometheus.log" 2>&1 &
        PROM_PID=$!
        i=0
        while [ $i -lt 300 ]; do
            kill -0 "$PROM_PID" 2>/dev/null || break
            prom_api "/-/ready" >/dev/null 2>&1 && return 0
            sleep 0.1
            i=$((i + 1))
        done
        prom_stop
        [ $tries -lt 3 ] || { tail -n 20 "$dir/prometheus.log"; fail "Prometheus not ready in 30 s"; }
    done
}

prom_api() { # path?query
    python3 - "$PROM_URL$1" <<'EOF'
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=20) as r:
    sys.stdout.write(r.read().decode())
EOF
}
