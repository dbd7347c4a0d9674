/*
 * test_procstat.c — /proc/stat parsing (collector/procfs/procstat.c).
 *
 * B17 (guest fields parsed but excluded from total/busy), B25 (per-CPU lines
 * keyed by label with an offline CPU), the shared /proc/stat corpus and the
 * Kepler procfs snapshot, our own old-kernel and malformed trees
 * (tests/fixtures/procfs), and the real /proc/stat.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/procfs/procstat.h"
#include "tests/unit/support/test_support.h"

static int parse_str(const char *text, wc_procstat *ps, wc_error *err)
{
    return wc_procstat_parse(text, strlen(text), "test-origin", ps, err);
}

/* Asserts that a fixture's expected.txt contains the exact phrase. */
static void expect_phrase(const char *expected_rel, const char *phrase)
{
    char *text = wc_test_slurp(wc_shared_fixture(expected_rel), NULL);
    cr_assert_not_null(strstr(text, phrase), "%s no longer says \"%s\"", expected_rel, phrase);
    free(text);
}

/* ---- B17: guest columns --------------------------------------------------- */

/* One "# pair Px" of B17's proc_stat_pairs.txt: the two cpu lines. */
typedef struct b17_pair {
    char name[8];
    wc_cpu_times a, b;
    int nlines;
} b17_pair;

static int load_b17(b17_pair *pairs, int max)
{
    char *text = wc_test_slurp(wc_shared_fixture("cases/B17/proc_stat_pairs.txt"), NULL);
    int n = -1;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "# pair ", 7) == 0 && n + 1 < max) {
            n++;
            memset(&pairs[n], 0, sizeof pairs[n]);
            snprintf(pairs[n].name, sizeof pairs[n].name, "%s", line + 7);
            continue;
        }
        if (strncmp(line, "cpu ", 4) != 0 || n < 0)
            continue;
        wc_procstat ps;
        wc_error err = {{0}};
        cr_assert_eq(parse_str(line, &ps, &err), 0, "%s", err.msg);
        cr_assert_eq(ps.total.nfields, 10);
        b17_pair *p = &pairs[n];
        cr_assert_lt(p->nlines, 2, "pair %s has more than two lines", p->name);
        if (p->nlines++ == 0)
            p->a = ps.total;
        else
            p->b = ps.total;
        wc_procstat_free(&ps);
    }
    free(text);
    return n + 1;
}

/* Checks one pair: Δtotal, Δbusy, utilisation (2 decimals, %), Δguest. */
static void check_pair(const b17_pair *p, uint64_t total, uint64_t busy, double util_pct,
                       uint64_t guest)
{
    cr_assert_eq(p->nlines, 2, "pair %s", p->name);
    uint64_t dt = wc_cpu_total_ticks(&p->b) - wc_cpu_total_ticks(&p->a);
    uint64_t db = wc_cpu_busy_ticks(&p->b) - wc_cpu_busy_ticks(&p->a);
    cr_assert_eq(dt, total, "pair %s total %llu", p->name, (unsigned long long)dt);
    cr_assert_eq(db, busy, "pair %s busy %llu", p->name, (unsigned long long)db);
    double u = round(10000.0 * (double)db / (double)dt) / 100.0;
    cr_assert_float_eq(u, util_pct, 1e-9, "pair %s utilisation %.4f", p->name, u);
    cr_assert_eq(p->b.guest - p->a.guest, guest, "guest parsed");
    cr_assert_eq(p->b.guest_nice - p->a.guest_nice, 0);
}

