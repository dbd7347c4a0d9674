# wattcal stress as a spawner: burst CPU comes back through wait4; a killed
# spawner (kill -9: PR_SET_PDEATHSIG; SIGTERM: group kill) leaves no worker.
. tests/integration/lib/common.sh

# members of process group $1 named $2 ("" = any name); $3 = 1 counts zombies
in_group() {
    cat /proc/[0-9]*/stat 2>/dev/null | awk -v pg="$1" -v name="$2" -v z="${3:-0}" '
        { o = index($0, "("); c = 0
          for (i = length($0); i > o; i--) if (substr($0, i, 1) == ")") { c = i; break }
          if (!c) next
          comm = substr($0, o + 1, c - o - 1); split(substr($0, c + 2), f, " ")
          if (f[3] == pg && (name == "" || comm == name) && (z == 1 || f[1] != "Z")) n++ }
        END { print n + 0 }'
}
# waits up to 5 s for the "process group N" line on stderr file $1; prints N
group_of() {
    i=0
    while [ $i -lt 50 ]; do
        pg=$(sed -n 's/.*in process group \([0-9][0-9]*\)$/\1/p' "$1")
        [ -n "$pg" ] && { echo "$pg"; return 0; }
        sleep 0.1; i=$((i + 1))
    done
    return 1
}
# waits up to $3 tenths of a second until in_group $1 $2 prints $4
await_count() {
    i=0
    while [ $i -lt "$3" ]; do
        [ "$(in_group "$1" "$2")" = "$4" ] && return 0
        sleep 0.1; i=$((i + 1))
    done
    return 1
}

# 1. burst: 30 children x 20 ms of CPU, counted through the leader's wait4
"$BIN" stress --class burst --count 30 --child-cpu 20ms >"$T/burst.out" 2>"$T/burst.err" \
    || { cat "$T/burst.err"; fail "burst exited $?"; }
cpu=$(sed -n 's/^true CPU: \([0-9.]*\) s.*/\1/p' "$T/burst.out")
[ -n "$cpu" ] || { cat "$T/burst.out"; fail "no 'true CPU' line"; }
awk -v c="$cpu" 'BEGIN { exit !(c >= 0.4) }' || fail "true CPU $cpu s < 0.4 s"

# 2. kill -9 of the spawner: the workers die by PR_SET_PDEATHSIG within 2 s
"$BIN" stress --class cpu --workers 2 --duration 30s >"$T/k9.out" 2>"$T/k9.err" &
parent=$!
pg=$(group_of "$T/k9.err") || { kill -9 $parent; cat "$T/k9.err"; fail "no process group line"; }
await_count "$pg" wattcal-cpu 50 2 || { kill -9 $parent; fail "2 wattcal-cpu workers never ran"; }
kill -9 $parent
wait $parent 2>/dev/null
await_count "$pg" wattcal-cpu 20 0 || fail "wattcal-cpu of group $pg alive 2 s after kill -9"

# 3. SIGTERM: the spawner kills its group, reaps it, reports and exits 0
"$BIN" stress --class cpu --workers 2 --duration 30s >"$T/term.out" 2>"$T/term.err" &
parent=$!
pg=$(group_of "$T/term.err") || { kill -9 $parent; cat "$T/term.err"; fail "no process group line"; }
await_count "$pg" wattcal-cpu 50 2 || { kill -9 $parent; fail "2 wattcal-cpu workers never ran"; }
kill -TERM $parent
t0=$(date +%s)
wait $parent; rc=$?
[ "$rc" = 0 ] || fail "spawner exited $rc after SIGTERM"
[ $(($(date +%s) - t0)) -le 2 ] || fail "SIGTERM took more than 2 s"
[ "$(in_group "$pg" "" 1)" = 0 ] || fail "group $pg not empty after SIGTERM"
expect_contains "$T/term.out" "true CPU"
exit 0
