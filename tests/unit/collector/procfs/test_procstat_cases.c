/*
 * test_procstat_cases.c — /proc/stat parsing (collector/procfs/procstat.c) on
 * the project's own texts, tests/fixtures/procfs/proc-stat and the node tree
 * tests/fixtures/procfs/node: guest time parsed but kept out of total and
 * busy (B17), per-CPU lines keyed by their label with a CPU offline (B25), a
 * full /proc/stat with guest columns, one with zero guest columns, and a lone
 * aggregate line. test_procstat.c proves the same on the shared fixtures.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/procfs/procstat.h"
#include "tests/unit/support/test_support.h"

#define DIR_ "procfs/proc-stat/"

static void parse_file(const char *name, wc_procstat *ps)
{
    char rel[256];
    snprintf(rel, sizeof rel, DIR_ "%s", name);
    size_t len = 0;
    char *text = wc_test_slurp(wc_own_fixture(rel), &len);
    wc_error err = {{0}};
    cr_assert_eq(wc_procstat_parse(text, len, rel, ps, &err), 0, "%s", err.msg);
    free(text);
}

/* One "# pair Px" of guest-pairs.txt: its two aggregate lines. */
typedef struct pair {
    char name[8];
    wc_cpu_times a, b;
    int nlines;
} pair;

