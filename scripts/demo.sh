#!/bin/sh
# `make demo`: the main job on the embedded default, with no hardware needed.
# Records ~60 s of a SIMULATED node (wattcal's sim meter: a powercap tree whose
# counters follow this machine's real CPU use) while a CPU-burning child and
# an idle-but-resident child run, then prints the attribution-gap table.
# DEMO_SECONDS shortens it (tests use a few seconds).
set -eu
cd "$(dirname "$0")/.."
secs=${DEMO_SECONDS:-60}
outdir=${DEMO_DIR:-demo-out}
mkdir -p "$outdir"
db="$outdir/demo.db"
rm -f "$db" "$db-wal" "$db-shm"
bin=${WATTCAL_BIN:-./wattcal}

"$bin" stress --class cpu --duration "$((secs + 5))s" &
cpu_pid=$!
"$bin" stress --class idle --duration "$((secs + 5))s" --resident-mb 64 &
idle_pid=$!
trap 'kill $cpu_pid $idle_pid 2>/dev/null || true' EXIT INT TERM

echo "wattcal demo: recording ${secs}s of a SIMULATED node (cpu stressor pid $cpu_pid, idle stressor pid $idle_pid)"
"$bin" record --db "$db" --meter sim --truth sim --interval 1s --duration "${secs}s" --model kepler-0.11
echo
"$bin" validate --db "$db"
echo
echo "Same recording under the corrected model (offline re-attribution):"
"$bin" validate --db "$db" --model ideal | sed '/^Levels/,$d'
echo
echo "wattcal demo: run stored in $db (node power SIMULATED: no hardware was measured)"
