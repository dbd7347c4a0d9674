/*
 * scenario.c — YAML scenario files and the built-in scenarios (libyaml
 * document API; every node keeps its start mark, so every message can name
 * the line).
 */
#include "workloads/scenario.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/wc_clock.h"
#include "common/wc_fs.h"
#include "common/wc_text.h"

/* ---- built-ins ---------------------------------------------------------- */

/* quick: 60 s, for CI. The 15 s idle baseline outlasts the simulated BMC's
 * default warm-up (lag 2 s + window 10 s), so ground truth has a baseline too. */
static const char QUICK[] =
    "name: quick\n"
    "seed: 1\n"
    "phases:\n"
    "  - {name: idle-baseline, duration: 15s}\n"
    "  - name: cpu\n"
    "    duration: 10s\n"
    "    workloads: [{class: cpu, workers: 1}]\n"
    "  - name: avx\n"
    "    duration: 10s\n"
    "    workloads: [{class: avx, workers: 1}]\n"
    "  - name: membound\n"
    "    duration: 10s\n"
    "    workloads: [{class: membound, workers: 1}]\n"
    "  - name: burst\n"
    "    duration: 10s\n"
    "    workloads: [{class: burst, workers: 1, count: 100, child_cpu: 20ms, batch: 2}]\n"
    "  - name: mix\n"
    "    duration: 5s\n"
    "    workloads:\n"
    "      - {class: cpu, workers: 1}\n"
    "      - {class: avx, workers: 1}\n"
    "      - {class: membound, workers: 1}\n"
    "      - {class: idle, workers: 1}\n";

/* runbook: idle baseline -> each class alone -> the mix, 60 s each, 3 rounds
 * (3 x 6 x 60 s = 18 min). */
#define RUNBOOK_ROUND(n)                                                          \
    "  - {name: r" #n "-idle-baseline, duration: 60s}\n"                          \
    "  - name: r" #n "-cpu\n"                                                      \
    "    duration: 60s\n"                                                          \
    "    workloads: [{class: cpu, workers: 2}]\n"                                  \
    "  - name: r" #n "-avx\n"                                                      \
    "    duration: 60s\n"                                                          \
    "    workloads: [{class: avx, workers: 2}]\n"                                  \
    "  - name: r" #n "-membound\n"                                                 \
    "    duration: 60s\n"                                                          \
    "    workloads: [{class: membound, workers: 2}]\n"                             \
    "  - name: r" #n "-burst\n"                                                    \
    "    duration: 60s\n"                                                          \
    "    workloads: [{class: burst, workers: 1, count: 1000, child_cpu: 20ms, batch: 4}]\n" \
    "  - name: r" #n "-mix\n"                                                      \
    "    duration: 60s\n"                                                          \
    "    workloads:\n"                                                             \
    "      - {class: cpu, workers: 1}\n"                                           \
    "      - {class: avx, workers: 1}\n"                                           \
    "      - {class: membound, workers: 1}\n"                                      \
    "      - {class: idle, workers: 1}\n"                                          \
    "      - {class: burst, workers: 1, count: 1000, child_cpu: 20ms, batch: 2}\n"

static const char RUNBOOK[] = "name: runbook\n"
                              "seed: 1\n"
                              "phases:\n" RUNBOOK_ROUND(1) RUNBOOK_ROUND(2) RUNBOOK_ROUND(3);

/* steps: 0 -> 100 -> 0 % on every CPU in 25 % steps, 20 s each (180 s). */
#define STEP(pct)                                                                 \
    "  - name: step-" #pct "\n"                                                    \
    "    duration: 20s\n"                                                          \
    "    workloads: [{class: cpu, workers: all, duty: " #pct "}]\n"

static const char STEPS[] = "name: steps\n"
                            "seed: 1\n"
                            "phases:\n"
                            "  - {name: step-0, duration: 20s}\n" STEP(25) STEP(50) STEP(75)
                                STEP(100) STEP(75) STEP(50) STEP(25)
                            "  - {name: step-0, duration: 20s}\n";

