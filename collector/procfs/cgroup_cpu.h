/*
 * cgroup_cpu.h — the CPU time the kernel accounts to one cgroup: cgroup v2
 * `cpu.stat` (its `usage_usec` line) or cgroup v1 `cpuacct.usage` (one
 * decimal number of nanoseconds), read below a configurable sysfs root
 * (`--sysfs-root`, default /sys) so tests run on fixture trees.
 *
 * This is the CPU accounting a platform team already trusts (kubelet's and
 * cAdvisor's container CPU comes from it). The recorder reads it for every
 * pod and container it knows (collector/recorder_cgroup.c) and the validator
 * compares each pod's share of energy with its share of this CPU
 * (validator/cpu_share.c). Only kernel text goes in; like the rest of
 * procfs/, nothing here knows about meters or the store.
 */
#ifndef WC_CGROUP_CPU_H
#define WC_CGROUP_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"

/* Which file gave a usage. */
typedef enum wc_cgcpu_kind {
    WC_CGCPU_NONE = 0,
    WC_CGCPU_V2_STAT,            /* <sysfs>/fs/cgroup/<dir>/cpu.stat, usage_usec */
    WC_CGCPU_V1_CPUACCT          /* <sysfs>/fs/cgroup/<cpuacct hierarchy>/<dir>/cpuacct.usage */
} wc_cgcpu_kind;

/* "cpu.stat usage_usec", "cpuacct.usage" or "" for WC_CGCPU_NONE. */
const char *wc_cgcpu_kind_name(wc_cgcpu_kind k);

/* Parses the text of a v2 cpu.stat file ([text, text+len), need not be
 * NUL-terminated): "<key> <value>\n" lines, of which usage_usec is taken
 * (µs; other keys ignored). Returns 0 with *usage_usec; -EINVAL with err
 * naming origin and the line when there is no usage_usec line, its value is
 * no unsigned decimal, or the text does not end with a newline (the kernel
 * writes whole lines: a cut file is refused as truncated, never read as a
 * smaller number). */
int wc_cgroup_cpu_parse_stat(const char *text, size_t len, const char *origin,
                             uint64_t *usage_usec, wc_error *err);

/* Parses the text of a v1 cpuacct.usage file: one unsigned decimal (ns) and
 * a newline. Returns 0 with *usage_ns; -EINVAL with err naming origin for
 * anything else (empty, not a number, no final newline: truncated). */
int wc_cgroup_cpu_parse_cpuacct(const char *text, size_t len, const char *origin,
                                uint64_t *usage_ns, wc_error *err);

/* Reads the usage of the cgroup directory dir (as /proc/<pid>/cgroup names
 * it, e.g. "/kubepods.slice/.../cri-containerd-<id>.scope") below
 * sysfs_root: v2 <sysfs_root>/fs/cgroup/<dir>/cpu.stat first, else v1
 * cpuacct.usage under fs/cgroup/cpu,cpuacct, fs/cgroup/cpuacct or
 * fs/cgroup/cpuacct,cpu. Returns 0 with *usage_ns (v2: usage_usec × 1000)
 * and *kind; -ENOENT (err naming the v2 path) when no such file exists (the
 * cgroup is gone, or not mounted there); -EINVAL for a malformed or truncated
 * file; another -errno from reading, err naming the file. */
int wc_cgroup_cpu_read(const char *sysfs_root, const char *dir, uint64_t *usage_ns,
                       wc_cgcpu_kind *kind, wc_error *err);

/* The pod's cgroup directory within path (a container's cgroup path): path
 * cut after the component naming pod uid (as "pod<uid>" with '-' or, in
 * systemd slice names, '_'). Returns 0, or -ENOENT when no component names
 * the pod, -ENAMETOOLONG when out (cap bytes) is too small. */
int wc_cgroup_pod_dir(const char *path, const char *pod_uid, char *out, size_t cap);

#endif
