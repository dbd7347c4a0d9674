/*
 * fuzz_import_csv.c — `wattcal import --csv` (collector/import/import_csv.c,
 * wc_import_csv with no database: parse and check only). The input is the
 * CSV, written to a memory-backed scratch file; an optional first line
 * "#wc: unit=ms delim=; counter=c:package:uj energy=e:dram:j power=p:psys:w
 * truth=w:w util=u:pct phase=ph host=h cpu=m time=t offset=+01:00" sets the
 * mapping (a comment to the importer; the defaults map columns t, c, e, p,
 * w, u, ph, h, m). Contract (import.h): a success has at least 2 ticks in
 * strictly increasing time after 2000-01-01, one zone per mapped series, its
 * counts within ticks x series; a failure names the file (FILE:LINE:COLUMN
 * for a cell) in printable text. The corpus holds the energy sums that once
 * wrapped modulo 2^64 and the epoch past int64 ns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/import/import.h"
#include "collector/truth/truth_file.h"
#include "tests/fuzz/fuzz.h"

/* The option's value, or dflt ("" when absent and dflt is NULL). */
static const char *opt(const uint8_t *d, size_t n, const char *key, const char *dflt,
                       char *buf, size_t cap)
{
    if (fuzz_option(d, n, key, buf, cap))
        return buf;
    snprintf(buf, cap, "%s", dflt ? dflt : "");
    return buf;
}

typedef struct mapping {
    wc_import_csv_opts o;
    char v[16][96];
    int offset_s;
} mapping;

static int add_col(mapping *m, const char *arg, wc_import_col_kind kind)
{
    if (!*arg)
        return 0;
    wc_error err = {{0}};
    return wc_import_parse_col(arg, kind, &m->o.cols[m->o.ncols++], &err) ? -1 : 0;
}

/* The mapping of the input's options; -1 when an option is not valid. */
static int mapping_of(const uint8_t *d, size_t n, const char *path, mapping *m)
{
    memset(m, 0, sizeof *m);
    m->o.path = path;
    m->o.time_col = opt(d, n, "time", "t", m->v[0], sizeof m->v[0]);
    const char *unit = opt(d, n, "unit", "s", m->v[1], sizeof m->v[1]);
    static const char *const UNITS[] = {"iso", "ns", "us", "ms", "s"};
    static const int64_t NS[] = {0, 1, 1000, 1000000, 1000000000};
    m->o.time_unit_ns = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(unit, UNITS[i]) == 0)
            m->o.time_unit_ns = NS[i];
    const char *delim = opt(d, n, "delim", ",", m->v[2], sizeof m->v[2]);
    m->o.delimiter = strcmp(delim, "tab") == 0 ? '\t' : delim[0];
    if (fuzz_option(d, n, "offset", m->v[3], sizeof m->v[3])) {
        if (wc_parse_utc_offset(m->v[3], &m->offset_s))
            return -1;
        m->o.iso_offset_s = &m->offset_s;
    }
    const char *util = opt(d, n, "util", "u:pct", m->v[4], sizeof m->v[4]);
    char *colon = strchr(m->v[4], ':');
    m->o.util_scale = colon && strcmp(colon, ":ratio") == 0 ? 100.0 : 1.0;
    if (colon)
        *colon = '\0';
    m->o.util_col = *util ? util : NULL;
    m->o.phase_col = *opt(d, n, "phase", "ph", m->v[5], sizeof m->v[5]) ? m->v[5] : NULL;
    m->o.host_col = *opt(d, n, "host", "h", m->v[6], sizeof m->v[6]) ? m->v[6] : NULL;
    m->o.cpu_model_col = *opt(d, n, "cpu", "m", m->v[7], sizeof m->v[7]) ? m->v[7] : NULL;
    if (m->o.time_unit_ns < 0 || !strchr(",;\t", m->o.delimiter) ||
        add_col(m, opt(d, n, "counter", "c:package:uj", m->v[8], 96), WC_IMPORT_COUNTER) ||
        add_col(m, opt(d, n, "energy", "e:dram:j", m->v[9], 96), WC_IMPORT_ENERGY) ||
        add_col(m, opt(d, n, "power", "p:psys:w", m->v[10], 96), WC_IMPORT_POWER) ||
        add_col(m, opt(d, n, "truth", "w:w", m->v[11], 96), WC_IMPORT_TRUTH))
        return -1;
    return 0;
}

static void check_summary(const wc_import_summary *s, const mapping *m)
{
    int64_t zones = 0, truths = 0;
    for (size_t i = 0; i < m->o.ncols; i++)
        *(m->o.cols[i].kind == WC_IMPORT_TRUTH ? &truths : &zones) += 1;
    FUZZ_CHECK(s->ticks >= 2 && s->zones == zones && s->truth_sources == truths,
               "ticks %lld zones %lld truth %lld", (long long)s->ticks, (long long)s->zones,
               (long long)s->truth_sources);
    FUZZ_CHECK(s->first_wall_ns >= 946684800LL * 1000000000LL && s->last_wall_ns > s->first_wall_ns,
               "times %lld..%lld", (long long)s->first_wall_ns, (long long)s->last_wall_ns);
    FUZZ_CHECK(s->interval_ns > 0 && s->interval_ns <= s->last_wall_ns - s->first_wall_ns,
               "interval %lld", (long long)s->interval_ns);
    FUZZ_CHECK(s->missing_samples + s->rejected_samples <= s->ticks * s->zones &&
                   s->truth_unavailable <= s->truth_samples &&
                   s->truth_samples <= s->ticks * s->truth_sources && s->util_ticks <= s->ticks,
               "counts out of bounds");
    FUZZ_CHECK(memchr(s->notes, '\0', sizeof s->notes) != NULL, "notes not terminated");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", fuzz_write_file(fuzz_scratch(), "run.csv", data, size));
    static mapping m;
    if (mapping_of(data, size, path, &m))
        return 0;
    wc_import_target t = {.db_path = NULL};
    wc_import_summary sum;
    wc_error err = {{0}};
    int rc = wc_import_csv(&m.o, &t, &sum, &err);
    if (rc) {
        FUZZ_CHECK(rc == -EINVAL || rc == -ENODATA || rc == -ENOMEM, "rc %d: %s", rc, err.msg);
        FUZZ_CHECK(err.msg[0] && fuzz_printable(err.msg), "message '%s'", err.msg);
        return 0;
    }
    check_summary(&sum, &m);
    return 0;
}
