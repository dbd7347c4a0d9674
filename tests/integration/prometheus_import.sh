# `wattcal import --prometheus` against a REAL Prometheus (Debian's package,
# lib/prometheus.sh) on 127.0.0.1 scraping two Kepler-style exposition servers
# (tests/tools/expo_server.py: a node n1 with known numbers, one pod of another
# node n2 on the same endpoint, an ipmi_exporter gauge; and a node n3 in the
# legacy <= 0.9 layout) every second for ~15 s.
#
# Then: the import lands every series and sample of n1 and the truth query
# exactly as Prometheus answers them directly (tests/tools/prom_check_import.py),
# nothing of n2, the exporter row (version, layout, power source), ticks and
# the node's energy counter as a zone; validate runs on the new DB and finds
# the known answer (the exporter's 50 W against the BMC's 120 W: -70 W). The
# legacy node n3 is found by exported_instance and its target, all of its
# series and nothing of n1's.
# Faults, through a fault proxy in front of Prometheus
# (tests/tools/prom_fault_proxy.py), each a clear error naming the query and
# NO database file left: HTTP 500 (JSON and plain-text bodies), a 10 s hang
# cut by --prometheus-timeout 2s, auth refused (no token, a wrong one; the
# right token file then works and stays out of the DB), an empty result, a cut
# answer; and directly: a node that does not exist (the error lists the nodes
# there), a truth query with no data, one of several series, bad PromQL,
# credentials in the URL. Chunking: a 1 ms step over 11.5 s needs 11,501
# points per series: the proxy's log shows several range requests, each at
# most 11,000 instants, together covering the range exactly.
# Skips (77) without prometheus/promtool (make deps installs them) or python3.
# Bounded: about 40 s.
. tests/integration/lib/common.sh
. tests/integration/lib/prometheus.sh
prom_require

unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
unset PROMETHEUS_TOKEN PROMETHEUS_USER PROMETHEUS_PASSWORD
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
TOOLS=tests/tools
EXPO_PID="" LEGACY_PID="" PROXY_PID=""
cleanup() {
    for p in $EXPO_PID $LEGACY_PID $PROXY_PID; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    prom_stop
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

wait_file() { # file what
    i=0
    while [ ! -s "$1" ]; do
        i=$((i + 1))
        [ $i -le 100 ] || fail "$2 did not start in 10 s"
        sleep 0.1
    done
}

python3 $TOOLS/expo_server.py --port-file "$T/expo.port" --node n1 --other-node n2 --pods 3 \
    >/dev/null 2>"$T/expo.log" &
EXPO_PID=$!
wait_file "$T/expo.port" "the exposition server"
python3 $TOOLS/expo_server.py --port-file "$T/legacy.port" --node n3 --pods 2 --layout legacy \
    >/dev/null 2>"$T/legacy.log" &
LEGACY_PID=$!
wait_file "$T/legacy.port" "the legacy exposition server"
prom_start "$T/prom" "127.0.0.1:$(cat "$T/expo.port")" "127.0.0.1:$(cat "$T/legacy.port")"
: >"$T/requests"
python3 $TOOLS/prom_fault_proxy.py --upstream "$PROM_URL" --control "$T/ctl.json" \
    --request-log "$T/requests" --port-file "$T/proxy.port" >/dev/null 2>"$T/proxy.log" &
PROXY_PID=$!
wait_file "$T/proxy.port" "the fault proxy"
PROXY="http://127.0.0.1:$(cat "$T/proxy.port")"

# The first scrape, then ~15 s of them (bounded: 40 s).
i=0
until prom_api '/api/v1/query?query=kepler_node_cpu_joules_total' | grep -q '"n1"'; do
    i=$((i + 1))
    [ $i -le 100 ] || { tail -n 20 "$T/prom/prometheus.log"; fail "Prometheus scraped nothing in 20 s"; }
    sleep 0.2
done
START=$(($(date +%s) + 1))
END=$((START + 13))
while [ "$(date +%s)" -lt $((END + 2)) ]; do sleep 0.5; done

Q='ipmi_dcmi_power_consumption_watts'
imp() { # db url extra-args... ; output in $T/out, exit code in $rc
    db=$1 url=$2
    shift 2
    "$BIN" import --db "$db" --prometheus "$url" --node n1 --start "$START" --end "$END" \
        --step 1s "$@" >"$T/out" 2>&1
    rc=$?
}
no_db() { [ ! -e "$1" ] && [ ! -e "$1-wal" ] && [ ! -e "$1-journal" ] || fail "$2: $1 was left behind"; }
expect_fault() { # what expected-exit text...
    what=$1 want=$2
    shift 2
    [ "$rc" -eq "$want" ] || { cat "$T/out"; fail "$what: exit $rc, expected $want"; }
    for text in "$@"; do expect_contains "$T/out" "$text"; done
    no_db "$T/f.db" "$what"
}
ctl() { printf '%s\n' "$1" >"$T/ctl.tmp" && mv "$T/ctl.tmp" "$T/ctl.json"; }

# ---- the import, checked against the API queried directly --------------------
imp "$T/ok.db" "$PROM_URL" --truth-query "$Q"
[ "$rc" -eq 0 ] || { cat "$T/out"; fail "import exited $rc"; }
expect_contains "$T/out" "14 instants"
expect_contains "$T/out" "exporter kepler test-static (measured), layout v0.10+: 27 series"
python3 $TOOLS/prom_check_import.py --prom "$PROM_URL" --db "$T/ok.db" --node n1 \
    --start "$START" --end "$END" --step 1 --truth-query "$Q" >"$T/check" 2>&1 ||
    { cat "$T/check"; fail "the DB differs from what Prometheus answers"; }
expect_contains "$T/check" "ok: 27 series"
[ "$(sql "$T/ok.db" "SELECT count(*) FROM exporter_series WHERE labels LIKE '%n2%' OR labels LIKE '%other-uid%'")" = 0 ] ||
    fail "series of node n2 were imported"
[ "$(sql "$T/ok.db" "SELECT origin||'|'||spec||'|'||version||'|'||layout||'|'||power_source||'|'||provenance FROM exporter")" = \
  "prometheus|prometheus:$PROM_URL node=n1|test-static|v0.10+|measured|exporter kepler test-static (measured)" ] ||
    fail "exporter row: $(sql "$T/ok.db" "SELECT * FROM exporter")"
[ "$(sql "$T/ok.db" "SELECT meter_kind||'|'||provenance||'|'||host||'|'||ticks FROM run")" = "prometheus|measured|n1|14" ] ||
    fail "run row: $(sql "$T/ok.db" "SELECT * FROM run")"
[ "$(sql "$T/ok.db" "SELECT count(*) FROM tick")" = 14 ] || fail "expected 14 ticks"
[ "$(sql "$T/ok.db" "SELECT name||'|'||kind||'|'||path FROM zone")" = "package|counter_uj|/sys/class/powercap/intel-rapl:0" ] ||
    fail "zones: $(sql "$T/ok.db" "SELECT * FROM zone")"
[ "$(sql "$T/ok.db" "SELECT count(*) FROM truth_sample t JOIN truth_source s ON s.id=t.source_id WHERE s.kind='prometheus' AND s.spec='$Q' AND t.watts=120")" = 14 ] ||
    fail "truth samples: $(sql "$T/ok.db" "SELECT * FROM truth_source")"
"$BIN" validate --db "$T/ok.db" >"$T/val" 2>&1 || { cat "$T/val"; fail "validate on the imported run"; }
expect_contains "$T/val" "exporter kepler test-static (measured)"
awk '$1 == "meter:package" && $2 == "native" { b = $4 + 70; ok = $3 == 13 && b < 0.5 && b > -0.5 }
     END { exit !ok }' "$T/val" || { cat "$T/val"; fail "validate: expected a -70 W bias over 13 readings"; }

# ---- a legacy (<= 0.9) node: found by exported_instance and its target -------
"$BIN" import --db "$T/legacy.db" --prometheus "$PROM_URL" --node n3 --start "$START" \
    --end "$END" --step 1s >"$T/out" 2>&1 || { cat "$T/out"; fail "legacy import"; }
python3 $TOOLS/prom_check_import.py --prom "$PROM_URL" --db "$T/legacy.db" --node n3 \
    --start "$START" --end "$END" --step 1 >"$T/check" 2>&1 ||
    { cat "$T/check"; fail "the legacy DB differs from what Prometheus answers"; }
expect_contains "$T/check" "ok: 7 series"
[ "$(sql "$T/legacy.db" "SELECT count(*) FROM exporter_series WHERE labels LIKE '%node_name%' OR labels LIKE '%\"n1\"%'")" = 0 ] ||
    fail "the legacy import took series of n1"
[ "$(sql "$T/legacy.db" "SELECT layout||'|'||origin FROM exporter")" = "legacy|prometheus" ] ||
    fail "legacy exporter row: $(sql "$T/legacy.db" "SELECT * FROM exporter")"

# ---- faults through the proxy: a clear error naming the query, no DB left ----
SEL='query_range `{__name__=~"kepler_.+",node_name="n1"}`'
ctl '{"mode": "500", "paths": ["/api/v1/query_range"]}'
imp "$T/f.db" "$PROXY"
expect_fault "HTTP 500" 2 "$SEL" "HTTP 500: internal: injected server error"
ctl '{"mode": "500text"}'
imp "$T/f.db" "$PROXY"
expect_fault "HTTP 500 (text)" 2 'series `{__name__=~"kepler_.+",node_name="n1"}`' "HTTP 500: upstream connect error"
ctl '{"mode": "hang", "hang_s": 10, "paths": ["/api/v1/query_range"]}'
t0=$(date +%s)
imp "$T/f.db" "$PROXY" --prometheus-timeout 2s
expect_fault "hang" 2 "$SEL" "no complete answer within the 2 s timeout"
[ $(($(date +%s) - t0)) -lt 8 ] || fail "the hang was not cut by the 2 s timeout"
ctl '{"token": "s3cret-tok-4711"}'
imp "$T/f.db" "$PROXY"
expect_fault "no token" 2 "authentication refused (HTTP 401" "credentials sent: no credentials"
export PROMETHEUS_TOKEN=wrong-token
imp "$T/f.db" "$PROXY"
unset PROMETHEUS_TOKEN
expect_fault "wrong token" 2 "authentication refused (HTTP 401" "bearer token from PROMETHEUS_TOKEN"
printf 's3cret-tok-4711\n' >"$T/token"
imp "$T/tok.db" "$PROXY" --prometheus-token-file "$T/token"
[ "$rc" -eq 0 ] || { cat "$T/out"; fail "the right token file was refused"; }
grep -q 's3cret-tok' "$T/tok.db" "$T/out" && fail "the token leaked into the DB or the output"
ctl '{"mode": "empty", "paths": ["/api/v1/query_range"]}'
imp "$T/f.db" "$PROXY"
expect_fault "empty result" 3 "empty result: $SEL"
ctl '{"mode": "badjson", "paths": ["/api/v1/query_range"]}'
imp "$T/f.db" "$PROXY"
expect_fault "cut answer" 2 "$SEL" "not the Prometheus API's JSON"
ctl '{"mode": "ok"}'

# ---- faults of the question -------------------------------------------------
"$BIN" import --db "$T/f.db" --prometheus "$PROM_URL" --node nope --start "$START" \
    --end "$END" --step 1s >"$T/out" 2>&1
rc=$?
expect_fault "unknown node" 2 "node nope: no Kepler series" 'series `{__name__=~"kepler_.+",node_name="nope"}`' \
    "node_name values there: n1, n2"
imp "$T/f.db" "$PROM_URL" --truth-query 'absent_metric_watts'
expect_fault "truth query without data" 3 '--truth-query `absent_metric_watts`: empty result'
imp "$T/f.db" "$PROM_URL" --truth-query 'kepler_pod_cpu_watts'
expect_fault "truth query of several series" 2 '--truth-query `kepler_pod_cpu_watts`: returned more than one series'
imp "$T/f.db" "$PROM_URL" --truth-query 'sum('
expect_fault "bad PromQL" 2 'query_range `sum(`' "HTTP 400: bad_data"
imp "$T/f.db" "http://user:pw@127.0.0.1:9"
expect_fault "credentials in the URL" 2 "the URL holds credentials"

# ---- chunking: 11,501 instants per series need two requests ------------------
: >"$T/requests"
"$BIN" import --db "$T/chunk.db" --prometheus "$PROXY" --node n1 --start "$((END - 12)).500" \
    --end "$END" --step 1ms --truth-query "$Q" >"$T/out" 2>&1 || { cat "$T/out"; fail "1 ms import"; }
expect_contains "$T/out" "11501 instants"
[ "$(sql "$T/chunk.db" "SELECT count(*) FROM truth_sample")" = 11501 ] || fail "expected 11501 truth samples"
python3 - "$T/requests" "$((END - 12)).5" "$END" "$Q" <<'EOF' || fail "chunking"
import sys, urllib.parse
log, start, end, q = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
by = {}
for line in open(log):
    path, _, qs = line.strip().partition("?")
    if path != "/api/v1/query_range":
        continue
    p = dict(urllib.parse.parse_qsl(qs))
    s, e, st = float(p["start"]), float(p["end"]), float(p["step"])
    points = round((e - s) / st) + 1
    if points > 11000:
        sys.exit("a request of %d points: %s" % (points, line))
    by.setdefault(p["query"], []).append((s, e, st))
chunks = by.get(q, [])
if len(chunks) < 2:
    sys.exit("the truth query took %d request(s): %r" % (len(chunks), chunks))
for name, cs in by.items():
    cs.sort()
    if abs(cs[0][0] - start) > 1e-6 or abs(cs[-1][1] - end) > 1e-6:
        sys.exit("%s: chunks cover %r .. %r, not the range" % (name, cs[0][0], cs[-1][1]))
    for a, b in zip(cs, cs[1:]):
        if abs(b[0] - (a[1] + a[2])) > 1e-6:
            sys.exit("%s: a gap or overlap between chunks %r and %r" % (name, a, b))
print("chunks:", {k: len(v) for k, v in by.items()})
EOF
echo "prometheus import: series, samples and truth as the API answers; faults named; chunked"
exit 0
