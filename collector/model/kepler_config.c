/*
 * kepler_config.c — reads Kepler's config.yaml (kepler_config.h) with
 * libyaml's document API: the tree is walked against Kepler's schema
 * (config/config.go, v0.11.4 and main), every key checked for its type, and
 * the keys that shape the numbers stored. Errors name FILE:LINE (1-based)
 * and the dotted key.
 */
#include "collector/model/kepler_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* The type a key's value must have. */
typedef enum kc_type {
    KC_MAP, KC_STR, KC_BOOL, KC_DUR, KC_INT, KC_NUM, KC_STRLIST, KC_ANY
} kc_type;

/* Kepler's schema: every key config.go declares (union of v0.11.4 and main). */
static const struct {
    const char *path;
    kc_type type;
} SCHEMA[] = {
    {"log", KC_MAP},
    {"log.level", KC_STR},
    {"log.format", KC_STR},
    {"host", KC_MAP},
    {"host.sysfs", KC_STR},
    {"host.procfs", KC_STR},
    {"monitor", KC_MAP},
    {"monitor.interval", KC_DUR},
    {"monitor.staleness", KC_DUR},
    {"monitor.maxTerminated", KC_INT},
    {"monitor.minTerminatedEnergyThreshold", KC_INT},
    {"cpu", KC_MAP},
    {"cpu.preferredMeters", KC_STRLIST},
    {"rapl", KC_MAP},
    {"rapl.zones", KC_STRLIST},
    {"exporter", KC_MAP},
    {"exporter.stdout", KC_MAP},
    {"exporter.stdout.enabled", KC_BOOL},
    {"exporter.prometheus", KC_MAP},
    {"exporter.prometheus.enabled", KC_BOOL},
    {"exporter.prometheus.debugCollectors", KC_STRLIST},
    {"exporter.prometheus.metricsLevel", KC_ANY},
    {"web", KC_MAP},
    {"web.configFile", KC_STR},
    {"web.listenAddresses", KC_STRLIST},
    {"debug", KC_MAP},
    {"debug.pprof", KC_MAP},
    {"debug.pprof.enabled", KC_BOOL},
    {"dev", KC_MAP},
    {"dev.fake-cpu-meter", KC_MAP},
    {"dev.fake-cpu-meter.enabled", KC_BOOL},
    {"dev.fake-cpu-meter.zones", KC_STRLIST},
    {"kube", KC_MAP},
    {"kube.enabled", KC_BOOL},
    {"kube.config", KC_STR},
    {"kube.nodeName", KC_STR},
    {"kube.podInformer", KC_MAP},
    {"kube.podInformer.mode", KC_STR},
    {"kube.podInformer.pollInterval", KC_DUR},
    {"experimental", KC_MAP},
    {"experimental.platform", KC_MAP},
    {"experimental.platform.redfish", KC_MAP},
    {"experimental.platform.redfish.enabled", KC_BOOL},
    {"experimental.platform.redfish.nodeName", KC_STR},
    {"experimental.platform.redfish.configFile", KC_STR},
    {"experimental.platform.redfish.httpTimeout", KC_DUR},
    {"experimental.hwmon", KC_MAP},
    {"experimental.hwmon.enabled", KC_BOOL},
    {"experimental.hwmon.forceEnabled", KC_BOOL},
    {"experimental.hwmon.zones", KC_STRLIST},
    {"experimental.hwmon.chipRules", KC_ANY},
    {"experimental.gpu", KC_MAP},
    {"experimental.gpu.enabled", KC_BOOL},
    {"experimental.gpu.idlePower", KC_NUM},
    {"experimental.gpu.dcgmEndpoint", KC_STR},
};

#define NSCHEMA (sizeof SCHEMA / sizeof SCHEMA[0])

/* The walk's context: the file, the document, the config being filled. */
typedef struct kc_walk {
    const char *path;
    yaml_document_t *doc;
    wc_kepler_config *c;
    wc_error *err;
} kc_walk;

void wc_kepler_config_defaults(wc_kepler_config *c)
{
    memset(c, 0, sizeof *c);
    c->interval_ns = 5000000000LL;
    c->staleness_ns = 500000000LL;
    c->max_terminated = WC_KEPLER_MAX_TERMINATED;
    c->min_terminated_j = 10;
    snprintf(c->preferred[0], WC_KCFG_NAME_MAX, "rapl");
    snprintf(c->preferred[1], WC_KCFG_NAME_MAX, "hwmon");
    c->npreferred = 2;
}

