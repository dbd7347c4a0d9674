/*
 * recorder_cgroup.h — the recorder's reads of the CPU the kernel accounts to
 * each pod and container (cgroup v2 cpu.stat usage_usec, v1 cpuacct.usage;
 * collector/procfs/cgroup_cpu.h) into the run (collector/store/
 * store_cgroup_cpu.h). Used by recorder.c only.
 *
 * The cgroups read are those of the processes alive in the tick's scan: a
 * pod's directory (cut from a process's cgroup path after the component
 * naming the pod) and a container's (the path its id came from; conmon
 * monitors name no container of their own). A cgroup is registered when its
 * first process appears and read at EVERY tick while one of its processes is
 * alive, so its CPU covers exactly the intervals the energy does: one small
 * file per pod and container per tick, next to the process scan's one file
 * per process.
 */
#ifndef WC_RECORDER_CGROUP_H
#define WC_RECORDER_CGROUP_H

#include <stdint.h>

#include "collector/procfs/proc_scan.h"
#include "collector/store/store.h"
#include "common/wc_error.h"

typedef struct wc_rec_cgroups wc_rec_cgroups;

/* A reader of the cgroups below sysfs_root (--sysfs-root). NULL on ENOMEM. */
wc_rec_cgroups *wc_rec_cgroups_new(const char *sysfs_root);

/* Follows the scan (new processes' cgroups registered, gone ones released),
 * reads every live pod and container cgroup and writes the reads of tick_id
 * (inside the tick's transaction). A failed read is stored with its status
 * and counted in *read_errors, the first described in *why; the run goes on.
 * Returns 0, or -EIO/-ENOSPC/-ENOMEM from the store. */
int wc_rec_cgroups_tick(wc_rec_cgroups *c, wc_store *st, int64_t tick_id,
                        const wc_proc_snapshot *snap, int64_t *read_errors, wc_error *why,
                        wc_error *err);

/* Frees it (NULL is fine). */
void wc_rec_cgroups_free(wc_rec_cgroups *c);

#endif
