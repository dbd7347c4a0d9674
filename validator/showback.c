/*
 * showback.c — the top pods by attributed energy with namespace/name,
 * bootstrap intervals and shares (showback.h): computed from the store's
 * per-tick pod rows (collector/store/store_results.h), printed, written as
 * JSON and as CSV with absolute RFC 3339 times.
 */
#include "validator/showback.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector/store/store_pod_identity.h"
#include "collector/store/store_results.h"
#include "common/wc_text.h"
#include "validator/series.h"
#include "validator/text_report.h"

void wc_rfc3339_utc(int64_t wall_ns, char *buf, size_t cap)
{
    int64_t ms = wall_ns >= 0 ? wall_ns / 1000000 : -((-wall_ns + 999999) / 1000000);
    time_t sec = (time_t)(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
    struct tm tm;
    if (!gmtime_r(&sec, &tm)) {
        snprintf(buf, cap, "-");
        return;
    }
    char day[40];
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%03dZ", day, (int)(ms - (int64_t)sec * 1000));
}

/* The candidates: every pod's total (J) over the run, largest first. */
typedef struct pod_total {
    char uid[128];
    double j;
} pod_total;

static int cmp_total(const void *x, const void *y)
{
    const pod_total *a = x, *b = y;
    return (a->j < b->j) - (a->j > b->j);
}

/* The pods' totals from the levels pass (the same rows, NEGATIVE_SHARE left
 * out alike, summed in µJ then divided: the figures the store's SUM gives):
 * 1 when it has them all, 0 when the store must be asked (no pass, no pod
 * table, or pod rows the pod table lacks), -ENOMEM. */
static int totals_from_levels(const wc_showback_in *in, pod_total **out, size_t *n)
{
    const wc_levels_report *lv = in->levels;
    const wc_level_zone *z = lv ? wc_levels_zone(lv, in->zone) : NULL;
    if (!z || !lv->npods || lv->unlisted_pod_rows)
        return 0;
    *out = malloc(lv->npods * sizeof **out);
    if (!*out)
        return -ENOMEM;
    for (size_t q = 0; q < lv->npods; q++) {
        if (!(z->per_pod_j[q] > 0))
            continue;
        snprintf((*out)[*n].uid, sizeof (*out)[*n].uid, "%s", lv->pod_uids[q]);
        (*out)[(*n)++].j = z->per_pod_j[q];
    }
    if (*n) /* pod_uids are sorted, as the store's GROUP BY hands them over */
        qsort(*out, *n, sizeof **out, cmp_total);
    return 1;
}

/* Every pod with energy, largest first, into *out (malloc'd), *n. */
static int load_totals(wc_store *st, const wc_showback_in *in, pod_total **out, size_t *n,
                       wc_error *err)
{
    wc_store_iter *it = NULL;
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    int rc = totals_from_levels(in, out, n);
    if (rc)
        return rc < 0 ? wc_error_set(err, rc, "out of memory for the pods") : 0;
    rc = wc_store_tenant_totals_open(st, in->model_id, WC_LEVEL_POD, in->zone, &it, err);
    wc_tenant_row row;
    while (!rc && (rc = wc_store_tenant_next(it, &row, err)) == 1) {
        rc = 0;
        if (!row.key || row.energy_uj <= 0)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 32;
            pod_total *g = realloc(*out, cap * sizeof *g);
            if (!g) {
                rc = wc_error_set(err, -ENOMEM, "out of memory for the pods");
                break;
            }
            *out = g;
        }
        snprintf((*out)[*n].uid, sizeof (*out)[*n].uid, "%s", row.key);
        (*out)[(*n)++].j = row.energy_uj / 1e6;
    }
    wc_store_iter_close(it);
    if (!rc && *n)
        qsort(*out, *n, sizeof **out, cmp_total);
    return rc;
}

static int cmp_uid(const void *key, const void *elem)
{
    return strcmp((const char *)key, *(char *const *)elem);
}

/* The top pods' series from the levels pass (levels.h pod_tick_uj), when it
 * kept them for these very ticks and listed every pod: 1, else 0. */