/* burst: idle baseline, serial then parallel bursts of short-lived
 * processes, idle tail (20 + 30 + 30 + 20 = 100 s). */
static const char BURST[] =
    "name: burst\n"
    "seed: 1\n"
    "phases:\n"
    "  - {name: idle-baseline, duration: 20s}\n"
    "  - name: burst-serial\n"
    "    duration: 30s\n"
    "    workloads: [{class: burst, workers: 1, count: 1000, child_cpu: 20ms, batch: 1}]\n"
    "  - name: burst-parallel\n"
    "    duration: 30s\n"
    "    workloads: [{class: burst, workers: 2, count: 4000, child_cpu: 10ms, batch: 8}]\n"
    "  - {name: idle-tail, duration: 20s}\n";

static const char *const BUILTIN_NAMES[] = {"quick", "runbook", "steps", "burst", NULL};
static const char *const BUILTIN_TEXT[] = {QUICK, RUNBOOK, STEPS, BURST};

const char *const *wc_scenario_builtin_names(void)
{
    return BUILTIN_NAMES;
}

const char *wc_scenario_builtin_text(const char *name)
{
    for (int i = 0; name && BUILTIN_NAMES[i]; i++)
        if (strcmp(name, BUILTIN_NAMES[i]) == 0)
            return BUILTIN_TEXT[i];
    return NULL;
}

/* ---- parsing ------------------------------------------------------------ */

typedef struct ctx {
    const char *origin;
    yaml_document_t *doc;
    wc_error *err;
} ctx;

static int line_of(const yaml_node_t *n)
{
    return n ? (int)n->start_mark.line + 1 : 1;
}

/* "<origin>:<line>: <path>: <what>"; returns -EINVAL. */
__attribute__((format(printf, 4, 5))) static int fail(const ctx *c, int line, const char *path,
                                                      const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return wc_error_set(c->err, -EINVAL, "%s:%d: %s: %s", c->origin, line,
                        path && *path ? path : "(top level)", what);
}

static const char *node_kind(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE: return "a mapping";
    case YAML_SEQUENCE_NODE: return "a list";
    default: return "a scalar";
    }
}

static const char *scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static int is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    const char *v = scalar(n);
    return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
           !strcmp(v, "NULL");
}

static void join(char *out, size_t cap, const char *prefix, const char *key)
{
    if (prefix && *prefix)
        wc_textf(out, cap, "%s.%s", prefix, key);
    else
        wc_textf(out, cap, "%s", key);
}

/* Rejects a non-mapping, non-scalar keys, unknown keys (allowed is
 * NULL-terminated) and duplicate keys. */
static int check_keys(const ctx *c, const yaml_node_t *m, const char *path,
                      const char *const *allowed, const char *allowed_text)
{
    if (m->type != YAML_MAPPING_NODE)
        return fail(c, line_of(m), path, "is %s, expected a mapping of %s", node_kind(m),
                    allowed_text);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        if (k->type != YAML_SCALAR_NODE)
            return fail(c, line_of(k), path, "a key is %s, expected one of %s", node_kind(k),
                        allowed_text);
        char fp[256];
        join(fp, sizeof fp, path, scalar(k));
        int known = 0;
        for (int i = 0; allowed[i]; i++)
            known |= strcmp(scalar(k), allowed[i]) == 0;
        if (!known)
            return fail(c, line_of(k), fp, "unknown key (expected %s)", allowed_text);
        for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *k0 = yaml_document_get_node(c->doc, q->key);
            if (strcmp(scalar(k0), scalar(k)) == 0)
                return fail(c, line_of(k), fp, "duplicate key (first on line %d)", line_of(k0));
        }
    }
    return 0;
}

/* The value of key in mapping m, or NULL; *key_line gets the key's line. */
static yaml_node_t *get(const ctx *c, const yaml_node_t *m, const char *key, int *key_line)
{
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        if (strcmp(scalar(k), key) == 0) {
            if (key_line)
                *key_line = line_of(k);
            return yaml_document_get_node(c->doc, p->value);
        }
    }
    return NULL;
}

