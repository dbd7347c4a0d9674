# On a terminal the progress line shows the phase, elapsed/total time, the ETA
# and each truth source's readings; `run` and `record` agree on the exit code
# after Ctrl-C (SIGINT): 3 when stopped before their planned end (the run is
# closed cleanly and kept), while a record without --duration ends with 0 (its
# planned end is the signal; sigterm.sh).
. tests/integration/lib/common.sh
wait_ticks() { # db n
    i=0
    while [ $i -lt 150 ]; do
        [ "$(sqlite3 "$1" 'SELECT COUNT(*) FROM tick' 2>/dev/null || echo 0)" -ge "$2" ] && return 0
        sleep 0.1; i=$((i + 1))
    done
    fail "$1 never reached $2 ticks"
}
for cmd in record run; do
    if [ $cmd = record ]; then
        "$BIN" record --db "$T/$cmd.db" --meter sim --interval 200ms --duration 60s --quiet 2>"$T/err" &
    else
        "$BIN" run quick --db "$T/$cmd.db" --meter sim --interval 200ms --quiet 2>"$T/err" &
    fi
    pid=$!
    wait_ticks "$T/$cmd.db" 4
    kill -INT $pid
    wait $pid; rc=$?
    [ $rc -eq 3 ] || { cat "$T/err"; fail "$cmd exited $rc after SIGINT, expected 3"; }
    expect_contains "$T/err" "closed cleanly"
    [ "$(sql "$T/$cmd.db" 'SELECT clean_stop FROM run')" = 1 ] || fail "$cmd: not clean after SIGINT"
done

# the progress line on a terminal (script(1) gives the run a pty): a 6 s scenario
command -v script >/dev/null || skip "no script(1) for a terminal"
cat >"$T/two.yaml" <<'YAML'
name: two-phases
phases:
  - {name: idle-a, duration: 3s}
  - name: load-a
    duration: 3s
    workloads: [{class: cpu, workers: 1}]
YAML
script -qec "$BIN run $T/two.yaml --db $T/tty.db --meter sim --interval 250ms --truth sim:lag=0,window=0.5,period=0.25 --truth-interval 250ms" \
    "$T/tty.log" >/dev/null 2>&1 || { tr '\r' '\n' <"$T/tty.log" | tail -n 5; fail "run on a terminal"; }
tr '\r' '\n' <"$T/tty.log" | grep 'wattcal record: phase load-a' | tail -n 1 >"$T/line"
[ -s "$T/line" ] || { tr '\r' '\n' <"$T/tty.log" | tail -n 5; fail "no progress line with the second phase"; }
grep -Eq 'phase load-a \(2/2\)  [0-9.]+/6 s, ETA [0-9]+ s  node [0-9.]+ W \(simulated\)  [0-9]+ processes' "$T/line" ||
    fail "progress line: $(cat "$T/line")"
grep -Eq 'truth sim:lag=0,window=0.5,per ok [1-9][0-9]*/[0-9]+$' "$T/line" || fail "no truth status: $(cat "$T/line")"
exit 0
