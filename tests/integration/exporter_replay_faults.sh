# The replay exporter's planted faults, as `record --exporter` stores them, on
# a node with pods (tests/tools/fake_node.py animates a --procfs-root with
# three pods, the last of which ends at 4 s) under the simulated meter. Two
# replays of the run being recorded are scraped at once:
#   A  --over-pod top --terminated --truth-gauge: the top pod's own series are
#      the reference model's totals x 1.2 (its containers' are exact); the
#      ended pod is exported once with state terminated, then never again;
#      the BMC's watts are served as ipmi_dcmi_power_consumption_watts.
#   B  --restart-at 5 --fake-path: the node counters fall once (a restart) and
#      the fake meter's path makes the exporter "not measured".
# The run's meter is simulated, so A serves the fake meter's path too (the
# replay's default for a run not measured: a replay of a simulated run never
# reads "measured"), and --meter-paths on it is refused (exit 2).
# Both say "replay" in their provenance, never a release.
# Then `validate` (--json) FINDS each fault from the stored numbers alone:
# A's top pod +20 % against the reference model inside its bootstrap
# interval (its containers exact) and its pod = sum(containers) invariant
# failing by 20 %; the ended pod exported as terminated by at most 2 scrapes
# (the invariant passes); B's restart is one restart whose counter falls are
# resets, never wraps; A and B are "not measured" and --tolerance
# source=measured fails for both (exit 1; no false PASS); both exporters' package energy is a node source
# scored against the simulated BMC.
. tests/integration/lib/common.sh
command -v python3 >/dev/null 2>&1 || skip "python3 absent"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 absent"
FN= RA= RB=
trap 'for p in $FN $RA $RB; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

wait_for() { # file, pattern
    i=0
    while ! grep -q "$2" "$1" 2>/dev/null; do
        i=$((i + 1)); [ $i -le 100 ] || fail "$1 never said $2"
        sleep 0.1
    done
}
python3 tests/tools/fake_node.py --root "$T/proc" --end-pod-at 4 --max-seconds 60 >"$T/node.out" 2>&1 &
FN=$!
wait_for "$T/node.out" READY
python3 tests/tools/replay_exporter.py --db "$T/run.db" --max-seconds 60 --node n1 \
    --over-pod top --over-pct 20 --terminated --truth-gauge >"$T/a.out" 2>"$T/a.err" &
RA=$!
python3 tests/tools/replay_exporter.py --db "$T/run.db" --max-seconds 60 --node n1 \
    --restart-at 5 --fake-path >"$T/b.out" 2>"$T/b.err" &
RB=$!
wait_for "$T/a.out" '^PORT='
wait_for "$T/b.out" '^PORT='
pa=$(sed -n 's/^PORT=//p' "$T/a.out")
pb=$(sed -n 's/^PORT=//p' "$T/b.out")
"$BIN" record --db "$T/run.db" --meter sim --truth sim:lag=1,window=1,period=1 \
    --procfs-root "$T/proc" --interval 500ms \
    --duration 9s --quiet --exporter "kepler:http://127.0.0.1:$pa/metrics" \
    --exporter "kepler:http://127.0.0.1:$pb/metrics" --exporter-interval 1s 2>"$T/err" ||
    { cat "$T/err"; cat "$T/a.err" "$T/b.err"; fail "record exited $?"; }
q() { sql "$T/run.db" "$1"; }
top=aaaaaaaa-0000-4000-8000-000000000000
ended=aaaaaaaa-0000-4000-8000-000000000002
[ "$(sed -n 's/^OVER_POD=//p' "$T/a.out")" = $top ] || fail "top pod: $(cat "$T/a.out")"
[ "$(q "SELECT COUNT(*) FROM work_attr WHERE level = 3 AND key = '$ended'")" -gt 0 ] ||
    fail "the reference model has no row of the ended pod"

# provenance and power source
[ "$(q "SELECT provenance || '|' || power_source FROM exporter WHERE id = 1")" = \
  "replay of kepler-0.11 rows (not measured)|not measured" ] || fail "A: $(q 'SELECT provenance FROM exporter')"
