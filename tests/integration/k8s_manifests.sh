# deploy/kubernetes/: yamllint (the repository's config) passes, and the
# structural check (tests/tools/check_k8s.py: hostPath mounts read-only, no
# privileged, hostPID, capabilities drop ALL, the Service/ServiceMonitor
# wiring, the Job pinned to one node with its results off the host) passes;
# the same check fails, naming each fault, on a deliberately wrong
# DaemonSet (tests/fixtures/serve/k8s-bad/).
. tests/integration/lib/common.sh
command -v yamllint >/dev/null 2>&1 || skip "yamllint not found (Debian package yamllint)"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml not found"
yamllint -s -c deploy/kubernetes/.yamllint.yml deploy/kubernetes >"$T/lint" 2>&1 ||
    { cat "$T/lint"; fail "yamllint"; }
python3 tests/tools/check_k8s.py deploy/kubernetes >"$T/ok" 2>&1 || { cat "$T/ok"; fail "structure"; }
expect_contains "$T/ok" "structure ok"
python3 tests/tools/check_k8s.py tests/fixtures/serve/k8s-bad >"$T/bad" 2>&1 && fail "a bad DaemonSet passed"
for want in "hostPID must be true" "container serve: privileged" "capabilities.drop must hold ALL" \
    "capabilities.add ['SYS_ADMIN']" "hostPath /proc mounted at /host/proc is not readOnly" \
    "/host/sys is not the host's /sys" "no Service" "no Job"; do
    expect_contains "$T/bad" "$want"
done
echo "k8s manifests: yamllint clean, structure ok, a bad one refused"
exit 0
