# deploy/prometheus/wattcal-rules.yml: `promtool check rules` accepts it and
# `promtool test rules deploy/prometheus/wattcal-rules.test.yml` passes (seven
# nodes: a 20 % error for an hour, a fake-meter and an unknown-path node feeding
# pods, a 50 % attribution gap and a version change each fire their alert with
# the exact labels and annotations; good nodes, a pending error and an upgrade
# older than an hour fire nothing; every recording rule's values are checked).
# Teeth: the same test run against a copy whose node-error tolerance is 30 %,
# or whose node power sums every zone, fails. yamllint (when installed) on both
# files. Skips (77) without promtool. Bounded: a few seconds.
. tests/integration/lib/common.sh
PROMTOOL=${PROMTOOL_BIN:-promtool}
command -v "$PROMTOOL" >/dev/null 2>&1 || skip "promtool not found (Debian package prometheus)"
D=deploy/prometheus

"$PROMTOOL" check rules "$D/wattcal-rules.yml" >"$T/check" 2>&1 || { cat "$T/check"; fail "promtool check rules"; }
expect_contains "$T/check" "SUCCESS: 12 rules found"
"$PROMTOOL" test rules "$D/wattcal-rules.test.yml" >"$T/test" 2>&1 || { cat "$T/test"; fail "promtool test rules"; }
expect_contains "$T/test" "SUCCESS"

# A rules file that would miss the planted faults must fail the same test.
mutant() { # name sed-expression expected-text-in-the-failure
    mkdir -p "$T/$1"
    sed "$2" "$D/wattcal-rules.yml" >"$T/$1/wattcal-rules.yml"
    cp "$D/wattcal-rules.test.yml" "$T/$1/"
    cmp -s "$D/wattcal-rules.yml" "$T/$1/wattcal-rules.yml" && fail "mutant $1: sed changed nothing"
    if "$PROMTOOL" test rules "$T/$1/wattcal-rules.test.yml" >"$T/$1/out" 2>&1; then
        fail "mutant $1: promtool test rules passed"
    fi
    expect_contains "$T/$1/out" "$3"
}
mutant tolerance 's/ratio5m) > 0.10/ratio5m) > 0.30/' "KeplerNodePowerError"
mutant allzones 's/{zone=~"package|dram"}//' "node:kepler_node_cpu_watts:rate5m"

if command -v yamllint >/dev/null 2>&1; then
    yamllint -d '{extends: relaxed, rules: {line-length: {max: 200}}}' "$D/wattcal-rules.yml" \
        "$D/wattcal-rules.test.yml" >"$T/lint" 2>&1 || { cat "$T/lint"; fail "yamllint"; }
fi
echo "prom_rules: check and test rules pass; two mutants fail"
