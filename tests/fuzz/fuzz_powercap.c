/*
 * fuzz_powercap.c — powercap trees (collector/meter/meter_rapl.c: discovery
 * and one read of every zone below a --sysfs-root). The input is a file tree
 * (fuzz.h's "@path" records below the sysfs root: "@class/powercap/...",
 * "@devices/..." and links between them, FIFOs) built in a memory-backed
 * scratch directory for each input and removed after. Contract (meter_rapl.h): discovery finds zones or says
 * why (-ENODEV, -EACCES...); every zone has a name, a socket >= -1, a parent
 * before it, a path below the root, a counter kind; a read gives every zone
 * a status (0 or -errno) and returns the first failing one; nothing blocks
 * on a FIFO.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/meter/meter_rapl.h"
#include "tests/fuzz/fuzz.h"

static void check_zones(const wc_meter *m, const char *root)
{
    for (size_t i = 0; i < m->nzones; i++) {
        const wc_zone *z = &m->zones[i];
        FUZZ_CHECK(z->name[0] && memchr(z->name, '\0', sizeof z->name), "zone %zu unnamed", i);
        FUZZ_CHECK(z->socket >= -1 && z->index >= 0 && z->parent < (int)i && z->parent >= -1,
                   "zone %zu: socket %d index %d parent %d", i, z->socket, z->index, z->parent);
        FUZZ_CHECK(strncmp(z->path, root, strlen(root)) == 0, "zone %zu path '%s'", i, z->path);
        FUZZ_CHECK(z->kind == WC_KIND_COUNTER_UJ && z->enabled >= -1 && z->enabled <= 1,
                   "zone %zu kind %d enabled %d", i, z->kind, z->enabled);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char root[1024];
    snprintf(root, sizeof root, "%s/sys", fuzz_scratch());
    fuzz_build_tree(root, "", data, size);
    wc_meter m;
    wc_error err = {{0}};
    int rc = wc_meter_rapl_init(&m, root, &err);
    FUZZ_CHECK(rc == 0, "init: %s", err.msg);
    rc = wc_meter_discover(&m, &err);
    if (rc) {
        FUZZ_CHECK(rc < 0 && err.msg[0], "discover rc %d: '%s'", rc, err.msg);
    } else {
        FUZZ_CHECK(m.nzones >= 1, "no zone and no error");
        check_zones(&m, root);
        wc_reading *r = calloc(m.nzones, sizeof *r);
        FUZZ_CHECK(r != NULL, "calloc");
        rc = wc_meter_read(&m, r, &err);
        int first = 0;
        for (size_t i = 0; i < m.nzones; i++) {
            FUZZ_CHECK(r[i].status <= 0, "zone %zu status %d", i, r[i].status);
            if (!first)
                first = r[i].status;
        }
        FUZZ_CHECK(rc == first, "read returned %d, first failing zone %d", rc, first);
        free(r);
    }
    wc_meter_close(&m);
    fuzz_remove(root);
    return 0;
}
