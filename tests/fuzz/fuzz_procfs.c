/*
 * fuzz_procfs.c — --procfs-root trees: the per-tick process scan
 * (collector/procfs/proc_scan.c: <pid>/stat, cgroup, exe), <root>/stat, and,
 * with "#wc: sim=1" on the input's first line, the simulated node's scan of
 * its stressors (collector/meter/meter_sim.c). The input is a file tree
 * (fuzz.h's "@path" records: "@123/stat", "@123/cgroup", "@123/exe ->
 * ...", FIFOs with " |") built in a memory-backed scratch directory for each
 * input and removed after. Contract: nothing blocks (a FIFO is never waited
 * on) and a stat longer than its buffer is refused, never parsed cut; a scan
 * lists each process once, with a pid from its directory, a terminated comm;
 * a second scan of the same tree finds the same processes, none new, none
 * gone; errors are counted and the first described; the simulated node's
 * split of busy CPUs is finite and >= 0, and closing it removes its tree.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collector/meter/meter_sim.h"
#include "collector/procfs/proc_scan.h"
#include "collector/procfs/procstat.h"
#include "tests/fuzz/fuzz.h"

static void check_scan(const wc_proc_snapshot *snap)
{
    FUZZ_CHECK(snap->errors == 0 || snap->first_error.msg[0], "%zu errors, none described",
               snap->errors);
    for (size_t i = 0; i < snap->count; i++) {
        const wc_proc_identity *id = snap->samples[i].id;
        FUZZ_CHECK(id->pid > 0 && memchr(id->comm, '\0', sizeof id->comm) &&
                       id->exe && strlen(id->exe) < 256,
                   "sample %zu: pid %d", i, id->pid);
        for (size_t j = 0; j < i; j++)
            FUZZ_CHECK(snap->samples[j].id->pid != id->pid, "pid %d listed twice", id->pid);
    }
}

static void scan_twice(const char *root)
{
    wc_error err = {{0}};
    wc_proc_scanner *s = wc_proc_scanner_new(root, &err);
    FUZZ_CHECK(s != NULL, "scanner: %s", err.msg);
    wc_proc_snapshot snap = {0};
    FUZZ_CHECK(wc_proc_scan(s, &snap, &err) == 0, "scan: %s", err.msg);
    check_scan(&snap);
    size_t first = snap.count;
    FUZZ_CHECK(wc_proc_scan(s, &snap, &err) == 0, "second scan: %s", err.msg);
    check_scan(&snap);
    FUZZ_CHECK(snap.count == first && snap.gone_count == 0, "second scan: %zu then %zu, %zu gone",
               first, snap.count, snap.gone_count);
    for (size_t i = 0; i < snap.count; i++)
        FUZZ_CHECK(!snap.samples[i].is_new, "pid %d new in the second scan",
                   snap.samples[i].id->pid);
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
}

static void simulated_node(const char *root)
{
    wc_meter m;
    wc_error err = {{0}};
    if (wc_meter_sim_init(&m, root, NULL, &err) != 0)
        return; /* no usable <root>/stat: said so */
    char tree[512];
    snprintf(tree, sizeof tree, "%s", wc_meter_sim_root(&m));
    for (int i = 0; i < 2; i++)
        if (wc_meter_sim_advance(&m, 100000000, &err) != 0)
            break;
    double busy[WC_SIM_NCLASSES], other = 0;
    size_t n = 0;
    FUZZ_CHECK(wc_meter_sim_class_busy(&m, busy, &other, &n) == 0, "class busy");
    for (int c = 0; c < WC_SIM_NCLASSES; c++)
        FUZZ_CHECK(isfinite(busy[c]) && busy[c] >= 0, "class %d busy %g", c, busy[c]);
    FUZZ_CHECK(isfinite(other) && other >= 0, "other busy %g", other);
    wc_meter_close(&m);
    struct stat st;
    FUZZ_CHECK(lstat(tree, &st) != 0 && errno == ENOENT, "%s left behind", tree);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *scratch = fuzz_scratch();
    setenv("TMPDIR", scratch, 1); /* the simulated node's tree goes there too */
    char root[1024], sim[8];
    snprintf(root, sizeof root, "%s/proc", scratch);
    fuzz_build_tree(root, "", data, size);
    scan_twice(root);
    wc_procstat ps;
    wc_error err = {{0}};
    int rc = wc_procstat_read(root, &ps, &err);
    FUZZ_CHECK(rc == 0 || err.msg[0], "stat rc %d without a message", rc);
    wc_procstat_free(&ps);
    if (fuzz_option(data, size, "sim", sim, sizeof sim) && sim[0] == '1')
        simulated_node(root);
    fuzz_remove(root);
    return 0;
}