Test(procstat, b17_guest_excluded_from_total_and_busy)
{
    b17_pair pairs[4];
    int n = load_b17(pairs, 4);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(pairs[0].name, "P1");
    cr_assert_str_eq(pairs[1].name, "P2");
    /* cases/B17/expected.txt, P1 and P2 lines. */
    expect_phrase("cases/B17/expected.txt", "total = 772 ticks ; busy = 50 ; utilisation = 6.48 %");
    expect_phrase("cases/B17/expected.txt", "total = 771 ; busy = 59 ; utilisation = 7.65 %");
    expect_phrase("cases/B17/expected.txt", "guest 45");
    expect_phrase("cases/B17/expected.txt", "guest 52");
    check_pair(&pairs[0], 772, 50, 6.48, 45);
    check_pair(&pairs[1], 771, 59, 7.65, 52);
    /* The WRONG answer (guest added again) must not come out. */
    cr_assert_neq(wc_cpu_total_ticks(&pairs[0].b) - wc_cpu_total_ticks(&pairs[0].a), 817);
    /* Raw values of the first P1 line, every field. */
    const wc_cpu_times *t = &pairs[0].a;
    cr_assert_eq(t->cpu, -1);
    cr_assert_eq(t->user, 3644262);
    cr_assert_eq(t->nice, 407756);
    cr_assert_eq(t->system, 1810922);
    cr_assert_eq(t->idle, 100557916);
    cr_assert_eq(t->iowait, 21583);
    cr_assert_eq(t->irq, 0);
    cr_assert_eq(t->softirq, 20305);
    cr_assert_eq(t->steal, 0);
    cr_assert_eq(t->guest, 3388311);
    cr_assert_eq(t->guest_nice, 0);
}

/* ---- B25: offline CPU ------------------------------------------------------ */

Test(procstat, b25_per_cpu_lines_by_label)
{
    size_t len = 0;
    char *text = wc_test_slurp(wc_shared_fixture("cases/B25/proc_stat_percpu.txt"), &len);
    wc_procstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_procstat_parse(text, len, "B25", &ps, &err), 0, "%s", err.msg);
    free(text);
    expect_phrase("cases/B25/expected.txt", "cpu0 600, cpu2 400, cpu3 400, cpu4 500, cpu5 400, "
                                            "cpu6 300, cpu7 400 => busy 3000 ticks = 42.86 %");
    cr_assert_eq(ps.ncpus, 7);
    cr_assert_null(wc_procstat_cpu(&ps, 1), "cpu1 is offline: no line, no values");
    static const struct { int cpu; uint64_t busy, user, idle; } want[] = {
        {0, 600, 500, 400}, {2, 400, 300, 600}, {3, 400, 300, 600}, {4, 500, 400, 500},
        {5, 400, 300, 600}, {6, 300, 300, 700}, {7, 400, 300, 600},
    };
    uint64_t sum = 0, pkg0 = 0, pkg1 = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const wc_cpu_times *c = wc_procstat_cpu(&ps, want[i].cpu);
        cr_assert_not_null(c, "cpu%d missing", want[i].cpu);
        cr_assert_eq(c->cpu, want[i].cpu);
        cr_assert_eq(wc_cpu_busy_ticks(c), want[i].busy, "cpu%d busy", want[i].cpu);
        cr_assert_eq(c->user, want[i].user, "cpu%d user", want[i].cpu);
        cr_assert_eq(c->idle, want[i].idle, "cpu%d idle", want[i].cpu);
        cr_assert_eq(c->nfields, 10);
        sum += wc_cpu_busy_ticks(c);
        if (want[i].cpu < 4)
            pkg0 += wc_cpu_busy_ticks(c);
        else
            pkg1 += wc_cpu_busy_ticks(c);
    }
    cr_assert_eq(sum, 3000);
    cr_assert_eq(pkg0, 1400);
    cr_assert_eq(pkg1, 1600);
    /* The aggregate line: 2400+600 busy of 7000. */
    cr_assert_eq(wc_cpu_busy_ticks(&ps.total), 3000);
    cr_assert_eq(wc_cpu_total_ticks(&ps.total), 7000);
    cr_assert_float_eq(round(10000.0 * 3000 / 7000) / 100.0, 42.86, 1e-9);
    /* File order is kept: the second entry is cpu2, not a renamed cpu1. */
    cr_assert_eq(ps.cpus[1].cpu, 2);
    cr_assert_null(wc_procstat_cpu(&ps, 8));
    cr_assert_null(wc_procstat_cpu(&ps, -1));
    wc_procstat_free(&ps);
}

