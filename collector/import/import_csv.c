/*
 * import_csv.c — `wattcal import --csv`: a generic CSV (a time column and a
 * mapping of columns to zone counters, energies, powers, utilisation, ground
 * truth and phases) parsed line by line into the in-memory run of
 * import_internal.h, every cell checked with its file:line:column.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/import/import_internal.h"
#include "collector/truth/truth_file.h"
#include "common/wc_fs.h"
#include "common/wc_text.h"

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
        imp_zone_init(&z, col->zone, col->socket, col->column, path,
                  col->kind == WC_IMPORT_POWER ? WC_KIND_GAUGE_UW : WC_KIND_COUNTER_UJ);
        cs->target[i] = (int)r->nzones;
        int rc = imp_add_zone(r, &z, err);
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
        imp_note(r,
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
    wc_reading *rd = imp_reading(r, r->nticks - 1, (size_t)cs->target[i]);
    if (col->kind == WC_IMPORT_ENERGY) {
        if (x > UINT64_MAX - cs->acc_uj[i]) /* never wrap silently modulo 2^64 */
            return wc_error_set(err, -EINVAL,
                                "%s:%d:%d: column '%s': the energies summed so far pass 2^64 uJ "
                                "(18.4 TJ): an energy column holds each row's energy since the "
                                "previous row (a cumulative counter is --counter-col)",
                                c->path, c->line, idx + 1, col->column);
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
    wc_truth_sample *s = imp_add_truth_sample(t, err);
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
        rc = imp_add_phase(r, cs->label, "csv", start, end, err);
    else
        imp_note(r, "%s: phase '%s' is the first row alone: it spans no interval, not stored",
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
    } else if ((rc = wc_parse_epoch_ns(cell, o->time_unit_ns, ns)) == -ERANGE) {
        rc = wc_error_set(err, -EINVAL, "'%s' is out of range: %s", q, WC_EPOCH_RANGE_TEXT);
    } else if (rc) {
        wc_error_set(err, rc, "'%s' is not an epoch time (digits[.digits]) in the unit of "
                              "--time-unit", q);
    }
    if (!rc && !o->time_monotonic && *ns < WC_IMPORT_MIN_WALL_NS)
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
    if ((rc = imp_add_tick(r, ns, err)))
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
    if (o->time_monotonic && o->time_unit_ns == 0)
        return wc_error_set(err, -EINVAL, "--time-clock monotonic needs a numeric --time-unit "
                                          "(s, ms, us or ns): an ISO time is a wall-clock time");
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
    snprintf(r.meter_desc, sizeof r.meter_desc, "imported from CSV %.180s%s", o->path,
             o->time_monotonic ? " (monotonic time column: no wall clock)" : "");
    sum->monotonic = o->time_monotonic;
    wc_csv c;
    if ((rc = wc_csv_open(&c, o->path, o->delimiter ? o->delimiter : ',', err)) == 0) {
        rc = read_csv(&r, &c, o, err);
        wc_csv_close(&c);
    }
    if (!rc)
        rc = imp_finish_import(&r, t, o->path, err);
    imp_run_free(&r);
    return rc;
}
