# `record --exporter kepler:URL` against the replay exporter
# (tests/tools/replay_exporter.py) serving the very run being recorded, on a
# simulated node with a simulated BMC and a stress workload: every scrape is
# stored with its times and status, the series are classified, the samples
# equal the reference model's numbers (node totals monotonic), the build info
# says "replay" and so does the provenance. Planted faults — HTTP 500, a hang
# (timeout), garbage, a truncated body — give error/parse_error scrapes with a
# clear error while the run goes on, and the hang does not stretch the
# sampler's tick gaps. A URL with credentials in it is refused before any
# file is made.
. tests/integration/lib/common.sh
command -v python3 >/dev/null 2>&1 || skip "python3 absent"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 absent"
RP= ST=
trap 'for p in $RP $ST; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

# credentials in the URL: refused, not echoed, no run file
"$BIN" record --db "$T/creds.db" --meter sim --duration 1s --quiet \
    --exporter kepler:http://admin:s3cret@127.0.0.1:9/metrics 2>"$T/creds.err"
rc=$?
[ $rc -eq 2 ] || { cat "$T/creds.err"; fail "credentials in the URL: exit $rc, expected 2"; }
expect_contains "$T/creds.err" "WATTCAL_EXPORTER_TOKEN"
grep -q s3cret "$T/creds.err" && fail "the password was echoed"
[ ! -e "$T/creds.db" ] || fail "a run file was made despite the refused URL"
"$BIN" record --db "$T/k.db" --meter sim --duration 1s --quiet --exporter prom:http://x/ 2>"$T/kind.err"
[ $? -eq 2 ] || fail "an unknown exporter kind was accepted"
expect_contains "$T/kind.err" "kepler:URL"

# the replay exporter starts first (it serves only its build info until the
# run file exists); requests 3, 5, 7, 9 carry the planted faults
python3 tests/tools/replay_exporter.py --db "$T/run.db" --max-seconds 60 --hang-seconds 20 \
    --fail 500:3 --fail hang:5 --fail garbage:7 --fail truncate:9 --log "$T/requests" \
    >"$T/replay.out" 2>"$T/replay.err" &
RP=$!
i=0
while ! grep -q '^PORT=' "$T/replay.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -le 100 ] || { cat "$T/replay.err"; fail "replay exporter did not start"; }
    sleep 0.1
done
port=$(sed -n 's/^PORT=//p' "$T/replay.out")
"$BIN" stress --class cpu --duration 20s >/dev/null 2>&1 &
ST=$!
"$BIN" record --db "$T/run.db" --meter sim --truth sim --interval 200ms --duration 17s --quiet \
    --exporter "kepler:http://127.0.0.1:$port/metrics" --exporter-interval 1s \
    --exporter-timeout 2s 2>"$T/err" || { cat "$T/err"; fail "record exited $?"; }
cat "$T/err"
grep -q 'exporter scrapes [0-9]* ok, [0-9]* failed' "$T/err" || fail "summary line lacks the scrape counts"
q() { sql "$T/run.db" "$1"; }

# the exporter row: what the scrapes taught
[ "$(q "SELECT kind || ' ' || origin || ' ' || version FROM exporter")" = "kepler live replay" ] ||
    fail "exporter row: $(q 'SELECT * FROM exporter')"
prov=$(q "SELECT provenance FROM exporter")
case "$prov" in "replay of kepler-0.11 rows ("*) ;; *) fail "provenance: $prov" ;; esac
[ "$(q "SELECT layout FROM exporter")" = "v0.10+" ] || fail "layout"
[ "$(q "SELECT spec FROM exporter")" = "kepler:http://127.0.0.1:$port/metrics" ] || fail "spec"

# every scrape stored, with its times and outcome
cat "$T/requests"
n=$(q "SELECT COUNT(*) FROM exporter_scrape")
[ "$n" -ge 9 ] || fail "only $n scrapes"
[ "$(q "SELECT COUNT(*) FROM exporter_scrape WHERE NOT (req_mono_ns <= resp_mono_ns AND
      duration_ns = resp_mono_ns - req_mono_ns AND req_wall_ns > 0 AND resp_wall_ns >= req_wall_ns)")" = 0 ] ||
    fail "scrape times"
[ "$(q "SELECT COUNT(*) FROM exporter_scrape s, run r WHERE s.req_mono_ns < r.started_mono_ns
      OR s.resp_mono_ns > r.ended_mono_ns")" = 0 ] || fail "a scrape outside the run"