python3 tests/tools/replay_exporter.py --db "$T/run.db" --meter-paths --max-seconds 5 >"$T/m.out" 2>"$T/m.err"
rc=$?
[ $rc -eq 2 ] && grep -q "refused" "$T/m.err" && ! grep -q PORT= "$T/m.out" ||
    fail "--meter-paths on a simulated run: exit $rc, $(cat "$T/m.err")"
[ "$(q "SELECT provenance || '|' || power_source FROM exporter WHERE id = 2")" = \
  "replay of kepler-0.11 rows (not measured)|not measured" ] || fail "B: $(q 'SELECT * FROM exporter')"
[ "$(q "SELECT COUNT(*) FROM exporter_series WHERE exporter_id = 2 AND level = 'node'
      AND quantity = 'joules' AND meter != 'fake'")" = 0 ] || fail "B: a node series not on the fake meter"
[ "$(q "SELECT node FROM exporter WHERE id = 1")" = n1 ] || fail "node name"

# A: pods named from their uid; the top pod x 1.2, its container exact, another pod exact
[ "$(q "SELECT COUNT(DISTINCT key) FROM exporter_series WHERE exporter_id = 1 AND level = 'pod'
      AND name = 'pod-aaaaaaaa' AND namespace = 'replay'")" = 3 ] || fail "pod series"
off() { # exporter, level, key, factor: samples (non-zero) matching no reference total x factor
    lv=$(case $2 in pod) echo 3 ;; container) echo 2 ;; esac)
    q "SELECT COUNT(*) FROM exporter_sample s JOIN exporter_series e ON e.id = s.series_id
       WHERE e.exporter_id = $1 AND e.level = '$2' AND e.key LIKE '$3' AND e.quantity = 'joules'
         AND s.value > 0 AND NOT EXISTS (SELECT 1 FROM work_attr w WHERE w.level = $lv
           AND w.key = e.key AND w.zone = e.zone AND abs(w.total_uj * $4 / 1e6 - s.value) < 1e-6)"
}
nz() { # exporter, level, key: non-zero joules samples
    q "SELECT COUNT(*) FROM exporter_sample s JOIN exporter_series e ON e.id = s.series_id
       WHERE e.exporter_id = $1 AND e.level = '$2' AND e.key LIKE '$3' AND e.quantity = 'joules'
         AND s.value > 0"
}
[ "$(nz 1 pod $top)" -ge 6 ] || fail "too few samples of the top pod"
[ "$(off 1 pod $top 1.2)" = 0 ] || fail "the top pod is not the reference x 1.2"
[ "$(off 1 pod $top 1.0)" = "$(nz 1 pod $top)" ] || fail "the top pod matches the reference unscaled"
[ "$(off 1 container c0c0% 1.0)" = 0 ] || fail "the top pod's container was scaled too"
[ "$(off 1 pod aaaaaaaa-0000-4000-8000-000000000001 1.0)" = 0 ] || fail "another pod is off"

