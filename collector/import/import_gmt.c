/*
 * import_gmt.c — `wattcal import --gmt`: a Green Metrics Tool measurement
 * folder (RAPL energy logs, the MCP39F511 AC power log, CPU utilisation and
 * the phases JSON) parsed into the in-memory run of import_internal.h;
 * implausible RAPL intervals are refused and counted, the AC log's scale is
 * decided from the data or refused when ambiguous.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/import/import_internal.h"
#include "collector/truth/truth_file.h"
#include "common/wc_fs.h"
#include "common/wc_text.h"

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
            return imp_oom(err);
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
    imp_zone_init(&z, name, socket, detail, path, WC_KIND_COUNTER_UJ);
    int rc = imp_add_zone(r, &z, err);
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
            rc = imp_add_tick(r, row->wall_ns, err);
        if (rc)
            return rc;
        wc_reading *rd = imp_reading(r, r->nticks - 1, (size_t)row->zone);
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
    imp_note(r, "%s:%d: %s interval of %llu uJ over %.3f s (%.1f W) refused: %s", g->path,
         row->line, r->zones[row->zone].raw_name, (unsigned long long)row->value, dt_s, watts,
         why);
}

/* Turns interval energies into one cumulative counter per zone, leaving out
 * (status -ERANGE) underflows and intervals above the ceiling. -EINVAL when
 * a zone's sum would pass 2^64 uJ (never wrapped silently). */
static int rapl_accumulate(imp_run *r, const gmt_rows *g, const size_t *tick_of,
                           double ceiling_w, wc_error *err)
{
    uint64_t acc[WC_IMPORT_MAX_COLS] = {0};
    int64_t prev[WC_IMPORT_MAX_COLS];
    int noted = 0;
    int64_t first_dt = imp_median_interval_ns(r);
    for (size_t z = 0; z < WC_IMPORT_MAX_COLS; z++)
        prev[z] = INT64_MIN;
    for (size_t i = 0; i < g->n; i++) {
        const gmt_row *row = &g->v[i];
        int64_t dt = prev[row->zone] == INT64_MIN ? first_dt : row->wall_ns - prev[row->zone];
        prev[row->zone] = row->wall_ns;
        double watts = 0, dt_s = (double)dt / 1e9;
        char why[64];
        wc_reading *rd = imp_reading(r, tick_of[i], (size_t)row->zone);
        if (refuse_reason(row->value, dt_s, ceiling_w, &watts, why, sizeof why)) {
            rd->status = -ERANGE;
            rd->value = 0;
            refuse_note(r, g, row, why, dt_s, watts, &noted);
            continue;
        }
        if (row->value > UINT64_MAX - acc[row->zone])
            return wc_error_set(err, -EINVAL,
                                "%s:%d:2: %s: the interval energies summed so far pass 2^64 uJ "
                                "(18.4 TJ): not a RAPL log",
                                g->path, row->line, r->zones[row->zone].raw_name);
        acc[row->zone] += row->value;
        rd->value = acc[row->zone];
    }
    if (noted > MAX_NOTED)
        imp_note(r, "%s: %d more intervals refused", g->path, noted - MAX_NOTED);
    if (noted)
        imp_note(r, "refused intervals are stored with status -ERANGE and left out of the counter "
                "(ceiling %.0f W per zone, --gmt-ceiling-watts)",
             ceiling_w);
    return 0;
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
    qsort(w, n, sizeof *w, imp_cmp_double);
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
        return imp_oom(err);
    if ((rc = rapl_ticks(r, g, *tick_of, err)) ||
        (rc = rapl_accumulate(r, g, *tick_of, ceiling_w, err)))
        return rc;
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
        return imp_oom(err);
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
    qsort(v, s->nonzero, sizeof *v, imp_cmp_double);
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
        imp_note(r, "%s: values read as %s (declared)", g->path,
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
    imp_note(r,
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
        wc_truth_sample *s = imp_add_truth_sample(t, err);
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
        imp_note(r, "%s: phase %d (%s) has no duration: not stored", path, idx, q);
        return 0;
    }
    return imp_add_phase(r, name->valuestring, phase_class(name->valuestring, o), start, end, err);
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
        rc = imp_finish_import(&r, t, f.rapl, err);
    imp_run_free(&r);
    return rc;
}
