#!/usr/bin/env python3
"""check_k8s.py DIR... — the structural check of wattcal's Kubernetes
manifests (tests/integration/k8s_manifests.sh): the fields that matter for
a node agent that reads the host, beyond what yamllint sees.

Every pod template (DaemonSet, Job): hostPID true; no container privileged;
every container drops ALL capabilities and adds none; allowPrivilegeEscalation
false; readOnlyRootFilesystem true; resource requests set; every hostPath
volume mounted readOnly; /host/proc and /host/sys mounted from the host's
/proc and /sys when --procfs-root/--sysfs-root point there. The DaemonSet
passes --procfs-root=/host/proc and --sysfs-root=/host/sys and probes
/healthz; the Service selects its pods and names its port; the
ServiceMonitor scrapes that port of that Service; the Job pins one node
(nodeSelector) and keeps its results on a volume that is not a hostPath.
Prints one FAIL line per violation and exits 1, else one summary line.
"""
import os
import sys

import yaml

fails = []


def fail(where, msg):
    fails.append("FAIL: %s: %s" % (where, msg))


def pod_checks(where, spec):
    if spec.get("hostPID") is not True:
        fail(where, "hostPID must be true (host processes through /host/proc)")
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    for c in spec.get("containers", []) + spec.get("initContainers", []):
        cw = "%s container %s" % (where, c.get("name"))
        sc = c.get("securityContext") or {}
        if sc.get("privileged"):
            fail(cw, "privileged")
        caps = sc.get("capabilities") or {}
        if "ALL" not in (caps.get("drop") or []):
            fail(cw, "capabilities.drop must hold ALL")
        if caps.get("add"):
            fail(cw, "capabilities.add %r: none is needed" % caps["add"])
        if sc.get("allowPrivilegeEscalation") is not False:
            fail(cw, "allowPrivilegeEscalation must be false")
        if sc.get("readOnlyRootFilesystem") is not True:
            fail(cw, "readOnlyRootFilesystem must be true")
        if not ((c.get("resources") or {}).get("requests")):
            fail(cw, "no resource requests")
        mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
        for m in c.get("volumeMounts", []):
            v = vols.get(m["name"])
            if v is None:
                fail(cw, "mount %s names no volume" % m["name"])
            elif "hostPath" in v and m.get("readOnly") is not True:
                fail(cw, "hostPath %s mounted at %s is not readOnly"
                     % (v["hostPath"].get("path"), m["mountPath"]))
        text = " ".join(c.get("args", []) + c.get("command", []))
        for root, host in (("/host/proc", "/proc"), ("/host/sys", "/sys")):
            if root in text:
                m = mounts.get(root)
                v = vols.get(m["name"]) if m else None
                if not v or (v.get("hostPath") or {}).get("path") != host:
                    fail(cw, "%s is not the host's %s" % (root, host))


def check(docs):
    by_kind = {}
    for where, d in docs:
        by_kind.setdefault(d.get("kind"), []).append((where, d))
    for where, d in by_kind.get("DaemonSet", []) + by_kind.get("Job", []):
        spec = d["spec"]["template"]["spec"]
        pod_checks(where, spec)
    for where, d in by_kind.get("DaemonSet", []):
        c = d["spec"]["template"]["spec"]["containers"][0]
        for want in ("--procfs-root=/host/proc", "--sysfs-root=/host/sys"):
            if want not in c.get("args", []):
                fail(where, "args lack %s" % want)
        if (c.get("readinessProbe") or {}).get("httpGet", {}).get("path") != "/healthz":
            fail(where, "no /healthz readiness probe")
        labels = d["spec"]["template"]["metadata"]["labels"]
        ports = {p["name"] for p in c.get("ports", [])}
        for sw, s in by_kind.get("Service", []):
            sel = s["spec"].get("selector", {})
            if any(labels.get(k) != v for k, v in sel.items()):
                fail(sw, "selector %r does not select the DaemonSet's pods" % sel)
            for p in s["spec"]["ports"]:
                if p.get("targetPort") not in ports:
                    fail(sw, "targetPort %r is not a container port" % p.get("targetPort"))
    svc_ports = {p["name"] for _, s in by_kind.get("Service", []) for p in s["spec"]["ports"]}
    for where, m in by_kind.get("ServiceMonitor", []):
        for e in m["spec"]["endpoints"]:
            if e.get("port") not in svc_ports:
                fail(where, "endpoint port %r is no Service port" % e.get("port"))
    for where, d in by_kind.get("Job", []):
        spec = d["spec"]["template"]["spec"]
        if not spec.get("nodeSelector"):
            fail(where, "a runbook Job must pin one node (nodeSelector)")
        vols = {v["name"]: v for v in spec.get("volumes", [])}
        c = spec["containers"][0]
        res = [m for m in c.get("volumeMounts", []) if m["mountPath"] == "/results"]
        if not res or "hostPath" in vols.get(res[0]["name"], {"hostPath": 1}):
            fail(where, "results must be on a volume that is not a hostPath")
    for kind in ("DaemonSet", "Service", "ServiceMonitor", "Job"):
        if not by_kind.get(kind):
            fail("manifests", "no %s" % kind)
    return sum(len(v) for v in by_kind.values())


def main():
    docs = []
    for d in sys.argv[1:]:
        for name in sorted(os.listdir(d)):
            if not name.endswith(".yaml"):
                continue
            path = os.path.join(d, name)
            with open(path) as f:
                for i, doc in enumerate(yaml.safe_load_all(f)):
                    if doc:
                        docs.append(("%s#%d %s/%s" % (path, i, doc.get("kind"),
                                                      doc["metadata"]["name"]), doc))
    n = check(docs)
    for line in fails:
        print(line)
    if fails:
        return 1
    print("k8s manifests: %d objects, structure ok" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
