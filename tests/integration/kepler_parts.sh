# Issue 14, the model's missing parts, through the CLI on the own fixtures:
# power-gauge zones (tests/fixtures/import/hwmon-gauge.csv, rapl-and-hwmon.csv),
# the deployed configuration (tests/fixtures/kepler-config/), the variants'
# names (kepler-0.10, kepler-0.11, kepler-main) and the terminated workloads
# stored by a recording.
. tests/integration/lib/common.sh
F=tests/fixtures
# total node energy (µJ) of a model's node rows, and of one zone
node_uj() { sql "$1" "SELECT TOTAL(delta_uj) FROM node_attr n JOIN model m ON m.id = n.model_id WHERE m.name = '$2'${3:+ AND zone = '$3'}"; }
halfbusy() { sql "$1" "UPDATE tick SET cpu_ok = 1, cpu_user = 50 * id, cpu_idle = 50 * id"; }

# a node with only an hwmon power sensor: 50, 50, 80, 80 W at 1 s
"$BIN" import --db "$T/g.db" --csv $F/import/hwmon-gauge.csv --time-col time \
    --power-col pkg_w:package:w >/dev/null || fail "import the gauge"
halfbusy "$T/g.db"
"$BIN" attribute --db "$T/g.db" --model kepler-0.11 --model kepler-main --model ideal \
    --model kepler-0.10 >"$T/out" || { cat "$T/out"; fail "attribute the gauge"; }
[ "$(node_uj "$T/g.db" kepler-0.11)" = 210000000.0 ] || fail "v0.11.4 integrates P x interval: $(node_uj "$T/g.db" kepler-0.11)"
[ "$(node_uj "$T/g.db" kepler-main)" = 210000000.0 ] || fail "main as v0.11.4"
[ "$(node_uj "$T/g.db" ideal)" = 195000000.0 ] || fail "ideal: the trapezoid, $(node_uj "$T/g.db" ideal)"
[ "$(node_uj "$T/g.db" kepler-0.10)" = 0.0 ] || fail "v0.10 has no hwmon meter"

# both meters: RAPL first by default, hwmon when the deployment prefers it
"$BIN" import --db "$T/b.db" --csv $F/import/rapl-and-hwmon.csv --time-col time \
    --counter-col pkg_j:package:j --power-col ppt_w:ppt:w >/dev/null || fail "import both"
halfbusy "$T/b.db"
"$BIN" attribute --db "$T/b.db" --model kepler-main >/dev/null || fail "attribute both"
[ "$(node_uj "$T/b.db" kepler-main package)" = 120000000.0 ] || fail "RAPL by default"
"$BIN" attribute --db "$T/b.db" --model kepler-main \
    --kepler-config $F/kepler-config/hwmon-first.yaml >/dev/null || fail "attribute hwmon-first"
[ "$(node_uj "$T/b.db" kepler-main ppt)" = 180000000.0 ] || fail "hwmon first: the ppt gauge"
[ "$(node_uj "$T/b.db" kepler-main package)" = 0.0 ] || fail "hwmon first: no RAPL rows left"

# the deployed config: refused with FILE:LINE, the interval taken from it
for c in unknown-key:4:monitor.maxTerminate bad-values:3:monitor.minTerminatedEnergyThreshold \
         bad-meter:2:cpu.preferredMeters bad-duration:2:monitor.staleness; do
    f=$F/kepler-config/${c%%:*}.yaml; rest=${c#*:}
    "$BIN" record --db "$T/x.db" --meter sim --duration 1s --kepler-config "$f" >"$T/e" 2>&1 &&
        fail "$f accepted"
    expect_contains "$T/e" "$f:${rest%%:*}: ${rest#*:}:"
    [ ! -e "$T/x.db" ] || fail "a refused config created $T/x.db"
done
"$BIN" record --db "$T/x.db" --meter sim --duration 1s \
    --kepler-config $F/kepler-config/bare-integer-interval.yaml >"$T/e" 2>&1 && fail "5 ns interval"
expect_contains "$T/e" "monitor.interval is 5 ns"
"$BIN" stress --class cpu --duration 4s >/dev/null 2>&1 & burner=$!
"$BIN" record --db "$T/r.db" --meter sim --duration 1200ms --model kepler-main --quiet \
    --kepler-config $F/kepler-config/deployed.yaml >"$T/e" 2>&1 || { cat "$T/e"; fail "record"; }
kill $burner 2>/dev/null; wait $burner 2>/dev/null
[ "$(sql "$T/r.db" 'SELECT interval_ns FROM run')" = 200000000 ] || fail "interval from monitor.interval"
[ "$(sql "$T/r.db" 'SELECT name FROM model')" = kepler-main ] || fail "model stored as kepler-main"
# the terminated rows (if any short-lived process reached 10 J) carry no interval energy
[ "$(sql "$T/r.db" 'SELECT COUNT(*) FROM work_attr WHERE flags & 4096 AND (energy_uj != 0 OR cpu_delta_s != 0)')" = 0 ] ||
    fail "a terminated row with interval energy"
exit 0
