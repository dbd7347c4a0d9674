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
# Both say "replay" in their provenance, never a release.
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
[ "$(q "SELECT provenance FROM exporter WHERE id = 1")" = "replay of kepler-0.11 rows (measured)" ] ||
    fail "A: $(q 'SELECT provenance FROM exporter')"
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
exit 0
