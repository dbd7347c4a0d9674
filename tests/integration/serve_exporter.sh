# wattcal serve --exporter: beside a Kepler-like exporter of known numbers
# (tests/tools/expo_server.py: node n1, kepler_node_cpu_watts{zone="package"}
# 50, pods pod-uid-0/1 named p0/p1), serve reports the exporter up with its
# power source, the node difference exporter − reference exactly as the two
# figures it serves, no pod difference for pods it does not see itself, and
# keeps the pod names the exporter's labels taught (pod_identity, --db).
. tests/integration/lib/common.sh
. tests/integration/lib/prometheus.sh # free_port
command -v curl >/dev/null 2>&1 || skip "curl not found"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
EXPO_PID="" SPID=""
trap 'for p in $EXPO_PID $SPID; do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
python3 tests/tools/expo_server.py --port-file "$T/expo.port" --node n1 --pods 2 \
    >/dev/null 2>"$T/expo.log" &
EXPO_PID=$!
i=0
while [ ! -s "$T/expo.port" ]; do
    i=$((i + 1)); [ $i -le 100 ] || fail "the exposition server did not start in 10 s"; sleep 0.1
done
P=$(free_port)
"$BIN" serve --meter sim --interval 300ms --listen "127.0.0.1:$P" --db "$T/x.db" --quiet \
    --exporter "kepler:http://127.0.0.1:$(cat "$T/expo.port")/metrics" --exporter-interval 500ms \
    2>"$T/err" &
SPID=$!
i=0
until curl -sf "http://127.0.0.1:$P/metrics" >"$T/m.txt" 2>/dev/null &&
    grep -q '^wattcal_exporter_node_minus_reference_watts{.*zone="package"' "$T/m.txt"; do
    i=$((i + 1)); [ $i -lt 150 ] || { cat "$T/err" "$T/m.txt"; fail "no exporter difference in 30 s"; }
    sleep 0.2
done
python3 - "$T/m.txt" <<'PY' || fail "exporter figures wrong (above)"
import re, sys
rows = []
for line in open(sys.argv[1]):
    m = re.match(r'([a-z_:]+)\{(.*)\} (\S+)$', line.strip())
    if m and not line.startswith('#'):
        rows.append((m.group(1), dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2))), float(m.group(3))))
def one(name, **want):
    got = [r for r in rows if r[0] == name and all(r[1].get(k) == v for k, v in want.items())]
    assert len(got) == 1, (name, want, got)
    return got[0]
up = one('wattcal_exporter_up')
assert up[2] == 1 and up[1]['source'] == 'measured', up
ours = one('wattcal_node_cpu_watts', zone='package')[2]
diff = one('wattcal_exporter_node_minus_reference_watts', zone='package')
assert abs(diff[2] - (50 - ours)) < 1e-9, (diff, ours)
assert diff[1]['provenance'] == 'simulated' and diff[1]['model'] == 'kepler-0.11', diff
assert not [r for r in rows if r[0] == 'wattcal_exporter_pod_minus_reference_watts'], \
    "a pod difference for pods serve does not see"
print("exporter: up (measured), node difference %.3f W = 50 - %.3f" % (diff[2], ours))
PY
"$PROMTOOL" check metrics <"$T/m.txt" >"$T/lint" 2>&1 || { cat "$T/lint"; fail "promtool check metrics"; }
kill -TERM $SPID; wait $SPID; rc=$?; SPID=""
[ $rc -eq 0 ] || { cat "$T/err"; fail "serve exited $rc"; }
[ "$(sql "$T/x.db" "SELECT name || '/' || namespace || '/' || source FROM pod_identity WHERE pod_uid='pod-uid-1'")" = "p1/ns-1/exporter" ] ||
    fail "the exporter's pod labels were not kept"
[ "$(sql "$T/x.db" "SELECT COUNT(*) > 0 FROM exporter_scrape WHERE status='ok'")" = 1 ] ||
    fail "the --db run holds no exporter scrape"
echo "serve --exporter: difference, power source, pod names kept"
exit 0
