# CLI errors a new user hits: an unknown option is ONE line with a "did you
# mean" (for every command `wattcal --help` lists), never the whole help;
# durations take compound forms (1h30m, 1d, 90s, 500ms) through the one parser
# and a bad one lists the accepted units; a tolerance given twice is refused,
# naming the metric.
. tests/integration/lib/common.sh
cmds=$("$BIN" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' |
    grep -v '^version$')
[ -n "$cmds" ] || fail "no command listed"
for cmd in $cmds; do
    # the first option of its --help, with its last letter doubled: a typo
    # (run: record's first, the options run passes on to record's parser)
    src=$cmd; [ $cmd = run ] && src=record
    opt=$("$BIN" $src --help | sed -n 's/^  --\([a-z][a-z-]*\).*/\1/p' | head -n 1)
    [ -n "$opt" ] || fail "$cmd lists no option"
    typo="$opt$(printf '%s' "$opt" | tail -c 1)"
    args=""; [ $cmd = run ] && args=quick; [ $cmd = diff ] && args="a.db"
    "$BIN" $cmd $args "--$typo" x >"$T/o" 2>"$T/e"; rc=$?
    [ $rc -eq 2 ] || fail "$cmd --$typo: exit $rc"
    [ "$(wc -l <"$T/e")" -eq 1 ] || { cat "$T/e"; fail "$cmd --$typo: more than one line"; }
    ! grep -q "usage:" "$T/e" || fail "$cmd --$typo printed the help"
    grep -q "unknown option '--$typo'; did you mean --$opt?" "$T/e" || { cat "$T/e"; fail "$cmd: no did-you-mean"; }
    "$BIN" $cmd $args --zzzzzzzz >"$T/o" 2>"$T/e"; rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] || { cat "$T/e"; fail "$cmd --zzzzzzzz: exit $rc"; }
done
"$BIN" record --db "$T/x.db" --quit >/dev/null 2>"$T/e"
expect_contains "$T/e" "did you mean --quiet?"
"$BIN" record --db "$T/x.db" --quiet=1 >/dev/null 2>"$T/e"
expect_contains "$T/e" "option '--quiet' takes no value"

# durations: a compound one is accepted (1s500ms of stress), a bad one lists the units
"$BIN" stress --class idle --resident-mb 1 --duration 1s500ms >"$T/o" 2>&1 || { cat "$T/o"; fail "--duration 1s500ms"; }
for d in 1h30m 1d 90s 500ms; do
    "$BIN" record --db "$T/d.db" --interval "$d" --meter nosuch >/dev/null 2>"$T/e"
    ! grep -q "invalid value for --interval" "$T/e" || { cat "$T/e"; fail "--interval $d refused"; }
done
"$BIN" record --db "$T/d.db" --duration 1h30 >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "--duration 1h30: exit $rc"
expect_contains "$T/e" "durations: ns, us, ms, s, m (or min), h, d; parts add up (1h30m, 1d12h)"
"$BIN" validate --db "$T/d.db" --levels-window 2w >/dev/null 2>"$T/e"
expect_contains "$T/e" "durations: ns, us, ms, s, m (or min), h, d"

# a tolerance given twice
"$BIN" validate --db "$T/d.db" --tolerance node=5%,gap=1% --tolerance node=10% >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "a tolerance twice: exit $rc"
expect_contains "$T/e" "--tolerance: node given twice ('node=5%' and 'node=10%')"
"$BIN" report --db "$T/d.db" --out "$T/r" --tolerance gap=5% --max-unattributed-pct 3 >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "gap= and --max-unattributed-pct: exit $rc"
expect_contains "$T/e" "gap given twice"

# a mistyped command: one line with the nearest command, never the whole help
"$BIN" recrod --db "$T/x.db" >"$T/o" 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "wattcal recrod: exit $rc"
[ "$(cat "$T/e")" = "wattcal: unknown command 'recrod'; did you mean record? (wattcal --help lists them)" ] ||
    fail "wattcal recrod: $(cat "$T/e")"
[ ! -s "$T/o" ] || fail "wattcal recrod wrote to stdout"
"$BIN" xyzzy 2>"$T/e"; [ $? -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] || fail "wattcal xyzzy: $(cat "$T/e")"
"$BIN" --help | grep -q "^  import .*Prometheus.*--truth-into" || fail "--help: import without Prometheus/--truth-into"
exit 0
