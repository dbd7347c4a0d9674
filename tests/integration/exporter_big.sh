# A big exporter never delays the sampler (issue 11): `record --exporter`
# against tests/tools/big_expo.py serving 50,001 series (a 6 MB body) every
# scrape. The scrapes' samples are written between ticks, in a transaction
# of their own within the time the sampler can spare, so no deadline is
# missed; and every sample of every ok scrape is stored, with its value (the
# pod series i holds i: the sum of one scrape is known).
. tests/integration/lib/common.sh
command -v python3 >/dev/null 2>&1 || skip "python3 absent"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 absent"
BP=
trap '[ -n "$BP" ] && { kill "$BP" 2>/dev/null; wait "$BP" 2>/dev/null; }; rm -rf "$T"' EXIT
N=50000
python3 tests/tools/big_expo.py --series $N --max-seconds 60 >"$T/srv.out" 2>"$T/srv.err" &
BP=$!
i=0
while ! grep -q '^PORT=' "$T/srv.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -le 100 ] || { cat "$T/srv.err"; fail "big_expo.py did not start"; }
    sleep 0.1
done
port=$(sed -n 's/^PORT=//p' "$T/srv.out")
"$BIN" record --db "$T/run.db" --meter sim --interval 1s --duration 8s \
    --exporter "kepler:http://127.0.0.1:$port/metrics" --exporter-interval 1s 2>"$T/err" ||
    { cat "$T/err"; fail "record exited $?"; }
grep 'ticks written' "$T/err"
# missed deadlines are shown, not asserted (no timing assertion in tests: a
# loaded machine or the ASan build misses some either way); `make bench` and
# the issue's note measure them side by side
grep -o 'missed deadlines [0-9]*' "$T/err"
grep -q 'not stored' "$T/err" && fail "samples were dropped"
q() { sql "$T/run.db" "$1"; }
ticks=$(q "SELECT COUNT(*) FROM tick")
[ "$ticks" -ge 8 ] || fail "only $ticks ticks in 8 s at 1 s"
ok=$(q "SELECT COUNT(*) FROM exporter_scrape WHERE status = 'ok'")
[ "$ok" -ge 3 ] || fail "only $ok ok scrapes: $(q 'SELECT status, error FROM exporter_scrape')"
[ "$(q "SELECT COUNT(*) FROM exporter_scrape WHERE status = 'ok' AND samples != $((N + 1))")" = 0 ] ||
    fail "an ok scrape does not say $((N + 1)) samples"
# every sample of every scrape stored, and only once
[ "$(q "SELECT COUNT(*) FROM exporter_scrape s WHERE samples !=
      (SELECT COUNT(*) FROM exporter_sample x WHERE x.scrape_id = s.id)")" = 0 ] ||
    fail "stored samples differ from the scrapes' counts"
[ "$(q "SELECT COUNT(*) FROM exporter_sample")" = "$((ok * (N + 1)))" ] || fail "sample total"
[ "$(q "SELECT COUNT(*) FROM exporter_series")" = "$((N + 1))" ] || fail "series made more than once"
# the known answer: pod series i holds i, the node counter 1000
want=$((N * (N - 1) / 2 + 1000))
[ "$(q "SELECT COUNT(DISTINCT t) FROM (SELECT scrape_id, CAST(SUM(value) AS INTEGER) AS t
      FROM exporter_sample GROUP BY scrape_id)")" = 1 ] || fail "scrapes differ"
got=$(q "SELECT CAST(SUM(value) AS INTEGER) FROM exporter_sample GROUP BY scrape_id LIMIT 1")
[ "$got" = "$want" ] || fail "a scrape sums to $got, expected $want"
[ "$(q "SELECT COUNT(*) FROM exporter_series WHERE level = 'pod' AND name LIKE 'pod-%'")" = $N ] ||
    fail "pod series not classified"
echo "exporter_big: $ticks ticks, $ok scrapes of $((N + 1)) samples, none missed"
