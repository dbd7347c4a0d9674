/*
 * expo_stub_w2.c — TEMPORARY: the smallest working stand-in for W1's
 * expo_parse.c and kepler_metrics.c, so the live-scrape branch (W2) builds
 * and tests before W1's code is merged. THE LEAD DELETES THIS FILE AT MERGE,
 * when collector/exporter/expo_parse.c and kepler_metrics.c arrive: it
 * implements the same headers (expo_parse.h, kepler_metrics.h), and only the
 * part the scraper and its tests use.
 *
 * What it does: the text format 0.0.4 (and OpenMetrics' "# EOF"), HELP/TYPE,
 * escaped label values, NaN/±Inf, timestamps, a body cut mid-line or garbage
 * as -EINVAL naming line and column, max_body; Kepler's v0.10+ names and the
 * legacy <= 0.9 "kepler_<level>_<zone>_joules_total{mode}" form. What it does
 * NOT do (W1's files do): the series cap, duplicate detection, exemplars,
 * the full legacy catalogue.
 */
#include "collector/exporter/expo_parse.h"
#include "collector/exporter/kepler_metrics.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_text.h"

#define STUB_MAX_LABELS 64

/* One parse: the body, where we are, and scratch for unescaped text. */
typedef struct stub_parser {
    const char *buf;
    size_t len, pos, line, line_start;
    wc_expo_format fmt;
    const char *source;
    wc_error *err;
    char *scratch;               /* unescaped names and values of one line */
    size_t scratch_cap, scratch_used;
    char family[256];            /* the last # TYPE'd family */
    wc_expo_type family_type;
    wc_expo_label labels[STUB_MAX_LABELS];
    size_t max_labels;
} stub_parser;

static int fail_at(stub_parser *p, size_t at, const char *why)
{
    return wc_error_set(p->err, -EINVAL, "%s:%zu:%zu: %s", p->source ? p->source : "exposition",
                        p->line, at - p->line_start + 1, why);
}

/* Copies n bytes into the line's scratch; returns the copy (NUL-terminated). */
static char *scratch_put(stub_parser *p, const char *s, size_t n)
{
    char *d = p->scratch + p->scratch_used;
    memcpy(d, s, n);
    d[n] = '\0';
    p->scratch_used += n + 1;
    return d;
}

static int is_name_char(int c, int first)
{
    return isalpha(c) || c == '_' || c == ':' || (!first && isdigit(c));
}

/* A metric or label name at *at (advanced past it); NULL when none. */
static const char *read_name(stub_parser *p, size_t *at, size_t end)
{
    size_t s = *at;
    while (*at < end && is_name_char((unsigned char)p->buf[*at], *at == s))
        (*at)++;
    return *at > s ? scratch_put(p, p->buf + s, *at - s) : NULL;
}

/* A quoted label value (escapes \\ \" \n) at *at; NULL with err when bad. */
static const char *read_value(stub_parser *p, size_t *at, size_t end)
{
    if (*at >= end || p->buf[*at] != '"')
        return fail_at(p, *at, "expected '\"' opening a label value"), NULL;
    char *d = p->scratch + p->scratch_used, *out = d;
    for ((*at)++; *at < end && p->buf[*at] != '"'; (*at)++) {
        char c = p->buf[*at];
        if (c == '\\' && *at + 1 < end) {
            c = p->buf[++(*at)];
            c = c == 'n' ? '\n' : c;
        }
        *out++ = c;
    }
    if (*at >= end)
        return fail_at(p, *at, "label value not closed"), NULL;
    (*at)++;
    *out = '\0';
    p->scratch_used += (size_t)(out - d) + 1;
    return d;
}

/* {a="x",b="y"} at *at into p->labels; returns the count or -EINVAL. */
static int read_labels(stub_parser *p, size_t *at, size_t end)
{
    int n = 0;
    for ((*at)++; *at < end && p->buf[*at] != '}';) {
        if ((size_t)n == p->max_labels)
            return fail_at(p, *at, "too many labels");
        const char *name = read_name(p, at, end);
        if (!name)
            return fail_at(p, *at, "expected a label name");
        if (*at >= end || p->buf[*at] != '=')
            return fail_at(p, *at, "expected '=' after a label name");
        (*at)++;
        const char *value = read_value(p, at, end);
        if (!value)
            return -EINVAL;
        p->labels[n].name = name;
        p->labels[n++].value = value;
        if (*at < end && p->buf[*at] == ',')
            (*at)++;
    }
    if (*at >= end)
        return fail_at(p, *at, "label set not closed with '}'");
    (*at)++;
    return n;
}

