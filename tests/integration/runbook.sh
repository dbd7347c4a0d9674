# runbook.md cannot rot: every `wattcal` command in its shell blocks is run,
# in order, as written, on a simulated node (the only substitutions: the
# placeholders at the top of the runbook get short values, `record` and
# `run` get --meter sim --interval 500ms since this machine has no meter, and
# `sudo -E` is dropped; a background stressor that comes and goes stands in
# for the node's real traffic). Each must exit as the runbook says it can: 0, or 1
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
for sub in probe record calibrate validate diff run report; do
    grep -qE "^(sudo -E )?wattcal $sub " "$T/commands" || fail "runbook.md never runs wattcal $sub"
done

# the placeholders: the runbook's own tolerance, short runs on a simulated node
TOLERANCE=$(sed -n 's/^TOLERANCE=\([^ ]*\).*/\1/p' "$RUNBOOK")
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
wattcal() {
    sub=$1
    shift
    case $sub in
    record) "$BIN" record --meter sim --interval 500ms "$@" ;;
    run)
        scenario=$1
        shift
        "$BIN" run "$scenario" --meter sim --interval 500ms "$@"
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
trap 'kill $LOAD 2>/dev/null; rm -rf "$T"' EXIT

cd "$T"
i=0
while IFS= read -r cmd; do
    i=$((i + 1))
    echo "[$i/$n] $cmd"
    eval "$cmd" </dev/null >"$T/out.$i" 2>&1
    rc=$?
    case $cmd in
    *"wattcal validate "* | *"wattcal diff "* | *"wattcal probe "*) ok=1 ;;
    *) ok=0 ;;
    esac
    if [ $rc -ne 0 ] && { [ $rc -ne 1 ] || [ $ok -ne 1 ]; }; then
        tail -n 30 "$T/out.$i"
        fail "runbook command $i exited $rc: $cmd"
    fi
    echo "    exit $rc"
done <"$T/commands"
for f in report-node/report.html report-mix/report.md report-ci/report.html validate.xml validate.json \
         showback-bounds.json node.db node2.db old-node.db new-node.db mix.db ci.db; do
    [ -s "$T/$f" ] || fail "the runbook's $f was not written"
done
grep -q "estimate:wall#" "$T/out.5" || fail "step 1 does not score the out-of-sample estimate"
exit 0