static int want_scalar(const ctx *c, const yaml_node_t *v, const char *fp, const char *what)
{
    if (v->type != YAML_SCALAR_NODE || is_null(v))
        return fail(c, line_of(v), fp, "is %s, expected %s",
                    v->type == YAML_SCALAR_NODE ? "empty" : node_kind(v), what);
    return 0;
}

static int get_text(const ctx *c, const yaml_node_t *v, const char *fp, char *out, size_t cap)
{
    if (want_scalar(c, v, fp, "a name"))
        return -EINVAL;
    const char *s = scalar(v);
    size_t n = v->data.scalar.length;
    if (n == 0 || n >= cap)
        return fail(c, line_of(v), fp, "'%.40s' must be 1..%zu characters", s, cap - 1);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return fail(c, line_of(v), fp, "contains a control character");
    memcpy(out, s, n + 1);
    return 0;
}

static int get_long(const ctx *c, const yaml_node_t *v, const char *fp, long lo, long hi,
                    long *out)
{
    if (want_scalar(c, v, fp, "an integer"))
        return -EINVAL;
    const char *s = scalar(v);
    char *end = NULL;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end || errno || (s[0] != '-' && (s[0] < '0' || s[0] > '9')))
        return fail(c, line_of(v), fp, "'%.40s' is not an integer", s);
    if (x < lo || x > hi)
        return fail(c, line_of(v), fp, "%ld is outside %ld..%ld", x, lo, hi);
    *out = x;
    return 0;
}

static int get_duration(const ctx *c, const yaml_node_t *v, const char *fp, int positive,
                        int64_t *out)
{
    if (want_scalar(c, v, fp, "a duration such as 10s or 500ms"))
        return -EINVAL;
    int64_t ns = 0;
    if (wc_parse_duration_ns(scalar(v), &ns))
        return fail(c, line_of(v), fp, "'%.40s' is not a duration (e.g. 10s, 500ms, 2m)",
                    scalar(v));
    if (positive && ns <= 0)
        return fail(c, line_of(v), fp, "'%.40s' must be greater than 0", scalar(v));
    *out = ns;
    return 0;
}

static const char *const WORKLOAD_KEYS[] = {"class", "workers",   "duty",  "resident_mb",
                                            "count", "child_cpu", "batch", "backend", NULL};
#define WORKLOAD_KEYS_TEXT "class, workers, duty, resident_mb, count, child_cpu, batch, backend"

/* parse_workload's defaults: one worker at 100 %, the class's own memory,
 * 200 children of 50 ms CPU in batches of 1, wattcal's own backend. */
static void workload_defaults(const yaml_node_t *m, wc_scenario_workload *w)
{
    w->line = line_of(m);
    w->workers = 1;
    w->duty_pct = 100;
    w->resident_mb = -1;
    w->count = 200;
    w->child_cpu_ns = 50000000;
    w->batch = 1;
    w->backend = WC_BACKEND_WATTCAL;
}

/* The required `class` key into w->cls. */
static int workload_class(const ctx *c, const yaml_node_t *m, const char *path,
                          wc_scenario_workload *w)
{
    char fp[256];
    int kl = 0;
    yaml_node_t *v = get(c, m, "class", &kl);
    join(fp, sizeof fp, path, "class");
    if (!v)
        return fail(c, line_of(m), fp, "missing (cpu, avx, membound, idle or burst)");
    if (want_scalar(c, v, fp, "a class name"))
        return -EINVAL;
    if (wc_stress_class_parse(scalar(v), &w->cls))
        return fail(c, line_of(v), fp, "unknown class '%.40s' (cpu, avx, membound, idle or burst)",
                    scalar(v));
    return 0;
}

/* `workers`, `duty` and `resident_mb`, each refused for a class it does not
 * apply to. */
