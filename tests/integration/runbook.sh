# runbook.md cannot rot: every `wattcal` command in its shell blocks is run,
# in order, as written, on a simulated node (the only substitutions: the
# placeholders at the top of the runbook get short values, `record` and
# `run` get --meter sim --interval 500ms since this machine has no meter, and
# `sudo -E` is dropped; a background stressor that comes and goes stands in
# for the node's real traffic). The deployed exporter is the replay exporter
# (tests/tools/replay_exporter.py, node_name "runbook-node", the BMC's watts as
# ipmi_dcmi_power_consumption_watts): a `record` or `run` with --exporter gets
# one serving its own run on the port EXPORTER names, for that command only;
# PROM is a real Prometheus started here that scrapes that port every second,
# START is the test's start and END the time the import runs. Each must exit as the runbook says it can: 0, or 1
# for the commands whose 1 is a finding (validate's tolerance, diff's CHANGED,
# probe's "no hardware meter"). The reports it writes must exist.
. tests/integration/lib/common.sh
RUNBOOK=$(pwd)/runbook.md
[ -f "$RUNBOOK" ] || fail "runbook.md missing"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

# the commands, continuation lines joined
awk '/^```sh$/ {inb = 1; next} /^```$/ {inb = 0; next}
     inb { line = line $0; if (line ~ /\\$/) { sub(/\\$/, "", line); next } print line; line = "" }' \
    "$RUNBOOK" | sed 's/^ *//' | grep -E '^(sudo -E )?wattcal ' >"$T/commands"
n=$(wc -l <"$T/commands")
[ "$n" -ge 20 ] || fail "only $n wattcal commands found in runbook.md"
for sub in probe record calibrate validate diff run report import; do
    grep -qE "^(sudo -E )?wattcal $sub " "$T/commands" || fail "runbook.md never runs wattcal $sub"
done

grep -q -- '--exporter "$EXPORTER"' "$T/commands" || fail "runbook.md never scrapes the deployed exporter"
grep -q -- '--prometheus "$PROM"' "$T/commands" || fail "runbook.md never imports from Prometheus"

# the deployed exporter and its Prometheus
. tests/integration/lib/prometheus.sh
prom_require
RPORT=$(free_port)
EXPORTER="kepler:http://127.0.0.1:$RPORT/metrics"
NODE=runbook-node
TRUTH_QUERY=ipmi_dcmi_power_consumption_watts
START=$(date +%s)
END=$START
prom_start "$T/prom" "127.0.0.1:$RPORT"
PROM=$PROM_URL
TOOLS=$(pwd)/tests/tools
RX=

# the placeholders: the runbook's own tolerance, short runs on a simulated node
NODE_TOLERANCE=$(sed -n 's/^NODE_TOLERANCE=\([^ ]*\).*/\1/p' "$RUNBOOK")
[ -n "$NODE_TOLERANCE" ] || fail "runbook.md defines no NODE_TOLERANCE"
TOLERANCE=$(sed -n 's/^TOLERANCE=\([^ ]*\).*/\1/p' "$RUNBOOK")
TOLERANCE=$(printf '%s' "$TOLERANCE" | sed "s/\$NODE_TOLERANCE/$NODE_TOLERANCE/")
[ -n "$TOLERANCE" ] || fail "runbook.md defines no TOLERANCE"
TRUTH="sim:lag=1,window=2,period=1,eff=0.85,base=30"
LONG=15s
WINDOW=1s
OLD=kepler-0.11
NEW=kepler-main
SCENARIO="$T/mix.yaml"
cat >"$SCENARIO" <<'YAML'
name: runbook-test
phases:
  - {name: idle, duration: 3s}
  - name: cpu
    duration: 2s
    workloads: [{class: cpu, workers: 1}]
  - name: burst
    duration: 2s
    workloads: [{class: burst, count: 20, child_cpu: 20ms}]
  - name: mix
    duration: 2s
    workloads: [{class: cpu, workers: 1}, {class: burst, count: 10, child_cpu: 20ms}]