/* An error at node n: "FILE:LINE: key: why"; control bytes of the key (a
 * quoted YAML key may hold any) shown as '?'. */
static int kc_fail(const kc_walk *w, const yaml_node_t *n, const char *key, const char *why)
{
    char shown[160];
    snprintf(shown, sizeof shown, "%s", key);
    for (char *q = shown; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f)
            *q = '?';
    return wc_error_set(w->err, -EINVAL, "%s:%zu: %s: %s", w->path,
                        n ? (size_t)n->start_mark.line + 1 : (size_t)0, shown, why);
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* 1 when scalar n holds a NUL byte ("\0" in a quoted scalar): its text
 * would read cut at the NUL ("log\0x" as "log"), so it is refused. */
static int has_nul(const yaml_node_t *n)
{
    const char *s = scalar(n);
    return s && strlen(s) != n->data.scalar.length;
}

/* 1 when s holds a control byte (< 0x20 or 0x7f). */
static int has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

/* A YAML null: "~", "null", "Null", "NULL" or empty, unquoted. */
static int is_null(const yaml_node_t *n)
{
    const char *s = scalar(n);
    if (!s || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
           !strcmp(s, "NULL");
}

/* Go's units (time/format.go unitMap), in ns. */
static const struct {
    const char *u;
    uint64_t ns;
} GO_UNITS[] = {{"ns", 1},           {"us", 1000},         {"\xc2\xb5s", 1000},
                {"\xce\xbcs", 1000}, {"ms", 1000000},      {"s", 1000000000},
                {"m", 60000000000ULL}, {"h", 3600000000000ULL}};

/* One "N[.F]unit" term of a Go duration at *s into *v (ns), advancing *s,
 * as time.ParseDuration computes it: integer part exact (overflow past
 * 2^63 refused), fraction digits kept while they fit, unit the whole run
 * of non-digits. Returns 0 or -1. */
static int go_term(const char **s, uint64_t *v)
{
    const char *p = *s;
    uint64_t i = 0, f = 0;
    double scale = 1;
    int pre = 0, post = 0, fits = 1;
    for (; *p >= '0' && *p <= '9'; p++, pre = 1) {
        if (i > (UINT64_C(1) << 63) / 10)
            return -1;
        i = i * 10 + (uint64_t)(*p - '0');
        if (i > UINT64_C(1) << 63)
            return -1;
    }
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, post = 1) {
            if (fits && f <= (UINT64_C(1) << 63) / 10 - 1)
                f = f * 10 + (uint64_t)(*p - '0'), scale *= 10;
            else
                fits = 0;
        }
    size_t n = 0;
    while (p[n] && p[n] != '.' && !(p[n] >= '0' && p[n] <= '9'))
        n++;
    size_t k = 0;
    while (k < sizeof GO_UNITS / sizeof GO_UNITS[0] &&
           (strlen(GO_UNITS[k].u) != n || strncmp(p, GO_UNITS[k].u, n)))
        k++;
    if ((!pre && !post) || k == sizeof GO_UNITS / sizeof GO_UNITS[0])
        return -1;
    uint64_t unit = GO_UNITS[k].ns;
    if (i > (UINT64_C(1) << 63) / unit)
        return -1;
    *v = i * unit + (f ? (uint64_t)((double)f * ((double)unit / scale)) : 0);
    *s = p + n;
    return *v > UINT64_C(1) << 63 ? -1 : 0;
}

/* Go's time.ParseDuration ("1h2m3.5s", "500ms", "0"), exactly (integer
 * arithmetic, as time/format.go); a bare decimal integer is nanoseconds
 * (yaml.v3 decodes an int into a time.Duration), out of int64 refused.
 * Returns 0 or -1. */
static int parse_go_duration(const char *s, int64_t *ns)
{
    char *end;
    if (*s && strspn(s, "+-0123456789") == strlen(s)) {
        errno = 0;
        long long whole = strtoll(s, &end, 10);
        return *end || errno ? -1 : ((*ns = whole), 0);
    }
    int neg = *s == '-';
    s += (*s == '-' || *s == '+');
    uint64_t total = 0, v;
    if (!*s)
        return -1;
    while (*s) {
        if (go_term(&s, &v) || v > (UINT64_C(1) << 63) - total)
            return -1;
        total += v;
    }
    if (!neg && total > (uint64_t)INT64_MAX)
        return -1;
    *ns = neg ? (int64_t)(0 - total) : (int64_t)total;
    return 0;
}

/* A YAML integer (decimal, optional sign) into *v; 0 or -1. */
static int parse_int(const char *s, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return s && *s && !*end && !errno ? 0 : -1;
}

/* Whether scalar node n is of type t (null is every type's zero value). */
static const char *check_scalar(const yaml_node_t *n, kc_type t)
{
    const char *s = scalar(n);
    long long v;
    int64_t d;
    char *end;
    if (!s)
        return "a single value expected";
    if (is_null(n) || t == KC_STR || t == KC_ANY)
        return NULL;
    if (t == KC_BOOL)
        return !strcmp(s, "true") || !strcmp(s, "false") ? NULL : "true or false expected";
    if (t == KC_INT)
        return parse_int(s, &v) ? "an integer expected" : NULL;
    if (t == KC_NUM)
        return (strtod(s, &end), *s && !*end) ? NULL : "a number expected";
    if (t == KC_DUR)
        return parse_go_duration(s, &d) ? "a Go duration expected (e.g. 5s, 500ms)" : NULL;
    return "a mapping or a list expected";
}

/* Copies a list of names (a sequence of scalars, or null) into out. */
static int store_list(const kc_walk *w, const yaml_node_t *n, const char *key,
                      char (*out)[WC_KCFG_NAME_MAX], size_t *nout)
{
    *nout = 0;
    if (is_null(n))
        return 0;
    if (n->type != YAML_SEQUENCE_NODE)
        return kc_fail(w, n, key, "a list expected");
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
        const yaml_node_t *e = yaml_document_get_node(w->doc, *i);
        const char *s = scalar(e);
        if (!s || has_nul(e) || has_control(s))
            return kc_fail(w, e, key, "a list of names (no control byte) expected");
        if (*nout == WC_KCFG_MAX_LIST || strlen(s) >= WC_KCFG_NAME_MAX)
            return kc_fail(w, e, key, "too many or too long names");
        snprintf(out[(*nout)++], WC_KCFG_NAME_MAX, "%s", s);
    }
    return 0;
}