static int workload_load(const ctx *c, const yaml_node_t *m, const char *path,
                         wc_scenario_workload *w)
{
    char fp[256];
    int kl = 0;
    long x = 0;
    const char *cls = wc_stress_class_name(w->cls);
    yaml_node_t *v;
    if ((v = get(c, m, "workers", &kl))) {
        join(fp, sizeof fp, path, "workers");
        if (v->type == YAML_SCALAR_NODE && strcmp(scalar(v), "all") == 0)
            w->workers = WC_SCENARIO_WORKERS_ALL;
        else if (get_long(c, v, fp, 1, WC_WORKLOAD_MAX_WORKERS, &x))
            return -EINVAL;
        else
            w->workers = (int)x;
    }
    if ((v = get(c, m, "duty", &kl))) {
        join(fp, sizeof fp, path, "duty");
        if (w->cls == WC_STRESS_IDLE || w->cls == WC_STRESS_BURST)
            return fail(c, kl, fp, "does not apply to class %s (cpu, avx, membound only)", cls);
        if (get_long(c, v, fp, 1, 100, &x))
            return -EINVAL;
        w->duty_pct = (int)x;
    }
    if ((v = get(c, m, "resident_mb", &kl))) {
        join(fp, sizeof fp, path, "resident_mb");
        if (w->cls != WC_STRESS_IDLE && w->cls != WC_STRESS_MEMBOUND)
            return fail(c, kl, fp, "does not apply to class %s (idle, membound only)", cls);
        if (get_long(c, v, fp, 0, 1L << 20, &x))
            return -EINVAL;
        w->resident_mb = x;
    }
    return 0;
}

/* The burst class's `count`, `child_cpu` and `batch` (refused for the others). */
static int workload_burst(const ctx *c, const yaml_node_t *m, const char *path,
                          wc_scenario_workload *w)
{
    char fp[256];
    int kl = 0;
    long x = 0;
    const char *cls = wc_stress_class_name(w->cls);
    int burst = w->cls == WC_STRESS_BURST;
    yaml_node_t *v;
    if ((v = get(c, m, "count", &kl))) {
        join(fp, sizeof fp, path, "count");
        if (!burst)
            return fail(c, kl, fp, "does not apply to class %s (burst only)", cls);
        if (get_long(c, v, fp, 1, 1000000, &x))
            return -EINVAL;
        w->count = (int)x;
    }
    if ((v = get(c, m, "child_cpu", &kl))) {
        join(fp, sizeof fp, path, "child_cpu");
        if (!burst)
            return fail(c, kl, fp, "does not apply to class %s (burst only)", cls);
        if (get_duration(c, v, fp, 0, &w->child_cpu_ns))
            return -EINVAL;
    }
    if ((v = get(c, m, "batch", &kl))) {
        join(fp, sizeof fp, path, "batch");
        if (!burst)
            return fail(c, kl, fp, "does not apply to class %s (burst only)", cls);
        if (get_long(c, v, fp, 1, WC_BURST_MAX_BATCH, &x))
            return -EINVAL;
        w->batch = (int)x;
    }
    return 0;
}

/* `backend`; stress-ng runs membound at duty 100 only. */
static int workload_backend(const ctx *c, const yaml_node_t *m, const char *path,
                            wc_scenario_workload *w)
{
    char fp[256];
    int kl = 0;
    yaml_node_t *v = get(c, m, "backend", &kl);
    if (!v)
        return 0;
    join(fp, sizeof fp, path, "backend");
    if (want_scalar(c, v, fp, "a backend name"))
        return -EINVAL;
    if (wc_workload_backend_parse(scalar(v), &w->backend))
        return fail(c, line_of(v), fp, "unknown backend '%.40s' (wattcal or stress-ng)",
                    scalar(v));
    int dl = 0;
    if (w->backend == WC_BACKEND_STRESS_NG && w->cls == WC_STRESS_MEMBOUND && w->duty_pct < 100 &&
        get(c, m, "duty", &dl)) {
        join(fp, sizeof fp, path, "duty");
        return fail(c, dl, fp, "%d: the stress-ng backend runs membound at 100 only", w->duty_pct);
    }
    return 0;
}

/* One item of a phase's `workloads` list, checked in key order: class,
 * workers, duty, resident_mb, count, child_cpu, batch, backend. */
