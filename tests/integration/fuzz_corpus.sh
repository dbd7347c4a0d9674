# Every fuzz corpus replayed through its harness, built normally (no
# libFuzzer): build/release/fuzz/replay-NAME against ./wattcal,
# build/asan/fuzz/replay-NAME against the sanitized CLI (`make test` builds
# both). A seed or regression input that breaks a parser's contract, crashes,
# or takes more than WC_FUZZ_SLOW_MS (2 s) fails here in seconds; every
# harness must have a corpus, and every corpus a harness (tests/fuzz/README.md).
. tests/integration/lib/common.sh
case "$BIN" in
*asan*) dir=build/asan/fuzz ;;
*) dir=build/release/fuzz ;;
esac
# the sanitized build runs 2-10x slower: its own limit
case "$BIN" in *asan*) : "${WC_FUZZ_SLOW_MS:=10000}" ;; *) : "${WC_FUZZ_SLOW_MS:=2000}" ;; esac
export WC_FUZZ_SLOW_MS
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
n=0
for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    name=${name#fuzz_}
    bin=$dir/replay-$name
    [ -x "$bin" ] || fail "$bin missing: build it with make test (or make $bin)"
    [ -d "tests/fuzz/corpus/$name" ] || fail "harness $name has no corpus tests/fuzz/corpus/$name"
    TMPDIR=$T "$bin" "tests/fuzz/corpus/$name" >"$T/out" 2>"$T/err" || {
        tail -n 20 "$T/err"
        fail "replay of tests/fuzz/corpus/$name through $bin"
    }
    cat "$T/out"
    n=$((n + 1))
done
for corpus in tests/fuzz/corpus/*/; do
    name=$(basename "$corpus")
    [ -f "tests/fuzz/fuzz_$name.c" ] || fail "corpus $corpus has no harness tests/fuzz/fuzz_$name.c"
done
[ "$n" -ge 18 ] || fail "only $n harnesses"
exit 0
