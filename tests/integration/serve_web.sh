# wattcal serve --web-config (exporter-toolkit format) and --kubelet: with
# basic auth, /metrics answers 401 without or with wrong credentials and 200
# with the right ones; with TLS too, curl verifies the throw-away certificate
# and gets the metrics over https; a setting serve cannot honour is refused
# (exit 2, the key named); --kubelet reads a pod list from a small HTTP
# server of the test's own (python3 http.server on 127.0.0.1, serving
# tests/fixtures/serve/pods.json) and --db keeps the names (pod_identity);
# a kubelet that does not answer is an error at start.
. tests/integration/lib/common.sh
. tests/integration/lib/prometheus.sh # free_port
command -v curl >/dev/null 2>&1 || skip "curl not found"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
F=tests/fixtures/serve
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT

start() { # port args...: serve in the background until /healthz answers (any status but none)
    port=$1; shift
    "$BIN" serve --meter sim --interval 300ms --listen "127.0.0.1:$port" --quiet "$@" 2>"$T/err" &
    spid=$!; pids="$pids $spid"
    i=0
    until grep -q "listening on" "$T/err" 2>/dev/null; do
        kill -0 $spid 2>/dev/null || { cat "$T/err"; fail "serve exited at start"; }
        i=$((i + 1)); [ $i -lt 300 ] || fail "serve not listening after 30 s"; sleep 0.1
    done
}
stop() {
    kill -TERM $spid; wait $spid; rc=$?
    [ $rc -eq 0 ] || { cat "$T/err"; fail "serve exited $rc on SIGTERM"; }
}
code() { curl -s -o "$T/body" -w '%{http_code}' "$@"; }

# Basic auth over plain HTTP.
P=$(free_port)
start "$P" --web-config "$F/web-config-auth.yml"
[ "$(code "http://127.0.0.1:$P/metrics")" = 401 ] || fail "no credentials: not 401"
[ "$(code -u prom:wrong "http://127.0.0.1:$P/metrics")" = 401 ] || fail "wrong password: not 401"
i=0
until [ "$(code -u prom:wattcal-test-pw "http://127.0.0.1:$P/metrics")" = 200 ] &&
    grep -q '^wattcal_serve_ticks_total' "$T/body"; do
    i=$((i + 1)); [ $i -lt 100 ] || fail "right password: no metrics"; sleep 0.1
done
stop

# TLS and basic auth, with a throw-away self-signed certificate.
if command -v openssl >/dev/null 2>&1; then
    mkdir -p "$T/tls"
    cp "$F/web-config-tls.yml" "$T/tls/web.yml"
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
        -addext "subjectAltName=IP:127.0.0.1" -keyout "$T/tls/tls.key" -out "$T/tls/tls.crt" \
        >/dev/null 2>&1 || fail "openssl could not make a test certificate"
    P=$(free_port)
    start "$P" --web-config "$T/tls/web.yml"
    [ "$(code --cacert "$T/tls/tls.crt" "https://127.0.0.1:$P/metrics")" = 401 ] ||
        fail "TLS without credentials: not 401"
    [ "$(code --cacert "$T/tls/tls.crt" -u prom:wattcal-test-pw "https://127.0.0.1:$P/metrics")" = 200 ] ||
        fail "TLS with credentials: not 200"
    expect_contains "$T/body" "# TYPE wattcal_node_cpu_watts gauge"
    curl -s -o /dev/null "http://127.0.0.1:$P/metrics" && fail "plain HTTP answered on a TLS port"
    stop
else
    echo "note: openssl not found, the TLS part is not run"
fi

# A setting serve cannot honour: refused before anything is served.
"$BIN" serve --meter sim --listen "127.0.0.1:$(free_port)" --web-config "$F/web-config-unsupported.yml" \
    2>"$T/refused"; rc=$?
[ $rc -eq 2 ] || fail "unsupported web config: exit $rc, not 2"
expect_contains "$T/refused" "tls_server_config.client_auth_type is not supported"

# The kubelet's pod list from a server of our own; the names kept in the run.
mkdir -p "$T/kubelet"
cp "$F/pods.json" "$T/kubelet/pods"
KP=$(free_port)
python3 -m http.server "$KP" --bind 127.0.0.1 --directory "$T/kubelet" >"$T/http.log" 2>&1 &
hp=$!; pids="$pids $hp"
i=0
until curl -sf "http://127.0.0.1:$KP/pods" >/dev/null 2>&1; do
    i=$((i + 1)); [ $i -lt 100 ] || fail "the test's kubelet did not start"; sleep 0.1
done
P=$(free_port)
start "$P" --kubelet "http://127.0.0.1:$KP/pods" --db "$T/k.db"
sleep 1
stop
[ "$(sql "$T/k.db" "SELECT name || '/' || namespace || '/' || source FROM pod_identity WHERE pod_uid='0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'")" = "web-7d4b9c/shop/kubelet" ] ||
    fail "pod identity not kept in the run"
[ "$(sql "$T/k.db" 'SELECT COUNT(*) FROM pod_identity')" = 2 ] || fail "expected two identities (one item has no uid)"
grep -q "GET /pods" "$T/http.log" || fail "the kubelet was never asked"
kill $hp
"$BIN" serve --meter sim --listen "127.0.0.1:$(free_port)" --kubelet "http://127.0.0.1:$KP/pods" \
    2>"$T/nokubelet"; rc=$?
[ $rc -eq 2 ] || fail "kubelet down: exit $rc, not 2"
expect_contains "$T/nokubelet" "--kubelet http://127.0.0.1:$KP/pods"
"$BIN" serve --meter sim --kubelet "http://user:pw@127.0.0.1:$KP/pods" 2>"$T/creds"; rc=$?
[ $rc -eq 2 ] || fail "credentials in the kubelet URL: exit $rc"
expect_contains "$T/creds" "credentials in it is refused"
echo "serve web config: basic auth, TLS, refusal; kubelet pod names kept"
exit 0