/* A number token ("NaN", "+Inf", 1.5e3) at *at into *v; -EINVAL when none. */
static int read_number(stub_parser *p, size_t *at, size_t end, double *v)
{
    while (*at < end && p->buf[*at] == ' ')
        (*at)++;
    size_t s = *at;
    while (*at < end && p->buf[*at] != ' ')
        (*at)++;
    char tok[64];
    if (*at == s || *at - s >= sizeof tok)
        return fail_at(p, s, "expected a number");
    memcpy(tok, p->buf + s, *at - s);
    tok[*at - s] = '\0';
    char *e = NULL;
    *v = strtod(tok, &e);
    if (!e || *e || (isalpha((unsigned char)tok[0]) && strcmp(tok, "NaN") && strcmp(tok, "Inf")))
        return fail_at(p, s, "not a number");
    return 0;
}

/* The family a sample belongs to: the last TYPE'd one when the sample's
 * name is it or it plus a known suffix. */
static void sample_family(stub_parser *p, wc_expo_sample *s)
{
    static const char *const SUFFIX[] = {"", "_total", "_count", "_sum", "_bucket", "_created",
                                         "_info"};
    size_t fl = strlen(p->family);
    s->family = s->name;
    s->type = WC_EXPO_UNTYPED;
    if (!fl || strncmp(s->name, p->family, fl) != 0)
        return;
    for (size_t i = 0; i < sizeof SUFFIX / sizeof *SUFFIX; i++)
        if (strcmp(s->name + fl, SUFFIX[i]) == 0) {
            s->family = p->family;
            s->type = p->family_type;
        }
}

static wc_expo_type type_of(const char *t)
{
    static const char *const NAMES[] = {"untyped", "counter", "gauge", "histogram", "summary",
                                        "info", "stateset", "gaugehistogram", "unknown"};
    for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++)
        if (strcmp(t, NAMES[i]) == 0)
            return (wc_expo_type)i;
    return WC_EXPO_UNKNOWN;
}

/* "# TYPE name type", "# HELP ...", "# EOF", other comments. */
static void comment_line(stub_parser *p, size_t at, size_t end, wc_expo_stats *st)
{
    char text[512];
    size_t n = end - at < sizeof text - 1 ? end - at : sizeof text - 1;
    memcpy(text, p->buf + at, n);
    text[n] = '\0';
    char name[256], type[32];
    if (strcmp(text, "# EOF") == 0)
        st->saw_eof = 1;
    else if (sscanf(text, "# TYPE %255s %31s", name, type) == 2) {
        snprintf(p->family, sizeof p->family, "%s", name);
        p->family_type = type_of(type);
    }
}

/* One sample line [at, end): parsed and handed to cb. */
static int sample_line(stub_parser *p, size_t at, size_t end, wc_expo_cb cb, void *ctx,
                       wc_expo_stats *st)
{
    wc_expo_sample s;
    memset(&s, 0, sizeof s);
    p->scratch_used = 0;
    s.name = read_name(p, &at, end);
    if (!s.name)
        return fail_at(p, at, "expected a metric name");
    if (at < end && p->buf[at] == '{') {
        int n = read_labels(p, &at, end);
        if (n < 0)
            return n;
        s.labels = p->labels;
        s.nlabels = (size_t)n;
    }
    int rc = read_number(p, &at, end, &s.value);
    if (rc)
        return rc;
    while (at < end && p->buf[at] == ' ')
        at++;
    if (at < end && p->buf[at] != '#') {
        double ts = 0;
        if ((rc = read_number(p, &at, end, &ts)) != 0)
            return rc;
        s.has_timestamp = 1;
        s.timestamp_ms = (int64_t)(p->fmt == WC_EXPO_OPENMETRICS ? ts * 1000.0 : ts);
    }
    sample_family(p, &s);
    s.line = p->line;
    st->samples++;
    st->nonfinite += !isfinite(s.value);
    return cb(ctx, &s);
}

