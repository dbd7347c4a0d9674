/*
 * test_cpu_share.c — the CPU-accounting cross-check (validator/cpu_share.c)
 * on a synthetic run with a known answer: 11 ticks 1 s apart, the node 50 %
 * busy on 4 CPUs (2 CPU-s per interval); pod A's cgroup accounts 1 CPU-s per
 * second (50 % of busy; its read at 3 s failed), pod B's 0.5 (25 %). The
 * model gives A 5 J and B 3 J of 10 J active per interval (A agrees, B reads
 * 1.2); the exporter's scrapes every 2 s give A 10 J of 20 J (with a counter
 * reset, whose interval is skipped) and B 4 J (ratio 0.8): four intervals,
 * too few for a finding. Also a run with no cgroup reads (nothing to
 * compare) and a short one.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collector/store/store_cgroup_cpu.h"
#include "collector/store/store_exporter.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"
#include "validator/cpu_share.h"

#define UID_A "aaaaaaaa-0000-4000-8000-00000000000a"
#define UID_B "aaaaaaaa-0000-4000-8000-00000000000b"

static const trun_zone ZONES[] = {{"package", 0, WC_KIND_COUNTER_UJ}};

/* ticks and cgroup reads (ticks 1 s apart, first at 1 s) */
static void build_ticks(trun *t, int nticks)
{
    wc_error err = {{0}};
    int64_t a = 0, b = 0;
    cr_assert_eq(wc_store_put_cgroup(t->st, "pod", UID_A, "/kubepods/podA", &a, &err), 0);
    cr_assert_eq(wc_store_put_cgroup(t->st, "pod", UID_B, "/kubepods/podB", &b, &err), 0);
    for (int i = 0; i < nticks; i++) {
        double w[] = {20};
        int64_t id = trun_tick(t, (int64_t)(i + 1) * 1000000000, 0, 0, w, 0.5);
        wc_cgroup_cpu_in r[] = {{a, (uint64_t)i * 1000000000ULL, i == 2 ? -ENOENT : 0},
                                {b, (uint64_t)i * 500000000ULL, 0}};
        cr_assert_eq(wc_store_begin(t->st, &err), 0);
        cr_assert_eq(wc_store_put_cgroup_cpu(t->st, id, r, 2, &err), 0, "%s", err.msg);
        cr_assert_eq(wc_store_commit(t->st, &err), 0);
    }
}

/* the exporter: scrapes at 2, 4, 6, 8, 10 s */
static void build_exporter(trun *t)
{
    wc_error err = {{0}};
    wc_exporter_info e;
    memset(&e, 0, sizeof e);
    snprintf(e.spec, sizeof e.spec, "kepler:http://127.0.0.1:1/metrics");
    snprintf(e.provenance, sizeof e.provenance, "exporter kepler v0.11.2 (measured)");
    cr_assert_eq(wc_store_put_exporter(t->st, &e, &err), 0, "%s", err.msg);
    wc_kep_fact node = {.level = WC_KEP_NODE, .quantity = WC_KEP_ACTIVE_JOULES, .zone = "package"};
    wc_kep_fact pa = {.level = WC_KEP_POD, .quantity = WC_KEP_JOULES, .zone = "package",
                      .key = UID_A, .name = "web", .ns = "shop"};
    wc_kep_fact pb = {.level = WC_KEP_POD, .quantity = WC_KEP_JOULES, .zone = "package",
                      .key = UID_B, .name = "db", .ns = "shop"};
    const double va[] = {10, 20, 30, 5, 15}; /* a reset between 6 s and 8 s */
    for (int k = 0; k < 5; k++) {
        wc_scrape_meta m = {.exporter_id = e.id, .resp_mono_ns = (int64_t)(2 + 2 * k) * 1000000000};
        snprintf(m.status, sizeof m.status, "ok");
        wc_exporter_sample_in v[] = {
            {"kepler_node_cpu_active_joules_total", "{zone=\"package\"}", &node, 20.0 * (k + 1), 0, 0},
            {"kepler_pod_cpu_joules_total", "{pod_id=\"a\"}", &pa, va[k], 0, 0},
            {"kepler_pod_cpu_joules_total", "{pod_id=\"b\"}", &pb, 4.0 * (k + 1), 0, 0}};
        cr_assert_eq(wc_store_begin(t->st, &err), 0);
        cr_assert_eq(wc_store_put_scrape(t->st, &m, &err), 0, "%s", err.msg);
        cr_assert_eq(wc_store_put_exporter_samples(t->st, e.id, m.id, v, 3, &err), 0, "%s", err.msg);
        cr_assert_eq(wc_store_commit(t->st, &err), 0);
    }
}

