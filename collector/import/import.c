/*
 * import.c — `wattcal import`: a run recorded elsewhere (a generic CSV with a
 * column mapping, or a Green Metrics Tool folder) into a new wattcal run DB
 * (see import.h for what lands where).
 *
 * Both importers first build an in-memory run (ticks, zone readings,
 * utilisation, truth sources, phases), checking every line, and only then
 * create the DB and write it in one transaction: a bad input never leaves a
 * half-written DB behind.
 */
#include "collector/import/import.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/store/store.h"
#include "collector/truth/truth_file.h"
#include "common/wc_clock.h"
#include "common/wc_fs.h"
#include "common/wc_text.h"

#define MAX_TRUTH 8
#define WC_IMPORT_MIN_WALL_NS (946684800LL * WC_NS_PER_S) /* 2000-01-01T00:00:00Z */
#define MAX_NOTED 5          /* refused samples listed one by one, then counted */

/* ================================================================ the run */

/* One imported ground-truth series. */
typedef struct imp_truth {
    char spec[512], desc[256];
    wc_truth_sample *s;
    size_t n, cap;
} imp_truth;

/* One labelled phase (wall times, ns). */
typedef struct imp_phase {
    char name[128], cls[16];
    int64_t start_wall_ns, end_wall_ns;
    int repetition;
} imp_phase;

/* A run being imported: the ticks' readings are nticks x nzones, row-major. */
typedef struct imp_run {
    size_t nticks, cap;
    int64_t *wall_ns;
    double *util_pct;              /* NAN when unknown */
    wc_reading *rd;
    size_t nzones;
    wc_zone zones[WC_IMPORT_MAX_COLS];
    imp_truth truth[MAX_TRUTH];
    size_t ntruth;
    imp_phase *ph;
    size_t nph, phcap;
    char host[256], cpu_model[256], meter_desc[256];
    wc_import_summary *sum;
    size_t notes_used;
} imp_run;

static void run_free(imp_run *r)
{
    free(r->wall_ns);
    free(r->util_pct);
    free(r->rd);
    for (size_t i = 0; i < r->ntruth; i++)
        free(r->truth[i].s);
    free(r->ph);
}

static void note(imp_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(imp_run *r, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    wc_append(r->sum->notes, sizeof r->sum->notes, &r->notes_used, "%s\n", line);
}

static int oom(wc_error *err) { return wc_error_set(err, -ENOMEM, "out of memory importing"); }

/* Appends a tick at wall_ns (every zone reading -ENODATA until filled). */
static int add_tick(imp_run *r, int64_t wall_ns, wc_error *err)
{
    if (r->nticks == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 1024;
        int64_t *w = realloc(r->wall_ns, cap * sizeof *w);
        if (w)
            r->wall_ns = w;
        double *u = realloc(r->util_pct, cap * sizeof *u);
        if (u)
            r->util_pct = u;
        wc_reading *rd = realloc(r->rd, cap * (r->nzones ? r->nzones : 1) * sizeof *rd);
        if (rd)
            r->rd = rd;
        if (!w || !u || !rd)
            return oom(err);
        r->cap = cap;
    }
    size_t k = r->nticks++;
    r->wall_ns[k] = wall_ns;
    r->util_pct[k] = NAN;
    for (size_t z = 0; z < r->nzones; z++)
        r->rd[k * r->nzones + z] = (wc_reading){.mono_ns = 0, .value = 0, .status = -ENODATA};
    return 0;
}

static wc_reading *reading(imp_run *r, size_t tick, size_t zone)
{
    return &r->rd[tick * r->nzones + zone];
}

static wc_truth_sample *add_truth_sample(imp_truth *t, wc_error *err)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        wc_truth_sample *s = realloc(t->s, cap * sizeof *s);
        if (!s) {
            oom(err);
            return NULL;
        }
        t->s = s;
        t->cap = cap;
    }
    wc_truth_sample *s = &t->s[t->n++];
    memset(s, 0, sizeof *s);
    s->watts = s->min_watts = s->max_watts = s->avg_watts = NAN;
    s->status = WC_TRUTH_OK;
    return s;
}

static int add_phase(imp_run *r, const char *name, const char *cls, int64_t start_wall_ns,
                     int64_t end_wall_ns, wc_error *err)
{
    if (r->nph == r->phcap) {
        size_t cap = r->phcap ? r->phcap * 2 : 32;
        imp_phase *p = realloc(r->ph, cap * sizeof *p);
        if (!p)
            return oom(err);
        r->ph = p;
        r->phcap = cap;
    }
    imp_phase *p = &r->ph[r->nph++];
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->cls, sizeof p->cls, "%s", cls);
    p->start_wall_ns = start_wall_ns;
    p->end_wall_ns = end_wall_ns;
    p->repetition = 1;
    for (size_t i = 0; i + 1 < r->nph; i++)
        if (strcmp(r->ph[i].name, p->name) == 0)
            p->repetition++;
    return 0;
}

/* Fills a zone from its name ("package", "package-1", "psys"). */
static void zone_init(wc_zone *z, const char *name, int socket, const char *raw_name,
                      const char *path, wc_reading_kind kind)
{
    memset(z, 0, sizeof *z);
    snprintf(z->name, sizeof z->name, "%s", name);
    snprintf(z->raw_name, sizeof z->raw_name, "%s", raw_name);
    snprintf(z->path, sizeof z->path, "%s", path);
    z->socket = socket;
    z->parent = -1;
    z->enabled = 1;
    z->max_energy_range_uj = 0;
    z->kind = kind;
}

/* Adds a zone, numbering its occurrence within (name, socket). */
static int add_zone(imp_run *r, const wc_zone *z, wc_error *err)
{
    if (r->nticks)
        return wc_error_set(err, -EINVAL, "internal: zone added after ticks");
    if (r->nzones == WC_IMPORT_MAX_COLS)
        return wc_error_set(err, -EINVAL, "more than %d zones", WC_IMPORT_MAX_COLS);
    wc_zone *nz = &r->zones[r->nzones];
    *nz = *z;
    nz->index = 0;
    for (size_t i = 0; i < r->nzones; i++)
        if (strcmp(r->zones[i].name, z->name) == 0 && r->zones[i].socket == z->socket)
            nz->index++;
    r->nzones++;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median spacing of the ticks (0 with fewer than 2). */
static int64_t median_interval_ns(const imp_run *r)
{
    if (r->nticks < 2)
        return 0;
    int64_t *d = malloc((r->nticks - 1) * sizeof *d);
    if (!d)
        return 0;
    for (size_t i = 1; i < r->nticks; i++)
        d[i - 1] = r->wall_ns[i] - r->wall_ns[i - 1];
    qsort(d, r->nticks - 1, sizeof *d, cmp_i64);
    int64_t m = d[(r->nticks - 1) / 2];
    free(d);
    return m;
}

/* ================================================================ writing */

static void span_of(const imp_run *r, int64_t *first, int64_t *last)
{
    *first = r->wall_ns[0];
    *last = r->wall_ns[r->nticks - 1];
    for (size_t i = 0; i < r->ntruth; i++) {
        if (r->truth[i].n && r->truth[i].s[0].poll_wall_ns < *first)
            *first = r->truth[i].s[0].poll_wall_ns;
        if (r->truth[i].n && r->truth[i].s[r->truth[i].n - 1].poll_wall_ns > *last)
            *last = r->truth[i].s[r->truth[i].n - 1].poll_wall_ns;
    }
    for (size_t i = 0; i < r->nph; i++) {
        if (r->ph[i].start_wall_ns < *first)
            *first = r->ph[i].start_wall_ns;
        if (r->ph[i].end_wall_ns > *last)
            *last = r->ph[i].end_wall_ns;
    }
}

static int count_sockets(const imp_run *r)
{
    int seen[64] = {0}, n = 0;
    for (size_t i = 0; i < r->nzones; i++) {
        int s = r->zones[i].socket;
        if (s >= 0 && s < 64 && !seen[s]) {
            seen[s] = 1;
            n++;
        }
    }
    return n;
}

static int put_run_row(wc_store *st, const imp_run *r, const wc_import_target *t, int64_t origin,
                       wc_error *err)
{
    wc_run_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.host, sizeof info.host, "%s",
             t->host && *t->host ? t->host : r->host[0] ? r->host : "imported");
    snprintf(info.cpu_model, sizeof info.cpu_model, "%s", r->cpu_model);
    info.sockets = count_sockets(r);
    info.interval_ns = r->sum->interval_ns;
    info.started_wall_ns = origin;
    info.started_mono_ns = 0;
    snprintf(info.meter_kind, sizeof info.meter_kind, "import");
    info.provenance = t->provenance;
    snprintf(info.meter_description, sizeof info.meter_description, "%s", r->meter_desc);
    snprintf(info.command_line, sizeof info.command_line, "%s",
             t->command_line ? t->command_line : "");
    return wc_store_put_run(st, &info, err);
}