static int series_from_levels(const wc_showback_in *in, const wc_timebase *tb,
                              const wc_showback *s, double *x)
{
    const wc_levels_report *lv = in->levels;
    if (!lv || !lv->pod_tick_uj || lv->unlisted_pod_rows || lv->ntick != tb->n || tb->n < 2 ||
        lv->first_tick_id != tb->tick_id[0] || lv->last_tick_id != tb->tick_id[tb->n - 1])
        return 0;
    size_t z = 0, m = tb->n - 1;
    while (z < lv->nzones && strcmp(lv->zones[z].zone, in->zone))
        z++;
    if (z == lv->nzones)
        return 0;
    for (size_t k = 0; k < s->n; k++) {
        char **hit = bsearch(s->pods[k].uid, lv->pod_uids, lv->npods, sizeof *lv->pod_uids, cmp_uid);
        if (!hit)
            return 0;
        size_t q = (size_t)(hit - lv->pod_uids);
        const double *src = lv->pod_tick_uj + (q * lv->nzones + z) * tb->n;
        for (size_t i = 1; i < tb->n; i++)
            x[k * m + i - 1] = src[i] / 1e6;
    }
    return 1;
}

/* Per-tick energy (J) of the top pods: x[k * (tb->n - 1) + i − 1] for the
 * interval closed by tick i (summed in µJ, then divided). */
static int tick_series(wc_store *st, const wc_showback_in *in, const wc_timebase *tb,
                       const wc_showback *s, double *x, wc_error *err)
{
    size_t m = tb->n - 1;
    if (series_from_levels(in, tb, s, x))
        return 0;
    memset(x, 0, s->n * m * sizeof *x);
    wc_store_iter *it = NULL;
    int rc = wc_store_tenant_rows_open(st, in->model_id, WC_LEVEL_POD, in->zone,
                                       WC_TENANT_ROWS_POSITIVE, &it, err);
    wc_tenant_row row;
    while (!rc && (rc = wc_store_tenant_next(it, &row, err)) == 1) {
        rc = 0;
        long i = row.key ? wc_timebase_index(tb, row.tick_id) : -1;
        if (i <= 0)
            continue; /* the first tick closes no interval */
        for (size_t k = 0; k < s->n; k++)
            if (!strcmp(s->pods[k].uid, row.key))
                x[k * m + (size_t)i - 1] += row.energy_uj;
    }
    wc_store_iter_close(it);
    for (size_t k = 0; k < s->n * m; k++)
        x[k] /= 1e6;
    return rc;
}

/* The interval's wall-clock ends from the run's start (wall and monotonic). */
static void wall_interval(wc_store *st, const wc_timebase *tb, wc_showback *s)
{
    wc_run_meta run;
    s->duration_s = (double)(tb->mono_ns[tb->n - 1] - tb->mono_ns[0]) / 1e9;
    if (wc_store_get_run(st, &run, NULL) || !run.present)
        return; /* no run row: the times stay 0 and the CSV says "-" */
    s->start_wall_ns = run.started_wall_ns + (tb->mono_ns[0] - run.started_mono_ns);
    s->end_wall_ns = run.started_wall_ns + (tb->mono_ns[tb->n - 1] - run.started_mono_ns);
}

/* The intervals of the top pods: J = m × mean per-tick J. */
static int intervals(const wc_showback_in *in, wc_showback *s, const double *x, size_t m)
{
    wc_boot_cfg cfg = in->boot;
    cfg.min_block = 1;
    for (size_t k = 0; k < s->n; k++) {
        wc_showback_pod *p = &s->pods[k];
        wc_ci mean;
        int rc = wc_boot_mean_ci(x + k * m, m, &cfg, &mean);
        if (rc)
            return rc;
        p->joules.est = mean.est * (double)m; /* the series' sum: the interval's own total */
        p->joules.lo = mean.lo * (double)m;
        p->joules.hi = mean.hi * (double)m;
        double base = s->node_joules > 0 ? s->node_joules / 100.0 : NAN;
        p->share_pct = (wc_ci){p->joules.est / base, p->joules.lo / base, p->joules.hi / base};
    }
    return 0;
}

