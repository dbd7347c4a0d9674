/*
 * fuzz_cgroup.c — /proc/<pid>/cgroup files (collector/procfs/cgroup.c,
 * wc_cgroup_parse). Contract: every field is NUL-terminated; a container id
 * is empty or 64 lower-case hex digits; a pod UID empty, 8-4-4-4-12 lower-case
 * hex, or 32 lower-case hex (a static or mirror pod's config hash);
 * a QoS class only with a pod, and one of guaranteed,
 * burstable, besteffort; the runtime one of wattcal's (or empty); a runtime
 * monitor (conmon) names the container it watches; a failure is -EINVAL with
 * the origin in the message and every field empty.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collector/procfs/cgroup.h"
#include "tests/fuzz/fuzz.h"

static int terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

static int lower_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static int pod_uid_ok(const char *u)
{
    if (!*u)
        return 1;
    if (strlen(u) == 32) /* a static or mirror pod's config hash (issue 14 item 5) */
        return lower_hex(u, 32);
    if (strlen(u) != 36)
        return 0;
    for (int i = 0; i < 36; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? u[i] != '-' : !lower_hex(u + i, 1))
            return 0;
    }
    return 1;
}

static int one_of(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(s, *set) == 0)
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const RUNTIMES[] = {"", "docker", "containerd", "crio", "podman", NULL};
    static const char *const QOS[] = {"guaranteed", "burstable", "besteffort", NULL};
    wc_cgroup_info ci;
    wc_error err = {{0}};
    int rc = wc_cgroup_parse((const char *)data, size, "fuzz/cgroup", &ci, &err);
    FUZZ_CHECK(terminated(ci.runtime, sizeof ci.runtime) &&
                   terminated(ci.container_id, sizeof ci.container_id) &&
                   terminated(ci.pod_uid, sizeof ci.pod_uid) && terminated(ci.qos, sizeof ci.qos) &&
                   terminated(ci.path, sizeof ci.path),
               "a field is not terminated");
    if (rc) {
        FUZZ_CHECK(rc == -EINVAL, "rc %d", rc);
        FUZZ_CHECK(strncmp(err.msg, "fuzz/cgroup", 11) == 0, "message '%s'", err.msg);
        FUZZ_CHECK(!ci.container_id[0] && !ci.pod_uid[0] && !ci.runtime[0],
                   "ids left after an error");
        return 0;
    }
    size_t idl = strlen(ci.container_id);
    FUZZ_CHECK(idl == 0 || (idl == 64 && lower_hex(ci.container_id, 64)), "container id '%s'",
               ci.container_id);
    FUZZ_CHECK(pod_uid_ok(ci.pod_uid), "pod uid '%s'", ci.pod_uid);
    FUZZ_CHECK(ci.pod_uid[0] ? one_of(ci.qos, QOS) : !ci.qos[0], "qos '%s' (pod '%s')", ci.qos,
               ci.pod_uid);
    FUZZ_CHECK(one_of(ci.runtime, RUNTIMES), "runtime '%s'", ci.runtime);
    FUZZ_CHECK(!ci.is_runtime_monitor || (idl == 64 && (strcmp(ci.runtime, "crio") == 0 ||
                                                        strcmp(ci.runtime, "podman") == 0)),
               "monitor of '%s' (%s)", ci.container_id, ci.runtime);
    return 0;
}
