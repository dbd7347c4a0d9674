/*
 * procstat.h — parser for /proc/stat CPU lines.
 *
 * Reads the aggregate `cpu` line (all ten fields) and every per-CPU `cpuN`
 * line, keyed by its label (never by position: offline CPUs have no line,
 * fixtures/cases/B25). Values are cumulative USER_HZ ticks as the kernel
 * prints them. The usage ratio Kepler uses is computed from the first eight
 * fields (guest and guest_nice are already inside user and nice; B17).
 */
#ifndef WC_PROCSTAT_H
#define WC_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"

/* Kepler and procfs hard-code USER_HZ = 100 (kepler-model.md §3.1). */
#define WC_USER_HZ 100

/* One cpu line of /proc/stat, cumulative ticks (USER_HZ). nfields is how many
 * numeric fields the line had, 4..10 (older kernels print fewer; missing = 0;
 * fields beyond the tenth are ignored). */
typedef struct wc_cpu_times {
    int cpu;         /* -1 for the aggregate "cpu" line, else N of "cpuN" */
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal, guest, guest_nice;
    int nfields;
} wc_cpu_times;

/* A parsed /proc/stat: the aggregate line plus per-CPU lines in file order
 * (cpus[i].cpu is the label number; gaps mean offline CPUs). */
typedef struct wc_procstat {
    wc_cpu_times total;
    wc_cpu_times *cpus;  /* malloc'd, ncpus entries */
    size_t ncpus;
    uint64_t btime_s;    /* "btime" line (boot time, s since epoch), 0 if absent */
} wc_procstat;

/* Parses /proc/stat text ([text, text+len)). Returns 0; -EINVAL with err
 * naming `origin`, the line number and the field when the cpu line is
 * missing, a cpu line has fewer than 4 fields or a non-numeric one, a label
 * repeats, or btime is not a number; -ENOMEM. On error *out holds nothing to
 * free. */
int wc_procstat_parse(const char *text, size_t len, const char *origin,
                      wc_procstat *out, wc_error *err);

/* Reads and parses <procfs_root>/stat. Returns 0 or -errno/-EINVAL (err set). */
int wc_procstat_read(const char *procfs_root, wc_procstat *out, wc_error *err);

/* Frees out->cpus (the struct itself is the caller's); safe to call twice. */
void wc_procstat_free(wc_procstat *ps);

/* Finds the per-CPU line labelled cpuN; NULL when absent (offline). */
const wc_cpu_times *wc_procstat_cpu(const wc_procstat *ps, int n);

/* Sum of the eight non-guest fields (user..steal): Kepler's "total" ticks. */
uint64_t wc_cpu_total_ticks(const wc_cpu_times *t);

/* total − idle − iowait: busy ticks (steal counts as busy, as in Kepler). */
uint64_t wc_cpu_busy_ticks(const wc_cpu_times *t);

#endif
