/*
 * fuzz_scenario.c — scenario YAML (workloads/scenario.c, wc_scenario_parse
 * over libyaml). Contract (scenario.h): a success has 1..4096 phases, each
 * named (1..63 bytes, no control byte) with a label, a duration > 0,
 * 1..100000 repetitions and 0..64 workloads within their ranges, and a total
 * length that fits in int64; a failure names the origin and a line; and the
 * scenario written back as YAML (every value explicit, text escaped) parses
 * to the same scenario.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_text.h"
#include "tests/fuzz/fuzz.h"
#include "workloads/scenario.h"

/* A YAML double-quoted scalar: '"' and '\' escaped, bytes past ASCII as
 * \UXXXXXXXX of their code point (no line-break folding of NEL or U+2028). */
static void quoted(FILE *f, const char *s)
{
    fputc('"', f);
    while (*s) {
        const unsigned char *u = (const unsigned char *)s;
        size_t n = wc_utf8_len(u);
        if (n <= 1) {
            if (*s == '"' || *s == '\\')
                fputc('\\', f);
            fputc(*s, f);
            s++;
            continue;
        }
        uint32_t cp = n == 2 ? u[0] & 0x1f : n == 3 ? u[0] & 0x0f : u[0] & 0x07;
        for (size_t i = 1; i < n; i++)
            cp = cp << 6 | (u[i] & 0x3f);
        fprintf(f, "\\U%08" PRIX32, cp);
        s += n;
    }
    fputc('"', f);
}

static void workload(FILE *f, const wc_scenario_workload *w)
{
    fprintf(f, "      - class: %s\n", wc_stress_class_name(w->cls));
    if (w->workers == WC_SCENARIO_WORKERS_ALL)
        fputs("        workers: all\n", f);
    else
        fprintf(f, "        workers: %d\n", w->workers);
    if (w->cls == WC_STRESS_CPU || w->cls == WC_STRESS_AVX || w->cls == WC_STRESS_MEMBOUND)
        fprintf(f, "        duty: %d\n", w->duty_pct);
    if ((w->cls == WC_STRESS_IDLE || w->cls == WC_STRESS_MEMBOUND) && w->resident_mb >= 0)
        fprintf(f, "        resident_mb: %ld\n", w->resident_mb);
    if (w->cls == WC_STRESS_BURST)
        fprintf(f, "        count: %d\n        child_cpu: %" PRId64 "ns\n        batch: %d\n",
                w->count, w->child_cpu_ns, w->batch);
    fprintf(f, "        backend: %s\n", wc_workload_backend_name(w->backend));
}

static char *write_back(const wc_scenario *s, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    fputs("name: ", f);
    quoted(f, s->name);
    fprintf(f, "\nseed: %" PRIu64 "\nphases:\n", s->seed);
    for (int i = 0; i < s->n_phases; i++) {
        const wc_scenario_phase *p = &s->phases[i];
        fputs("  - name: ", f);
        quoted(f, p->name);
        fprintf(f, "\n    duration: %" PRId64 "ns\n    repetitions: %d\n    class: ",
                p->duration_ns, p->repetitions);
        quoted(f, p->label);
        fputs("\n    workloads:\n", f);
        if (p->n_workloads == 0)
            fputs("      []\n", f);
        for (int k = 0; k < p->n_workloads; k++)
            workload(f, &p->workloads[k]);
    }
    fclose(f);
    return text;
}

static int same_workload(const wc_scenario_workload *a, const wc_scenario_workload *b)
{
    return a->cls == b->cls && a->workers == b->workers && a->duty_pct == b->duty_pct &&
           a->resident_mb == b->resident_mb && a->count == b->count &&
           a->child_cpu_ns == b->child_cpu_ns && a->batch == b->batch && a->backend == b->backend;
}

static void compare(const wc_scenario *a, const wc_scenario *b)
{
    FUZZ_CHECK(strcmp(a->name, b->name) == 0 && a->seed == b->seed && a->n_phases == b->n_phases,
               "scenario '%s' / '%s'", a->name, b->name);
    for (int i = 0; i < a->n_phases; i++) {
        const wc_scenario_phase *p = &a->phases[i], *q = &b->phases[i];
        FUZZ_CHECK(strcmp(p->name, q->name) == 0 && strcmp(p->label, q->label) == 0 &&
                       p->duration_ns == q->duration_ns && p->repetitions == q->repetitions &&
                       p->n_workloads == q->n_workloads,
                   "phase %d ('%s' / '%s')", i, p->name, q->name);
        for (int k = 0; k < p->n_workloads; k++)
            FUZZ_CHECK(same_workload(&p->workloads[k], &q->workloads[k]), "phase %d workload %d",
                       i, k);
    }
}

static void check(const wc_scenario *s)
{
    FUZZ_CHECK(s->n_phases >= 1 && s->n_phases <= WC_SCENARIO_MAX_PHASES, "%d phases",
               s->n_phases);
    FUZZ_CHECK(s->name[0] && fuzz_printable(s->name), "name '%s'", s->name);
    int64_t total = 0;
    for (int i = 0; i < s->n_phases; i++) {
        const wc_scenario_phase *p = &s->phases[i];
        FUZZ_CHECK(p->name[0] && fuzz_printable(p->name) && p->label[0] &&
                       fuzz_printable(p->label),
                   "phase %d name '%s' label '%s'", i, p->name, p->label);
        FUZZ_CHECK(p->duration_ns > 0 && p->repetitions >= 1 &&
                       p->repetitions <= WC_SCENARIO_MAX_REPETITIONS && p->n_workloads >= 0 &&
                       p->n_workloads <= WC_SCENARIO_MAX_WORKLOADS,
                   "phase %d out of range", i);
        FUZZ_CHECK(!__builtin_mul_overflow(p->duration_ns, (int64_t)p->repetitions, &(int64_t){0}) &&
                       !__builtin_add_overflow(total, p->duration_ns * p->repetitions, &total),
                   "total length overflows at phase %d", i);
        for (int k = 0; k < p->n_workloads; k++) {
            const wc_scenario_workload *w = &p->workloads[k];
            FUZZ_CHECK(w->workers >= 0 && w->workers <= WC_WORKLOAD_MAX_WORKERS &&
                           w->duty_pct >= 1 && w->duty_pct <= 100 && w->resident_mb >= -1 &&
                           w->resident_mb <= (1L << 20) && w->count >= 1 &&
                           w->child_cpu_ns >= 0 && w->batch >= 1,
                       "phase %d workload %d out of range", i, k);
        }
    }
    FUZZ_CHECK(wc_scenario_total_ns(s) == total, "total length");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wc_scenario s;
    wc_error err = {{0}};
    int rc = wc_scenario_parse((const char *)data, size, "fuzz.yaml", &s, &err);
    if (rc) {
        FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM, "rc %d", rc);
        FUZZ_CHECK(strncmp(err.msg, "fuzz.yaml:", 10) == 0, "message '%s'", err.msg);
        wc_scenario_free(&s);
        return 0;
    }
    check(&s);
    size_t len = 0;
    char *text = write_back(&s, &len);
    wc_scenario again;
    rc = wc_scenario_parse(text, len, "again.yaml", &again, &err);
    FUZZ_CHECK(rc == 0, "the scenario written back does not parse: %s\n%s", err.msg, text);
    compare(&s, &again);
    wc_scenario_free(&again);
    wc_scenario_free(&s);
    free(text);
    return 0;
}
