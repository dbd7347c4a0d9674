# Sourced by tests/integration/*.sh. WATTCAL_BIN is the CLI under test
# (./wattcal or build/asan/wattcal); T is a fresh temp dir removed on exit.
BIN=${WATTCAL_BIN:-./wattcal}
# A sanitizer report ends the ASan build with 86, never one of wattcal's own
# exits (0-3): a script accepting "0 or 1" must not pass an abort through.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
expect_contains() { # file, text
    grep -qF -- "$2" "$1" || { cat "$1"; fail "expected '$2' in $1"; }
}
sql() { sqlite3 "$1" "$2"; }