/* cpu.preferredMeters: each one of rapl, hwmon, fake (config.go Validate). */
static int check_meters(const kc_walk *w, const yaml_node_t *n)
{
    for (size_t i = 0; i < w->c->npreferred; i++) {
        const char *m = w->c->preferred[i];
        if (strcmp(m, "rapl") && strcmp(m, "hwmon") && strcmp(m, "fake"))
            return kc_fail(w, n, "cpu.preferredMeters",
                           "each entry must be one of rapl, hwmon, fake");
    }
    return 0;
}

/* Stores the value of a key that shapes the numbers (checked already). */
static int store(const kc_walk *w, const char *key, const yaml_node_t *n)
{
    wc_kepler_config *c = w->c;
    const char *s = scalar(n);
    int null = is_null(n);
    long long v = 0;
    int64_t d = 0;
    if (!strcmp(key, "monitor.interval") || !strcmp(key, "monitor.staleness")) {
        if (!null)
            parse_go_duration(s, &d);
        if (d < 0)
            return kc_fail(w, n, key, "can't be negative");
        *(key[8] == 'i' ? &c->interval_ns : &c->staleness_ns) = d;
    } else if (!strcmp(key, "monitor.maxTerminated")) {
        if (!null && (parse_int(s, &v) || v < -2147483647LL - 1 || v > 2147483647LL))
            return kc_fail(w, n, key, "out of range");
        c->max_terminated = (int)v;
    } else if (!strcmp(key, "monitor.minTerminatedEnergyThreshold")) {
        if (!null)
            parse_int(s, &v);
        if (v < 0)
            return kc_fail(w, n, key, "can't be negative");
        if (v > WC_KCFG_MAX_MIN_TERMINATED_J)
            return kc_fail(w, n, key, "out of range (its microjoules must fit int64)");
        c->min_terminated_j = v;
    } else if (!strcmp(key, "cpu.preferredMeters")) {
        int rc = store_list(w, n, key, c->preferred, &c->npreferred);
        return rc ? rc : check_meters(w, n);
    } else if (!strcmp(key, "rapl.zones")) {
        return store_list(w, n, key, c->rapl_zones, &c->nrapl_zones);
    } else if (!strcmp(key, "experimental.hwmon.zones")) {
        return store_list(w, n, key, c->hwmon_zones, &c->nhwmon_zones);
    } else if (!strcmp(key, "experimental.hwmon.enabled")) {
        c->hwmon_enabled = !null && !strcmp(s, "true");
    } else if (!strcmp(key, "experimental.hwmon.forceEnabled")) {
        c->hwmon_forced = !null && !strcmp(s, "true");
    }
    return 0;
}