static int load_pairs(pair *pairs, int max)
{
    char *text = wc_test_slurp(wc_own_fixture(DIR_ "guest-pairs.txt"), NULL);
    int n = -1;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
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
        cr_assert_eq(wc_procstat_parse(line, strlen(line), "pairs", &ps, &err), 0, "%s", err.msg);
        cr_assert_eq(ps.total.nfields, 10);
        pair *p = &pairs[n];
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

static void check_pair(const pair *p, uint64_t total, uint64_t busy, double util_pct,
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

Test(procstat_cases, guest_excluded_from_total_and_busy)
{
    pair pairs[4];
    cr_assert_eq(load_pairs(pairs, 4), 2);
    /* P1: 60+0+10+900+2+0+3+0 = 975 ticks, busy 73 (7.49 %); with guest added: 1033 */
    check_pair(&pairs[0], 975, 73, 7.49, 58);
    cr_assert_neq(wc_cpu_total_ticks(&pairs[0].b) - wc_cpu_total_ticks(&pairs[0].a), 1033);
    /* P2: 1000 ticks, busy 50 (5.00 %); user - guest = -1 there */
    check_pair(&pairs[1], 1000, 50, 5.00, 31);
    const wc_cpu_times *t = &pairs[0].a;
    cr_assert_eq(t->cpu, -1);
    cr_assert_eq(t->user, 2000000);
    cr_assert_eq(t->nice, 10000);
    cr_assert_eq(t->system, 800000);
    cr_assert_eq(t->idle, 50000000);
    cr_assert_eq(t->iowait, 9000);
    cr_assert_eq(t->irq, 0);
    cr_assert_eq(t->softirq, 7000);
    cr_assert_eq(t->steal, 0);
    cr_assert_eq(t->guest, 1500000);
    cr_assert_eq(t->guest_nice, 0);
}

Test(procstat_cases, per_cpu_lines_by_label_with_one_offline)
{
    wc_procstat ps;
    parse_file("percpu-offline.txt", &ps);
    cr_assert_eq(ps.ncpus, 5);
    cr_assert_null(wc_procstat_cpu(&ps, 3), "cpu3 is offline: no line, no values");
    static const struct { int cpu; uint64_t busy, user, idle; } want[] = {
        {0, 700, 600, 300}, {1, 200, 150, 800}, {2, 500, 400, 500},
        {4, 300, 250, 700}, {5, 800, 700, 200},
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
        *(want[i].cpu < 3 ? &pkg0 : &pkg1) += wc_cpu_busy_ticks(c);
    }
    cr_assert_eq(sum, 2500);
    cr_assert_eq(pkg0, 1400);
    cr_assert_eq(pkg1, 1100);
    cr_assert_eq(wc_cpu_busy_ticks(&ps.total), 2500);
    cr_assert_eq(wc_cpu_total_ticks(&ps.total), 5000);
    /* file order kept: the fourth entry is cpu4, not a renamed cpu3 */
    cr_assert_eq(ps.cpus[3].cpu, 4);
    cr_assert_null(wc_procstat_cpu(&ps, 6));
    cr_assert_null(wc_procstat_cpu(&ps, -1));
    wc_procstat_free(&ps);
}

Test(procstat_cases, full_file_with_guest_columns)
{
    wc_procstat ps;
    parse_file("full.txt", &ps);
    cr_assert_eq(ps.total.user, 205117);
    cr_assert_eq(ps.total.nice, 1180);
    cr_assert_eq(ps.total.system, 91200);
    cr_assert_eq(ps.total.idle, 4512000);
    cr_assert_eq(ps.total.iowait, 2210);
    cr_assert_eq(ps.total.irq, 3);
    cr_assert_eq(ps.total.softirq, 1805);
    cr_assert_eq(ps.total.steal, 0);
    cr_assert_eq(ps.total.guest, 61);
    cr_assert_eq(ps.total.guest_nice, 42);
    cr_assert_eq(ps.btime_s, 1764583200);
    cr_assert_eq(ps.ncpus, 4);
    const wc_cpu_times *c3 = wc_procstat_cpu(&ps, 3);
    cr_assert_not_null(c3);
    cr_assert_eq(c3->user, 51544);
    cr_assert_eq(c3->nice, 310);
    cr_assert_eq(c3->guest, 20);
    cr_assert_eq(c3->guest_nice, 12);
    cr_assert_eq(wc_cpu_total_ticks(&ps.total), 205117 + 1180 + 91200 + 4512000 + 2210 + 3 + 1805);
    wc_procstat_free(&ps);
}

Test(procstat_cases, zero_guest_and_cpu_line_only)
{
    wc_procstat ps;
    parse_file("zero-guest.txt", &ps);
    cr_assert_eq(ps.ncpus, 4);
    cr_assert_eq(wc_procstat_cpu(&ps, 2)->softirq, 452);
    cr_assert_eq(ps.total.guest, 0);
    cr_assert_eq(ps.btime_s, 1764583200);
    wc_procstat_free(&ps);
    parse_file("cpu-line-only.txt", &ps);
    cr_assert_eq(ps.ncpus, 0);
    cr_assert_eq(ps.btime_s, 0);
    cr_assert_eq(ps.total.user, 7300000);
    cr_assert_eq(ps.total.irq, 14000000);
    cr_assert_eq(ps.total.guest, 4800000);
    cr_assert_eq(ps.total.nfields, 10);
    wc_procstat_free(&ps);
}

Test(procstat_cases, node_tree_read_through_root)
{
    wc_procstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_procstat_read(wc_own_fixture("procfs/node"), &ps, &err), 0, "%s", err.msg);
    cr_assert_eq(ps.total.user, 4200000);
    cr_assert_eq(ps.total.nice, 3100);
    cr_assert_eq(ps.total.system, 2050000);
    cr_assert_eq(ps.total.idle, 98000000);
    cr_assert_eq(ps.total.iowait, 120000);
    cr_assert_eq(ps.total.irq, 0);
    cr_assert_eq(ps.total.softirq, 45000);
    cr_assert_eq(ps.total.steal, 0);
    cr_assert_eq(ps.total.guest, 1500000);
    cr_assert_eq(ps.total.guest_nice, 0);
    /* busy: total - idle - iowait over the 8 non-guest fields */
    cr_assert_eq(wc_cpu_busy_ticks(&ps.total), 4200000ull + 3100 + 2050000 + 0 + 45000);
    cr_assert_eq(ps.ncpus, 2);
    wc_procstat_free(&ps);
}
