/*
 * cgroup_cpu.c — a cgroup's accounted CPU time from cgroup v2 cpu.stat or v1
 * cpuacct.usage, and the pod directory above a container's cgroup (see
 * cgroup_cpu.h). Files are read through common/wc_fs.h below the sysfs root.
 */
#include "collector/procfs/cgroup_cpu.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/wc_fs.h"

/* Largest cpu.stat wattcal reads (a few hundred bytes in practice). */
#define STAT_CAP 4096

/* v1 hierarchies that hold cpuacct, in the order tried. */
static const char *const V1_DIRS[] = {"cpu,cpuacct", "cpuacct", "cpuacct,cpu"};

const char *wc_cgcpu_kind_name(wc_cgcpu_kind k)
{
    switch (k) {
    case WC_CGCPU_V2_STAT: return "cpu.stat usage_usec";
    case WC_CGCPU_V1_CPUACCT: return "cpuacct.usage";
    default: return "";
    }
}

int wc_cgroup_cpu_parse_stat(const char *text, size_t len, const char *origin,
                             uint64_t *usage_usec, wc_error *err)
{
    if (len == 0 || text[len - 1] != '\n')
        return wc_error_set(err, -EINVAL, "%s: %s (a cpu.stat ends with a newline)", origin,
                            len ? "truncated: the last line is cut" : "empty file");
    const char *p = text, *end = text + len;
    for (int line = 1; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        static const char key[] = "usage_usec ";
        size_t klen = sizeof key - 1;
        if ((size_t)(nl - p) >= klen && memcmp(p, key, klen) == 0) {
            if (wc_parse_u64(p + klen, (size_t)(nl - p) - klen, usage_usec) != 0)
                return wc_error_set(err, -EINVAL, "%s:%d: usage_usec: not an unsigned number",
                                    origin, line);
            return 0;
        }
        p = nl + 1;
    }
    return wc_error_set(err, -EINVAL, "%s: no usage_usec line (not a cgroup v2 cpu.stat?)",
                        origin);
}

int wc_cgroup_cpu_parse_cpuacct(const char *text, size_t len, const char *origin,
                                uint64_t *usage_ns, wc_error *err)
{
    if (len == 0 || text[len - 1] != '\n')
        return wc_error_set(err, -EINVAL, "%s: %s (cpuacct.usage is one number and a newline)",
                            origin, len ? "truncated: no final newline" : "empty file");
    if (wc_parse_u64(text, len - 1, usage_ns) != 0)
        return wc_error_set(err, -EINVAL, "%s:1: not an unsigned number of nanoseconds", origin);
    return 0;
}

/* Reads one candidate file into buf: 0, -ENOENT (absent), or another -errno. */
static int read_candidate(const char *path, char *buf, size_t cap, size_t *len, wc_error *err)
{
    int rc = wc_read_text(path, buf, cap, len, err);
    if (rc == -EFBIG)
        return wc_error_set(err, -EINVAL, "%s: larger than %zu bytes", path, cap - 1);
    return rc;
}

/* The v1 cpuacct.usage of dir; -ENOENT when no hierarchy has it. */
static int read_v1(const char *root, const char *dir, uint64_t *usage_ns, wc_error *err)
{
    char path[1024], buf[64];
    for (size_t i = 0; i < sizeof V1_DIRS / sizeof *V1_DIRS; i++) {
        if (wc_path(path, sizeof path, root, "fs/cgroup/%s/%s/cpuacct.usage", V1_DIRS[i], dir))
            return wc_error_set(err, -ENAMETOOLONG, "%s: cgroup path too long", dir);
        size_t len = 0;
        int rc = read_candidate(path, buf, sizeof buf, &len, err);
        if (rc == -ENOENT)
            continue;
        return rc ? rc : wc_cgroup_cpu_parse_cpuacct(buf, len, path, usage_ns, err);
    }
    return -ENOENT;
}

int wc_cgroup_cpu_read(const char *sysfs_root, const char *dir, uint64_t *usage_ns,
                       wc_cgcpu_kind *kind, wc_error *err)
{
    char path[1024], buf[STAT_CAP];
    *kind = WC_CGCPU_NONE;
    while (*dir == '/')
        dir++;
    if (wc_path(path, sizeof path, sysfs_root, "fs/cgroup/%s/cpu.stat", dir))
        return wc_error_set(err, -ENAMETOOLONG, "%s: cgroup path too long", dir);
    size_t len = 0;
    int rc = read_candidate(path, buf, sizeof buf, &len, err);
    if (rc == 0) {
        uint64_t usec = 0;
        rc = wc_cgroup_cpu_parse_stat(buf, len, path, &usec, err);
        if (!rc) {
            *usage_ns = usec * 1000;
            *kind = WC_CGCPU_V2_STAT;
        }
        return rc;
    }
    if (rc != -ENOENT)
        return rc;
    rc = read_v1(sysfs_root, dir, usage_ns, err);
    if (rc == -ENOENT)
        return wc_error_set(err, -ENOENT, "%s: no cpu.stat (v2) nor cpuacct.usage (v1) for this"
                                          " cgroup", path);
    if (!rc)
        *kind = WC_CGCPU_V1_CPUACCT;
    return rc;
}

/* 1 when [c, c+n) names the pod: contains "pod" and the uid, '-' or '_'. */
static int names_pod(const char *c, size_t n, const char *uid)
{
    size_t ul = strlen(uid);
    for (size_t i = 0; i + 3 + ul <= n; i++) {
        if (memcmp(c + i, "pod", 3) != 0)
            continue;
        size_t k = 0;
        while (k < ul && (c[i + 3 + k] == uid[k] || (uid[k] == '-' && c[i + 3 + k] == '_')))
            k++;
        if (k == ul)
            return 1;
    }
    return 0;
}

int wc_cgroup_pod_dir(const char *path, const char *pod_uid, char *out, size_t cap)
{
    if (!*pod_uid)
        return -ENOENT;
    for (const char *c = path; *c;) {
        while (*c == '/')
            c++;
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n && names_pod(c, n, pod_uid)) {
            size_t total = (size_t)(c + n - path);
            if (total + 1 > cap)
                return -ENAMETOOLONG;
            memcpy(out, path, total);
            out[total] = '\0';
            return 0;
        }
        c += n;
    }
    return -ENOENT;
}
