# wattcal serve: a simulated node served on a free loopback port. The body
# passes `promtool check metrics`; every sample has a provenance label; the
# model's identity holds (per zone: node active watts − Σ running process
# watts = the process gap's unattributed − over watts, and Σ ≤ active for the
# ideal model); the simulated BMC is served as simulated; a small
# --max-workloads counts what it drops; a process that ends becomes
# terminated and expires; /healthz answers; a real Prometheus scrapes it and
# the query returns the series with their labels; SIGTERM stops it cleanly
# (the --db run closed); a bad or busy --listen is a clear usage error.
. tests/integration/lib/common.sh
. tests/integration/lib/prometheus.sh
prom_require
command -v curl >/dev/null 2>&1 || skip "curl not found"

stop_serve() { # pid: SIGTERM, bounded wait, then the exit code in $rc
    kill -TERM "$1" 2>/dev/null
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    kill -0 "$1" 2>/dev/null && { kill -9 "$1"; fail "serve did not stop within 10 s of SIGTERM"; }
    wait "$1"; rc=$?
}
wait_health() { # port: until /healthz answers 200 (30 s at most)
    i=0
    until curl -sf "http://127.0.0.1:$1/healthz" >"$T/health" 2>/dev/null; do
        i=$((i + 1))
        [ $i -lt 300 ] || { cat "$T/err"; fail "/healthz never answered 200"; }
        sleep 0.1
    done
}
scrape() { # port file
    curl -sf "http://127.0.0.1:$1/metrics" >"$2" || fail "GET /metrics failed"
}

PORT=$(free_port)
"$BIN" serve --meter sim --model ideal --interval 300ms --listen "127.0.0.1:$PORT" \
    --truth sim:lag=0,window=1,period=1,noise=0 --expire 2s --node-name test-node \
    --db "$T/run.db" --quiet 2>"$T/err" &
pid=$!
trap 'kill -9 $pid 2>/dev/null; prom_stop; rm -rf "$T"' EXIT
wait_health "$PORT"
expect_contains "$T/health" "ok: "

# The simulated BMC answers after its first period: wait for its series (bounded).
i=0
while :; do
    scrape "$PORT" "$T/m.txt"
    grep -q '^wattcal_truth_watts{' "$T/m.txt" && grep -q '^wattcal_process_cpu_watts{' "$T/m.txt" && break
    i=$((i + 1))
    [ $i -lt 100 ] || { cat "$T/m.txt"; fail "no truth or process series after 20 s"; }
    sleep 0.2
done
"$PROMTOOL" check metrics <"$T/m.txt" >"$T/lint" 2>&1 || { cat "$T/lint"; fail "promtool check metrics"; }

python3 - "$T/m.txt" <<'PY' || fail "the served values are wrong (above)"
import re, sys
rows = []
for line in open(sys.argv[1]):
    if line.startswith('#') or not line.strip():
        continue
    m = re.match(r'([a-z_:]+)\{(.*)\} (\S+)$', line.strip())
    assert m, "unparsed line: " + line
    labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
    rows.append((m.group(1), labels, float(m.group(3))))
bad = [r for r in rows if r[1].get('provenance') not in ('measured', 'simulated', 'ground_truth', 'estimated')]
assert not bad, "a sample without a provenance: %r" % (bad[:1],)
assert all(r[1].get('node_name') == 'test-node' for r in rows), "node_name label"
def get(name, **want):
    return [r for r in rows if r[0] == name and all(r[1].get(k) == v for k, v in want.items())]
truth = get('wattcal_truth_watts', kind='sim')
assert truth and truth[0][1]['provenance'] == 'simulated' and truth[0][2] > 0, truth
node = get('wattcal_node_cpu_active_watts', model='ideal')
assert node and all(r[1]['provenance'] == 'simulated' for r in node), node
bi = get('wattcal_build_info')  # the meter's provenance beside meter="sim", never "measured"
assert len(bi) == 1 and bi[0][1]['meter'] == 'sim' and bi[0][1]['provenance'] == 'simulated', bi
checked = 0
for n in node:
    z = n[1]['zone']
    procs = sum(r[2] for r in get('wattcal_process_cpu_watts', zone=z, state='running'))
    gap = {k: get('wattcal_attribution_gap_watts', zone=z, level='process', kind=k)[0][2]
           for k in ('unattributed', 'over')}
    assert procs <= n[2] * (1 + 1e-9) + 1e-6, (z, procs, n[2])
    # the gap is counted from integer µJ over the interval: 1e-3 W absorbs that
    assert abs((n[2] - procs) - (gap['unattributed'] - gap['over'])) < 1e-3, (z, n[2], procs, gap)
    checked += 1