/* The top rows' keys, totals and names. */
static int fill_rows(wc_store *st, const pod_total *t, wc_showback *s, wc_error *err)
{
    for (size_t k = 0; k < s->n; k++) {
        wc_showback_pod *p = &s->pods[k];
        snprintf(p->uid, sizeof p->uid, "%s", t[k].uid);
        p->joules = (wc_ci){t[k].j, NAN, NAN};
        int rc = wc_store_get_pod_identity(st, p->uid, p->name, p->ns, sizeof p->name, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int wc_showback_compute(wc_store *st, const wc_showback_in *in, wc_showback *out, wc_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->zone, sizeof out->zone, "%s", in->zone);
    snprintf(out->model, sizeof out->model, "%s", in->model);
    snprintf(out->provenance, sizeof out->provenance, "attributed by model %s (%s meter)", in->model,
             in->meter_provenance);
    out->node_joules = in->node_joules;
    pod_total *t = NULL;
    int rc = load_totals(st, in, &t, &out->npods, err);
    out->n = out->npods < WC_SHOWBACK_TOP ? out->npods : WC_SHOWBACK_TOP;
    if (!rc)
        rc = fill_rows(st, t, out, err);
    free(t);
    wc_timebase tb;
    if (rc || (rc = wc_timebase_load(st, &tb, err)))
        return rc == -ENODATA ? 0 : rc;
    wall_interval(st, &tb, out);
    size_t m = tb.n - 1;
    out->intervals = m;
    double *x = out->n ? malloc(out->n * m * sizeof *x) : NULL;
    if (out->n && !x)
        rc = wc_error_set(err, -ENOMEM, "out of memory for the pods' series");
    if (!rc && out->n)
        rc = tick_series(st, in, &tb, out, x, err);
    if (!rc && out->n && intervals(in, out, x, m))
        rc = wc_error_set(err, -ENOMEM, "out of memory bootstrapping the pods");
    free(x);
    wc_timebase_free(&tb);
    return rc;
}

/* ---- output ---------------------------------------------------------------- */

/* "12.345 [11.0, 13.2]" or "12.345 [-]" without an interval. */
static const char *ci_cell(const wc_ci *c, int dec, char *buf, size_t cap)
{
    if (!isfinite(c->est))
        snprintf(buf, cap, "-");
    else if (isfinite(c->lo) && isfinite(c->hi))
        snprintf(buf, cap, "%.*f [%.*f, %.*f]", dec, c->est, dec, c->lo, dec, c->hi);
    else
        snprintf(buf, cap, "%.*f [-]", dec, c->est);
    return buf;
}

void wc_showback_text(FILE *out, const wc_showback *s)
{
    char a[64], b[64], ns[64], name[64], uid[48], t0[40], t1[40];
    wc_rfc3339_utc(s->start_wall_ns, t0, sizeof t0);
    wc_rfc3339_utc(s->end_wall_ns, t1, sizeof t1);
    fprintf(out, "\nTop pods by %s energy (showback: %s; %s .. %s UTC, %.1f s; share of node %s"
                 " energy %.3f J;\n95 %% CIs by block bootstrap over %zu tick intervals)\n",
            s->zone, s->provenance, t0, t1, s->duration_s, s->zone, s->node_joules, s->intervals);
    if (!s->n) {
        fprintf(out, "  (no pod received energy: no process of this run ran in a pod cgroup)\n");
        return;
    }
    fprintf(out, "  %-20s %-24s %-36s %-30s %s\n", "namespace", "name", "pod uid", "joules [95% CI]",
            "share_% [95% CI]");
    for (size_t i = 0; i < s->n; i++) {
        const wc_showback_pod *p = &s->pods[i];
        fprintf(out, "  %-20s %-24s %-36s %-30s %s\n", p->ns[0] ? wc_term_safe(p->ns, ns, 21) : "-",
                p->name[0] ? wc_term_safe(p->name, name, 25) : "-", wc_term_safe(p->uid, uid, 37),
                ci_cell(&p->joules, 3, a, sizeof a), ci_cell(&p->share_pct, 2, b, sizeof b));
    }
    if (s->npods > s->n)
        fprintf(out, "  (%zu more pods with energy; --pods-csv writes the top %d)\n", s->npods - s->n,
                WC_SHOWBACK_TOP);
}

/* s as a JSON string, non-UTF-8 bytes replaced by '?'. */
static void json_str(cJSON *o, const char *k, const char *s)
{
    char buf[256];
    size_t j = 0;
    for (size_t i = 0; s[i] && j + 5 < sizeof buf;) {
        size_t n = wc_utf8_len((const unsigned char *)s + i);
        if (!n) {
            buf[j++] = '?';
            i++;
            continue;
        }
        memcpy(buf + j, s + i, n);
        i += n, j += n;
    }
    buf[j] = '\0';
    cJSON_AddStringToObject(o, k, buf);
}

static void json_ci(cJSON *o, const char *k, const wc_ci *c)
{
    cJSON *x = cJSON_AddObjectToObject(o, k);
    const double v[3] = {c->est, c->lo, c->hi};
    const char *const names[3] = {"est", "lo", "hi"};
    for (int i = 0; i < 3; i++)
        if (isfinite(v[i]))
            cJSON_AddNumberToObject(x, names[i], v[i]);
        else
            cJSON_AddNullToObject(x, names[i]);
}

void wc_showback_json(struct cJSON *root, const wc_showback *s)
{
    char t[40];
    cJSON *o = cJSON_AddObjectToObject(root, "pods");
    json_str(o, "zone", s->zone);
    json_str(o, "provenance", s->provenance);
    wc_rfc3339_utc(s->start_wall_ns, t, sizeof t);
    json_str(o, "start", t);
    wc_rfc3339_utc(s->end_wall_ns, t, sizeof t);
    json_str(o, "end", t);
    cJSON_AddNumberToObject(o, "duration_s", s->duration_s);
    cJSON_AddNumberToObject(o, "node_joules", s->node_joules);
    cJSON_AddNumberToObject(o, "pods_with_energy", (double)s->npods);
    cJSON *arr = cJSON_AddArrayToObject(o, "top");
    for (size_t i = 0; i < s->n; i++) {
        const wc_showback_pod *p = &s->pods[i];
        cJSON *r = cJSON_CreateObject();
        json_str(r, "uid", p->uid);
        if (p->ns[0])
            json_str(r, "namespace", p->ns);
        else
            cJSON_AddNullToObject(r, "namespace");
        if (p->name[0])
            json_str(r, "name", p->name);
        else
            cJSON_AddNullToObject(r, "name");
        json_ci(r, "joules", &p->joules);
        json_ci(r, "share_pct", &p->share_pct);
        cJSON_AddItemToArray(arr, r);
    }
}

/* One CSV cell: quoted, inner quotes doubled (RFC 4180). */
static void csv_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double v, int last)
{
    if (isfinite(v))
        fprintf(f, "%.6f", v);
    fputc(last ? '\n' : ',', f);
}

static void csv_rows(FILE *f, const wc_showback *s)
{
    char t0[40], t1[40];
    wc_rfc3339_utc(s->start_wall_ns, t0, sizeof t0);
    wc_rfc3339_utc(s->end_wall_ns, t1, sizeof t1);
    fputs("rank,start,end,zone,pod_uid,namespace,name,joules,joules_lo,joules_hi,share_pct,share_lo,"
          "share_hi,provenance\n", f);
    for (size_t i = 0; i < s->n; i++) {
        const wc_showback_pod *p = &s->pods[i];
        fprintf(f, "%zu,%s,%s,", i + 1, t0, t1);
        csv_text(f, s->zone);
        fputc(',', f);
        csv_text(f, p->uid);
        fputc(',', f);
        csv_text(f, p->ns);
        fputc(',', f);
        csv_text(f, p->name);
        fputc(',', f);
        csv_num(f, p->joules.est, 0);
        csv_num(f, p->joules.lo, 0);
        csv_num(f, p->joules.hi, 0);
        csv_num(f, p->share_pct.est, 0);
        csv_num(f, p->share_pct.lo, 0);
        csv_num(f, p->share_pct.hi, 0);
        csv_text(f, s->provenance);
        fputc('\n', f);
    }
}

int wc_showback_csv_write(const char *path, const wc_showback *s, wc_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return wc_error_set(err, -errno, "--pods-csv %.200s: cannot write: %s", path, strerror(errno));
    csv_rows(f, s);
    int bad = fflush(f) != 0 || ferror(f);
    int e = errno;
    if (fclose(f) || bad)
        return wc_error_set(err, -EIO, "--pods-csv %.200s: write failed: %s", path,
                            strerror(bad ? e : errno));
    return 0;
}