/* Grows the scratch to hold one line of n bytes unescaped. */
static int scratch_fit(stub_parser *p, size_t n)
{
    if (n + 64 <= p->scratch_cap)
        return 0;
    char *s = realloc(p->scratch, n + 64);
    if (!s)
        return wc_error_set(p->err, -ENOMEM, "%s: out of memory", p->source);
    p->scratch = s;
    p->scratch_cap = n + 64;
    return 0;
}

/* Every line of the body; stops at the first error or callback stop. */
static int parse_lines(stub_parser *p, wc_expo_cb cb, void *ctx, wc_expo_stats *st)
{
    while (p->pos < p->len) {
        const char *nl = memchr(p->buf + p->pos, '\n', p->len - p->pos);
        p->line++;
        p->line_start = p->pos;
        if (!nl)
            return fail_at(p, p->len, "truncated: the last line has no end");
        size_t end = (size_t)(nl - p->buf);
        st->lines++;
        int rc = scratch_fit(p, end - p->pos);
        if (!rc && p->pos < end && p->buf[p->pos] == '#')
            comment_line(p, p->pos, end, st);
        else if (!rc && end > p->pos)
            rc = sample_line(p, p->pos, end, cb, ctx, st);
        if (rc)
            return rc;
        p->pos = end + 1;
    }
    return 0;
}

int wc_expo_parse(const char *buf, size_t len, wc_expo_format fmt, const char *source,
                  const wc_expo_limits *lim, wc_expo_cb cb, void *ctx, wc_expo_stats *st,
                  wc_error *err)
{
    wc_expo_stats local;
    st = st ? st : &local;
    memset(st, 0, sizeof *st);
    size_t max_body = lim && lim->max_body ? lim->max_body : (size_t)64 << 20;
    if (len > max_body)
        return wc_error_set(err, -EFBIG, "%s: body of %zu bytes is over the %zu-byte cap",
                            source, len, max_body);
    stub_parser p = {.buf = buf, .len = len, .fmt = fmt, .source = source, .err = err};
    p.max_labels = lim && lim->max_labels && lim->max_labels < STUB_MAX_LABELS
                       ? lim->max_labels : STUB_MAX_LABELS;
    int rc = parse_lines(&p, cb, ctx, st);
    free(p.scratch);
    if (!rc && fmt == WC_EXPO_OPENMETRICS && !st->saw_eof)
        rc = wc_error_set(err, -EINVAL, "%s:%zu:1: truncated: no \"# EOF\"", source, p.line + 1);
    return rc;
}

wc_expo_format wc_expo_format_of(const char *content_type)
{
    return content_type && strncmp(content_type, "application/openmetrics-text", 28) == 0
               ? WC_EXPO_OPENMETRICS : WC_EXPO_TEXT_004;
}

/* Appends value escaped as the exposition writes it. */
static void put_escaped(char *buf, size_t cap, size_t *used, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            wc_append(buf, cap, used, "\\%c", *v);
        else if (*v == '\n')
            wc_append(buf, cap, used, "\\n");
        else
            wc_append(buf, cap, used, "%c", *v);
    }
}

