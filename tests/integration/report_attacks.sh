# `wattcal report` against damaged runs and a hostile environment (the
# findings of an attack run, each kept as a regression): overlapping idle
# phases, a NULL zone name, sparse process ids, an impossible clock, names
# that break XML ("]]>", U+FFFE) or hide text (U+202E), a 200-byte process
# name, the run itself inside --out, a gnuplot planted in an empty PATH entry,
# and a gnuplot that never reads its script and leaves children behind.
. tests/integration/lib/common.sh
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to edit the runs and parse the SVGs"
command -v gnuplot >/dev/null 2>&1 || skip "gnuplot is needed (Debian: gnuplot-nox)"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
cat >"$T/s.yaml" <<'YAML'
name: it-report-attacks
phases:
  - {name: idle, duration: 3s}
  - name: cpu
    duration: 3s
    workloads: [{class: cpu, workers: 1}]
  - {name: idle2, duration: 2s}
YAML
"$BIN" run "$T/s.yaml" --db "$T/base.db" --meter sim --interval 500ms --quiet \
    --truth "sim:lag=1,window=2,period=1" --truth-interval 500ms 2>"$T/e" || { cat "$T/e"; fail "run"; }
variant() { # name, python body editing db
    cp "$T/base.db" "$T/$1.db"
    python3 - "$T/$1.db" "$2" <<'PY' || fail "could not edit $1"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
exec(sys.argv[2])
db.commit()
PY
}
report() { # db, out dir, extra options...; exit code in $rc
    db=$1 out=$2
    shift 2
    "$BIN" report --db "$db" --out "$out" "$@" >"$T/out" 2>&1
    rc=$?
}

# overlapping idle phases (a heap overflow once): report and validate
variant overlap 'for i in (1, 2):
    db.execute("INSERT INTO phase(name, class, start_mono_ns, end_mono_ns, start_wall_ns, end_wall_ns, repetition)"
               " SELECT ?, \"idle\", MIN(mono_ns), MAX(mono_ns), 0, 0, 1 FROM tick", ("all%d" % i,))'
report "$T/overlap.db" "$T/r1"
[ $rc -eq 0 ] || { cat "$T/out"; fail "overlapping idle phases: exit $rc"; }
"$BIN" validate --db "$T/overlap.db" >"$T/out" 2>&1 || { tail "$T/out"; fail "validate, overlapping idle phases"; }

# a NULL zone name (a crash once)
variant nullzone 'db.execute("UPDATE zone SET name = NULL WHERE id = (SELECT MIN(id) FROM zone)")'
report "$T/nullzone.db" "$T/r2"
[ $rc -eq 0 ] || [ $rc -eq 2 ] || { cat "$T/out"; fail "NULL zone name: exit $rc"; }

# sparse process ids: refused, not gigabytes of memory
variant sparse 'db.execute("PRAGMA foreign_keys = OFF"); db.execute("UPDATE process SET id = id + 1000000000")'
report "$T/sparse.db" "$T/r3"
[ $rc -eq 2 ] || { cat "$T/out"; fail "sparse process ids: exit $rc, expected 2"; }
expect_contains "$T/out" "not the recorder's dense row ids"

# an impossible clock: refused as corrupt
variant clock 'db.execute("UPDATE tick SET mono_ns = 9223372036854775807 WHERE id = (SELECT MAX(id) FROM tick)")'
report "$T/clock.db" "$T/r4"
[ $rc -eq 2 ] || { cat "$T/out"; fail "impossible clock: exit $rc, expected 2"; }
expect_contains "$T/out" "is not a monotonic clock reading"