/* ---- shared corpus ---------------------------------------------------------- */

Test(procstat, corpus_node_exporter)
{
    wc_procstat ps;
    wc_error err = {{0}};
    size_t len = 0;
    char *text = wc_test_slurp(wc_shared_fixture("corpus/proc/proc-stat/node-exporter-proc-stat.txt"),
                               &len);
    cr_assert_eq(wc_procstat_parse(text, len, "node-exporter", &ps, &err), 0, "%s", err.msg);
    free(text);
    cr_assert_eq(ps.total.user, 301854);
    cr_assert_eq(ps.total.nice, 612);
    cr_assert_eq(ps.total.system, 111922);
    cr_assert_eq(ps.total.idle, 8979004);
    cr_assert_eq(ps.total.iowait, 3552);
    cr_assert_eq(ps.total.irq, 2);
    cr_assert_eq(ps.total.softirq, 3944);
    cr_assert_eq(ps.total.steal, 0);
    cr_assert_eq(ps.total.guest, 44);
    cr_assert_eq(ps.total.guest_nice, 36);
    cr_assert_eq(ps.btime_s, 1418183276);
    cr_assert_eq(ps.ncpus, 8);
    const wc_cpu_times *c7 = wc_procstat_cpu(&ps, 7);
    cr_assert_not_null(c7);
    cr_assert_eq(c7->user, 29098);
    cr_assert_eq(c7->nice, 268);
    cr_assert_eq(c7->guest, 9);
    cr_assert_eq(c7->guest_nice, 8);
    cr_assert_eq(wc_cpu_total_ticks(&ps.total),
                 301854 + 612 + 111922 + 8979004 + 3552 + 2 + 3944 + 0);
    wc_procstat_free(&ps);
}

Test(procstat, corpus_procfs_and_cpu_line_only)
{
    wc_procstat ps;
    wc_error err = {{0}};
    size_t len = 0;
    char *text = wc_test_slurp(wc_shared_fixture("corpus/proc/proc-stat/procfs-proc-stat.txt"), &len);
    cr_assert_eq(wc_procstat_parse(text, len, "procfs", &ps, &err), 0, "%s", err.msg);
    free(text);
    cr_assert_eq(ps.ncpus, 8);
    cr_assert_eq(wc_procstat_cpu(&ps, 3)->softirq, 60);
    cr_assert_eq(ps.total.guest, 0);
    cr_assert_eq(ps.btime_s, 1418183276);
    wc_procstat_free(&ps);

    text = wc_test_slurp(
        wc_shared_fixture("corpus/proc/proc-stat/kepler-proc-stat-cpu-line-only.txt"), &len);
    cr_assert_eq(wc_procstat_parse(text, len, "kepler", &ps, &err), 0, "%s", err.msg);
    free(text);
    cr_assert_eq(ps.ncpus, 0);
    cr_assert_eq(ps.btime_s, 0);
    cr_assert_eq(ps.total.user, 8608833);
    cr_assert_eq(ps.total.irq, 15697167);
    cr_assert_eq(ps.total.guest, 5327346);
    cr_assert_eq(ps.total.nfields, 10);
    wc_procstat_free(&ps);
}

