/*
 * cpu_share_out.c — the CPU-accounting cross-check printed for people and
 * written into the JSON summary (cpu_share_out.h). Pod names and namespaces
 * come from the exporter's labels: shown through wc_term_safe on a terminal,
 * and as valid UTF-8 (bad bytes as '?') in JSON.
 */
#include "validator/cpu_share_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_text.h"
#include "validator/text_report.h"

static const char NODE_CPU[] = "/proc/stat busy CPU (total - idle - iowait, Kepler's active time)";

/* A number with prec decimals, or "--". */
static const char *cell(double v, int prec, int sign, char *buf, size_t cap)
{
    if (!isfinite(v))
        snprintf(buf, cap, "--");
    else
        snprintf(buf, cap, sign ? "%+.*f" : "%.*f", prec, v);
    return buf;
}

static void print_row(FILE *out, const wc_share_row *w)
{
    char uid[80], name[48], e[32], ep[32], c[32], cp[32], d[32], ra[32];
    char label[48];
    if (w->name[0])
        snprintf(label, sizeof label, "%.30s%s%.14s", w->name, w->ns[0] ? "/" : "", w->ns);
    else
        snprintf(label, sizeof label, "-");
    fprintf(out, "    %-36s  %-28s %10s %8s %9s %7s %9s %6s %9lld\n",
            wc_term_safe(w->pod_uid, uid, sizeof uid), wc_term_safe(label, name, sizeof name),
            cell(w->energy_j, 1, 0, e, sizeof e), cell(w->energy_pct, 2, 0, ep, sizeof ep),
            cell(w->cpu_s, 2, 0, c, sizeof c), cell(w->cpu_pct, 2, 0, cp, sizeof cp),
            cell(w->diff_pts, 2, 1, d, sizeof d), cell(w->ratio, 3, 0, ra, sizeof ra),
            (long long)w->intervals);
}

static void print_source(FILE *out, const wc_share_source *s)
{
    char prov[160];
    fprintf(out, "  %s: %zu pod(s) over %lld interval(s)%s\n",
            wc_term_safe(s->provenance, prov, sizeof prov), s->npods, (long long)s->intervals,
            s->too_little ? " — TOO LITTLE DATA: not a finding" : "");
    if (!s->nrows) {
        fprintf(out, "    (no interval where the pod's energy, the node's active energy and both"
                     " CPU figures were known)\n");
        return;
    }
    fprintf(out, "    %-36s  %-28s %10s %8s %9s %7s %9s %6s %9s\n", "pod", "name/namespace",
            "energy_J", "energy%", "cpu_s", "cpu%", "diff_pts", "ratio", "intervals");
    for (size_t i = 0; i < s->nrows; i++)
        print_row(out, &s->rows[i]);
}

void wc_cpu_share_text(FILE *out, const wc_cpu_share_report *r)
{
    if (!r->have) {
        fprintf(out, "\nCPU accounting cross-check: no pod cgroup accounting in this run (no pod"
                     " processes seen, an imported run, or a run recorded before wattcal read"
                     " cpu.stat)\n");
        return;
    }
    fprintf(out, "\nCPU accounting cross-check (zone %s): each pod's share of the node's active"
                 " energy (energy%%) against its share of the node's busy CPU (cpu%%) over the"
                 " same intervals; pod CPU from %zu pod cgroup(s) (%s), node CPU from %s;"
                 " largest disagreement first (diff_pts = energy%% - cpu%%)\n",
            r->zone, r->pods, r->accounting[0] ? r->accounting : "never read", NODE_CPU);
    for (size_t i = 0; i < r->nsrc; i++)
        print_source(out, &r->src[i]);
}

/* A string as valid UTF-8 (bad bytes '?'). */
static void add_text(cJSON *o, const char *k, const char *s)
{
    size_t len = strlen(s), j = 0;
    char *c = malloc(len + 1);
    if (!c) {
        cJSON_AddNullToObject(o, k);
        return;
    }
    for (size_t i = 0; i < len;) {
        size_t n = wc_utf8_len((const unsigned char *)s + i);
        if (!n) {
            c[j++] = '?';
            i++;
            continue;
        }
        memcpy(c + j, s + i, n);
        i += n, j += n;
    }
    c[j] = '\0';
    cJSON_AddStringToObject(o, k, c);
    free(c);
}

static void add_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static cJSON *row_json(const wc_share_row *w)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    add_text(o, "pod_uid", w->pod_uid);
    add_text(o, "name", w->name);
    add_text(o, "namespace", w->ns);
    add_num(o, "energy_j", w->energy_j);
    add_num(o, "node_active_j", w->active_j);
    add_num(o, "energy_pct", w->energy_pct);
    add_num(o, "cpu_s", w->cpu_s);
    add_num(o, "node_busy_s", w->busy_s);
    add_num(o, "cpu_pct", w->cpu_pct);
    add_num(o, "diff_pts", w->diff_pts);
    add_num(o, "ratio", w->ratio);
    add_num(o, "intervals", (double)w->intervals);
    return o;
}

static cJSON *source_json(const wc_share_source *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *rows = cJSON_CreateArray();
    if (!o || !rows) {
        cJSON_Delete(o);
        cJSON_Delete(rows);
        return NULL;
    }
    add_text(o, "source", s->source);
    add_text(o, "provenance", s->provenance);
    add_num(o, "pods", (double)s->npods);
    add_num(o, "intervals", (double)s->intervals);
    cJSON_AddBoolToObject(o, "too_little_data", s->too_little);
    for (size_t i = 0; i < s->nrows; i++)
        cJSON_AddItemToArray(rows, row_json(&s->rows[i]));
    cJSON_AddItemToObject(o, "rows", rows);
    return o;
}

void wc_cpu_share_json(cJSON *root, const wc_cpu_share_report *r)
{
    cJSON *o = cJSON_AddObjectToObject(root, "cpu_share");
    if (!o)
        return;
    cJSON_AddBoolToObject(o, "available", r->have);
    if (!r->have)
        return;
    add_text(o, "zone", r->zone);
    add_text(o, "cpu_accounting", r->accounting);
    add_text(o, "node_cpu", NODE_CPU);
    add_num(o, "pod_cgroups", (double)r->pods);
    cJSON *srcs = cJSON_AddArrayToObject(o, "sources");
    for (size_t i = 0; srcs && i < r->nsrc; i++)
        cJSON_AddItemToArray(srcs, source_json(&r->src[i]));
}