[ "$(q "SELECT COUNT(*) FROM exporter_scrape WHERE status='ok' AND http_status=200 AND samples > 50")" -ge 4 ] ||
    fail "ok scrapes: $(q 'SELECT status, http_status, samples FROM exporter_scrape')"
[ "$(q "SELECT COUNT(*) FROM exporter_scrape WHERE status='error' AND http_status=500
      AND error LIKE '%HTTP 500%planted%'")" = 1 ] || fail "the HTTP 500 scrape"
[ "$(q "SELECT COUNT(*) FROM exporter_scrape WHERE status='error' AND http_status IS NULL
      AND error LIKE '%timed out%' AND duration_ns BETWEEN 1900000000 AND 4000000000")" = 1 ] ||
    fail "the hanging scrape: $(q 'SELECT status, duration_ns, error FROM exporter_scrape')"
[ "$(q "SELECT COUNT(*) FROM exporter_scrape WHERE status='parse_error' AND http_status=200
      AND samples=0 AND error LIKE '%127.0.0.1:$port/metrics:%'")" = 2 ] ||
    fail "garbage and truncated bodies: $(q 'SELECT status, error FROM exporter_scrape')"
q "SELECT error FROM exporter_scrape WHERE status != 'ok'"
[ "$(q "SELECT COUNT(*) FROM exporter_scrape s WHERE samples !=
      (SELECT COUNT(*) FROM exporter_sample x WHERE x.scrape_id = s.id)")" = 0 ] || fail "sample counts"
# the run went on: ticks after the last fault, and the hang did not stretch a tick gap (a scrape
# the run's end cancelled, possible on a loaded machine, is not a fault)
last=$(q "SELECT MAX(resp_mono_ns) FROM exporter_scrape WHERE status != 'ok'
          AND error NOT LIKE '%cancelled: the run ended%'")
[ "$(q "SELECT COUNT(*) FROM tick WHERE mono_ns > $last")" -ge 5 ] || fail "the run stopped after a fault"
gap=$(q "SELECT MAX(b.mono_ns - a.mono_ns) / 1000000 FROM tick a JOIN tick b ON b.id = a.id + 1")
echo "largest tick gap: $gap ms"
[ "$gap" -lt 1500 ] || fail "a tick gap of $gap ms (interval 200 ms, exporter timeout 2 s)"

# series classified; samples equal the reference model; node counters monotonic
# (the recorded run is simulated: its replay serves Kepler's fake-meter path, never a measured one)
[ "$(q "SELECT COUNT(*) FROM exporter_series WHERE level='node' AND quantity='active_joules'
      AND meter = 'fake'")" -ge 2 ] || fail "node series: $(q "SELECT meter, COUNT(*) FROM exporter_series WHERE level='node' GROUP BY meter")"
[ "$(q "SELECT COUNT(*) FROM exporter_series WHERE level='process' AND quantity='joules' AND key != ''
      AND comm != '' AND state='running'")" -ge 3 ] || fail "process series"
[ "$(q "SELECT COUNT(*) FROM exporter_series WHERE metric='kepler_build_info' AND level != ''")" = 1 ] ||
    fail "build info"
[ "$(q "SELECT COUNT(*) FROM exporter_series WHERE labels != '' AND labels NOT LIKE '{%}'")" = 0 ] || fail "labels text"
bad=$(q "SELECT COUNT(*) FROM exporter_sample s JOIN exporter_series e ON e.id = s.series_id
    WHERE e.level = 'node' AND e.quantity = 'active_joules' AND NOT EXISTS (
      SELECT 1 FROM node_attr n JOIN model m ON m.id = n.model_id AND m.name = 'kepler-0.11'
      WHERE n.zone = e.zone AND abs(n.active_total_uj / 1e6 - s.value) < 1e-6)")
[ "$bad" = 0 ] || fail "$bad node active totals differ from the reference model's"
dec=$(q "SELECT COUNT(*) FROM exporter_sample a JOIN exporter_sample b ON a.series_id = b.series_id
    JOIN exporter_series e ON e.id = a.series_id
    WHERE e.level = 'node' AND e.quantity IN ('active_joules', 'idle_joules')
      AND b.scrape_id = (SELECT MIN(x.scrape_id) FROM exporter_sample x
                         WHERE x.series_id = a.series_id AND x.scrape_id > a.scrape_id)
      AND b.value < a.value")
[ "$dec" = 0 ] || fail "$dec decreases of a node active/idle counter"
# the replay log agrees: the faults were served on the requests planned
for f in "3 500" "5 hang" "7 garbage" "9 truncate"; do
    grep -q "^$f " "$T/requests" || fail "replay log lacks request $f"
done
exit 0
