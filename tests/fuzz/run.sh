#!/bin/sh
# Runs every harness given (build/fuzz/fuzz-NAME, made by `make fuzz`) under
# libFuzzer for SECONDS each, one after the other, seeded with the committed
# corpus tests/fuzz/corpus/NAME (read only) and the inputs found by earlier
# runs in build/fuzz/corpus/NAME (where new ones go). A crash, leak, UB,
# broken contract or timeout leaves its input in build/fuzz/crashes/ and fails
# the run. Inputs are at most FUZZ_MAX_LEN bytes (default 4096: structure is
# found in small inputs, and multi-KB ones only slow the search; the corpora's
# larger regression inputs are replayed whole by make test, with a time
# limit). Ends with one line per harness: executions, executions per second
# of wall time and per second of the CPU time the harness got (/usr/bin/time;
# on a shared machine the wall rate mostly measures the others' load), corpus
# size, outcome; a harness below 10,000 execs per CPU second (per wall second
# without /usr/bin/time) is marked "slow" (a finding: fix it or explain it in
# tests/fuzz/README.md).
#   sh tests/fuzz/run.sh SECONDS NAME...
set -u
secs=${1:?usage: run.sh SECONDS NAME...}
shift
cd "$(dirname "$0")/../.."
out=build/fuzz
max_len=${FUZZ_MAX_LEN:-4096}
mkdir -p "$out/crashes" "$out/logs"
summary=$(mktemp)
cpu_file=$(mktemp)
trap 'rm -f "$summary" "$cpu_file"' EXIT
timer=
[ -x /usr/bin/time ] && timer="/usr/bin/time -f %U:%S -o $cpu_file"
failed=0
for name in "$@"; do
    bin=$out/fuzz-$name
    seeds=tests/fuzz/corpus/$name
    work=$out/corpus/$name
    log=$out/logs/$name.log
    mkdir -p "$work"
    echo "fuzz $name: ${secs}s" >&2
    # -timeout: one input slower than 10 s is a hang; -rss_limit_mb: a leak or
    # an unbounded allocation.
    : >"$cpu_file"
    $timer "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
        -print_final_stats=1 -artifact_prefix="$out/crashes/$name-" "$work" "$seeds" \
        >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    corp=$(ls "$work" | wc -l | tr -d ' ')
    # executions per CPU second (user + system), when /usr/bin/time measured them
    cpu_rate=$(awk -F: -v n="${execs:-0}" 'NF == 2 && $1 + $2 > 0 { printf "%d", n / ($1 + $2) }' \
        "$cpu_file")
    verdict=ok
    if [ "$rc" -ne 0 ]; then
        verdict="FAILED (exit $rc, see $log)"
        failed=1
        grep -m 3 -E 'ERROR|contract broken|SUMMARY' "$log" >&2
    elif [ "${cpu_rate:-${rate:-0}}" -lt 10000 ]; then
        verdict="ok, slow (< 10000 execs/s)"
    fi
    printf '%-12s %12s execs %8s/s %8s/cpu-s  corpus %6s  %s\n' "$name" "${execs:-?}" \
        "${rate:-?}" "${cpu_rate:-?}" "$corp" "$verdict" >>"$summary"
done
echo "harness             executions    per s  per cpu-s  corpus (build/fuzz/corpus)"
cat "$summary"
exit $failed