static int put_ticks(wc_store *st, const imp_run *r, int64_t origin, int64_t first_zone,
                     wc_error *err)
{
    static const wc_cpu_times no_cpu; /* no /proc/stat in an imported run: cpu_ok 0 */
    for (size_t k = 0; k < r->nticks; k++) {
        int64_t tick_id = 0;
        int rc = wc_store_put_tick(st, (int64_t)k, r->wall_ns[k] - origin, 0, r->wall_ns[k],
                                   &no_cpu, 0, 0, 0, &tick_id, err);
        if (!rc && r->nzones)
            rc = wc_store_put_zone_samples(st, tick_id, first_zone, &r->rd[k * r->nzones],
                                           r->nzones, err);
        if (!rc && isfinite(r->util_pct[k]))
            rc = wc_store_set_tick_util(st, tick_id, r->util_pct[k], err);
        if (rc)
            return rc;
    }
    return 0;
}

static int put_truth(wc_store *st, const imp_run *r, int64_t origin, wc_error *err)
{
    for (size_t i = 0; i < r->ntruth; i++) {
        const imp_truth *t = &r->truth[i];
        int64_t id = 0;
        int rc = wc_store_put_truth_source(st, t->spec, "import", WC_PROV_GROUND_TRUTH, t->desc,
                                           &id, err);
        for (size_t j = 0; !rc && j < t->n; j++) {
            wc_truth_sample s = t->s[j];
            s.poll_mono_ns = s.poll_wall_ns - origin;
            rc = wc_store_put_truth_sample(st, id, &s, err);
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int put_phases(wc_store *st, const imp_run *r, int64_t origin, wc_error *err)
{
    for (size_t i = 0; i < r->nph; i++) {
        const imp_phase *p = &r->ph[i];
        int rc = wc_store_put_phase(st, p->name, p->cls, p->start_wall_ns - origin,
                                    p->end_wall_ns - origin, p->start_wall_ns, p->end_wall_ns,
                                    p->repetition, err);
        if (rc)
            return rc;
    }
    return 0;
}

static int write_content(wc_store *st, imp_run *r, const wc_import_target *t, wc_error *err)
{
    static const wc_meter_ops IMPORT_OPS = {.kind = "import"};
    int64_t origin = 0, last = 0, first_zone = 0;
    span_of(r, &origin, &last);
    wc_meter m = {.ops = &IMPORT_OPS, .provenance = t->provenance, .zones = r->zones,
                  .nzones = r->nzones};
    int rc = put_run_row(st, r, t, origin, err);
    if (!rc && r->nzones)
        rc = wc_store_put_zones(st, &m, &first_zone, err);
    if (!rc)
        rc = wc_store_begin(st, err);
    if (rc)
        return rc;
    rc = put_ticks(st, r, origin, first_zone, err);
    if (!rc)
        rc = put_truth(st, r, origin, err);
    if (!rc)
        rc = put_phases(st, r, origin, err);
    if (!rc)
        return wc_store_commit(st, err) ? -EIO
                                        : wc_store_finish_run(st, last, last - origin,
                                                              (int64_t)r->nticks, 1, err);
    return rc;
}

static void remove_db(const char *path)
{
    char p[1100];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
}

/* Creates the DB and writes the run; on failure removes a DB this call created. */
static int write_run(imp_run *r, const wc_import_target *t, wc_error *err)
{
    struct stat sb;
    int existed = stat(t->db_path, &sb) == 0;
    wc_store *st = wc_store_open(t->db_path, WC_STORE_CREATE, err);
    if (!st)
        return -EIO;
    int rc = write_content(st, r, t, err);
    wc_store_close(st);
    if (rc && !existed)
        remove_db(t->db_path);
    return rc;
}

static void fill_summary(imp_run *r)
{
    wc_import_summary *s = r->sum;
    s->ticks = (int64_t)r->nticks;
    s->zones = (int64_t)r->nzones;
    s->truth_sources = (int64_t)r->ntruth;
    s->phases = (int64_t)r->nph;
    s->first_wall_ns = r->nticks ? r->wall_ns[0] : 0;
    s->last_wall_ns = r->nticks ? r->wall_ns[r->nticks - 1] : 0;
    s->interval_ns = median_interval_ns(r);
    s->truth_samples = s->truth_unavailable = s->util_ticks = 0;
    s->rejected_samples = s->missing_samples = 0;
    for (size_t i = 0; i < r->ntruth; i++)
        for (size_t j = 0; j < r->truth[i].n; j++) {
            s->truth_samples++;
            s->truth_unavailable += r->truth[i].s[j].status != WC_TRUTH_OK;
        }
    for (size_t k = 0; k < r->nticks; k++) {
        s->util_ticks += isfinite(r->util_pct[k]) != 0;
        for (size_t z = 0; z < r->nzones; z++) {
            int st = r->rd[k * r->nzones + z].status;
            s->rejected_samples += st == -ERANGE;
            s->missing_samples += st == -ENODATA;
        }
    }
}

/* Says how many ground-truth samples carry no reading. */
static void truth_notes(imp_run *r)
{
    for (size_t i = 0; i < r->ntruth; i++) {
        size_t bad = 0;
        for (size_t j = 0; j < r->truth[i].n; j++)
            bad += r->truth[i].s[j].status != WC_TRUTH_OK;
        if (bad)
            note(r, "%s: %zu of %zu samples stored as unavailable (empty or 0 W: no reading)%s",
                 r->truth[i].spec, bad, r->truth[i].n,
                 bad == r->truth[i].n ? "; this source has no usable reading" : "");
    }
}

/* Checks there is an interval, then writes. */
static int finish_import(imp_run *r, const wc_import_target *t, const char *what,
                         wc_error *err)
{
    if (r->nticks < 2)
        return wc_error_set(err, -ENODATA,
                            "%s: %zu sample instant%s: at least 2 are needed to measure an "
                            "interval; nothing imported",
                            what, r->nticks, r->nticks == 1 ? "" : "s");
    fill_summary(r);
    truth_notes(r);
    return write_run(r, t, err);
}

/* ================================================================ column mappings */

typedef struct unit_def {
    const char *name;
    double scale;
} unit_def;

static const unit_def ENERGY_UNITS[] = {
    {"uj", 1.0}, {"mj", 1e3}, {"j", 1e6}, {"wh", 3.6e9}, {"kwh", 3.6e12}, {NULL, 0}};
static const unit_def POWER_UNITS[] = {
    {"uw", 1.0}, {"mw", 1e3}, {"w", 1e6}, {"kw", 1e9}, {NULL, 0}};
static const unit_def TRUTH_UNITS[] = {
    {"uw", 1e-6}, {"mw", 1e-3}, {"w", 1.0}, {"kw", 1e3}, {NULL, 0}};

static const unit_def *units_for(wc_import_col_kind kind)
{
    switch (kind) {
    case WC_IMPORT_COUNTER:
    case WC_IMPORT_ENERGY: return ENERGY_UNITS;
    case WC_IMPORT_POWER: return POWER_UNITS;
    case WC_IMPORT_TRUTH: return TRUTH_UNITS;
    }
    return ENERGY_UNITS;
}

static int find_unit(const unit_def *u, const char *name, double *scale)
{
    for (; u->name; u++)
        if (strcasecmp(u->name, name) == 0) {
            *scale = u->scale;
            return 0;
        }
    return -EINVAL;
}

static const char *unit_list(wc_import_col_kind kind)
{
    return kind == WC_IMPORT_COUNTER || kind == WC_IMPORT_ENERGY ? "uj|mj|j|wh|kwh" : "uw|mw|w|kw";
}

/* "package-1" -> name "package", socket 1; "psys" -> socket -1; else 0. */
static int parse_zone_name(const char *z, char *name, size_t cap, int *socket)
{
    size_t len = strlen(z);
    if (len == 0 || len >= cap)
        return -EINVAL;
    for (size_t i = 0; i < len; i++) {
        char ch = z[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-'))
            return -EINVAL;
    }
    const char *dash = strrchr(z, '-');
    uint64_t n = 0;
    if (dash && dash > z && wc_parse_u64(dash + 1, strlen(dash + 1), &n) == 0 && n < 1024) {
        snprintf(name, cap, "%.*s", (int)(dash - z), z);
        *socket = (int)n;
        return 0;
    }
    if (strchr(z, '-'))
        return -EINVAL;
    memcpy(name, z, len + 1); /* len < cap, checked above */
    *socket = strcmp(z, "psys") == 0 ? -1 : 0;
    return 0;
}

static const char *col_option(wc_import_col_kind kind)
{
    switch (kind) {
    case WC_IMPORT_COUNTER: return "--counter-col";
    case WC_IMPORT_ENERGY: return "--energy-col";
    case WC_IMPORT_POWER: return "--power-col";
    case WC_IMPORT_TRUTH: return "--truth-col";
    }
    return "--counter-col";
}

/* The last field of a mapping is no unit: says so, or, when a unit comes
 * earlier ("pkg:package:j:x"), that the mapping has too many fields. */
static int bad_unit(const char *arg, wc_import_col_kind kind, const char *u, wc_error *err)
{
    const char *opt = col_option(kind);
    const char *form = kind == WC_IMPORT_TRUTH ? "NAME:UNIT" : "NAME:ZONE:UNIT";
    for (const char *end = u; end > arg;) {
        const char *start = end - 1;
        while (start > arg && *start != ':')
            start--;
        if (*start != ':')
            break;
        char part[16];
        double scale = 0;
        size_t n = (size_t)(end - start - 1);
        if (n < sizeof part) {
            memcpy(part, start + 1, n);
            part[n] = '\0';
            if (find_unit(units_for(kind), part, &scale) == 0)
                return wc_error_set(err, -EINVAL,
                                    "%s %s: the mapping has too many fields: expected %s with "
                                    "the unit last ('%s' follows the unit '%s')",
                                    opt, arg, form, end + 1, part);
        }
        end = start;
    }
    return wc_error_set(err, -EINVAL, "%s %s: unit '%s' is not one of %s", opt, arg, u + 1,
                        unit_list(kind));
}

int wc_import_parse_col(const char *arg, wc_import_col_kind kind, wc_import_col *out,
                        wc_error *err)
{
    memset(out, 0, sizeof *out);
    out->kind = kind;
    const char *opt = col_option(kind);
    const char *form = kind == WC_IMPORT_TRUTH ? "NAME:UNIT" : "NAME:ZONE:UNIT";
    const char *u = strrchr(arg, ':');
    if (!u || u == arg)
        return wc_error_set(err, -EINVAL, "%s %s: expected %s", opt, arg, form);
    if (find_unit(units_for(kind), u + 1, &out->scale))
        return bad_unit(arg, kind, u, err);
    snprintf(out->unit, sizeof out->unit, "%s", u + 1);
    for (char *p = out->unit; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    const char *name_end = u;
    if (kind != WC_IMPORT_TRUTH) {
        const char *zs = u - 1;
        while (zs > arg && *zs != ':')
            zs--;
        char zone[64];
        snprintf(zone, sizeof zone, "%.*s", (int)(u - zs - 1), zs + 1);
        if (zs == arg || parse_zone_name(zone, out->zone, sizeof out->zone, &out->socket))
            return wc_error_set(err, -EINVAL,
                                "%s %s: expected %s with ZONE like package, package-1, dram-0, "
                                "psys (lower case, digits, _)",
                                opt, arg, form);
        name_end = zs;
    } else {
        out->socket = -1;
    }
    size_t nlen = (size_t)(name_end - arg);
    if (nlen == 0 || nlen >= sizeof out->column)
        return wc_error_set(err, -EINVAL, "%s %s: the column NAME is empty or too long", opt,
                            arg);
    snprintf(out->column, sizeof out->column, "%.*s", (int)nlen, arg);
    return 0;
}

/* ================================================================ generic CSV */

/* Where each mapped column is and what it feeds. */
typedef struct csv_state {
    int time, util, phase, host, cpu;
    int cell[WC_IMPORT_MAX_COLS];     /* header index of opts->cols[i] */
    int target[WC_IMPORT_MAX_COLS];   /* zone index, or truth index for truth columns */
    size_t need;                      /* cells a row must have */
    uint64_t acc_uj[WC_IMPORT_MAX_COLS];   /* energy columns: running sum */
    int decreased[WC_IMPORT_MAX_COLS];     /* counter columns: decreases seen */
    uint64_t last_uj[WC_IMPORT_MAX_COLS];
    int have_last[WC_IMPORT_MAX_COLS];
    char label[128];                  /* phase label of the open phase ("" none) */
    size_t label_tick;                /* its first tick */
} csv_state;

/* Room for a cell quoted in a message (40 bytes, or 40 and "..."). */
#define QUOTE_CAP 44

/* The header's column names, for "not found" messages. */
static void header_list(const wc_csv *c, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->nfields && used + 8 < cap; i++) {
        char q[QUOTE_CAP];
        wc_append(buf, cap, &used, "%s'%s'", i ? ", " : "",
                  wc_csv_clean(q, sizeof q, c->fields[i]));
    }
}

/* Refuses a header naming two columns alike (which one would a mapping
 * mean?). Unnamed columns may repeat unless one is mapped by its empty name. */
static int check_header_names(const wc_csv *c, const wc_import_csv_opts *o, wc_error *err)
{
    int empty_mapped = strcmp(o->time_col, "") == 0;
    for (size_t i = 0; i < o->ncols; i++)
        empty_mapped |= o->cols[i].column[0] == '\0';
    const char *other[] = {o->util_col, o->phase_col, o->host_col, o->cpu_model_col};
    for (size_t i = 0; i < sizeof other / sizeof *other; i++)
        empty_mapped |= other[i] && !*other[i];
    for (size_t i = 1; i < c->nfields; i++) {
        if (!c->fields[i][0] && !empty_mapped)
            continue;
        for (size_t j = 0; j < i; j++)
            if (strcmp(c->fields[i], c->fields[j]) == 0) {
                char q[QUOTE_CAP];
                return wc_error_set(err, -EINVAL,
                                    "%s:%d:%zu: duplicate column name '%s' (also column %zu)",
                                    c->path, c->line, i + 1,
                                    wc_csv_clean(q, sizeof q, c->fields[i]), j + 1);
            }
    }
    return 0;
}

static int header_col(const wc_csv *c, const char *name, const char *opt, int *idx,
                      size_t *need, wc_error *err)
{
    *idx = -1;
    if (!name)
        return 0;
    *idx = wc_csv_find(c, name, 0);
    if (*idx < 0) {
        char list[400];
        header_list(c, list, sizeof list);
        return wc_error_set(err, -EINVAL, "%s:%d: %s '%s': no such column in the header (%s)",
                            c->path, c->line, opt, name, list);
    }
    if ((size_t)*idx + 1 > *need)
        *need = (size_t)*idx + 1;
    return 0;
}

static int resolve_header(const wc_csv *c, const wc_import_csv_opts *o, csv_state *cs,
                          wc_error *err)
{
    int rc = check_header_names(c, o, err);
    if (!rc)
        rc = header_col(c, o->time_col, "--time-col", &cs->time, &cs->need, err);
    if (!rc)
        rc = header_col(c, o->util_col, "--util-col", &cs->util, &cs->need, err);
    if (!rc)
        rc = header_col(c, o->phase_col, "--phase-col", &cs->phase, &cs->need, err);
    if (!rc)
        rc = header_col(c, o->host_col, "--host-col", &cs->host, &cs->need, err);
    if (!rc)
        rc = header_col(c, o->cpu_model_col, "--cpu-model-col", &cs->cpu, &cs->need, err);
    for (size_t i = 0; !rc && i < o->ncols; i++)
        rc = header_col(c, o->cols[i].column, col_option(o->cols[i].kind), &cs->cell[i],
                        &cs->need, err);
    return rc;
}

/* Declares the zones and truth sources of the mapping. */
static int csv_targets(imp_run *r, const wc_import_csv_opts *o, csv_state *cs, wc_error *err)
{
    for (size_t i = 0; i < o->ncols; i++) {
        const wc_import_col *col = &o->cols[i];
        char path[512];
        snprintf(path, sizeof path, "csv:%.300s#%s", o->path, col->column);
        if (col->kind == WC_IMPORT_TRUTH) {
            if (r->ntruth == MAX_TRUTH)
                return wc_error_set(err, -EINVAL, "more than %d --truth-col", MAX_TRUTH);
            imp_truth *t = &r->truth[r->ntruth];
            snprintf(t->spec, sizeof t->spec, "%s", path);
            snprintf(t->desc, sizeof t->desc, "imported column '%.100s' (%s)", col->column,
                     col->unit);
            cs->target[i] = (int)r->ntruth++;
            continue;
        }
        wc_zone z;
        zone_init(&z, col->zone, col->socket, col->column, path,
                  col->kind == WC_IMPORT_POWER ? WC_KIND_GAUGE_UW : WC_KIND_COUNTER_UJ);
        cs->target[i] = (int)r->nzones;
        int rc = add_zone(r, &z, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* A number cell: 0 with *v, 1 when empty, -EINVAL with err naming the cell. */
static int number_cell(const wc_csv *c, int idx, const char *col, double *v, wc_error *err)
{
    const char *cell = c->fields[idx];
    if (!*cell)
        return 1;
    int rc = wc_parse_decimal(cell, v);
    char q[QUOTE_CAP];
    if (rc == -ERANGE)
        return wc_error_set(err, -EINVAL,
                            "%s:%d:%d: column '%s': '%s' (%zu characters) is out of range",
                            c->path, c->line, idx + 1, col, wc_csv_clean(q, sizeof q, cell),
                            strlen(cell));
    if (rc)
        return wc_error_set(err, -EINVAL, "%s:%d:%d: column '%s': '%s' is not a number",
                            c->path, c->line, idx + 1, col, wc_csv_clean(q, sizeof q, cell));
    return 0;
}

static int negative_cell(const wc_csv *c, int idx, const char *col, wc_error *err)
{
    char q[QUOTE_CAP];
    return wc_error_set(err, -EINVAL, "%s:%d:%d: column '%s': negative value '%s'", c->path,
                        c->line, idx + 1, col, wc_csv_clean(q, sizeof q, c->fields[idx]));
}

/* Scales a non-negative cell to an unsigned integer (µJ or µW), rounding. */
static int scaled_u64(const wc_csv *c, int idx, const char *col, double v, double scale,
                      uint64_t *out, wc_error *err)
{
    double x = v * scale;
    if (x < 0)
        return negative_cell(c, idx, col, err);
    if (!(x < 1.8e19)) {
        char q[QUOTE_CAP];
        return wc_error_set(err, -EINVAL, "%s:%d:%d: column '%s': '%s' is out of range",
                            c->path, c->line, idx + 1, col,
                            wc_csv_clean(q, sizeof q, c->fields[idx]));
    }
    *out = (uint64_t)(x + 0.5);
    return 0;
}

static void counter_decrease_note(imp_run *r, const wc_csv *c, csv_state *cs, size_t i,
                                  const wc_import_col *col, uint64_t uj)
{
    if (cs->have_last[i] && uj < cs->last_uj[i] && cs->decreased[i]++ == 0)
        note(r,
             "%s:%d: counter column '%s' decreased; stored as read (the analysis treats a "
             "decrease as a wrap or a reset)",
             c->path, c->line, col->column);
    cs->last_uj[i] = uj;
    cs->have_last[i] = 1;
}

/* One zone cell of the current tick. */
static int zone_cell(imp_run *r, const wc_csv *c, csv_state *cs, size_t i,
                     const wc_import_col *col, wc_error *err)
{
    double v = 0;
    int idx = cs->cell[i], rc = number_cell(c, idx, col->column, &v, err);
    if (rc)
        return rc < 0 ? rc : 0; /* empty: the reading stays -ENODATA */
    uint64_t x = 0;
    if ((rc = scaled_u64(c, idx, col->column, v, col->scale, &x, err)))
        return rc;
    wc_reading *rd = reading(r, r->nticks - 1, (size_t)cs->target[i]);
    if (col->kind == WC_IMPORT_ENERGY) {
        cs->acc_uj[i] += x;
        x = cs->acc_uj[i];
    } else if (col->kind == WC_IMPORT_COUNTER) {
        counter_decrease_note(r, c, cs, i, col, x);
    }
    rd->value = x;
    rd->status = 0;
    return 0;
}

static int truth_cell(imp_run *r, const wc_csv *c, csv_state *cs, size_t i,
                      const wc_import_col *col, wc_error *err)
{
    imp_truth *t = &r->truth[cs->target[i]];
    wc_truth_sample *s = add_truth_sample(t, err);
    if (!s)
        return -ENOMEM;
    s->poll_wall_ns = s->device_ts_ns = r->wall_ns[r->nticks - 1];
    snprintf(s->path, sizeof s->path, "csv:%.150s", col->column);
    double v = 0;
    int idx = cs->cell[i], rc = number_cell(c, idx, col->column, &v, err);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        s->status = WC_TRUTH_UNAVAILABLE;
        snprintf(s->error, sizeof s->error, "line %d: empty cell", c->line);
        return 0;
    }
    if (v < 0)
        return negative_cell(c, idx, col->column, err);
    const char *why = NULL;
    double w = v * col->scale;
    int k = wc_truth_watts_class(w, &why);
    if (k < 0) {
        char q[QUOTE_CAP];
        return wc_error_set(err, -EINVAL,
                            "%s:%d:%d: column '%s': '%s' %s is an implausible wall power (%.6g W; "
                            "a node draws at most %.0f W)",
                            c->path, c->line, idx + 1, col->column,
                            wc_csv_clean(q, sizeof q, c->fields[idx]), col->unit, w,
                            WC_TRUTH_MAX_WALL_WATTS);
    }
    if (k == 1) {
        s->status = WC_TRUTH_UNAVAILABLE;
        snprintf(s->error, sizeof s->error, "line %d: %s", c->line, why);
        return 0;
    }
    s->watts = w;
    return 0;
}

static int util_cell(imp_run *r, const wc_csv *c, const csv_state *cs,
                     const wc_import_csv_opts *o, wc_error *err)
{
    double v = 0;
    int rc = number_cell(c, cs->util, o->util_col, &v, err);
    if (rc)
        return rc < 0 ? rc : 0;
    double pct = v * o->util_scale;
    char q[QUOTE_CAP];
    if (pct < 0 || pct > 100.0 + 1e-9)
        return wc_error_set(err, -EINVAL,
                            "%s:%d:%d: column '%s': utilisation %s is outside 0..%s "
                            "(percent of all CPUs%s)",
                            c->path, c->line, cs->util + 1, o->util_col,
                            wc_csv_clean(q, sizeof q, c->fields[cs->util]),
                            o->util_scale == 1 ? "100" : "1",
                            o->util_scale == 1 ? "; use NAME:ratio for 0..1 values" : "");
    r->util_pct[r->nticks - 1] = pct;
    return 0;
}

/* Closes the open phase at the last tick: rows i..j span (t[i-1], t[j]]
 * (the values of row i describe the interval since row i-1); a phase made of
 * the first row alone spans no interval and is not stored (noted). */
static int close_csv_phase(imp_run *r, const wc_csv *c, csv_state *cs, size_t last_tick,
                           wc_error *err)
{
    if (!cs->label[0])
        return 0;
    size_t i = cs->label_tick;
    int64_t start = r->wall_ns[i > 0 ? i - 1 : 0], end = r->wall_ns[last_tick];
    int rc = 0;
    char q[104];
    if (end > start)
        rc = add_phase(r, cs->label, "csv", start, end, err);
    else
        note(r, "%s: phase '%s' is the first row alone: it spans no interval, not stored",
             c->path, wc_csv_clean(q, sizeof q, cs->label));
    cs->label[0] = '\0';
    return rc;
}

static int phase_cell(imp_run *r, const wc_csv *c, csv_state *cs, wc_error *err)
{
    const char *label = c->fields[cs->phase];
    if (cs->label[0] && strncmp(cs->label, label, sizeof cs->label - 1) == 0)
        return 0;
    int rc = r->nticks >= 2 ? close_csv_phase(r, c, cs, r->nticks - 2, err) : 0;
    if (!rc && *label) {
        snprintf(cs->label, sizeof cs->label, "%s", label);
        cs->label_tick = r->nticks - 1;
    }
    return rc;
}

static int row_time(const wc_csv *c, const csv_state *cs, const wc_import_csv_opts *o,
                    int64_t *ns, wc_error *err)
{
    const char *cell = c->fields[cs->time];
    char q[QUOTE_CAP];
    int rc;
    wc_csv_clean(q, sizeof q, cell);
    if (o->time_unit_ns == 0) {
        rc = wc_parse_iso8601_ns(cell, o->iso_offset_s, ns, err);
    } else if ((rc = wc_parse_epoch_ns(cell, o->time_unit_ns, ns))) {
        wc_error_set(err, rc, "'%s' is not an epoch time (digits[.digits]) in the unit of "
                              "--time-unit", q);
    }
    if (!rc && *ns < WC_IMPORT_MIN_WALL_NS)
        rc = wc_error_set(err, -EINVAL,
                          "'%s' is before 2000-01-01: not a wall-clock time (wrong "
                          "--time-unit or --time-col?)",
                          q);
    if (rc)
        return wc_error_prefix(err, rc, "%s:%d:%d: column '%s': ", c->path, c->line,
                               cs->time + 1, o->time_col);
    return 0;
}

static void first_row_meta(imp_run *r, const wc_csv *c, const csv_state *cs)
{
    if (r->nticks != 1)
        return;
    if (cs->host >= 0)
        snprintf(r->host, sizeof r->host, "%s", c->fields[cs->host]);
    if (cs->cpu >= 0)
        snprintf(r->cpu_model, sizeof r->cpu_model, "%s", c->fields[cs->cpu]);
}

static int csv_row(imp_run *r, const wc_csv *c, csv_state *cs, const wc_import_csv_opts *o,
                   wc_error *err)
{
    if (c->nfields < cs->need)
        return wc_error_set(err, -EINVAL, "%s:%d: %zu cells, the mapped columns need %zu",
                            c->path, c->line, c->nfields, cs->need);
    int64_t ns = 0;
    int rc = row_time(c, cs, o, &ns, err);
    if (rc)
        return rc;
    if (r->nticks && ns <= r->wall_ns[r->nticks - 1])
        return wc_error_set(err, -EINVAL,
                            "%s:%d:%d: column '%s': time is not after the previous row's "
                            "(rows must be in time order, one per instant)",
                            c->path, c->line, cs->time + 1, o->time_col);
    if ((rc = add_tick(r, ns, err)))
        return rc;
    first_row_meta(r, c, cs);
    for (size_t i = 0; !rc && i < o->ncols; i++)
        rc = o->cols[i].kind == WC_IMPORT_TRUTH ? truth_cell(r, c, cs, i, &o->cols[i], err)
                                                : zone_cell(r, c, cs, i, &o->cols[i], err);
    if (!rc && cs->util >= 0)
        rc = util_cell(r, c, cs, o, err);
    if (!rc && cs->phase >= 0)
        rc = phase_cell(r, c, cs, err);
    return rc;
}

/* The zone kind a mapped column feeds (counter and energy columns both make
 * counters). */
static wc_reading_kind col_zone_kind(const wc_import_col *c)
{
    return c->kind == WC_IMPORT_POWER ? WC_KIND_GAUGE_UW : WC_KIND_COUNTER_UJ;
}

/* "--counter-col pkg:package:j" as the user wrote it, for messages. */
static void col_spec(const wc_import_col *c, char *buf, size_t cap)
{
    if (c->kind == WC_IMPORT_TRUTH)
        snprintf(buf, cap, "%s %s:%s", col_option(c->kind), c->column, c->unit);
    else if (c->socket > 0)
        snprintf(buf, cap, "%s %s:%s-%d:%s", col_option(c->kind), c->column, c->zone, c->socket,
                 c->unit);
    else
        snprintf(buf, cap, "%s %s:%s:%s", col_option(c->kind), c->column, c->zone, c->unit);
}

/* A column mapped twice, or one zone fed by two energy (or two power)
 * columns, would count its energy twice. */
static int check_duplicate_cols(const wc_import_csv_opts *o, wc_error *err)
{
    char a[200], b[200];
    for (size_t i = 0; i < o->ncols; i++) {
        const wc_import_col *ci = &o->cols[i];
        col_spec(ci, a, sizeof a);
        const char *also = strcmp(ci->column, o->time_col) == 0 ? "--time-col"
                           : o->util_col && strcmp(ci->column, o->util_col) == 0 ? "--util-col"
                                                                                  : NULL;
        if (also)
            return wc_error_set(err, -EINVAL, "%s: column '%s' is the %s", a, ci->column, also);
        for (size_t j = 0; j < i; j++) {
            const wc_import_col *cj = &o->cols[j];
            col_spec(cj, b, sizeof b);
            if (strcmp(ci->column, cj->column) == 0)
                return wc_error_set(err, -EINVAL,
                                    "%s: column '%s' is already mapped by %s (a column feeds "
                                    "one series)",
                                    a, ci->column, b);
            if (ci->kind == WC_IMPORT_TRUTH || cj->kind == WC_IMPORT_TRUTH ||
                col_zone_kind(ci) != col_zone_kind(cj) || strcmp(ci->zone, cj->zone) != 0 ||
                ci->socket != cj->socket)
                continue;
            char z[48];
            if (ci->socket >= 0)
                snprintf(z, sizeof z, "%s-%d", ci->zone, ci->socket);
            else
                snprintf(z, sizeof z, "%s", ci->zone);
            return wc_error_set(err, -EINVAL,
                                "%s: zone %s is already fed by %s (one %s series per zone, or "
                                "its energy would count twice)",
                                a, z, b,
                                col_zone_kind(ci) == WC_KIND_GAUGE_UW ? "power" : "energy");
        }
    }
    return 0;
}

static int check_csv_opts(const wc_import_csv_opts *o, wc_error *err)
{
    if (!o->path || !o->time_col)
        return wc_error_set(err, -EINVAL, "--csv FILE and --time-col NAME are required");
    if (o->ncols > WC_IMPORT_MAX_COLS)
        return wc_error_set(err, -EINVAL, "more than %d mapped columns", WC_IMPORT_MAX_COLS);
    size_t zones = 0;
    for (size_t i = 0; i < o->ncols; i++)
        zones += o->cols[i].kind != WC_IMPORT_TRUTH;
    if (zones == 0)
        return wc_error_set(err, -EINVAL,
                            "no energy or power series: map at least one --counter-col, "
                            "--energy-col or --power-col (ground truth and utilisation alone "
                            "make a run without zones, which validate cannot replay)");
    return check_duplicate_cols(o, err);
}

static int read_csv(imp_run *r, wc_csv *c, const wc_import_csv_opts *o, wc_error *err)
{
    csv_state cs;
    memset(&cs, 0, sizeof cs);
    int rc = wc_csv_next(c, err);
    if (rc <= 0) /* an empty file is bad input, not a run too short to measure */
        return rc < 0 ? rc : wc_error_set(err, -EINVAL, "%s: empty (no header row)", o->path);
    if ((rc = resolve_header(c, o, &cs, err)) || (rc = csv_targets(r, o, &cs, err)))
        return rc;
    while ((rc = wc_csv_next(c, err)) == 1)
        if ((rc = csv_row(r, c, &cs, o, err)))
            return rc;
    if (!rc && r->nticks)
        rc = close_csv_phase(r, c, &cs, r->nticks - 1, err);
    return rc;
}

int wc_import_csv(const wc_import_csv_opts *o, const wc_import_target *t,
                  wc_import_summary *sum, wc_error *err)
{
    memset(sum, 0, sizeof *sum);
    int rc = check_csv_opts(o, err);
    if (rc)
        return rc;
    imp_run r;
    memset(&r, 0, sizeof r);
    r.sum = sum;
    snprintf(r.meter_desc, sizeof r.meter_desc, "imported from CSV %.200s", o->path);
    wc_csv c;
    if ((rc = wc_csv_open(&c, o->path, o->delimiter ? o->delimiter : ',', err)) == 0) {
        rc = read_csv(&r, &c, o, err);
        wc_csv_close(&c);
    }
    if (!rc)
        rc = finish_import(&r, t, o->path, err);
    run_free(&r);
    return rc;
}

/* ================================================================ Green Metrics Tool */

/* One line of a GMT "<unix_us> <value> [<detail>]" log. */
typedef struct gmt_row {
    int64_t wall_ns;
    uint64_t value;
    int zone;        /* RAPL: zone index */
    int line;
} gmt_row;

typedef struct gmt_rows {
    char path[512];
    gmt_row *v;
    size_t n, cap;
} gmt_rows;

/* Resolves a GMT series file: 1 with out set, 0 when not imported. */
static int gmt_path(const wc_import_gmt_opts *o, const char *given, const char *std, char *out,
                    size_t cap)
{
    if (given) {
        snprintf(out, cap, "%s", given);
        return *given != '\0';
    }
    if (!o->dir)
        return 0;
    snprintf(out, cap, "%s/%s", o->dir, std);
    return access(out, F_OK) == 0;
}

static int push_row(gmt_rows *g, const gmt_row *row, wc_error *err)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 1024;
        gmt_row *v = realloc(g->v, cap * sizeof *v);
        if (!v)
            return oom(err);
        g->v = v;
        g->cap = cap;
    }
    g->v[g->n++] = *row;
    return 0;
}

/* Parses the current row: "<unix_us> <unsigned value>", then the detail
 * when nfields is 3; a GMT line has exactly nfields fields. */
static int gmt_time_value(const wc_csv *c, gmt_row *row, size_t nfields, wc_error *err)
{
    const char *form = nfields == 3 ? "<unix_us> <value> <detail>" : "<unix_us> <value>";
    char q[QUOTE_CAP];
    if (c->nfields < nfields)
        return wc_error_set(err, -EINVAL, "%s:%d: %zu field%s, a GMT line has %zu (%s)", c->path,
                            c->line, c->nfields, c->nfields == 1 ? "" : "s", nfields, form);
    if (c->nfields > nfields)
        return wc_error_set(err, -EINVAL,
                            "%s:%d:%zu: %zu fields, a GMT line has %zu (%s): '%s' is one too "
                            "many",
                            c->path, c->line, nfields + 1, c->nfields, nfields, form,
                            wc_csv_clean(q, sizeof q, c->fields[nfields]));
    uint64_t us = 0;
    if (wc_parse_u64(c->fields[0], strlen(c->fields[0]), &us) || us > (uint64_t)(INT64_MAX / 1000))
        return wc_error_set(err, -EINVAL, "%s:%d:1: '%s' is not a Unix time in microseconds",
                            c->path, c->line, wc_csv_clean(q, sizeof q, c->fields[0]));
    size_t vlen = strlen(c->fields[1]);
    if (wc_parse_u64(c->fields[1], vlen, &row->value))
        return wc_error_set(err, -EINVAL, "%s:%d:2: '%s' is %s", c->path, c->line,
                            wc_csv_clean(q, sizeof q, c->fields[1]),
                            strspn(c->fields[1], "0123456789") == vlen
                                ? "out of range (above 2^64)"
                                : "not an unsigned integer");
    row->wall_ns = (int64_t)us * 1000;
    row->line = c->line;
    if (row->wall_ns < WC_IMPORT_MIN_WALL_NS)
        return wc_error_set(err, -EINVAL,
                            "%s:%d:1: %s us is before 2000-01-01: not a GMT Unix time in "
                            "microseconds",
                            c->path, c->line, c->fields[0]);
    return 0;
}

/* Reads a whole GMT log (every line "<unix_us> <value>", plus "<detail>"
 * when nfields is 3, and ending in a newline); zone_of (RAPL) maps the
 * detail name to a zone. */
static int read_gmt_log(const char *path, size_t nfields, gmt_rows *g,
                        int (*zone_of)(void *, const char *, wc_error *), void *ctx,
                        wc_error *err)
{
    wc_csv c;
    snprintf(g->path, sizeof g->path, "%s", path);
    int rc = wc_csv_open(&c, path, ' ', err);
    if (rc)
        return rc;
    c.require_newline = 1; /* a cut last line would read as a smaller number */
    while ((rc = wc_csv_next(&c, err)) == 1) {
        gmt_row row = {0};
        if ((rc = gmt_time_value(&c, &row, nfields, err)))
            break;
        if (g->n && row.wall_ns < g->v[g->n - 1].wall_ns) {
            rc = wc_error_set(err, -EINVAL, "%s:%d:1: time goes backwards", path, c.line);
            break;
        }
        if (zone_of && (row.zone = zone_of(ctx, c.fields[2], err)) < 0) {
            rc = wc_error_prefix(err, -EINVAL, "%s:%d:3: ", path, c.line);
            break;
        }
        if ((rc = push_row(g, &row, err)))
            break;
    }
    wc_csv_close(&c);
    return rc;
}

/* The RAPL domains GMT's MSR provider writes: "Package_N" -> package,
 * "DRAM_N" -> dram, "PSYS_N" -> psys, each of socket N (decimal, no leading
 * zero); anything else is refused (a line cut short, or not a GMT log). */
static int gmt_zone_of(void *ctx, const char *detail, wc_error *err)
{
    static const struct {
        const char *prefix, *zone;
    } DOMAINS[] = {{"Package_", "package"}, {"DRAM_", "dram"}, {"PSYS_", "psys"}};
    imp_run *r = ctx;
    for (size_t i = 0; i < r->nzones; i++)
        if (strcmp(r->zones[i].raw_name, detail) == 0)
            return (int)i;
    const char *name = NULL, *num = NULL;
    for (size_t i = 0; i < sizeof DOMAINS / sizeof *DOMAINS && !name; i++)
        if (strncmp(detail, DOMAINS[i].prefix, strlen(DOMAINS[i].prefix)) == 0) {
            name = DOMAINS[i].zone;
            num = detail + strlen(DOMAINS[i].prefix);
        }
    uint64_t sock = 0;
    if (!name || wc_parse_u64(num, strlen(num), &sock) || sock >= 1024 ||
        (num[0] == '0' && num[1])) {
        char q[QUOTE_CAP];
        return wc_error_set(err, -EINVAL,
                            "'%s' is not a RAPL domain of a GMT log (Package_N, DRAM_N or "
                            "PSYS_N)",
                            wc_csv_clean(q, sizeof q, detail));
    }
    int socket = (int)sock;
    wc_zone z;
    char path[512];
    snprintf(path, sizeof path, "gmt:cpu_energy_rapl_msr_component#%.64s", detail);
    zone_init(&z, name, socket, detail, path, WC_KIND_COUNTER_UJ);
    int rc = add_zone(r, &z, err);
    return rc ? rc : (int)r->nzones - 1;
}

/* Makes one tick per distinct RAPL timestamp and stores each row's raw
 * interval energy in its reading (accumulated later). */
static int rapl_ticks(imp_run *r, const gmt_rows *g, size_t *tick_of, wc_error *err)
{
    for (size_t i = 0; i < g->n; i++) {
        const gmt_row *row = &g->v[i];
        int rc = 0;
        if (r->nticks == 0 || row->wall_ns != r->wall_ns[r->nticks - 1])
            rc = add_tick(r, row->wall_ns, err);
        if (rc)
            return rc;
        wc_reading *rd = reading(r, r->nticks - 1, (size_t)row->zone);
        if (rd->status == 0)
            return wc_error_set(err, -EINVAL, "%s:%d: a second %s value at the same time",
                                g->path, row->line, r->zones[row->zone].raw_name);
        rd->value = row->value;
        rd->status = 0;
        tick_of[i] = r->nticks - 1;
    }
    return 0;
}

/* Why an interval energy is refused: 0 when plausible, else 1 with why set. */
static int refuse_reason(uint64_t uj, double dt_s, double ceiling_w, double *watts, char *why,
                         size_t cap)
{
    *watts = dt_s > 0 ? (double)uj / 1e6 / dt_s : INFINITY;
    if (uj <= 1)
        snprintf(why, cap, "resolution underflow (<= 1 uJ)");
    else if (*watts > ceiling_w)
        snprintf(why, cap, "above the %.0f W ceiling", ceiling_w);
    else
        return 0;
    return 1;
}

static void refuse_note(imp_run *r, const gmt_rows *g, const gmt_row *row, const char *why,
                        double dt_s, double watts, int *noted)
{
    if ((*noted)++ >= MAX_NOTED)
        return;
    note(r, "%s:%d: %s interval of %llu uJ over %.3f s (%.1f W) refused: %s", g->path,
         row->line, r->zones[row->zone].raw_name, (unsigned long long)row->value, dt_s, watts,
         why);
}

/* Turns interval energies into one cumulative counter per zone, leaving out
 * (status -ERANGE) underflows and intervals above the ceiling. */
static void rapl_accumulate(imp_run *r, const gmt_rows *g, const size_t *tick_of,
                            double ceiling_w)
{
    uint64_t acc[WC_IMPORT_MAX_COLS] = {0};
    int64_t prev[WC_IMPORT_MAX_COLS];
    int noted = 0;
    int64_t first_dt = median_interval_ns(r);
    for (size_t z = 0; z < WC_IMPORT_MAX_COLS; z++)
        prev[z] = INT64_MIN;
    for (size_t i = 0; i < g->n; i++) {
        const gmt_row *row = &g->v[i];
        int64_t dt = prev[row->zone] == INT64_MIN ? first_dt : row->wall_ns - prev[row->zone];
        prev[row->zone] = row->wall_ns;
        double watts = 0, dt_s = (double)dt / 1e9;
        char why[64];
        wc_reading *rd = reading(r, tick_of[i], (size_t)row->zone);
        if (refuse_reason(row->value, dt_s, ceiling_w, &watts, why, sizeof why)) {
            rd->status = -ERANGE;
            rd->value = 0;
            refuse_note(r, g, row, why, dt_s, watts, &noted);
            continue;
        }
        acc[row->zone] += row->value;
        rd->value = acc[row->zone];
    }
    if (noted > MAX_NOTED)
        note(r, "%s: %d more intervals refused", g->path, noted - MAX_NOTED);
    if (noted)
        note(r, "refused intervals are stored with status -ERANGE and left out of the counter "
                "(ceiling %.0f W per zone, --gmt-ceiling-watts)",
             ceiling_w);
}

/* Median per-interval power of the accepted package rows (NAN when none). */
static double rapl_package_median_w(const imp_run *r, const gmt_rows *g, const size_t *tick_of)
{
    double *w = malloc((g->n ? g->n : 1) * sizeof *w);
    size_t n = 0;
    if (!w)
        return NAN;
    int64_t prev[WC_IMPORT_MAX_COLS];
    for (size_t z = 0; z < WC_IMPORT_MAX_COLS; z++)
        prev[z] = INT64_MIN;
    for (size_t i = 0; i < g->n; i++) {
        const gmt_row *row = &g->v[i];
        int64_t p = prev[row->zone];
        prev[row->zone] = row->wall_ns;
        const wc_reading *rd = &r->rd[tick_of[i] * r->nzones + (size_t)row->zone];
        if (p != INT64_MIN && rd->status == 0 && row->wall_ns > p &&
            strcmp(r->zones[row->zone].name, "package") == 0)
            w[n++] = (double)row->value / 1e6 / ((double)(row->wall_ns - p) / 1e9);
    }
    qsort(w, n, sizeof *w, cmp_double);
    double m = n ? w[n / 2] : NAN;
    free(w);
    return m;
}

static int import_rapl(imp_run *r, const char *path, double ceiling_w, gmt_rows *g,
                       size_t **tick_of, wc_error *err)
{
    int rc = read_gmt_log(path, 3, g, gmt_zone_of, r, err);
    if (rc)
        return rc;
    *tick_of = malloc((g->n ? g->n : 1) * sizeof **tick_of);
    if (!*tick_of)
        return oom(err);
    if ((rc = rapl_ticks(r, g, *tick_of, err)))
        return rc;
    rapl_accumulate(r, g, *tick_of, ceiling_w);
    snprintf(r->meter_desc, sizeof r->meter_desc,
             "Green Metrics Tool RAPL MSR log %.150s (interval energies accumulated into "
             "counters)",
             path);
    return 0;
}

/* --- the MCP39F511 AC log: which scale is its value column in? --- */

static int plausible_ac_watts(double w) { return w >= 0.1 && w <= 100000.0; }

/* A jump between neighbouring readings this large is a change of scale, not
 * of power (GMT's change is x10000). */
#define PSU_SCALE_JUMP 3000.0

/* Counts per-sample plausibility under each scale, and scale jumps. */
typedef struct psu_scan {
    double median_raw;
    size_t uw_only, cw_only, nonzero;
    int uw_only_line, cw_only_line;
    int jump_line, jump_prev_line;   /* first neighbour pair >= PSU_SCALE_JUMP apart */
    double jump_ratio;
} psu_scan;

static void scan_jump(psu_scan *s, const gmt_row *prev, const gmt_row *cur)
{
    if (s->jump_line || !prev || prev->value == 0 || cur->value == 0)
        return;
    double a = (double)prev->value, b = (double)cur->value;
    double ratio = a > b ? a / b : b / a;
    if (ratio >= PSU_SCALE_JUMP) {
        s->jump_line = cur->line;
        s->jump_prev_line = prev->line;
        s->jump_ratio = ratio;
    }
}

static int scan_psu(const gmt_rows *g, psu_scan *s, wc_error *err)
{
    memset(s, 0, sizeof *s);
    double *v = malloc((g->n ? g->n : 1) * sizeof *v);
    if (!v)
        return oom(err);
    const gmt_row *prev = NULL;
    for (size_t i = 0; i < g->n; i++) {
        double raw = (double)g->v[i].value;
        if (raw == 0)
            continue;
        scan_jump(s, prev, &g->v[i]);
        prev = &g->v[i];
        v[s->nonzero++] = raw;
        int pu = plausible_ac_watts(raw * 1e-6), pc = plausible_ac_watts(raw * 1e-2);
        if (pu && !pc && s->uw_only++ == 0)
            s->uw_only_line = g->v[i].line;
        if (pc && !pu && s->cw_only++ == 0)
            s->cw_only_line = g->v[i].line;
    }
    qsort(v, s->nonzero, sizeof *v, cmp_double);
    s->median_raw = s->nonzero ? v[s->nonzero / 2] : 0;
    free(v);
    return 0;
}

static int refuse_ambiguous(const gmt_rows *g, const psu_scan *s, double rapl_w, wc_error *err)
{
    char hint[160] = "";
    if (isfinite(rapl_w))
        snprintf(hint, sizeof hint,
                 " (the RAPL log's CPU package alone draws a median of %.2f W; the AC input "
                 "cannot be lower)",
                 rapl_w);
    return wc_error_set(err, -EINVAL,
                        "%s: the MCP value column carries no unit and two scales are "
                        "plausible: microwatts (GMT since 2026-04) gives a median of %.3f W, "
                        "centiwatts (GMT before 2026-04) a median of %.1f W%s; declare it with "
                        "--gmt-psu-unit uw or --gmt-psu-unit cw",
                        g->path, s->median_raw * 1e-6, s->median_raw * 1e-2, hint);
}

/* Decides the scale of the AC log's values (W per raw unit), or refuses. */
static int decide_psu_scale(imp_run *r, const gmt_rows *g, wc_gmt_psu_unit declared,
                            double rapl_w, double *w_per_raw, wc_error *err)
{
    if (declared != WC_GMT_PSU_AUTO) {
        *w_per_raw = declared == WC_GMT_PSU_UW ? 1e-6 : 1e-2;
        note(r, "%s: values read as %s (declared)", g->path,
             declared == WC_GMT_PSU_UW ? "microwatts" : "centiwatts");
        return 0;
    }
    psu_scan s;
    int rc = scan_psu(g, &s, err);
    if (rc)
        return rc;
    if (s.jump_line)
        return wc_error_set(err, -EINVAL,
                            "%s: the value column changes scale within the file: line %d is "
                            "%.0fx line %d (GMT switched from centiwatts to microwatts in "
                            "2026-04); split the file and declare --gmt-psu-unit for each part",
                            g->path, s.jump_line, s.jump_ratio, s.jump_prev_line);
    if (s.uw_only && s.cw_only)
        return wc_error_set(err, -EINVAL,
                            "%s: the value column changes scale within the file (line %d reads "
                            "only as microwatts, line %d only as centiwatts); split the file "
                            "and declare --gmt-psu-unit for each part",
                            g->path, s.uw_only_line, s.cw_only_line);
    int pu = plausible_ac_watts(s.median_raw * 1e-6), pc = plausible_ac_watts(s.median_raw * 1e-2);
    if (pu && pc)
        return refuse_ambiguous(g, &s, rapl_w, err);
    if (!pu && !pc)
        return wc_error_set(err, -EINVAL,
                            "%s: median value %.0f is a plausible AC power neither in microwatts "
                            "(%.3g W) nor in centiwatts (%.3g W); declare --gmt-psu-unit uw|cw",
                            g->path, s.median_raw, s.median_raw * 1e-6, s.median_raw * 1e-2);
    *w_per_raw = pu ? 1e-6 : 1e-2;
    note(r,
         "%s: values read as %s (inferred: as %s the median would be %.3g W, outside "
         "0.1 W..100 kW); --gmt-psu-unit declares it",
         g->path, pu ? "microwatts" : "centiwatts", pu ? "centiwatts" : "microwatts",
         pu ? s.median_raw * 1e-2 : s.median_raw * 1e-6);
    return 0;
}

static int import_psu(imp_run *r, const char *path, wc_gmt_psu_unit unit, double rapl_w,
                      wc_error *err)
{
    gmt_rows g;
    memset(&g, 0, sizeof g);
    double w_per_raw = 0;
    int rc = read_gmt_log(path, 2, &g, NULL, NULL, err);
    if (!rc)
        rc = decide_psu_scale(r, &g, unit, rapl_w, &w_per_raw, err);
    imp_truth *t = &r->truth[r->ntruth];
    for (size_t i = 0; !rc && i < g.n; i++) {
        wc_truth_sample *s = add_truth_sample(t, err);
        if (!s) {
            rc = -ENOMEM;
            break;
        }
        s->poll_wall_ns = s->device_ts_ns = g.v[i].wall_ns;
        s->watts = (double)g.v[i].value * w_per_raw;
        snprintf(s->path, sizeof s->path, "gmt:psu_energy_ac_mcp_machine");
        const char *why = NULL;
        int k = wc_truth_watts_class(s->watts, &why);
        if (k < 0) {
            rc = wc_error_set(err, -EINVAL,
                              "%s:%d:2: %llu %s is an implausible wall power (%.6g W; a node "
                              "draws at most %.0f W)%s",
                              path, g.v[i].line, (unsigned long long)g.v[i].value,
                              w_per_raw == 1e-6 ? "uW" : "cW", s->watts, WC_TRUTH_MAX_WALL_WATTS,
                              unit == WC_GMT_PSU_AUTO ? "" : " (is --gmt-psu-unit right?)");
            break;
        }
        if (k == 1) {
            s->status = WC_TRUTH_UNAVAILABLE;
            s->watts = NAN;
            snprintf(s->error, sizeof s->error, "line %d: %s", g.v[i].line, why);
        }
    }
    if (!rc) {
        snprintf(t->spec, sizeof t->spec, "gmt:%.500s", path);
        snprintf(t->desc, sizeof t->desc,
                 "Green Metrics Tool MCP39F511 AC power, values in %s",
                 w_per_raw == 1e-6 ? "microwatts" : "centiwatts");
        r->ntruth++;
    } else {
        free(t->s);
        memset(t, 0, sizeof *t);
    }
    free(g.v);
    return rc;
}

/* System utilisation "<unix_us> <ratio x 10000>": each tick takes the latest
 * sample at or before it, when not older than 1 s. */
static int import_util(imp_run *r, const char *path, wc_error *err)
{
    gmt_rows g;
    memset(&g, 0, sizeof g);
    int rc = read_gmt_log(path, 2, &g, NULL, NULL, err);
    for (size_t i = 0; !rc && i < g.n; i++)
        if (g.v[i].value > 10000)
            rc = wc_error_set(err, -EINVAL,
                              "%s:%d:2: %llu is above 10000 (GMT writes utilisation as a ratio "
                              "x 10000)",
                              path, g.v[i].line, (unsigned long long)g.v[i].value);
    size_t j = 0;
    for (size_t k = 0; !rc && k < r->nticks; k++) {
        while (j < g.n && g.v[j].wall_ns <= r->wall_ns[k])
            j++;
        if (j > 0 && r->wall_ns[k] - g.v[j - 1].wall_ns <= WC_NS_PER_S)
            r->util_pct[k] = (double)g.v[j - 1].value / 100.0;
    }
    free(g.v);
    return rc;
}

static int phase_number(const cJSON *o, const char *key, int64_t *ns)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9.0e15)
        return -EINVAL;
    *ns = (int64_t)llround(v->valuedouble) * 1000;
    return 0;
}

static const char *phase_class(const char *name, const cJSON *o)
{
    size_t len = strlen(name);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "hidden")))
        return "hidden";
    if (len >= 2 && name[0] == '[' && name[len - 1] == ']')
        return "gmt";
    return "runtime";
}