static int parse_workload(const ctx *c, const yaml_node_t *m, const char *path,
                          wc_scenario_workload *w)
{
    int rc = check_keys(c, m, path, WORKLOAD_KEYS, WORKLOAD_KEYS_TEXT);
    if (rc)
        return rc;
    workload_defaults(m, w);
    if ((rc = workload_class(c, m, path, w)) || (rc = workload_load(c, m, path, w)) ||
        (rc = workload_burst(c, m, path, w)))
        return rc;
    return workload_backend(c, m, path, w);
}

static const char *const PHASE_KEYS[] = {"name", "duration", "repetitions", "class", "workloads",
                                         NULL};
#define PHASE_KEYS_TEXT "name, duration, repetitions, class, workloads"

/* A phase's `workloads` list (absent or null: none) into p->workloads. */
static int phase_workloads(const ctx *c, const yaml_node_t *m, const char *path,
                           wc_scenario_phase *p)
{
    char fp[256];
    int kl = 0;
    yaml_node_t *v = get(c, m, "workloads", &kl);
    if (!v || is_null(v))
        return 0;
    join(fp, sizeof fp, path, "workloads");
    if (v->type != YAML_SEQUENCE_NODE)
        return fail(c, line_of(v), fp, "is %s, expected a list of workloads", node_kind(v));
    long n = v->data.sequence.items.top - v->data.sequence.items.start;
    if (n > WC_SCENARIO_MAX_WORKLOADS)
        return fail(c, line_of(v), fp, "%ld workloads, at most %d", n, WC_SCENARIO_MAX_WORKLOADS);
    if (n > 0 && !(p->workloads = calloc((size_t)n, sizeof *p->workloads)))
        return wc_error_set(c->err, -ENOMEM, "%s: out of memory", c->origin);
    for (long i = 0; i < n; i++) {
        char wp[256];
        wc_textf(wp, sizeof wp, "%s[%ld]", fp, i);
        yaml_node_t *item = yaml_document_get_node(c->doc, v->data.sequence.items.start[i]);
        int rc = parse_workload(c, item, wp, &p->workloads[i]);
        if (rc)
            return rc;
        p->n_workloads++;
    }
    return 0;
}

/* A phase's `class` label; without one: "idle" with no workload, the
 * workloads' class when they share one, else "mixed". */
static int phase_label(const ctx *c, const yaml_node_t *m, const char *path, wc_scenario_phase *p)
{
    char fp[256];
    int kl = 0;
    yaml_node_t *v = get(c, m, "class", &kl);
    if (v) {
        join(fp, sizeof fp, path, "class");
        if (want_scalar(c, v, fp, "a label"))
            return -EINVAL;
        if (get_text(c, v, fp, p->label, sizeof p->label))
            return -EINVAL;
    } else if (p->n_workloads == 0) {
        wc_copy_trunc(p->label, sizeof p->label, "idle");
    } else {
        int same = 1;
        for (int i = 1; i < p->n_workloads; i++)
            same &= p->workloads[i].cls == p->workloads[0].cls;
        wc_copy_trunc(p->label, sizeof p->label,
                      same ? wc_stress_class_name(p->workloads[0].cls) : "mixed");
    }
    return 0;
}

/* One item of `phases`, checked in key order: name, duration, repetitions,
 * workloads, class. */
static int parse_phase(const ctx *c, const yaml_node_t *m, const char *path, wc_scenario_phase *p)
{
    int rc = check_keys(c, m, path, PHASE_KEYS, PHASE_KEYS_TEXT);
    if (rc)
        return rc;
    char fp[256];
    int kl = 0;
    long x = 0;
    p->line = line_of(m);
    p->repetitions = 1;

    yaml_node_t *v = get(c, m, "name", &kl);
    join(fp, sizeof fp, path, "name");
    if (!v)
        return fail(c, line_of(m), fp, "missing (every phase needs a name)");
    if (get_text(c, v, fp, p->name, sizeof p->name))
        return -EINVAL;

    join(fp, sizeof fp, path, "duration");
    if (!(v = get(c, m, "duration", &kl)))
        return fail(c, line_of(m), fp, "missing (e.g. duration: 10s)");
    if (get_duration(c, v, fp, 1, &p->duration_ns))
        return -EINVAL;

    if ((v = get(c, m, "repetitions", &kl))) {
        join(fp, sizeof fp, path, "repetitions");
        if (get_long(c, v, fp, 1, WC_SCENARIO_MAX_REPETITIONS, &x))
            return -EINVAL;
        p->repetitions = (int)x;
    }
    if ((rc = phase_workloads(c, m, path, p)))
        return rc;
    return phase_label(c, m, path, p);
}