Test(procstat, kepler_procfs_tree_read_through_root)
{
    const char *root = wc_shared_fixture("kepler/internal/resource/testdata/procfs");
    wc_procstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_procstat_read(root, &ps, &err), 0, "%s", err.msg);
    cr_assert_eq(ps.total.user, 8608833);
    cr_assert_eq(ps.total.nice, 7605);
    cr_assert_eq(ps.total.system, 4179891);
    cr_assert_eq(ps.total.idle, 1295036209);
    cr_assert_eq(ps.total.iowait, 426072);
    cr_assert_eq(ps.total.irq, 15697167);
    cr_assert_eq(ps.total.softirq, 1285624);
    cr_assert_eq(ps.total.steal, 0);
    cr_assert_eq(ps.total.guest, 5327346);
    cr_assert_eq(ps.total.guest_nice, 0);
    /* Kepler's busy: total − idle − iowait over the 8 non-guest fields. */
    cr_assert_eq(wc_cpu_busy_ticks(&ps.total), 8608833ull + 7605 + 4179891 + 15697167 + 1285624);
    wc_procstat_free(&ps);
}

/* ---- own fixtures: older kernels, malformed ---------------------------------- */

Test(procstat, linux_2_4_four_fields)
{
    wc_procstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_procstat_read(wc_own_fixture("procfs/linux-2.4"), &ps, &err), 0, "%s", err.msg);
    cr_assert_eq(ps.total.nfields, 4);
    cr_assert_eq(ps.total.user, 1000);
    cr_assert_eq(ps.total.idle, 50000);
    cr_assert_eq(ps.total.iowait, 0);
    cr_assert_eq(ps.total.steal, 0);
    cr_assert_eq(ps.total.guest_nice, 0);
    cr_assert_eq(ps.ncpus, 2);
    cr_assert_eq(wc_procstat_cpu(&ps, 1)->nfields, 4);
    cr_assert_eq(wc_cpu_total_ticks(&ps.total), 51320);
    cr_assert_eq(wc_cpu_busy_ticks(&ps.total), 1320);
    cr_assert_eq(ps.btime_s, 1052488450);
    wc_procstat_free(&ps);
}

