# wattcal probe on the project's own trees (stands for probe.sh, which needs
# Kepler's testdata from the shared fixtures and skips without them): exit 0
# with a hardware meter (tests/fixtures/sysfs/node: RAPL + hwmon), 1 without
# (an empty sysfs; the KVM guest of case B20 in tests/fixtures/probe/kvm-guest,
# whose verdict and "measured node power: UNAVAILABLE" line are checked
# verbatim), 2 on usage errors; --json parses; a hostile sensor label never
# reaches the terminal raw; --truth sources are listed even when they cannot
# be opened; credentials in a --truth spec never appear in the table or the
# JSON (shown as ***@); an unusable --truth-password-file fails at open.
. tests/integration/lib/common.sh
KS=tests/fixtures/sysfs/node
KP=tests/fixtures/procfs/node
ESC=$(printf '\033')
json_ok() { # file: parses as JSON when python3 is there to say so
    command -v python3 >/dev/null 2>&1 || return 0
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" || fail "$1 is not JSON"
}

# --- help and usage errors (exit 2) ---
"$BIN" probe --help >"$T/help" || fail "probe --help exited $?"
expect_contains "$T/help" "usage: wattcal probe"
expect_contains "$T/help" "--truth SPEC"
"$BIN" probe --no-such-option >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown option should exit 2"
"$BIN" probe stray-argument >/dev/null 2>"$T/e"; [ $? -eq 2 ] || fail "stray argument should exit 2"
expect_contains "$T/e" "stray-argument"
"$BIN" probe --sysfs-root "" >/dev/null 2>&1; [ $? -eq 2 ] || fail "empty --sysfs-root should exit 2"
"$BIN" probe --sysfs-root "$KS" --sysfs-root "$KS" >/dev/null 2>&1; [ $? -eq 2 ] \
    || fail "--sysfs-root twice should exit 2"

# --- the own node: RAPL and hwmon, exit 0 ---
"$BIN" probe --sysfs-root "$KS" --procfs-root "$KP" >"$T/k.out" 2>"$T/k.err"; rc=$?
[ $rc -eq 0 ] || { cat "$T/k.out" "$T/k.err"; fail "fixture with RAPL should exit 0, got $rc"; }
expect_contains "$T/k.out" "RAPL (powercap)  ok:"
expect_contains "$T/k.out" "22 power/energy sensors in 15 chips"
expect_contains "$T/k.out" "123456789012"
expect_contains "$T/k.out" "exporter here would   measure (rapl)"
expect_contains "$T/k.out" "measured node power   AVAILABLE (rapl: 3 zones on 2 sockets)"
"$BIN" probe --sysfs-root "$KS" --procfs-root "$KP" --json >"$T/k.json"; rc=$?
[ $rc -eq 0 ] || fail "--json should keep exit 0, got $rc"
json_ok "$T/k.json"
grep -Eq '"exit_code":[[:space:]]*0' "$T/k.json" || fail "exit_code 0 not in JSON"
grep -Eq '"power_uw":[[:space:]]*87000000' "$T/k.json" || fail "amdgpu power1_average not in JSON"

# --- an empty sysfs: no meter, exit 1 ---
mkdir -p "$T/empty/sys/class" "$T/empty/proc"
"$BIN" probe --sysfs-root "$T/empty/sys" --procfs-root "$T/empty/proc" --truth bogus:x \
    >"$T/e.out" 2>"$T/e.err"; rc=$?
[ $rc -eq 1 ] || { cat "$T/e.out" "$T/e.err"; fail "no meter should exit 1, got $rc"; }
expect_contains "$T/e.out" "measured node power   UNAVAILABLE (reason: no powercap zones, no hwmon power sensor)"
expect_contains "$T/e.out" "fails at init: no RAPL zones found"
expect_contains "$T/e.out" "bogus:x"
expect_contains "$T/e.out" "not opened"