assert checked >= 2, "fewer than two zones checked"
print("serve values: %d zones, identity holds, %d samples with provenance" % (checked, len(rows)))
PY

# A process that ends: running, then terminated, then expired (bounded waits).
sleep 120 &
spid=$!
i=0
until scrape "$PORT" "$T/m2.txt" && grep -q "pid=\"$spid\".*state=\"running\"" "$T/m2.txt"; do
    i=$((i + 1)); [ $i -lt 100 ] || fail "process $spid never served"; sleep 0.2
done
kill "$spid"; wait "$spid" 2>/dev/null
i=0
until scrape "$PORT" "$T/m3.txt" && ! grep -q "pid=\"$spid\"" "$T/m3.txt"; do
    i=$((i + 1)); [ $i -lt 150 ] || fail "process $spid never expired"; sleep 0.2
done
grep -q '^wattcal_serve_workloads_expired_total{.*level="process"} [1-9]' "$T/m3.txt" ||
    fail "expired counter did not count"

# A real Prometheus scrapes it; the query returns the series with its labels.
prom_start "$T/prom" "127.0.0.1:$PORT"
i=0
while :; do
    prom_api '/api/v1/query?query=wattcal_node_cpu_watts%7Bzone%3D%22package%22%7D' >"$T/q.json" 2>/dev/null &&
        grep -q '"provenance":"simulated"' "$T/q.json" && break
    i=$((i + 1)); [ $i -lt 150 ] || { cat "$T/q.json"; fail "Prometheus never returned the series"; }
    sleep 0.2
done
expect_contains "$T/q.json" '"model":"ideal"'
expect_contains "$T/q.json" '"node_name":"test-node"'

# Bad and busy --listen: a clear usage error, nothing served.
"$BIN" serve --meter sim --listen 127.0.0.1 2>"$T/bad1"; [ $? -eq 2 ] || fail "--listen without port not refused"
expect_contains "$T/bad1" "expected ADDR:PORT"
"$BIN" serve --meter sim --listen "999.0.0.1:$PORT" 2>"$T/bad2"; [ $? -eq 2 ] || fail "bad address not refused"
expect_contains "$T/bad2" "not a numeric IPv4 or IPv6 address"
"$BIN" serve --meter sim --listen "127.0.0.1:$PROM_PORT" 2>"$T/bad3"; [ $? -eq 2 ] || fail "busy port not refused"
expect_contains "$T/bad3" "Address already in use"

stop_serve "$pid"
[ "$rc" -eq 0 ] || { cat "$T/err"; fail "serve exited $rc on SIGTERM"; }
expect_contains "$T/err" "wattcal serve: stopped after"
[ "$(sql "$T/run.db" 'SELECT clean_stop FROM run')" = 1 ] || fail "the --db run is not closed cleanly"
[ "$(sql "$T/run.db" 'SELECT COUNT(*) > 5 FROM tick')" = 1 ] || fail "the --db run has no ticks"

# The cap: five workloads at most, the rest counted as dropped.
PORT2=$(free_port)
"$BIN" serve --meter sim --interval 200ms --listen "127.0.0.1:$PORT2" --max-workloads 5 \
    --quiet 2>"$T/err2" &
pid=$!
wait_health "$PORT2"
scrape "$PORT2" "$T/cap.txt"
stop_serve "$pid"
[ "$rc" -eq 0 ] || fail "capped serve exited $rc"
n=$(awk '/^wattcal_serve_workloads\{/ { s += $NF } END { print s + 0 }' "$T/cap.txt")
[ "$n" -le 5 ] || fail "$n workloads served with --max-workloads 5"
grep -q '^wattcal_serve_series_dropped_total{.*level="process"} [1-9]' "$T/cap.txt" ||
    { grep dropped "$T/cap.txt"; fail "nothing counted as dropped with --max-workloads 5"; }
[ "$(grep -c '^wattcal_process_cpu_watts{' "$T/cap.txt")" -le 15 ] || fail "more process series than the cap allows"
echo "serve: promtool clean, identity holds, expiry, cap, Prometheus query, SIGTERM, bad --listen"
exit 0
