# make install PREFIX=… DESTDIR=… puts the binary, the man page and the docs
# under the staging root, and the installed binary runs.
. tests/integration/lib/common.sh
make -s install PREFIX=/usr DESTDIR="$T/stage" >"$T/log" 2>&1 || { cat "$T/log"; fail "make install"; }
for f in usr/bin/wattcal usr/share/man/man1/wattcal.1 usr/share/doc/wattcal/README.md \
         usr/share/doc/wattcal/schema.md usr/share/doc/wattcal/runbook.md; do
    [ -f "$T/stage/$f" ] || fail "missing $f"
done
"$T/stage/usr/bin/wattcal" version | grep -q '^wattcal ' || fail "installed binary does not run"
exit 0