static const char *const TOP_KEYS[] = {"name", "seed", "phases", NULL};
#define TOP_KEYS_TEXT "name, seed, phases"

static int parse_root(const ctx *c, const yaml_node_t *root, wc_scenario *out)
{
    int rc = check_keys(c, root, "", TOP_KEYS, TOP_KEYS_TEXT);
    if (rc)
        return rc;
    int kl = 0;
    yaml_node_t *v = get(c, root, "name", &kl);
    if (!v)
        return fail(c, line_of(root), "name", "missing (every scenario needs a name)");
    if (get_text(c, v, "name", out->name, sizeof out->name))
        return -EINVAL;

    out->seed = 1;
    if ((v = get(c, root, "seed", &kl))) {
        if (want_scalar(c, v, "seed", "an integer"))
            return -EINVAL;
        const char *s = scalar(v);
        char *end = NULL;
        errno = 0;
        unsigned long long x = strtoull(s, &end, 10);
        if (end == s || *end || errno || s[0] < '0' || s[0] > '9')
            return fail(c, line_of(v), "seed", "'%.40s' is not an integer in 0..%" PRIu64, s,
                        UINT64_MAX);
        out->seed = (uint64_t)x;
    }

    v = get(c, root, "phases", &kl);
    if (!v || is_null(v))
        return fail(c, v ? line_of(v) : line_of(root), "phases", "missing (at least one phase)");
    if (v->type != YAML_SEQUENCE_NODE)
        return fail(c, line_of(v), "phases", "is %s, expected a list of phases", node_kind(v));
    long n = v->data.sequence.items.top - v->data.sequence.items.start;
    if (n == 0)
        return fail(c, line_of(v), "phases", "is empty (at least one phase)");
    if (n > WC_SCENARIO_MAX_PHASES)
        return fail(c, line_of(v), "phases", "%ld phases, at most %d", n, WC_SCENARIO_MAX_PHASES);
    if (!(out->phases = calloc((size_t)n, sizeof *out->phases)))
        return wc_error_set(c->err, -ENOMEM, "%s: out of memory", c->origin);
    int64_t total = 0;
    for (long i = 0; i < n; i++) {
        char pp[64];
        wc_textf(pp, sizeof pp, "phases[%ld]", i);
        yaml_node_t *item = yaml_document_get_node(c->doc, v->data.sequence.items.start[i]);
        wc_scenario_phase *ph = &out->phases[i];
        out->n_phases++; /* counted before parsing, so free releases its workloads */
        if ((rc = parse_phase(c, item, pp, ph)))
            return rc;
        if (ph->duration_ns > (INT64_MAX - total) / ph->repetitions)
            return fail(c, ph->line, pp, "the scenario's total length overflows");
        total += ph->duration_ns * ph->repetitions;
    }
    return 0;
}

static int yaml_fail(const ctx *c, const yaml_parser_t *p)
{
    const char *problem = p->problem ? p->problem : "malformed YAML";
    if (p->context)
        return wc_error_set(c->err, -EINVAL, "%s:%zu: YAML syntax error: %s (%s on line %zu)",
                            c->origin, p->problem_mark.line + 1, problem, p->context,
                            p->context_mark.line + 1);
    return wc_error_set(c->err, -EINVAL, "%s:%zu: YAML syntax error: %s", c->origin,
                        p->problem_mark.line + 1, problem);
}