static int walk_map(const kc_walk *w, const yaml_node_t *map, const char *prefix);

/* One key: known, of its type, stored; a mapping is walked in turn. */
static int walk_pair(const kc_walk *w, const yaml_node_pair_t *p, const char *prefix)
{
    const yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
    const yaml_node_t *v = yaml_document_get_node(w->doc, p->value);
    const char *name = scalar(k);
    char key[160];
    if (!name)
        return kc_fail(w, k, prefix[0] ? prefix : "(top level)", "a key must be a name");
    snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "", name);
    if (has_nul(k) || has_nul(v))
        return kc_fail(w, has_nul(k) ? k : v, key, "a NUL byte in the text");
    size_t i = 0;
    while (i < NSCHEMA && strcmp(SCHEMA[i].path, key))
        i++;
    if (i == NSCHEMA)
        return kc_fail(w, k, key, "unknown key (not in Kepler's config.go)");
    kc_type t = SCHEMA[i].type;
    if (t == KC_MAP && (is_null(v) || v->type == YAML_MAPPING_NODE))
        return is_null(v) ? 0 : walk_map(w, v, key);
    if (t == KC_MAP)
        return kc_fail(w, v, key, "a mapping expected");
    if (t == KC_STRLIST && !is_null(v) && v->type != YAML_SEQUENCE_NODE)
        return kc_fail(w, v, key, "a list expected");
    if (t == KC_STRLIST || (t == KC_ANY && v->type != YAML_SCALAR_NODE))
        return t == KC_ANY ? 0 : store(w, key, v);
    const char *why = check_scalar(v, t);
    return why ? kc_fail(w, v, key, why) : store(w, key, v);
}

static int walk_map(const kc_walk *w, const yaml_node_t *map, const char *prefix)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        int rc = walk_pair(w, p, prefix);
        if (rc)
            return rc;
    }
    return 0;
}

/* Parses the open file f as one YAML document and walks it. */
static int load_doc(FILE *f, kc_walk *w)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser))
        return wc_error_set(w->err, -ENOMEM, "%s: out of memory", w->path);
    yaml_parser_set_input_file(&parser, f);
    int rc = 0;
    if (!yaml_parser_load(&parser, &doc)) {
        rc = wc_error_set(w->err, -EINVAL, "%s:%zu: not YAML: %s", w->path,
                          (size_t)parser.problem_mark.line + 1,
                          parser.problem ? parser.problem : "unreadable");
        yaml_parser_delete(&parser);
        return rc;
    }
    w->doc = &doc;
    const yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root && root->type == YAML_MAPPING_NODE)
        rc = walk_map(w, root, "");
    else if (root && !is_null(root))
        rc = kc_fail(w, root, "(top level)", "a mapping of Kepler's settings expected");
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return rc;
}

int wc_kepler_config_load(const char *path, wc_kepler_config *c, wc_error *err)
{
    wc_kepler_config_defaults(c);
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        return wc_error_set(err, -e, "%s: %s", path, strerror(e));
    }
    kc_walk w = {path, NULL, c, err};
    int rc = load_doc(f, &w);
    fclose(f);
    return rc;
}

int wc_kepler_config_prefers_hwmon(const wc_kepler_config *c)
{
    return c->hwmon_forced || c->hwmon_enabled ||
           (c->npreferred > 0 && !strcmp(c->preferred[0], "hwmon"));
}

void wc_kepler_config_apply(const wc_kepler_config *c, wc_attrib *a)
{
    uint64_t min_uj = (uint64_t)c->min_terminated_j * UINT64_C(1000000);
    wc_attrib_set_terminated(a, c->max_terminated, min_uj);
}
