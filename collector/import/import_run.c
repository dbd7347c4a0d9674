/*
 * import_run.c — the run an importer builds in memory (import_internal.h)
 * and how it becomes a new run DB: ticks on a monotonic clock derived from
 * the input's wall times, zone readings, utilisation, ground-truth series
 * and phases, written in one transaction after every line was checked, so a
 * bad input never leaves a half-written DB behind (the file is removed).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/import/import_internal.h"
#include "collector/store/store.h"
#include "common/wc_text.h"

void imp_run_free(imp_run *r)
{
    free(r->wall_ns);
    free(r->util_pct);
    free(r->rd);
    for (size_t i = 0; i < r->ntruth; i++)
        free(r->truth[i].s);
    free(r->ph);
}

void imp_note(imp_run *r, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    wc_append(r->sum->notes, sizeof r->sum->notes, &r->notes_used, "%s\n", line);
}

int imp_oom(wc_error *err) { return wc_error_set(err, -ENOMEM, "out of memory importing"); }

/* Appends a tick at wall_ns (every zone reading -ENODATA until filled). */
int imp_add_tick(imp_run *r, int64_t wall_ns, wc_error *err)
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
            return imp_oom(err);
        r->cap = cap;
    }
    size_t k = r->nticks++;
    r->wall_ns[k] = wall_ns;
    r->util_pct[k] = NAN;
    for (size_t z = 0; z < r->nzones; z++)
        r->rd[k * r->nzones + z] = (wc_reading){.mono_ns = 0, .value = 0, .status = -ENODATA};
    return 0;
}

wc_reading *imp_reading(imp_run *r, size_t tick, size_t zone)
{
    return &r->rd[tick * r->nzones + zone];
}

wc_truth_sample *imp_add_truth_sample(imp_truth *t, wc_error *err)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        wc_truth_sample *s = realloc(t->s, cap * sizeof *s);
        if (!s) {
            imp_oom(err);
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

int imp_add_phase(imp_run *r, const char *name, const char *cls, int64_t start_wall_ns,
                  int64_t end_wall_ns, wc_error *err)
{
    if (r->nph == r->phcap) {
        size_t cap = r->phcap ? r->phcap * 2 : 32;
        imp_phase *p = realloc(r->ph, cap * sizeof *p);
        if (!p)
            return imp_oom(err);
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
void imp_zone_init(wc_zone *z, const char *name, int socket, const char *raw_name,
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
int imp_add_zone(imp_run *r, const wc_zone *z, wc_error *err)
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

int imp_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median spacing of the ticks (0 with fewer than 2). */
int64_t imp_median_interval_ns(const imp_run *r)
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
    s->interval_ns = imp_median_interval_ns(r);
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
            imp_note(r, "%s: %zu of %zu samples stored as unavailable (empty or 0 W: no reading)%s",
                 r->truth[i].spec, bad, r->truth[i].n,
                 bad == r->truth[i].n ? "; this source has no usable reading" : "");
    }
}

/* Checks there is an interval, then writes (unless t->db_path is NULL). */
int imp_finish_import(imp_run *r, const wc_import_target *t, const char *what,
                      wc_error *err)
{
    if (r->nticks < 2)
        return wc_error_set(err, -ENODATA,
                            "%s: %zu sample instant%s: at least 2 are needed to measure an "
                            "interval; nothing imported",
                            what, r->nticks, r->nticks == 1 ? "" : "s");
    fill_summary(r);
    truth_notes(r);
    return t->db_path ? write_run(r, t, err) : 0; /* NULL: checked only (tests/fuzz) */
}
