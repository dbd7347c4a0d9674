# The CPU-accounting cross-check end to end: tests/tools/fake_node.py
# animates three pods (CPU 0.9, 0.6, 0.3; the last ends at 6 s) in a
# --procfs-root and writes their cgroup v2 cpu.stat files below a
# --sysfs-root; the replay exporter serves the reference model's rows with
# the top pod over-reported by 20 %. `record` reads every pod and container
# cgroup each tick; `validate` must find each pod's energy share equal to its
# CPU share under the reference model (ratio 1 within 3 %: when the last pod
# ends, its last CPU is in /proc/stat but no longer in any process, and the
# survivors get it, as in Kepler), and under the exporter the top pod first
# with ratio 1.2, the others 1. A second recording whose
# --sysfs-root has no cgroups stores every failed read with its status,
# warns once, and validate says the cross-check had nothing to compare. The
# report (HTML and Markdown) carries the cross-check too.
. tests/integration/lib/common.sh
command -v python3 >/dev/null 2>&1 || skip "python3 absent"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 absent"
FN= RX=
trap 'for p in $FN $RX; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

wait_for() { # file, pattern
    i=0
    while ! grep -q "$2" "$1" 2>/dev/null; do
        i=$((i + 1)); [ $i -le 100 ] || fail "$1 never said $2"
        sleep 0.1
    done
}
python3 tests/tools/fake_node.py --root "$T/proc" --sysfs-root "$T/sys" --end-pod-at 6 \
    --max-seconds 60 >"$T/node.out" 2>&1 &
FN=$!
wait_for "$T/node.out" READY
python3 tests/tools/replay_exporter.py --db "$T/run.db" --max-seconds 60 --node n1 \
    --over-pod top --over-pct 20 >"$T/x.out" 2>"$T/x.err" &
RX=$!
wait_for "$T/x.out" '^PORT='
port=$(sed -n 's/^PORT=//p' "$T/x.out")
"$BIN" record --db "$T/run.db" --meter sim --procfs-root "$T/proc" --sysfs-root "$T/sys" \
    --interval 500ms --duration 10s --quiet --exporter "kepler:http://127.0.0.1:$port/metrics" \
    --exporter-interval 1s 2>"$T/err" || { cat "$T/err" "$T/x.err"; fail "record exited $?"; }
top=aaaaaaaa-0000-4000-8000-000000000000
[ "$(sed -n 's/^OVER_POD=//p' "$T/x.out")" = $top ] || fail "top pod: $(cat "$T/x.out")"

# the store: three pods and three containers, each accounted by cpu.stat
[ "$(sql "$T/run.db" "SELECT level || ':' || COUNT(*) FROM cgroup
      WHERE accounting = 'cpu.stat usage_usec' GROUP BY level ORDER BY level")" = \
  "$(printf 'container:3\npod:3')" ] || fail "cgroups: $(sql "$T/run.db" 'SELECT * FROM cgroup')"
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM cgroup_cpu WHERE status = 0 AND usage_ns > 0")" -ge 60 ] ||
    fail "too few cgroup reads"

"$BIN" validate --db "$T/run.db" --json "$T/v.json" >"$T/v.txt" 2>&1 || [ $? -le 1 ] ||
    { cat "$T/v.txt"; fail "validate exited $?"; }
expect_contains "$T/v.txt" "CPU accounting cross-check (zone package)"
expect_contains "$T/v.txt" "replay of kepler-0.11 rows (not measured):"
python3 - "$T/v.json" "$top" <<'PY' || { sed -n '/CPU accounting/,$p' "$T/v.txt"; fail "shares"; }
import json, sys
c = json.load(open(sys.argv[1]))["cpu_share"]
top = sys.argv[2]
assert c["available"] and c["cpu_accounting"] == "cpu.stat usage_usec" and c["pod_cgroups"] == 3, c
model, exp = c["sources"]
assert model["source"] == "model:kepler-0.11" and model["pods"] == 3, model
assert model["provenance"] == "attributed by model kepler-0.11", model
for r in model["rows"]:  # the reference model splits by CPU: shares agree
    assert abs(r["ratio"] - 1) < 0.05 and abs(r["diff_pts"]) < 2, r  # host CPU under load
    assert r["intervals"] >= 8, r
assert exp["provenance"].startswith("replay of kepler-0.11 rows"), exp
assert exp["pods"] == 3 and not exp["too_little_data"], exp
first = exp["rows"][0]  # the over-reported pod is the largest disagreement
assert first["pod_uid"] == top and abs(first["ratio"] - 1.2) < 0.03, first
assert first["name"] == "pod-aaaaaaaa" and first["namespace"] == "replay", first
assert abs(first["cpu_pct"] - 100 * 0.9 / 1.8) < 2, first  # 0.9 of the pods' 1.8 CPUs + host
for r in exp["rows"][1:]:  # the ended pod has few intervals, each placed at a scrape's time
    assert abs(r["ratio"] - 1) < (0.03 if r["intervals"] >= 6 else 0.1), r
PY
# the report carries the same cross-check: the exporter's top pod at ratio 1.2
"$BIN" report --db "$T/run.db" --out "$T/rep" >"$T/rep.txt" 2>&1 || [ $? -le 1 ] ||
    { cat "$T/rep.txt"; fail "report exited $?"; }
expect_contains "$T/rep/report.html" "CPU accounting cross-check"
python3 - "$T/rep/report.md" "$top" <<'PY' || { sed -n '/CPU accounting/,$p' "$T/rep/report.md"; fail "report: shares"; }
import sys
md, top = open(sys.argv[1]).read(), sys.argv[2]
part = md[md.index("### CPU accounting cross-check"):]
part = part[part.index("replay of kepler-0.11 rows"):]
row = [l for l in part.splitlines() if l.startswith("|") and top in l][0]
cells = [c.strip() for c in row.strip("|").split("|")]
assert cells[1] == "pod-aaaaaaaa" and cells[2] == "replay", cells
assert abs(float(cells[8]) - 1.2) < 0.03, cells
PY

# no cgroup below --sysfs-root: every read stored as failed, one warning
mkdir "$T/nosys"
"$BIN" record --db "$T/none.db" --meter sim --procfs-root "$T/proc" --sysfs-root "$T/nosys" \
    --interval 500ms --duration 2s --quiet 2>"$T/err2" || { cat "$T/err2"; fail "record 2 exited $?"; }
[ "$(grep -c 'no cpu.stat (v2) nor cpuacct.usage (v1)' "$T/err2")" = 1 ] || { cat "$T/err2"; fail "warning"; }
[ "$(sql "$T/none.db" "SELECT COUNT(*) FROM cgroup_cpu WHERE status = -2 AND usage_ns IS NULL")" = \
  "$(sql "$T/none.db" "SELECT COUNT(*) FROM cgroup_cpu")" ] || fail "failed reads not stored as such"
[ "$(sql "$T/none.db" "SELECT COUNT(*) FROM cgroup WHERE accounting = ''")" -ge 4 ] || fail "accounting"
"$BIN" validate --db "$T/none.db" >"$T/v2.txt" 2>&1 || [ $? -le 1 ] || fail "validate 2"
expect_contains "$T/v2.txt" "0 pod(s) over 0 interval(s) — TOO LITTLE DATA"
exit 0
