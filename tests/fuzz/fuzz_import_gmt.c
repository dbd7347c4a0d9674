/*
 * fuzz_import_gmt.c — `wattcal import --gmt` (collector/import/import_gmt.c,
 * wc_import_gmt with no database: parse and check only). The input holds
 * the folder's files as sections "==> rapl <==", "==> psu <==", "==> util
 * <==", "==> phases <==" (written under their Green Metrics Tool names in a
 * memory-backed scratch folder, rebuilt for every input); an optional first
 * line "#wc: psu=uw|cw|auto ceiling=WATTS" sets the options. Contract
 * (import.h): a success has at least 2 ticks after 2000-01-01, one counter
 * zone per RAPL domain, at most one truth source, counts within bounds; a
 * failure names a file (FILE:LINE[:COLUMN] for a line) in printable text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collector/import/import.h"
#include "tests/fuzz/fuzz.h"

typedef struct folder {
    char dir[1024];
    int has_rapl;
} folder;

static void write_section(void *ctx, const char *name, const uint8_t *text, size_t len)
{
    static const char *const FILES[][2] = {
        {"rapl", "cpu_energy_rapl_msr_component.log"},
        {"psu", "psu_energy_ac_mcp_machine.log"},
        {"util", "cpu_utilization_procfs_system.log"},
        {"phases", "phases.json"},
    };
    folder *f = ctx;
    for (size_t i = 0; i < sizeof FILES / sizeof *FILES; i++)
        if (strcmp(name, FILES[i][0]) == 0) {
            fuzz_write_file(f->dir, FILES[i][1], text, len);
            f->has_rapl |= i == 0;
        }
}

static void check_summary(const wc_import_summary *s)
{
    FUZZ_CHECK(s->ticks >= 2 && s->zones >= 1 && s->truth_sources <= 1,
               "ticks %lld zones %lld truth %lld", (long long)s->ticks, (long long)s->zones,
               (long long)s->truth_sources);
    FUZZ_CHECK(s->first_wall_ns >= 946684800LL * 1000000000LL && s->last_wall_ns > s->first_wall_ns,
               "times %lld..%lld", (long long)s->first_wall_ns, (long long)s->last_wall_ns);
    FUZZ_CHECK(s->missing_samples + s->rejected_samples <= s->ticks * s->zones &&
                   s->truth_unavailable <= s->truth_samples && s->util_ticks <= s->ticks,
               "counts out of bounds");
    FUZZ_CHECK(memchr(s->notes, '\0', sizeof s->notes) != NULL, "notes not terminated");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static folder f;
    snprintf(f.dir, sizeof f.dir, "%s/gmt", fuzz_scratch());
    fuzz_remove(f.dir);
    if (mkdir(f.dir, 0755) != 0)
        abort();
    f.has_rapl = 0;
    fuzz_sections(data, size, write_section, &f);
    char v[32];
    wc_import_gmt_opts o = {.dir = f.dir};
    if (fuzz_option(data, size, "psu", v, sizeof v))
        o.psu_unit = strcmp(v, "uw") == 0 ? WC_GMT_PSU_UW
                     : strcmp(v, "cw") == 0 ? WC_GMT_PSU_CW : WC_GMT_PSU_AUTO;
    if (fuzz_option(data, size, "ceiling", v, sizeof v))
        o.ceiling_watts = atof(v);
    wc_import_target t = {.db_path = NULL};
    wc_import_summary sum;
    wc_error err = {{0}};
    int rc = wc_import_gmt(&o, &t, &sum, &err);
    if (rc) {
        FUZZ_CHECK(rc == -EINVAL || rc == -ENODATA || rc == -ENOMEM || (rc == -ENOENT && !f.has_rapl),
                   "rc %d: %s", rc, err.msg);
        FUZZ_CHECK(err.msg[0] && fuzz_printable(err.msg), "message '%s'", err.msg);
        return 0;
    }
    check_summary(&sum);
    return 0;
}
