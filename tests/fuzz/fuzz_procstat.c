/*
 * fuzz_procstat.c — /proc/stat (collector/procfs/procstat.c,
 * wc_procstat_parse). Contract: a parse that succeeds has the aggregate line
 * (cpu -1) and per-CPU lines with distinct labels >= 0, 4..10 fields each (the
 * missing ones 0), each found again by wc_procstat_cpu; busy ticks never
 * exceed total ticks while their sum fits in 64 bits; and the text printed
 * again from the result parses to the same result. A failure says why,
 * naming the origin and the line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/procfs/procstat.h"
#include "tests/fuzz/fuzz.h"

static const uint64_t *field(const wc_cpu_times *t, int i)
{
    const uint64_t *f[10] = {&t->user, &t->nice,    &t->system, &t->idle,  &t->iowait,
                             &t->irq,  &t->softirq, &t->steal,  &t->guest, &t->guest_nice};
    return f[i];
}

static void check_line(const wc_cpu_times *t)
{
    FUZZ_CHECK(t->nfields >= 4 && t->nfields <= 10, "cpu%d: %d fields", t->cpu, t->nfields);
    for (int i = t->nfields; i < 10; i++)
        FUZZ_CHECK(*field(t, i) == 0, "cpu%d: field %d beyond nfields is %" PRIu64, t->cpu,
                   i + 1, *field(t, i));
    uint64_t sum = 0;
    int wraps = 0;
    for (int i = 0; i < 8; i++)
        wraps |= __builtin_add_overflow(sum, *field(t, i), &sum);
    if (!wraps)
        FUZZ_CHECK(wc_cpu_busy_ticks(t) <= wc_cpu_total_ticks(t), "cpu%d: busy > total", t->cpu);
}

static int same_line(const wc_cpu_times *a, const wc_cpu_times *b)
{
    int same = a->cpu == b->cpu && a->nfields == b->nfields;
    for (int i = 0; i < 10; i++)
        same &= *field(a, i) == *field(b, i);
    return same;
}

static void print_line(FILE *f, const wc_cpu_times *t)
{
    if (t->cpu < 0)
        fputs("cpu ", f);
    else
        fprintf(f, "cpu%d", t->cpu);
    for (int i = 0; i < t->nfields; i++)
        fprintf(f, " %" PRIu64, *field(t, i));
    fputc('\n', f);
}

static void round_trip(const wc_procstat *ps)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    print_line(f, &ps->total);
    for (size_t i = 0; i < ps->ncpus; i++)
        print_line(f, &ps->cpus[i]);
    if (ps->btime_s)
        fprintf(f, "btime %" PRIu64 "\n", ps->btime_s);
    fclose(f);
    wc_procstat again;
    wc_error err = {{0}};
    FUZZ_CHECK(wc_procstat_parse(text, len, "again", &again, &err) == 0, "reparse: %s", err.msg);
    FUZZ_CHECK(again.ncpus == ps->ncpus && again.btime_s == ps->btime_s, "counts differ");
    FUZZ_CHECK(same_line(&again.total, &ps->total), "total differs");
    for (size_t i = 0; i < ps->ncpus; i++)
        FUZZ_CHECK(same_line(&again.cpus[i], &ps->cpus[i]), "cpu line %zu differs", i);
    wc_procstat_free(&again);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wc_procstat ps;
    wc_error err = {{0}};
    int rc = wc_procstat_parse((const char *)data, size, "fuzz/stat", &ps, &err);
    if (rc) {
        FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM, "rc %d", rc);
        FUZZ_CHECK(strncmp(err.msg, "fuzz/stat", 9) == 0, "message '%s'", err.msg);
        FUZZ_CHECK(ps.cpus == NULL && ps.ncpus == 0, "something to free after an error");
        return 0;
    }
    FUZZ_CHECK(ps.total.cpu == -1, "aggregate line labelled %d", ps.total.cpu);
    check_line(&ps.total);
    for (size_t i = 0; i < ps.ncpus; i++) {
        const wc_cpu_times *t = &ps.cpus[i];
        FUZZ_CHECK(t->cpu >= 0, "per-CPU label %d", t->cpu);
        check_line(t);
        FUZZ_CHECK(wc_procstat_cpu(&ps, t->cpu) == t, "cpu%d not found (twice?)", t->cpu);
    }
    round_trip(&ps);
    wc_procstat_free(&ps);
    return 0;
}
