# `wattcal run`: a scenario replayed in labelled phases while recording; the
# phases and each workload's true CPU (wait4 of its subtree) are stored; the
# burst's coverage (CPU /proc sampling saw ÷ true CPU) is < 1 at a 1 s
# interval; SIGINT and SIGTERM leave no workload running; a scenario with an
# error is rejected naming the line and field.
. tests/integration/lib/common.sh
cat >"$T/s.yaml" <<'YAML'
name: it-run
seed: 3
phases:
  - name: baseline
    duration: 2500ms
  - name: burst
    duration: 3s
    workloads:
      - {class: burst, count: 40, child_cpu: 20ms}
  - name: cpu
    duration: 2500ms
    workloads:
      - {class: cpu, workers: 1}
YAML
"$BIN" run "$T/s.yaml" --db "$T/run.db" --meter sim --interval 1s --quiet 2>"$T/err" ||
    { cat "$T/err"; fail "run exited $?"; }
[ "$(sql "$T/run.db" 'SELECT COUNT(*) FROM phase')" = 3 ] || fail "phases"
[ "$(sql "$T/run.db" "SELECT group_concat(name, ',') FROM (SELECT name FROM phase ORDER BY start_mono_ns)")" = \
  "baseline,burst,cpu" ] || fail "phase order"
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM phase p JOIN phase q ON q.id = p.id + 1 WHERE q.start_mono_ns < p.end_mono_ns")" = 0 ] ||
    fail "phases overlap"
[ "$(sql "$T/run.db" "SELECT class FROM phase WHERE name='baseline'")" = idle ] || fail "baseline class"
cpu=$(sql "$T/run.db" "SELECT (true_user_ns + true_sys_ns) / 1000000 FROM workload WHERE class='cpu'")
[ "$cpu" -ge 1500 ] && [ "$cpu" -le 2800 ] || fail "cpu workload true CPU $cpu ms over 2.5 s"
burst=$(sql "$T/run.db" "SELECT (true_user_ns + true_sys_ns) / 1000000 FROM workload WHERE class='burst'")
[ "$burst" -ge 500 ] || fail "burst true CPU $burst ms (40 x 20 ms due)"
"$BIN" validate --db "$T/run.db" >"$T/v" || { cat "$T/v"; fail "validate"; }
expect_contains "$T/v" "Replayed workloads"
cov=$(awk '/^Replayed workloads/ {f=1} f && $1=="burst" && $3=="burst" {print $7; exit}' "$T/v")
echo "burst coverage: $cov %"
awk -v c="$cov" 'BEGIN {exit !(c != "-" && c + 0 < 100)}' || { cat "$T/v"; fail "burst coverage should be < 100 %, got $cov"; }

# the workload processes of the wattcal run $1 still alive (its own only:
# other runs of the suite may have workers of their own at the same time)
workers_of() {
    pgrep -af -- "--parent-pid $1( |\$)" | grep -E 'wattcal[- ](stress|burst|cpu)'
}

# interrupted: nothing left running, what was recorded is kept
for sig in INT TERM; do
    "$BIN" run "$T/s.yaml" --db "$T/$sig.db" --meter sim --interval 500ms --quiet 2>"$T/err" &
    pid=$!
    sleep 2.5
    kill -$sig $pid
    wait $pid; rc=$?
    [ $rc -eq 3 ] || { cat "$T/err"; fail "SIG$sig: exit $rc (3 = interrupted)"; }
    sleep 0.3
    if workers_of $pid; then
        fail "workloads left after SIG$sig"
    fi
    [ "$(sql "$T/$sig.db" 'SELECT COUNT(*) FROM tick')" -ge 3 ] || fail "ticks lost after SIG$sig"
done

# the isolation known answers: the cpu phase's marginal node power over the
# idle baseline is positive (the simulated node charges busy CPUs)
expect_contains "$T/v" "Phases (isolation known answers)"
m=$(awk '/^Phases \(isolation/ {f=1} f && $1=="cpu" && $3=="cpu" {print $6; exit}' "$T/v")
awk -v m="$m" 'BEGIN {exit !(m != "-" && m + 0 > 1)}' || { cat "$T/v"; fail "cpu marginal power $m W"; }

# kill -9 of wattcal itself: the workers die with it (parent-death signal)
"$BIN" run "$T/s.yaml" --db "$T/k9.db" --meter sim --interval 500ms --quiet 2>/dev/null &
pid=$!
sleep 2.5
kill -9 $pid
wait $pid 2>/dev/null
sleep 1
if workers_of $pid; then
    fail "workloads left after kill -9 of wattcal run"
fi
[ "$(sql "$T/k9.db" 'PRAGMA integrity_check')" = ok ] || fail "integrity after kill -9"
# the simulated node's temp tree cannot be removed by a killed process
simdir=$(sql "$T/k9.db" 'SELECT meter_description FROM run' | grep -o '/[^ ]*/class/powercap' | sed 's|/class/powercap$||')
case "$simdir" in */wattcal-sim-*) rm -rf "$simdir" ;; esac

# the stress-ng backend (optional: where stress-ng is installed)
if command -v stress-ng >/dev/null 2>&1; then
    printf 'name: sng\nphases:\n  - name: cpu\n    duration: 2s\n    workloads:\n      - {class: cpu}\n' >"$T/sng.yaml"
    "$BIN" run "$T/sng.yaml" --backend stress-ng --db "$T/sng.db" --meter sim --interval 500ms --quiet \
        2>"$T/err" || { cat "$T/err"; fail "run --backend stress-ng"; }
    c=$(sql "$T/sng.db" "SELECT (true_user_ns + true_sys_ns) / 1000000 FROM workload")
    [ "$c" -ge 1000 ] || fail "stress-ng cpu worker true CPU $c ms over 2 s"
    [ "$(sql "$T/sng.db" "SELECT COUNT(*) FROM process WHERE comm LIKE 'stress-ng%'")" -ge 1 ] ||
        fail "stress-ng processes not recorded"
fi
"$BIN" run "$T/s.yaml" --backend nope --db "$T/nope.db" 2>/dev/null; [ $? -eq 2 ] || fail "--backend nope accepted"

# a scenario with an error: line and field named, nothing recorded
printf 'name: bad\nphases:\n  - name: x\n    duration: 1s\n    workloads:\n      - {class: cpu, duty: 150}\n' >"$T/bad.yaml"
"$BIN" run "$T/bad.yaml" --db "$T/bad.db" --meter sim --quiet 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "bad scenario: exit $rc"
expect_contains "$T/e" "bad.yaml:6"
expect_contains "$T/e" "duty"
[ ! -e "$T/bad.db" ] || fail "a DB was created for a bad scenario"
exit 0