# names that break XML or hide text, and a 200-byte process name
variant names 'db.execute("UPDATE phase SET name = \"a]]>b\" || char(65534) || char(8238) || \"z\" WHERE name = \"cpu\"")
pid = db.execute("SELECT process_id FROM work_attr WHERE level = 1 GROUP BY process_id ORDER BY SUM(energy_uj) DESC LIMIT 1").fetchone()[0]
db.execute("UPDATE process SET comm = ? WHERE id = ?", ("L" * 200 + "]]>", pid))'
report "$T/names.db" "$T/r5"
[ $rc -eq 0 ] || { cat "$T/out"; fail "odd names: exit $rc"; }
python3 - "$T/r5" <<'PY' || fail "odd names"
import os, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
for n in os.listdir(d):
    if n.endswith(".svg"):
        ET.parse(os.path.join(d, n))          # "]]>" and U+FFFE would make it ill-formed
html = open(os.path.join(d, "report.html"), encoding="utf-8").read()
assert "\u202e" not in html and "\\u{202E}" in html, "U+202E shown as \\u{202E}"
assert "a]]&gt;b" in html
lines = open(os.path.join(d, "stacked.dat"), encoding="utf-8").read().splitlines()
head = lines[0].split("\t")
col = [i for i, h in enumerate(head) if h.startswith("LLLL")]
assert col, head
assert sum(float(l.split("\t")[col[0]]) for l in lines[1:]) > 0, "the long name's band holds its energy"
PY

# the run inside --out under a report file's name: refused, the run intact
mkdir "$T/r6"
cp "$T/base.db" "$T/r6/power.dat"
report "$T/r6/power.dat" "$T/r6"
[ $rc -eq 2 ] || { cat "$T/out"; fail "run inside --out: exit $rc, expected 2"; }
expect_contains "$T/out" "would overwrite it"
[ "$(sql "$T/r6/power.dat" 'SELECT COUNT(*) FROM tick')" -gt 0 ] || fail "the run was damaged"

# a gnuplot planted where an empty PATH entry or the working directory would find it
mkdir -p "$T/r7" "$T/cwd"
for d in "$T/r7" "$T/cwd"; do
    printf '#!/bin/sh\ntouch %s/planted-ran\n' "$T" >"$d/gnuplot"
    chmod +x "$d/gnuplot"
done
(cd "$T/cwd" && PATH=":.:$PATH" "$BIN" report --db "$T/base.db" --out "$T/r7" >"$T/out" 2>&1) ||
    { cat "$T/out"; fail "report with a planted gnuplot"; }
[ ! -e "$T/planted-ran" ] || fail "a gnuplot from an empty or relative PATH entry ran"

# a gnuplot that never reads its (large) script and leaves a child: killed
# with its group at the deadline; the rest is not tried; the report is written
mkdir "$T/fake"
HANG=42$$ # this run's own: other runs of the suite may be hanging a gnuplot too
printf '#!/bin/sh\nsleep %s &\nwait\n' "$HANG" >"$T/fake/gnuplot"
chmod +x "$T/fake/gnuplot"
variant phases 'db.executemany("INSERT INTO phase(name, class, start_mono_ns, end_mono_ns, start_wall_ns, end_wall_ns, repetition)"
    " SELECT ?, \"cpu\", MIN(mono_ns), MAX(mono_ns), 0, 0, 1 FROM tick", [("p%03d" % i,) for i in range(300)])'
start=$(date +%s)
PATH="$T/fake:$PATH" "$BIN" report --db "$T/phases.db" --out "$T/r8" --plot-timeout 2s >"$T/out" 2>&1 ||
    { cat "$T/out"; fail "hanging gnuplot: report failed"; }
took=$(($(date +%s) - start))
[ "$took" -lt 60 ] || fail "a hanging gnuplot held the report for $took s"
expect_contains "$T/out" "gnuplot hung and was killed"
expect_contains "$T/r8/report.html" "gnuplot hung on an earlier figure"
sleep 1
! pgrep -f "sleep $HANG\$" >/dev/null || { pkill -f "sleep $HANG\$"; fail "the hanging gnuplot's child was left running"; }
exit 0
