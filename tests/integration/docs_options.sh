# Each option is documented once, alike, in --help, the man page and the
# README: every long option a command's --help lists appears in both.
. tests/integration/lib/common.sh
for cmd in record validate calibrate diff report attribute stress probe import run; do
    "$BIN" $cmd --help >"$T/help" || fail "$cmd --help exited $?"
    for opt in $(grep -oE -- '--[a-z][a-z-]+' "$T/help" | sort -u); do
        [ "$opt" = "--help" ] && continue
        grep -qF -- "\`$opt" README.md || fail "README lacks $cmd $opt"
        man_opt=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
        grep -q -- "$man_opt" docs/wattcal.1 || fail "man page lacks $cmd $opt"
    done
done
exit 0