YAML
# a replay of the run at --db on $RPORT while the command scrapes it
replay_start() {
    db= prev= uses=0
    for a; do
        [ "$prev" = --db ] && db=$a
        [ "$a" = --exporter ] && uses=1
        prev=$a
    done
    [ $uses = 1 ] || return 0
    python3 "$TOOLS/replay_exporter.py" --db "$db" --port "$RPORT" --node "$NODE" --truth-gauge \
        --max-seconds 300 >"$T/replay.out" 2>&1 &
    RX=$!
    j=0
    until grep -q '^PORT=' "$T/replay.out" 2>/dev/null; do
        j=$((j + 1)); [ $j -le 100 ] || { cat "$T/replay.out"; fail "the replay exporter did not start"; }
        sleep 0.1
    done
}
replay_stop() {
    [ -z "$RX" ] || { kill "$RX" 2>/dev/null; wait "$RX" 2>/dev/null; }
    RX=
}
wattcal() {
    sub=$1
    shift
    case $sub in
    record)
        replay_start "$@"
        "$BIN" record --meter sim --interval 500ms --exporter-interval 1s "$@"
        r=$?
        replay_stop
        return $r
        ;;
    run)
        scenario=$1
        shift
        replay_start "$@"
        "$BIN" run "$scenario" --meter sim --interval 500ms --exporter-interval 1s "$@"
        r=$?
        replay_stop
        return $r
        ;;
    *) "$BIN" "$sub" "$@" ;;
    esac
}
sudo() {
    [ "$1" = -E ] && shift
    "$@"
}

# "real traffic" for the plain recordings: load that comes and goes, so the
# lag and the calibration have load steps to work with
( while :; do "$BIN" stress --class cpu --duration 3s >/dev/null 2>&1; sleep 2; done ) &
LOAD=$!
trap 'kill $LOAD 2>/dev/null; replay_stop; prom_stop; rm -rf "$T"' EXIT

cd "$T"
i=0
while IFS= read -r cmd; do
    i=$((i + 1))
    echo "[$i/$n] $cmd"
    END=$(date +%s)
    eval "$cmd" </dev/null >"$T/out.$i" 2>&1
    rc=$?
    case $cmd in
    # 1 is a finding, 3 "no verdict" (validate, diff) or "not identified" (calibrate
    # refuses a fit when the machine's own load hides the stressor's steps, and an
    # --apply-from that run then has nothing to copy): both as the runbook says
    *"wattcal validate "* | *"wattcal diff "*) ok=13 ;;
    *"wattcal probe "*) ok=1 ;;
    *"wattcal calibrate "*) ok=3 ;;
    *) ok=0 ;;
    esac
    case $cmd in *"wattcal calibrate --db node.db") CAL_RC=$rc ;; esac
    if [ $rc -ne 0 ] && ! { [ $rc -eq 1 ] && [ $ok != 3 ] && [ $ok != 0 ]; } &&
        ! { [ $rc -eq 3 ] && [ $ok != 1 ] && [ $ok != 0 ]; }; then
        tail -n 30 "$T/out.$i"
        fail "runbook command $i exited $rc: $cmd"
    fi
    echo "    exit $rc"
done <"$T/commands"
for f in report-node/report.html report-mix/report.md report-ci/report.html validate.xml validate.json \
         showback-bounds.json node.db node2.db old-node.db new-node.db mix.db ci.db fleet.db fleet.json; do
    [ -s "$T/$f" ] || fail "the runbook's $f was not written"
done
# the out-of-sample estimate is scored whenever the first run's fit was identified
if [ "$CAL_RC" = 0 ]; then
    grep -q "estimate:wall#" "$T/out.5" || fail "step 1 does not score the out-of-sample estimate"
else
    grep -q "holds no calibration" "$T/out.4" || fail "a refused fit's --apply-from does not say why"
    echo "note: node.db's fit was refused (load hid the steps): the out-of-sample estimate is not checked"
fi
# the deployed exporter's numbers are in the runs, labelled a replay, never a release
for db in node.db node2.db old-node.db new-node.db mix.db ci.db; do
    [ "$(sql "$T/$db" "SELECT COUNT(*) FROM exporter_scrape WHERE status = 'ok'")" -ge 3 ] ||
        fail "$db holds too few scrapes of the exporter"
    sql "$T/$db" "SELECT provenance FROM exporter" | grep -q '^replay of kepler-0.11 rows' ||
        fail "$db: exporter provenance $(sql "$T/$db" 'SELECT provenance FROM exporter')"
done
[ "$(sql "$T/fleet.db" "SELECT origin || '|' || node FROM exporter")" = "prometheus|$NODE" ] ||
    fail "fleet.db: $(sql "$T/fleet.db" 'SELECT * FROM exporter')"
[ "$(sql "$T/fleet.db" "SELECT COUNT(*) FROM truth_source WHERE kind = 'prometheus'")" = 1 ] ||
    fail "fleet.db has no truth query"
exit 0
