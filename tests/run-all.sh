#!/bin/sh
# Runs the whole suite: the Criterion unit tests (release build), the same
# tests under AddressSanitizer+UndefinedBehaviorSanitizer, and every
# tests/integration/*.sh against the release and the sanitized CLI.
# Prints each failure, then one closing line: "N passed, N failed, N skipped".
# Exit status 0 only when nothing failed.
set -u
cd "$(dirname "$0")/.."
: "${WATTCAL_FIXTURES:=$(cd .. && pwd)/shared/fixtures}"
export WATTCAL_FIXTURES
[ -d "$WATTCAL_FIXTURES" ] || echo "note: $WATTCAL_FIXTURES absent: tests that read shared fixtures are skipped"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0 failed=0 skipped=0

# TAP from Criterion: "ok N - ..." / "not ok N - ..." / "... # SKIP ...".
count_tap() { # $1 label, $2 tap file, $3 criterion exit code
    p=$(grep -c '^ok ' "$2" | tr -d ' ') ; s=$(grep -c '^ok .*# SKIP' "$2" | tr -d ' ')
    f=$(grep -c '^not ok ' "$2" | tr -d ' ')
    p=$((p - s))
    if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "FAIL $1: exited $3 (crash?)"; fi
    grep '^not ok ' "$2" | sed "s/^/FAIL $1: /"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    echo "$1: $p passed, $f failed, $s skipped"
}

for variant in release asan; do
    bin=build/$variant/unit-tests
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$bin" --jobs 2 --tap="$out/$variant.tap" >"$out/$variant.log" 2>&1
    rc=$?
    # Criterion's own runner (the parent that forks the tests) sometimes leaves
    # a few bytes unfreed in a full --jobs run: a LeakSanitizer report whose
    # every frame is calloc/malloc in libcriterion is its leak, not ours; any
    # other frame (our code, a test) still fails the run.
    if [ "$rc" -ne 0 ] && grep -q 'LeakSanitizer' "$out/$variant.log" &&
        ! grep -E '^ +#[0-9]+ ' "$out/$variant.log" |
            grep -vqE 'libcriterion\.so|asan_malloc_linux|__interceptor_(c|m|re)alloc'; then
        echo "note: unit ($variant): LeakSanitizer reported only Criterion's runner's own allocation"
        rc=0
    fi
    [ "$rc" -ne 0 ] && tail -n 40 "$out/$variant.log"
    count_tap "unit ($variant)" "$out/$variant.tap" "$rc"
done

for script in tests/integration/*.sh; do
    [ -e "$script" ] || continue
    for bin in ./wattcal build/asan/wattcal; do
        name="$(basename "$script" .sh) [$bin]"
        t0=$(date +%s)
        WATTCAL_BIN=$bin sh "$script" >"$out/it.log" 2>&1
        rc=$?
        # a line per script, so a long suite shows progress
        if [ $rc -eq 0 ]; then passed=$((passed + 1)); echo "ok   $name ($(($(date +%s) - t0)) s)"
        elif [ $rc -eq 77 ]; then skipped=$((skipped + 1)); echo "SKIP $name: $(tail -n 1 "$out/it.log")"
        else failed=$((failed + 1)); echo "FAIL $name (exit $rc):"; tail -n 30 "$out/it.log" | sed 's/^/    /'
        fi
    done
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