static int gmt_phase(imp_run *r, const char *path, int idx, const cJSON *o, wc_error *err)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    int64_t start = 0, end = 0;
    if (!cJSON_IsObject(o) || !cJSON_IsString(name) || phase_number(o, "start", &start) ||
        phase_number(o, "end", &end))
        return wc_error_set(err, -EINVAL,
                            "%s: phase %d: expected {\"name\": text, \"start\": unix_us, "
                            "\"end\": unix_us}",
                            path, idx);
    char q[104];
    wc_csv_clean(q, sizeof q, name->valuestring);
    if (end < start)
        return wc_error_set(err, -EINVAL, "%s: phase %d (%s) ends before it starts", path, idx,
                            q);
    if (end == start) {
        note(r, "%s: phase %d (%s) has no duration: not stored", path, idx, q);
        return 0;
    }
    return add_phase(r, name->valuestring, phase_class(name->valuestring, o), start, end, err);
}

static int import_phases(imp_run *r, const char *path, wc_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = wc_read_all(path, &text, &len, err);
    if (rc)
        return rc;
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        long off = at && at >= text && at <= text + len ? (long)(at - text) : -1;
        rc = wc_error_set(err, -EINVAL, "%s: not valid JSON (near byte %ld)", path, off);
    } else if (!cJSON_IsArray(root)) {
        rc = wc_error_set(err, -EINVAL, "%s: expected a JSON array of phases", path);
    }
    int idx = 0;
    for (const cJSON *o = rc ? NULL : root->child; o && !rc; o = o->next)
        rc = gmt_phase(r, path, idx++, o, err);
    cJSON_Delete(root);
    free(text);
    return rc;
}