int wc_expo_labels_canonical(const wc_expo_label *labels, size_t n, char *buf, size_t cap)
{
    size_t order[STUB_MAX_LABELS], used = 0;
    n = n < STUB_MAX_LABELS ? n : STUB_MAX_LABELS;
    for (size_t i = 0; i < n; i++) { /* insertion sort by name */
        size_t j = i;
        for (; j > 0 && strcmp(labels[order[j - 1]].name, labels[i].name) > 0; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    if (cap)
        buf[0] = '\0';
    wc_append(buf, cap, &used, "{");
    for (size_t i = 0; i < n; i++) {
        wc_append(buf, cap, &used, "%s%s=\"", i ? "," : "", labels[order[i]].name);
        put_escaped(buf, cap, &used, labels[order[i]].value);
        wc_append(buf, cap, &used, "\"");
    }
    wc_append(buf, cap, &used, "}");
    return used + 1 >= cap ? -ENOSPC : (int)used;
}

/* ---- kepler_metrics.h ---------------------------------------------------- */

static const char *label(const wc_expo_sample *s, const char *name)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (strcmp(s->labels[i].name, name) == 0)
            return s->labels[i].value;
    return "";
}

/* The quantity a v0.10+ suffix ("joules_total", "active_watts") names. */
static wc_kep_quantity quantity_of(const char *suffix)
{
    static const struct { const char *s; wc_kep_quantity q; } Q[] = {
        {"joules_total", WC_KEP_JOULES}, {"active_joules_total", WC_KEP_ACTIVE_JOULES},
        {"idle_joules_total", WC_KEP_IDLE_JOULES}, {"watts", WC_KEP_WATTS},
        {"active_watts", WC_KEP_ACTIVE_WATTS}, {"idle_watts", WC_KEP_IDLE_WATTS},
        {"seconds_total", WC_KEP_CPU_SECONDS}, {"usage_ratio", WC_KEP_RATIO},
    };
    for (size_t i = 0; i < sizeof Q / sizeof *Q; i++)
        if (strcmp(suffix, Q[i].s) == 0)
            return Q[i].q;
    return WC_KEP_Q_OTHER;
}

/* kepler_<level>_... : the level and the rest of the name after it. */
static wc_kep_level level_of(const char *name, const char **rest)
{
    static const struct { const char *p; wc_kep_level l; } L[] = {
        {"node_", WC_KEP_NODE}, {"process_", WC_KEP_PROCESS}, {"container_", WC_KEP_CONTAINER},
        {"pod_", WC_KEP_POD}, {"vm_", WC_KEP_VM},
    };
    for (size_t i = 0; i < sizeof L / sizeof *L; i++)
        if (strncmp(name, L[i].p, strlen(L[i].p)) == 0) {
            *rest = name + strlen(L[i].p);
            return L[i].l;
        }
    return WC_KEP_NONE;
}

/* The identity labels of a workload level. */
static void identity(const wc_expo_sample *s, wc_kep_fact *f)
{
    static const char *const KEYS[][4] = { /* level: key, parent, name, namespace */
        [WC_KEP_PROCESS] = {"pid", "container_id", "comm", ""},
        [WC_KEP_CONTAINER] = {"container_id", "pod_id", "container_name", "container_namespace"},
        [WC_KEP_POD] = {"pod_id", "", "pod_name", "pod_namespace"},
        [WC_KEP_VM] = {"vm_id", "", "vm_name", ""},
    };
    if (f->level < WC_KEP_PROCESS || f->level > WC_KEP_VM)
        return;
    wc_copy_trunc(f->key, sizeof f->key, label(s, KEYS[f->level][0]));
    wc_copy_trunc(f->parent, sizeof f->parent, label(s, KEYS[f->level][1]));
    wc_copy_trunc(f->name, sizeof f->name, label(s, KEYS[f->level][2]));
    wc_copy_trunc(f->ns, sizeof f->ns, label(s, KEYS[f->level][3]));
    if (f->level == WC_KEP_CONTAINER && !f->ns[0])
        wc_copy_trunc(f->ns, sizeof f->ns, label(s, "pod_namespace"));
}

/* v0.10+: kepler_<level>_<cpu|gpu>_<quantity>; legacy: kepler_<level>_<zone>_joules_total. */
static void classify_energy(const wc_expo_sample *s, const char *after_kepler, wc_kep_fact *f)
{
    const char *rest = NULL;
    f->level = level_of(after_kepler, &rest);
    if (f->level == WC_KEP_NONE)
        return;
    if (strncmp(rest, "cpu_", 4) == 0 || strncmp(rest, "gpu_", 4) == 0) {
        f->device = rest[0] == 'g' ? WC_KEP_GPU : WC_KEP_CPU;
        f->quantity = quantity_of(rest + 4);
        if (f->level == WC_KEP_NODE && f->quantity == WC_KEP_RATIO)
            f->level = WC_KEP_NODE_RATIO;
        wc_copy_trunc(f->zone, sizeof f->zone, label(s, "zone"));
    } else { /* legacy */
        const char *end = strstr(rest, "_joules_total");
        if (!end || end == rest) {
            f->level = WC_KEP_NONE;
            return;
        }
        f->layout = WC_KEP_LEGACY;
        snprintf(f->zone, sizeof f->zone, "%.*s", (int)(end - rest), rest);
        const char *mode = label(s, "mode");
        f->quantity = !strcmp(mode, "idle") ? WC_KEP_IDLE_JOULES
                      : !strcmp(mode, "dynamic") ? WC_KEP_DYNAMIC_JOULES : WC_KEP_JOULES;
    }
    identity(s, f);
}

int wc_kepler_classify(const wc_expo_sample *s, wc_kep_fact *out)
{
    if (strncmp(s->name, "kepler_", 7) != 0)
        return 0;
    memset(out, 0, sizeof *out);
    const char *n = s->name + 7;
    if (strcmp(n, "build_info") == 0 || strcmp(n, "exporter_build_info") == 0) {
        out->level = WC_KEP_BUILD_INFO;
        out->quantity = WC_KEP_INFO;
        wc_copy_trunc(out->version, sizeof out->version, label(s, "version"));
        wc_copy_trunc(out->revision, sizeof out->revision, label(s, "revision"));
    } else if (strcmp(n, "node_cpu_info") == 0) {
        out->level = WC_KEP_CPU_INFO;
        out->quantity = WC_KEP_INFO;
    } else if (strcmp(n, "platform_watts") == 0) {
        out->level = WC_KEP_PLATFORM;
        out->quantity = WC_KEP_WATTS;
        wc_copy_trunc(out->zone, sizeof out->zone, "platform");
    } else {
        classify_energy(s, n, out);
    }
    wc_copy_trunc(out->state, sizeof out->state, label(s, "state"));
    wc_copy_trunc(out->path, sizeof out->path, label(s, "path"));
    wc_copy_trunc(out->node, sizeof out->node, label(s, "node_name"));
    wc_copy_trunc(out->source, sizeof out->source, label(s, "source"));
    if (out->level == WC_KEP_NODE)
        out->meter = wc_kepler_meter_of_path(out->path);
    return 1;
}

wc_kep_meter wc_kepler_meter_of_path(const char *path)
{
    if (!path || !*path)
        return WC_KEP_METER_UNKNOWN;
    if (strncmp(path, "aggregated-", 11) == 0)
        return WC_KEP_METER_AGGREGATED;
    if (strstr(path, "/intel-rapl/energy_"))
        return WC_KEP_METER_FAKE;
    if (strstr(path, "/class/powercap/") || strstr(path, "/class/hwmon/") ||
        strstr(path, "/devices/virtual/powercap/"))
        return WC_KEP_METER_MEASURED;
    return WC_KEP_METER_UNKNOWN;
}

const char *wc_kep_level_name(wc_kep_level l)
{
    static const char *const N[] = {"", "node", "process", "container", "pod", "vm",
                                    "platform", "node_ratio", "build_info", "cpu_info"};
    return (size_t)l < sizeof N / sizeof *N ? N[l] : "";
}

const char *wc_kep_quantity_name(wc_kep_quantity q)
{
    static const char *const N[] = {"other", "joules", "active_joules", "idle_joules",
                                    "dynamic_joules", "watts", "active_watts", "idle_watts",
                                    "cpu_seconds", "ratio", "info"};
    return (size_t)q < sizeof N / sizeof *N ? N[q] : "";
}

const char *wc_kep_device_name(wc_kep_device d)
{
    return d == WC_KEP_CPU ? "cpu" : d == WC_KEP_GPU ? "gpu" : "other";
}

const char *wc_kep_meter_name(wc_kep_meter m)
{
    static const char *const N[] = {"", "measured", "aggregated", "fake", "unknown"};
    return (size_t)m < sizeof N / sizeof *N ? N[m] : "";
}

const char *wc_kep_layout_name(wc_kep_layout l)
{
    return l == WC_KEP_LEGACY ? "legacy" : "v0.10+";
}

const char *wc_kepler_power_source(const wc_kep_meter *meters, size_t n)
{
    int all_measured = n > 0;
    for (size_t i = 0; i < n; i++) {
        if (meters[i] == WC_KEP_METER_FAKE)
            return "not measured";
        if (meters[i] != WC_KEP_METER_MEASURED && meters[i] != WC_KEP_METER_AGGREGATED)
            all_measured = 0;
    }
    return all_measured ? "measured" : "unknown";
}