/* the model's rows: 10 J active per interval, A 5 J, B 3 J */
static void build_model(const char *path)
{
    trun_exec(path, "INSERT INTO model(id, name) VALUES(7, 'ideal')");
    trun_exec(path, "INSERT INTO node_attr(model_id, tick_id, zone, active_uj, flags)"
                    " SELECT 7, id, 'package', 10000000, CASE WHEN seq = 0 THEN 1 ELSE 0 END FROM tick");
    trun_exec(path, "INSERT INTO work_attr(model_id, tick_id, level, key, zone, energy_uj)"
                    " SELECT 7, id, 3, '" UID_A "', 'package', 5000000 FROM tick WHERE seq > 0"
                    " UNION ALL SELECT 7, id, 3, '" UID_B "', 'package', 3000000 FROM tick"
                    " WHERE seq > 0");
}

static const wc_share_row *row_of(const wc_share_source *s, const char *uid)
{
    for (size_t i = 0; i < s->nrows; i++)
        if (!strcmp(s->rows[i].pod_uid, uid))
            return &s->rows[i];
    cr_assert_fail("no row for %s", uid);
    return NULL;
}

static void compute(const char *path, wc_cpu_share_report *r)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    cr_assert_eq(wc_cpu_share_compute(st, 7, "ideal", "package", r, &err), 0, "%s", err.msg);
    wc_store_close(st);
}

Test(cpu_share, model_and_exporter_known_answer)
{
    char path[512];
    snprintf(path, sizeof path, "%s/run.db", wc_test_tmpdir());
    trun t;
    trun_create(&t, path, ZONES, 1);
    build_ticks(&t, 11);
    build_exporter(&t);
    trun_finish(&t);
    build_model(path);
    wc_cpu_share_report r;
    compute(path, &r);
    cr_assert(r.have && r.pods == 2 && r.nsrc == 2);
    const wc_share_source *m = &r.src[0], *x = &r.src[1];
    cr_assert_str_eq(m->provenance, "attributed by model ideal");
    cr_assert_str_eq(m->rows[0].pod_uid, UID_B, "largest disagreement first");
    const wc_share_row *a = row_of(m, UID_A), *b = row_of(m, UID_B);
    cr_assert_eq(a->intervals, 8, "the failed read at 3 s takes two intervals");
    cr_assert_float_eq(a->energy_pct, 50, 1e-9);
    cr_assert_float_eq(a->cpu_pct, 50, 1e-9);
    cr_assert_float_eq(b->ratio, 1.2, 1e-9);
    cr_assert_float_eq(b->diff_pts, 5, 1e-9);
    cr_assert_float_eq(b->busy_s, 20, 1e-9);
    cr_assert_str_eq(x->provenance, "exporter kepler v0.11.2 (measured)");
    a = row_of(x, UID_A);
    b = row_of(x, UID_B);
    cr_assert_eq(a->intervals, 3, "the reset's interval is skipped");
    cr_assert_float_eq(a->energy_j, 30, 1e-9);
    cr_assert_float_eq(a->ratio, 1.0, 1e-9);
    cr_assert_str_eq(a->name, "web");
    cr_assert_str_eq(a->ns, "shop");
    cr_assert_eq(b->intervals, 4);
    cr_assert_float_eq(b->ratio, 0.8, 1e-9);
    cr_assert_str_eq(x->rows[0].pod_uid, UID_B);
    cr_assert(!m->too_little);
    cr_assert(x->too_little, "4 exporter intervals: fewer than WC_CPU_SHARE_MIN_INTERVALS");
    cr_assert_eq(x->intervals, 4);
}

Test(cpu_share, no_cgroups_and_too_little_data)
{
    char path[512];
    snprintf(path, sizeof path, "%s/none.db", wc_test_tmpdir());
    trun t;
    trun_create(&t, path, ZONES, 1);
    double w[] = {20};
    trun_tick(&t, 1000000000, 0, 0, w, 0.5);
    trun_tick(&t, 2000000000, 0, 0, w, 0.5);
    trun_finish(&t);
    build_model(path);
    wc_cpu_share_report r;
    compute(path, &r);
    cr_assert_eq(r.have, 0);

    snprintf(path, sizeof path, "%s/short.db", wc_test_tmpdir());
    trun_create(&t, path, ZONES, 1);
    build_ticks(&t, 4);
    trun_finish(&t);
    build_model(path);
    compute(path, &r);
    cr_assert(r.have && r.nsrc == 1, "no exporter: the model only");
    cr_assert(r.src[0].too_little);
    cr_assert_eq(r.src[0].intervals, 3);
}