/* The series files of a GMT folder. */
typedef struct gmt_files {
    char rapl[1024], psu[1024], util[1024], phases[1024];
    int has_rapl, has_psu, has_util, has_phases;
} gmt_files;

static void resolve_gmt_files(const wc_import_gmt_opts *o, gmt_files *f)
{
    f->has_rapl = gmt_path(o, o->rapl_path, "cpu_energy_rapl_msr_component.log", f->rapl,
                           sizeof f->rapl);
    f->has_psu = gmt_path(o, o->psu_path, "psu_energy_ac_mcp_machine.log", f->psu, sizeof f->psu);
    f->has_util = gmt_path(o, o->util_path, "cpu_utilization_procfs_system.log", f->util,
                           sizeof f->util);
    f->has_phases = gmt_path(o, o->phases_path, "phases.json", f->phases, sizeof f->phases);
}

static int read_gmt(imp_run *r, const wc_import_gmt_opts *o, const gmt_files *f, wc_error *err)
{
    gmt_rows rapl;
    memset(&rapl, 0, sizeof rapl);
    size_t *tick_of = NULL;
    double ceiling = o->ceiling_watts > 0 ? o->ceiling_watts : WC_GMT_DEFAULT_CEILING_WATTS;
    double rapl_w = NAN;
    int rc = import_rapl(r, f->rapl, ceiling, &rapl, &tick_of, err);
    if (!rc)
        rapl_w = rapl_package_median_w(r, &rapl, tick_of);
    free(rapl.v);
    free(tick_of);
    if (!rc && f->has_psu)
        rc = import_psu(r, f->psu, o->psu_unit, rapl_w, err);
    if (!rc && f->has_util)
        rc = import_util(r, f->util, err);
    if (!rc && f->has_phases)
        rc = import_phases(r, f->phases, err);
    return rc;
}

int wc_import_gmt(const wc_import_gmt_opts *o, const wc_import_target *t,
                  wc_import_summary *sum, wc_error *err)
{
    memset(sum, 0, sizeof *sum);
    gmt_files f;
    resolve_gmt_files(o, &f);
    /* The RAPL log is the run's only energy series: without it the run has no
     * zones and validate could not replay it. */
    if (!f.has_rapl)
        return wc_error_set(err, -ENOENT,
                            "%s: no RAPL log (cpu_energy_rapl_msr_component.log), and a run "
                            "needs an energy series: give --gmt-rapl FILE (the AC log and "
                            "utilisation alone make a run without zones, which validate "
                            "cannot replay)",
                            o->rapl_path ? "--gmt-rapl -" : o->dir ? o->dir : "GMT import");
    imp_run r;
    memset(&r, 0, sizeof r);
    r.sum = sum;
    int rc = read_gmt(&r, o, &f, err);
    if (!rc)
        rc = finish_import(&r, t, f.rapl, err);
    run_free(&r);
    return rc;
}