Test(procstat, linux_2_6_10_seven_fields)
{
    wc_procstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_procstat_read(wc_own_fixture("procfs/linux-2.6.10"), &ps, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(ps.total.nfields, 7);
    cr_assert_eq(ps.total.iowait, 6290);
    cr_assert_eq(ps.total.irq, 127);
    cr_assert_eq(ps.total.softirq, 456);
    cr_assert_eq(ps.total.steal, 0);
    cr_assert_eq(ps.total.guest, 0);
    /* The per-CPU lines add up to the aggregate, field by field. */
    const wc_cpu_times *a = wc_procstat_cpu(&ps, 0), *b = wc_procstat_cpu(&ps, 1);
    cr_assert_eq(a->iowait + b->iowait, ps.total.iowait);
    cr_assert_eq(a->softirq + b->softirq, ps.total.softirq);
    cr_assert_eq(wc_cpu_total_ticks(a) + wc_cpu_total_ticks(b), wc_cpu_total_ticks(&ps.total));
    cr_assert_eq(ps.btime_s, 1062191376);
    wc_procstat_free(&ps);
}

Test(procstat, malformed_names_origin_line_and_field)
{
    wc_procstat ps;
    wc_error err = {{0}};
    const char *root = wc_own_fixture("procfs/malformed-stat");
    cr_assert_eq(wc_procstat_read(root, &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "malformed-stat/stat"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "line 3"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "field 3 (system)"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "\"2O\""), "%s", err.msg);
    cr_assert_null(ps.cpus, "nothing left allocated on error");
    cr_assert_eq(ps.ncpus, 0);
}

Test(procstat, malformed_inline_cases)
{
    wc_procstat ps;
    wc_error err = {{0}};
    cr_assert_eq(parse_str("intr 1 2\nctxt 5\n", &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "test-origin"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "no aggregate \"cpu\" line"), "%s", err.msg);
    cr_assert_eq(parse_str("cpu  1 2 3\n", &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "line 1: field 4 (idle) missing"), "%s", err.msg);
    cr_assert_eq(parse_str("cpu  1 2 3 4\ncpuX 1 2 3 4\n", &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "line 2"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "cpuX"), "%s", err.msg);
    cr_assert_eq(parse_str("cpu  1 2 3 4\ncpu  1 2 3 4\n", &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "line 2"), "%s", err.msg);
    cr_assert_eq(parse_str("cpu  1 2 3 4\ncpu3 1 2 3 4\ncpu1 1 2 3 4\ncpu3 1 2 3 4\n", &ps, &err),
                 -EINVAL);
    cr_assert_not_null(strstr(err.msg, "line 4: cpu3 appears twice"), "%s", err.msg);
    cr_assert_eq(parse_str("cpu  1 2 3 4 5 6 7 -8 9 10\n", &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "field 8 (steal)"), "%s", err.msg);
    cr_assert_eq(parse_str("cpu  1 2 3 4 5 6 7 8 9 18446744073709551616\n", &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "field 10 (guest_nice)"), "%s", err.msg);
    cr_assert_eq(parse_str("cpu  1 2 3 4\nbtime soon\n", &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "line 2: field 1 (btime)"), "%s", err.msg);
    cr_assert_eq(parse_str("", &ps, &err), -EINVAL);
}

Test(procstat, extra_fields_blanks_and_no_newline)
{
    wc_procstat ps;
    wc_error err = {{0}};
    /* A future eleventh field is ignored; tabs/runs of blanks separate fields. */
    cr_assert_eq(parse_str("cpu  1 2 3 4 5 6 7 8 9 10 11\ncpu0\t1  2 3 4 5 6 7 8 9 10", &ps, &err),
                 0, "%s", err.msg);
    cr_assert_eq(ps.total.nfields, 10);
    cr_assert_eq(ps.total.guest_nice, 10);
    cr_assert_eq(ps.total.steal, 8);
    cr_assert_eq(ps.ncpus, 1);
    cr_assert_eq(ps.cpus[0].nice, 2);
    cr_assert_eq(ps.cpus[0].guest_nice, 10);
    wc_procstat_free(&ps);
    wc_procstat_free(&ps); /* twice is harmless */
    cr_assert_null(ps.cpus);
}

Test(procstat, many_cpus_grow_and_lookup)
{
    size_t cap = 600 * 48 + 64;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    size_t n = (size_t)snprintf(text, cap, "cpu  600 0 0 0 0 0 0 0 0 0\n");
    for (int i = 0; i < 600; i++)
        if (i != 300)
            n += (size_t)snprintf(text + n, cap - n, "cpu%d %d 0 0 7 0 0 0 0 0 0\n", i, i);
    wc_procstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_procstat_parse(text, n, "many", &ps, &err), 0, "%s", err.msg);
    free(text);
    cr_assert_eq(ps.ncpus, 599);
    cr_assert_null(wc_procstat_cpu(&ps, 300));
    cr_assert_eq(wc_procstat_cpu(&ps, 299)->user, 299);
    cr_assert_eq(wc_procstat_cpu(&ps, 301)->user, 301);
    cr_assert_eq(wc_procstat_cpu(&ps, 599)->user, 599);
    wc_procstat_free(&ps);
}

Test(procstat, missing_root_is_enoent)
{
    wc_procstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_procstat_read("/nonexistent-wattcal-root", &ps, &err), -ENOENT);
    cr_assert_not_null(strstr(err.msg, "/nonexistent-wattcal-root/stat"), "%s", err.msg);
}

Test(procstat, real_proc_stat)
{
    wc_procstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_procstat_read("/proc", &ps, &err), 0, "%s", err.msg);
    cr_assert_geq(ps.total.nfields, 8);
    cr_assert_geq(ps.ncpus, 1);
    cr_assert_gt(wc_cpu_total_ticks(&ps.total), 0);
    cr_assert_gt(ps.btime_s, 1000000000);
    /* Per-CPU labels are unique and every one can be found again. */
    for (size_t i = 0; i < ps.ncpus; i++)
        cr_assert_eq(wc_procstat_cpu(&ps, ps.cpus[i].cpu), &ps.cpus[i]);
    wc_procstat_free(&ps);
}