int wc_scenario_parse(const char *text, size_t len, const char *origin, wc_scenario *out,
                      wc_error *err)
{
    memset(out, 0, sizeof *out);
    if (!origin)
        origin = "scenario";
    ctx c = {.origin = origin, .err = err};
    if (!text)
        return wc_error_set(err, -EINVAL, "%s: no text", origin);
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser))
        return wc_error_set(err, -ENOMEM, "%s: cannot initialise the YAML parser", origin);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc = 0;
    if (!yaml_parser_load(&parser, &doc)) {
        rc = yaml_fail(&c, &parser);
        yaml_parser_delete(&parser);
        return rc;
    }
    c.doc = &doc;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        rc = wc_error_set(err, -EINVAL, "%s:1: the scenario is empty (expected %s)", origin,
                          TOP_KEYS_TEXT);
    } else {
        rc = parse_root(&c, root, out);
        if (rc == 0) {
            /* A second document is almost certainly a mistake ("---" pasted twice). */
            yaml_document_t next;
            if (!yaml_parser_load(&parser, &next)) {
                rc = yaml_fail(&c, &parser);
            } else {
                yaml_node_t *r2 = yaml_document_get_root_node(&next);
                if (r2)
                    rc = wc_error_set(err, -EINVAL,
                                      "%s:%d: a second YAML document; a scenario is one document",
                                      origin, line_of(r2));
                yaml_document_delete(&next);
            }
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (rc) {
        wc_scenario_free(out);
        return rc;
    }
    wc_copy_trunc(out->origin, sizeof out->origin, origin);
    return 0;
}

int wc_scenario_load(const char *name_or_path, wc_scenario *out, wc_error *err)
{
    memset(out, 0, sizeof *out);
    if (!name_or_path || !*name_or_path)
        return wc_error_set(err, -EINVAL, "no scenario given (quick, runbook, steps, burst or a "
                                          "YAML file)");
    const char *builtin = wc_scenario_builtin_text(name_or_path);
    if (builtin) {
        char origin[WC_SCENARIO_NAME_MAX + 16];
        wc_textf(origin, sizeof origin, "builtin:%s", name_or_path);
        return wc_scenario_parse(builtin, strlen(builtin), origin, out, err);
    }
    char *text = NULL;
    size_t len = 0;
    wc_error ferr = {{0}};
    int rc = wc_read_all(name_or_path, &text, &len, &ferr);
    if (rc)
        return wc_error_set(err, rc,
                            "scenario '%s' is not a built-in (quick, runbook, steps, burst) and "
                            "cannot be read: %s",
                            name_or_path, ferr.msg);
    if (len > WC_SCENARIO_MAX_BYTES) {
        free(text);
        return wc_error_set(err, -EFBIG, "%s: %zu bytes, a scenario file may have at most %zu",
                            name_or_path, len, WC_SCENARIO_MAX_BYTES);
    }
    rc = wc_scenario_parse(text, len, name_or_path, out, err);
    free(text);
    return rc;
}

void wc_scenario_free(wc_scenario *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n_phases && s->phases; i++)
        free(s->phases[i].workloads);
    free(s->phases);
    memset(s, 0, sizeof *s);
}

int64_t wc_scenario_total_ns(const wc_scenario *s)
{
    int64_t total = 0;
    for (int i = 0; s && i < s->n_phases; i++)
        total += s->phases[i].duration_ns * s->phases[i].repetitions;
    return total;
}

void wc_scenario_workload_spec(const wc_scenario_workload *w, int64_t duration_ns, int ncpus,
                               wc_workload_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->cls = w->cls;
    spec->workers = w->workers;
    if (w->workers == WC_SCENARIO_WORKERS_ALL)
        spec->workers = ncpus < 1                         ? 1
                        : ncpus > WC_WORKLOAD_MAX_WORKERS ? WC_WORKLOAD_MAX_WORKERS
                                                          : ncpus;
    spec->duration_ns = duration_ns;
    spec->duty_pct = w->duty_pct;
    spec->resident_bytes = w->resident_mb < 0 ? 0 : (size_t)w->resident_mb << 20;
    spec->burst_count = w->count;
    spec->burst_child_cpu_ns = w->child_cpu_ns;
    spec->burst_batch = w->batch;
    spec->backend = w->backend;
    spec->exe = NULL;
    spec->test_crash_last = 0;
}