# --- B20: a KVM guest (empty powercap, hypervisor flag, QEMU DMI, no hwmon) ---
G=tests/fixtures/probe/kvm-guest
"$BIN" probe --sysfs-root "$G/sys" --procfs-root "$G/proc" >"$T/g.out" 2>"$T/g.err"; rc=$?
[ $rc -eq 1 ] || { cat "$T/g.out" "$T/g.err"; fail "guest without meter should exit 1, got $rc"; }
expect_contains "$T/g.out" "virtualisation   guest (qemu)"
expect_contains "$T/g.out" "measured node power   UNAVAILABLE (reason: virtualised guest, no powercap zones, no hwmon power sensor)"
expect_contains "$T/g.out" "verdict               no hardware power source in guest; attribution gap cannot be bounded from inside"
"$BIN" probe --sysfs-root "$G/sys" --procfs-root "$G/proc" --json >"$T/g.json"; rc=$?
[ $rc -eq 1 ] || fail "--json in the guest should keep exit 1, got $rc"
json_ok "$T/g.json"
grep -Eq '"available":[[:space:]]*false' "$T/g.json" || fail "measured power not unavailable in JSON"

# --- a hostile sensor label: escaped in JSON, '?' on the terminal ---
H=$T/hostile/sys/class/hwmon/hwmon0
mkdir -p "$H" "$T/hostile/proc"
echo evil >"$H/name"
echo 5000000 >"$H/power1_input"
printf 'Rail "A" \\ 12V\nline2\033[2J\n' >"$H/power1_label"
"$BIN" probe --sysfs-root "$T/hostile/sys" --procfs-root "$T/hostile/proc" >"$T/h.out"; rc=$?
[ $rc -eq 0 ] || { cat "$T/h.out"; fail "an hwmon sensor is a hardware meter: exit 0, got $rc"; }
grep -q "$ESC" "$T/h.out" && fail "ESC reached the terminal"
expect_contains "$T/h.out" 'Rail "A" \ 12V?line2?[2J'
"$BIN" probe --sysfs-root "$T/hostile/sys" --procfs-root "$T/hostile/proc" --json >"$T/h.json"
json_ok "$T/h.json"
grep -q "$ESC" "$T/h.json" && fail "raw ESC in JSON"
expect_contains "$T/h.json" 'Rail \"A\" \\ 12V\nline2\u001b[2J'

# --- credentials in a --truth spec: refused by the sources, never echoed ---
# (a stand-in ipmitool that must not run: refusals happen at open)
mkdir -p "$T/bin"
printf '#!/bin/sh\necho ran >>"%s/ipmitool.ran"\nexit 1\n' "$T" >"$T/bin/ipmitool"
chmod 755 "$T/bin/ipmitool"
for fmt in "" --json; do
    # shellcheck disable=SC2086
    PATH="$T/bin:$PATH" "$BIN" probe --sysfs-root "$T/empty/sys" --procfs-root "$T/empty/proc" $fmt \
        --truth 'ipmi:lanplus://admin:S3cret@127.0.0.1' \
        --truth 'redfish:https://admin:S3cret@bmc.example.com' >"$T/c.out" 2>"$T/c.err"
    grep -q S3cret "$T/c.out" "$T/c.err" && { cat "$T/c.out" "$T/c.err"; fail "probe $fmt echoed the password of a --truth spec"; }
    expect_contains "$T/c.out" 'ipmi:lanplus://***@127.0.0.1'
    expect_contains "$T/c.out" 'redfish:https://***@bmc.example.com'
    expect_contains "$T/c.out" 'credentials do not belong in the spec'
    expect_contains "$T/c.out" 'credentials must not be in the URL'
done
json_ok "$T/c.out"
expect_contains "$T/c.out" '"spec":'

# --- an unusable password file fails at open, naming the file ---
pw_refused() { # password file, expected reason
    PATH="$T/bin:$PATH" "$BIN" probe --sysfs-root "$T/empty/sys" --procfs-root "$T/empty/proc" \
        --truth ipmi:lanplus://127.0.0.1 --truth-password-file "$1" >"$T/p.out" 2>&1
    expect_contains "$T/p.out" "not opened: --truth ipmi:lanplus://127.0.0.1: --truth-password-file $1: $2"
}
: >"$T/empty-pw"
pw_refused "$T/empty-pw" "empty first line (no password)"
pw_refused "$T" "is a directory"
[ ! -e "$T/ipmitool.ran" ] || fail "ipmitool ran although the source was refused at open"
exit 0