# A: the ended pod exported as terminated by one scrape (two only if no
# refresh came between them, on a starved machine), then never again
n=$(q "SELECT COUNT(DISTINCT s.scrape_id) FROM exporter_sample s JOIN exporter_series e
       ON e.id = s.series_id WHERE e.exporter_id = 1 AND e.level = 'pod' AND e.key = '$ended'
       AND e.state = 'terminated'")
[ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "the terminated pod was exported by $n scrapes"
term="SELECT %s(x.scrape_id) FROM exporter_sample x JOIN exporter_series y ON y.id = x.series_id
      WHERE y.exporter_id = 1 AND y.key = '$ended' AND y.state = 'terminated'"
[ "$(q "SELECT COUNT(*) FROM exporter_sample s JOIN exporter_series e ON e.id = s.series_id
      WHERE e.exporter_id = 1 AND e.key = '$ended' AND s.scrape_id > ($(printf "$term" MAX))")" = 0 ] ||
    fail "the terminated pod came back"
[ "$(q "SELECT COUNT(*) FROM exporter_sample s JOIN exporter_series e ON e.id = s.series_id
      WHERE e.exporter_id = 1 AND e.key = '$ended' AND e.state = 'running'
      AND s.scrape_id >= ($(printf "$term" MIN))")" = 0 ] || fail "the ended pod still ran"
[ "$(q "SELECT COUNT(*) FROM exporter_series WHERE exporter_id = 1 AND level = 'process'
      AND state = 'terminated'")" -ge 2 ] || fail "its processes were not exported as terminated"
[ "$(q "SELECT COUNT(*) FROM exporter_series WHERE exporter_id = 2 AND state = 'terminated'")" = 0 ] ||
    fail "B exports terminated workloads without --terminated"
[ "$(q "SELECT COUNT(*) FROM exporter_sample s JOIN exporter_series e ON e.id = s.series_id
      WHERE e.exporter_id = 1 AND e.metric = 'ipmi_dcmi_power_consumption_watts' AND e.level = ''
      AND EXISTS (SELECT 1 FROM truth_sample t WHERE t.watts = s.value)")" -ge 3 ] ||
    fail "the truth gauge"

# B: the restart makes every node counter fall once; A's never fall
falls() { # exporter: decreases of its node active/idle counters between consecutive scrapes
    q "SELECT COUNT(*) FROM exporter_sample a JOIN exporter_sample b ON a.series_id = b.series_id
       JOIN exporter_series e ON e.id = a.series_id
       WHERE e.exporter_id = $1 AND e.level = 'node' AND e.quantity IN ('active_joules', 'idle_joules')
         AND b.scrape_id = (SELECT MIN(x.scrape_id) FROM exporter_sample x
                            WHERE x.series_id = a.series_id AND x.scrape_id > a.scrape_id)
         AND b.value < a.value"
}
[ "$(falls 1)" = 0 ] || fail "A's node counters fell"
nseries=$(q "SELECT COUNT(*) FROM exporter_series WHERE exporter_id = 2 AND level = 'node'
             AND quantity IN ('active_joules', 'idle_joules')")
[ "$(falls 2)" = "$nseries" ] || fail "B: $(falls 2) falls over $nseries node counters, expected one each"
# ---- validate finds each planted fault --------------------------------------
"$BIN" validate --db "$T/run.db" --json "$T/v.json" --junit "$T/v.xml" \
    --tolerance source=measured >"$T/val" 2>&1
rc=$?
[ $rc -eq 1 ] || { cat "$T/val"; fail "validate --tolerance source=measured: exit $rc, expected 1 (B is not measured)"; }
expect_contains "$T/val" "Exporter #1: replay of kepler-0.11 rows (not measured)"
! grep -q "rows (measured)" "$T/val" || fail "a replay of a simulated run reads measured"
grep -q 'failures="[1-9]' "$T/v.xml" || fail "JUnit carries no failing exporter invariant"
grep -q 'wattcal.exporter.invariant' "$T/v.xml" || fail "JUnit has no exporter invariants"
python3 - "$T/v.json" "$top" "$ended" <<'PY' || { sed -n '/^Exporter #1/,$p' "$T/val"; fail "validate did not find the planted faults"; }
import json, sys
d = json.load(open(sys.argv[1])); top, ended = sys.argv[2], sys.argv[3]
xs = {x["id"]: x for x in d["exporters"]}
a, b = xs[1], xs[2]
def inv(x, name, zone=""):
    return [i for i in x["invariants"] if i["name"] == name and i["zone"] == zone][0]
def ref(x, level, key):  # processes: by name (comm), their key is "pid P start S"
    return [r for r in x["reference"]["top"] if r["level"] == level and
            (r["name"] == key if level == "process" else r["key"].startswith(key))][0]
errs = []
r = ref(a, "pod", top)["bias_pct"]
if not (r["lo"] is not None and r["lo"] - 1e-6 <= 20 <= r["hi"] + 1e-6 and abs(r["est"] - 20) < 2):
    errs.append("A top pod: bias %s, expected +20 %% inside its CI" % r)
c = ref(a, "container", "c0c0")["bias_pct"]
if not (c["lo"] is not None and c["lo"] <= 0 <= c["hi"] and abs(c["est"]) < 2):
    errs.append("A top pod's container: bias %s, expected 0" % c)
# B (a restart; scrapes racing with the recorder's commits, a tick in or out
# from one scrape to the next) equals the reference on every workload that
# ran through: the ticks are placed by B's own node active energy, and the
# restart's interval is left out on both sides (it read +-6 % on every row
# while one global lag placed them). The ended pod B loses its last interval
# of (it exports no terminated workloads): that is B's, not ours.
for lvl, key in (("pod", top), ("container", "c0c0"), ("process", "app-0")):
    r = ref(b, lvl, key)["bias_pct"]
    if r["est"] is None or abs(r["est"]) > 1:
        errs.append("B %s %s: bias %s, expected 0 (restart interval left out)" % (lvl, key, r))
p = inv(a, "pod = sum(containers)", "package")
if p["verdict"] != "FAIL" or abs(p["worst"] - 20) > 0.5 or top not in p["worst_at"]:
    errs.append("A pod = sum(containers): %s" % p)
t = inv(a, "terminated workloads vanish")
if t["verdict"] != "PASS" or t["checked"] < 3 or not 1 <= t["worst"] <= 2:
    errs.append("A terminated: %s" % t)
if inv(b, "terminated workloads vanish")["verdict"] != "NO VERDICT":
    errs.append("B has no terminated workloads: NO VERDICT expected")
m = inv(b, "counters monotonic except resets")
if b["restarts"] != 1 or m["verdict"] != "PASS" or m["violations"] != 0 or "1 restart" not in m["note"]:
    errs.append("B restart: restarts %d, %s" % (b["restarts"], m))
if a["restarts"] != 0 or inv(a, "counters monotonic except resets")["verdict"] != "PASS":
    errs.append("A: no restart expected")
if (a["power_source"], b["power_source"]) != ("not measured", "not measured"):
    errs.append("power sources %s, %s" % (a["power_source"], b["power_source"]))
checks = [(c["subject"], c["status"]) for c in d["checks"] if c["metric"] == "source"]
if [s for _, s in checks] != ["fail", "fail"] or "exporter#2" not in checks[1][0]:
    errs.append("source=measured checks: %s" % checks)
srcs = [s["name"] for s in d["sources"]]
for want in ("exporter#1:package", "exporter#2:package"):
    if want not in srcs:
        errs.append("no node source %s in %s" % (want, srcs))
cells = [c for c in d["accuracy"] if c.get("source") == "exporter#1:package"]
if not cells or not cells[0].get("n"):
    errs.append("exporter#1:package not scored against the truth")
show = a["showback"]["pods"]
if show[0]["uid"] != top or show[0]["namespace"] != "replay" or show[0]["error_joules"] is None:
    errs.append("showback: %s" % show[:1])
print("\n".join(errs)); sys.exit(1 if errs else 0)
PY
# the exporter's invariants gate the exit status: A's planted pod fault breaks
# exporter-invariants=0 (exit 1, in the JUnit too); the sound ones pass
"$BIN" validate --db "$T/run.db" --json "$T/vi.json" --junit "$T/vi.xml" \
    --tolerance exporter-invariants=0 >"$T/vinv" 2>&1
rc=$?
[ $rc -eq 1 ] || { cat "$T/vinv"; fail "validate --tolerance exporter-invariants=0: exit $rc, expected 1"; }
grep -q 'exporter-invariants' "$T/vi.xml" || fail "JUnit does not carry exporter-invariants"
python3 - "$T/vi.json" <<'PY' || { grep exporter-invariants "$T/vinv"; fail "exporter-invariants checks"; }
import json, sys
cs = [c for c in json.load(open(sys.argv[1]))["checks"] if c["metric"] == "exporter-invariants"]
st = {c["subject"]: c["status"] for c in cs}
errs = []
if st.get("exporter#1 pod = sum(containers) package") != "fail":
    errs.append("A's pod = sum(containers) should fail: %s" % st)
if st.get("exporter#2 counters monotonic except resets") != "pass":
    errs.append("B's restart is a reset, not a violation: %s" % st)
if st.get("exporter#2 terminated workloads vanish") not in (None, "no_verdict"):
    errs.append("B exports no terminated workloads: NO VERDICT, skipped: %s" % st)
print("\n".join(errs)); sys.exit(1 if errs else 0)
PY

# ---- diff: the exporters' own per-pod series of two runs ---------------------
# B.db keeps only exporter B (restart, no terminated export): its own pod
# series against A's, every pod matched by uid with its namespace/name from
# the exporter's labels, and an exporter verdict line
cp "$T/run.db" "$T/b.db"
sql "$T/b.db" "DELETE FROM exporter_sample WHERE scrape_id IN (SELECT id FROM exporter_scrape WHERE exporter_id = 1);
    DELETE FROM exporter_series WHERE exporter_id = 1; DELETE FROM exporter_scrape WHERE exporter_id = 1;
    DELETE FROM exporter WHERE id = 1" >/dev/null
"$BIN" diff "$T/run.db" "$T/b.db" --window 1s >"$T/diff" 2>&1
rc=$?
expect_contains "$T/diff" "The exporters' own per-pod energy"
expect_contains "$T/diff" "B: replay of kepler-0.11 rows (not measured)"
[ "$(grep -c '^  aaaaaaaa-0000-4000-8000-00000000000[0-2]  *replay/pod-aaaaaaaa ' "$T/diff")" = 3 ] ||
    { cat "$T/diff"; fail "diff: the 3 pods by uid"; }
expect_contains "$T/diff" "exporter verdict (tolerance"
# the verdicts: A's top pod is reported x 1.2, B's exact, so B - A is
# 1/1.2 - 1 = -16.7 % (B's restart window left out, never read as 0 W); the
# second pod is the same on both; the verdict line counts the rows and the
# exit status follows it (1 when a row is CHANGED)
xp_verdicts() { # diff output, exit status, expected diff_% of pods 0 and 1, slack
    python3 - "$@" <<'PY'
import re, sys
text, rc, want0, want1, slack = open(sys.argv[1]).read(), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
part = text[text.index("The exporters' own per-pod energy"):]
rows = {}
for line in part.splitlines():
    m = re.match(r"  (aaaaaaaa-\S+) .* (\S+) (CHANGED|same|inconclusive|new|gone)$", line)
    if m:
        rows[m.group(1)] = (float(m.group(2)), m.group(3))
counts = re.search(r"exporter verdict \(tolerance [^)]*\): (\d+) CHANGED, (\d+) same, (\d+) inconclusive", part)
errs = []
p0, p1 = rows["aaaaaaaa-0000-4000-8000-000000000000"], rows["aaaaaaaa-0000-4000-8000-000000000001"]
if abs(p0[0] - want0) > slack or p0[1] == "same" or p0[0] * want0 <= 0:
    errs.append("top pod: %s, expected %+g %% (its sign at least) and not same" % (p0, want0))
if abs(p1[0] - want1) > slack or p1[1] == "CHANGED":
    errs.append("second pod: %s, expected %+g %% and not CHANGED" % (p1, want1))
n = [sum(v[1] == w for v in rows.values()) for w in ("CHANGED", "same", "inconclusive")]
if not counts or [int(c) for c in counts.groups()] != n:
    errs.append("verdict line %s against rows %s" % (counts and counts.groups(), n))
if (rc == 1) != (n[0] > 0) or rc not in (0, 1):
    errs.append("exit %d with %d CHANGED" % (rc, n[0]))
print("\n".join(errs)); sys.exit(1 if errs else 0)
PY
}
# (loosely: 8 one-second windows, each holding 1 to 3 of the recorder's ticks
# as the scrapes race with its commits, more under a sanitizer: the sign of
# the top pod's change, the verdict line and the exit status are what hold)
xp_verdicts "$T/diff" $rc -16.67 0 30 || { cat "$T/diff"; fail "diff: the exporters' verdicts"; }
# the same exporter with its top pod's samples x 1.2: exactly +20 %, the rest 0
cp "$T/run.db" "$T/a1.db"
sql "$T/a1.db" "DELETE FROM exporter_sample WHERE scrape_id IN (SELECT id FROM exporter_scrape WHERE exporter_id = 2);
    DELETE FROM exporter_series WHERE exporter_id = 2; DELETE FROM exporter_scrape WHERE exporter_id = 2;
    DELETE FROM exporter WHERE id = 2" >/dev/null
cp "$T/a1.db" "$T/a2.db"
sql "$T/a2.db" "UPDATE exporter_sample SET value = value * 1.2 WHERE series_id IN
    (SELECT id FROM exporter_series WHERE level = 'pod' AND key = '$top')" >/dev/null
"$BIN" diff "$T/a1.db" "$T/a2.db" --window 1s >"$T/diff2" 2>&1
xp_verdicts "$T/diff2" $? 20 0 0.01 || { cat "$T/diff2"; fail "diff: top pod x 1.2"; }
exit 0
