/*
 * test_validation.c — the gap per level and its split, the Σ children ≤
 * parent invariants, the workload-class bias against isolation, the version
 * comparison, tolerances, and the JSON and JUnit outputs, on synthetic runs
 * whose attribution rows are written by hand so every expected figure is
 * known exactly.
 */
#include <cJSON.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/calibration.h"
#include "validator/diff.h"
#include "validator/junit.h"
#include "validator/levels.h"
#include "validator/summary_json.h"
#include "validator/validation.h"
#include "validator/workload_bias.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"

#define S(x) ((int64_t)((x) * 1000000000LL))
#define NEAR(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%s = %.12g, expected %.12g", #a, (double)(a), (double)(b))

static void path_in_tmp(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", wc_test_tmpdir(), name);
}

/* Ten 1 s ticks of a 10 W package, then hand-written attribution rows of
 * model "ideal" (id 1): per interval active 6 J, idle 4 J; processes 1 and 2
 * in container c1 of pod p1, process 3 outside containers. */
static void build_levels(const char *path)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 1);
    for (int k = 0; k < 10; k++) {
        double w = 10;
        trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
    }
    trun_finish(&t);
    char sql[8192];
    size_t used = 0;
    used += (size_t)snprintf(sql + used, sizeof sql - used,
        "INSERT INTO model VALUES (1, 'ideal');"
        "INSERT INTO process(id, pid, starttime, comm, container_id, pod_uid, first_tick_id, pgid) VALUES"
        " (1, 100, 5, 'api', 'c1', 'p1', 1, 100), (2, 200, 6, 'sidecar', 'c1', 'p1', 1, 200),"
        " (3, 300, 7, 'kubelet', '', '', 1, 300);"
        "INSERT INTO container VALUES ('c1', 'containerd', 'p1', 1);"
        "INSERT INTO pod VALUES ('p1', 'burstable', 1);"
        "INSERT INTO node_attr(model_id, tick_id, zone, delta_uj, active_uj, idle_uj, flags)"
        " VALUES (1, 1, 'package', 0, 0, 0, 1);");
    for (int tick = 2; tick <= 10; tick++) {
        unsigned flags = tick == 5 ? 8u : 0u; /* SKIPPED: nothing attributed */
        used += (size_t)snprintf(sql + used, sizeof sql - used,
            "INSERT INTO node_attr(model_id, tick_id, zone, delta_uj, active_uj, idle_uj, flags)"
            " VALUES (1, %d, 'package', 10000000, 6000000, 4000000, %u);", tick, flags);
        if (tick == 5)
            continue;
        long p3 = tick == 7 ? 3000000 : tick == 9 ? 4000000 : 2000000;
        long c1 = tick == 8 ? 2500000 : 3000000;
        used += (size_t)snprintf(sql + used, sizeof sql - used,
            "INSERT INTO work_attr(model_id, tick_id, level, process_id, key, zone, energy_uj) VALUES"
            " (1, %d, 1, 1, NULL, 'package', 2000000), (1, %d, 1, 2, NULL, 'package', 1000000),"
            " (1, %d, 1, 3, NULL, 'package', %ld), (1, %d, 2, NULL, 'c1', 'package', %ld),"
            " (1, %d, 3, NULL, 'p1', 'package', 3000000);",
            tick, tick, tick, p3, tick, c1, tick);
    }
    trun_exec(path, sql);
}

static wc_store *open_store(const char *path)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    return st;
}

Test(levels, split_and_invariants_match_hand_computed_totals)
{
    char path[512];
    path_in_tmp(path, sizeof path, "levels.db");
    build_levels(path);
    wc_store *st = open_store(path);
    wc_levels_report r;
    wc_error err = {{0}};
    cr_assert_eq(wc_levels_compute(st, 1, 5, &r, &err), 0, "%s", err.msg);
    const wc_level_zone *z = wc_levels_zone(&r, "package");
    cr_assert_not_null(z);
    /* 9 intervals of 10 J: 36 J idle, 54 J active */
    NEAR(z->node_j, 90, 1e-9);
    NEAR(z->idle_j, 36, 1e-9);
    NEAR(z->active_j, 54, 1e-9);
    /* processes: 8 attributed intervals of 5 J, +1 J (tick 7), +2 J (tick 9) */
    NEAR(z->process_j, 43, 1e-9);
    /* unattributed: tick 5 skipped (6 J), 1 J missed CPU in the six ordinary ticks (not 7, not 9) */
    NEAR(z->unattr_skipped_j, 6, 1e-9);
    NEAR(z->unattr_missed_j, 6, 1e-9);
    NEAR(z->over_j, 1, 1e-9);
    NEAR(z->container_j, 3 * 8 - 0.5, 1e-9);
    NEAR(z->pod_j, 24, 1e-9);
    NEAR(z->containerised_process_j, 24, 1e-9);
    /* node = idle + unattributed - over + processes */
    NEAR(z->node_j, z->idle_j + z->unattr_skipped_j + z->unattr_missed_j - z->over_j + z->process_j, 1e-9);
    cr_assert_eq(z->inv[WC_INV_PROCS_LE_NODE].checked, 10);
    cr_assert_eq(z->inv[WC_INV_PROCS_LE_NODE].violated, 1, "tick 9: 7 J to processes of 6 J active");
    NEAR(z->inv[WC_INV_PROCS_LE_NODE].worst_excess_j, 1, 1e-9);
    cr_assert_eq(z->inv[WC_INV_PROCS_LE_NODE].worst_tick_id, 9);
    cr_assert_eq(z->inv[WC_INV_PROCS_LE_CONTAINER].violated, 1, "tick 8: container 2.5 J < its processes 3 J");
    NEAR(z->inv[WC_INV_PROCS_LE_CONTAINER].worst_excess_j, 0.5, 1e-9);
    cr_assert_eq(z->inv[WC_INV_PROCS_LE_CONTAINER].checked, 8);
    cr_assert_eq(z->inv[WC_INV_CONTAINERS_LE_POD].violated, 0);
    cr_assert_eq(z->inv[WC_INV_CONTAINERS_LE_POD].checked, 8);
    /* over time: 5 s windows; the first holds ticks 1..5 (intervals ending at 1..5 s) */
    cr_assert_eq(z->nwindows, 2);
    NEAR(z->windows[0].node_j + z->windows[1].node_j, 90, 1e-9);
    NEAR(z->windows[0].unattributed_j, 1 + 1 + 1 + 6 + 1, 1e-9); /* ticks 2, 3, 4, 5 (skipped), 6 */
    wc_levels_free(&r);
    wc_store_close(st);
}

/* Phases idle (0-30 s, 40 W), cpu (30-60 s, 60 W), avx (60-90 s, 72 W), mix
 * (90-120 s, 92 W) on the package; true CPU 30 s in each isolated phase and
 * 15 s each in the mix; the model gives the cpu workload 390 J and the avx
 * workload 390 J in the mix. Known answers: cpu 20 J/CPU-s → expected 300 J
 * (factor 1.3); avx 32 J/CPU-s → 480 J (factor 0.8125). The mix's cpu worker
 * was first sampled a tick before the phase's start was stamped (it still
 * belongs to the workload). */
static void build_bias(const char *path)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 1);
    for (int k = 0; k <= 120; k++) {
        double w = k <= 30 ? 40 : k <= 60 ? 60 : k <= 90 ? 72 : 92;
        trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
    }
    int64_t ph[4];
    ph[0] = trun_phase(&t, "idle-baseline", "idle", S(0), S(30), 1);
    ph[1] = trun_phase(&t, "cpu", "cpu", S(30), S(60), 1);
    ph[2] = trun_phase(&t, "avx", "avx", S(60), S(90), 1);
    ph[3] = trun_phase(&t, "mix", "mixed", S(90), S(120), 1);
    wc_error err = {{0}};
    cr_assert_eq(wc_store_put_workload(t.st, ph[1], "cpu", 1, 100, 1000, "1000:1", S(30), 0, 0, 0, 0,
                                       "", &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_workload(t.st, ph[2], "avx", 1, 100, 2000, "2000:1", S(30), 0, 0, 0, 0,
                                       "avx2", &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_workload(t.st, ph[3], "cpu", 1, 100, 3000, "3000:1", S(15), 0, 0, 0, 0,
                                       "", &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_workload(t.st, ph[3], "avx", 1, 100, 4000, "4000:1", S(15), 0, 0, 0, 0,
                                       "avx2", &err), 0, "%s", err.msg);
    trun_finish(&t);
    /* tick ids are 1..121 (tick k has id k + 1); processes first seen in their phase */
    char *sql = malloc(1 << 16);
    size_t used = (size_t)snprintf(sql, 1 << 16,
        "INSERT INTO model VALUES (1, 'ideal');"
        "INSERT INTO process(id, pid, starttime, comm, container_id, pod_uid, first_tick_id, pgid) VALUES"
        " (1, 1000, 1, 'wattcal-cpu', '', '', 32, 1000), (2, 2000, 1, 'wattcal-avx', '', '', 62, 2000),"
        " (3, 3000, 1, 'wattcal-cpu', '', '', 90, 3000), (4, 4000, 1, 'wattcal-avx', '', '', 92, 4000);"
        "INSERT INTO proc_sample VALUES (121, 1, 3000, 0, 1), (121, 2, 3000, 0, 1),"
        " (121, 3, 1500, 0, 1), (121, 4, 1480, 0, 1);");
    for (int tick = 92; tick <= 121; tick++)
        used += (size_t)snprintf(sql + used, (1 << 16) - used,
            "INSERT INTO work_attr(model_id, tick_id, level, process_id, zone, energy_uj) VALUES"
            " (1, %d, 1, 3, 'package', 13000000), (1, %d, 1, 4, 'package', 13000000);", tick, tick);
    for (int tick = 32; tick <= 61; tick++)
        used += (size_t)snprintf(sql + used, (1 << 16) - used,
            "INSERT INTO work_attr(model_id, tick_id, level, process_id, zone, energy_uj) VALUES"
            " (1, %d, 1, 1, 'package', 30000000);", tick);
    trun_exec(path, sql);
    free(sql);
}

static const wc_bias_class *bias_class(const wc_bias_report *b, const char *cls)
{
    for (size_t i = 0; i < b->nclasses; i++)
        if (!strcmp(b->classes[i].cls, cls))
            return &b->classes[i];
    cr_assert_fail("no class %s", cls);
    return NULL;
}

Test(bias, mixed_attribution_against_isolated_marginal_energy)
{
    char path[512];
    path_in_tmp(path, sizeof path, "bias.db");
    build_bias(path);
    wc_store *st = open_store(path);
    wc_bias_report b;
    wc_error err = {{0}};
    wc_boot_cfg cfg = {.replicates = 500, .seed = 1};
    cr_assert_eq(wc_bias_compute(st, 1, "ideal", &cfg, &b, &err), 0, "%s", err.msg);
    cr_assert(b.has_baseline);
    NEAR(b.idle_w[WC_BIAS_PACKAGE], 40, 1e-6);
    cr_assert_eq(b.nisolated, 2);
    NEAR(b.isolated[0].marginal_w[WC_BIAS_PACKAGE].est, 20, 1e-6);
    NEAR(b.isolated[0].marginal_j[WC_BIAS_PACKAGE], 600, 1e-4);
    NEAR(b.isolated[0].attributed_j[WC_BIAS_PACKAGE], 900, 1e-6);
    NEAR(b.isolated[1].marginal_w[WC_BIAS_PACKAGE].est, 32, 1e-6);
    cr_assert_eq(b.nmixed, 2);
    const wc_bias_class *cpu = bias_class(&b, "cpu"), *avx = bias_class(&b, "avx");
    NEAR(cpu->j_per_cpu_s[WC_BIAS_PACKAGE], 20, 1e-6);
    NEAR(avx->j_per_cpu_s[WC_BIAS_PACKAGE], 32, 1e-6);
    NEAR(cpu->factor[WC_BIAS_PACKAGE].est, 1.3, 1e-6);
    NEAR(avx->factor[WC_BIAS_PACKAGE].est, 390.0 / 480.0, 1e-6);
    /* noise-free powers: the intervals collapse onto the estimates */
    NEAR(cpu->factor[WC_BIAS_PACKAGE].lo, 1.3, 1e-6);
    NEAR(cpu->factor[WC_BIAS_PACKAGE].hi, 1.3, 1e-6);
    /* no dram zone: the node factor is the package's */
    NEAR(cpu->factor[WC_BIAS_NODE].est, 1.3, 1e-6);
    cr_assert(isnan(cpu->factor[WC_BIAS_DRAM].est));
    NEAR(b.mixed[0].coverage, 1.0, 1e-9);
    NEAR(b.mixed[1].coverage, 14.8 / 15, 1e-9);
    wc_store_close(st);
}

Test(validation, tolerances_parse_with_their_units)
{
    wc_tolerance t[WC_TOL_MAX];
    size_t n = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_tolerance_parse("node=10%,gap=1%,rmse=20W,invariants=0,coverage=50%", t, &n, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(n, 5);
    cr_assert_eq(t[0].metric, WC_TOL_STAT);
    cr_assert_str_eq(wc_tolerance_name(&t[0]), "node");
    cr_assert_eq(t[2].threshold, 20);
    cr_assert_eq(t[3].metric, WC_TOL_INVARIANTS);
    cr_assert_eq(wc_tolerance_parse("node=10W", t, &n, &err), -EINVAL);
    cr_assert(strstr(err.msg, "percentage"), "%s", err.msg);
    cr_assert_eq(wc_tolerance_parse("rmse=3%", t, &n, &err), -EINVAL);
    cr_assert_eq(wc_tolerance_parse("speed=3%", t, &n, &err), -EINVAL);
    cr_assert(strstr(err.msg, "unknown metric"), "%s", err.msg);
    cr_assert_eq(wc_tolerance_parse("gap=-1%", t, &n, &err), -EINVAL);
    cr_assert_eq(wc_tolerance_parse("gap", t, &n, &err), -EINVAL);
}

static const wc_check *find_check(const wc_validation *v, const char *metric, const char *subject_part)
{
    for (size_t i = 0; i < v->nchecks; i++)
        if (!strcmp(v->checks[i].metric, metric) && strstr(v->checks[i].subject, subject_part))
            return &v->checks[i];
    return NULL;
}

Test(validation, gate_checks_junit_and_json_of_a_run)
{
    char path[512], junit[512], json[512];
    path_in_tmp(path, sizeof path, "gate.db");
    build_bias(path);
    /* a phase label a tool must escape */
    trun_exec(path, "UPDATE phase SET name = 'mix<&>\"x' || CAST(X'FF1B' AS TEXT) WHERE name = 'mix';"
                    "INSERT INTO node_attr(model_id, tick_id, zone, delta_uj, active_uj, idle_uj, flags)"
                    " SELECT 1, id, 'package', 1000000, 600000, 400000, 0 FROM tick WHERE id > 1;");
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_validation_opts o;
    memset(&o, 0, sizeof o);
    o.acc.boot.replicates = 200;
    o.acc.boot.seed = 1;
    cr_assert_eq(wc_tolerance_parse("class-bias=20%,gap=50%,node=5%", o.tol, &o.ntol, &err), 0);
    wc_validation *v = calloc(1, sizeof *v);
    cr_assert_eq(wc_validation_run(st, WC_MODEL_IDEAL, &o, v, &err), 0, "%s", err.msg);
    const wc_check *cpu = find_check(v, "class-bias", "class cpu");
    const wc_check *avx = find_check(v, "class-bias", "class avx");
    cr_assert_not_null(cpu);
    cr_assert_not_null(avx);
    cr_assert_eq(cpu->status, WC_CHECK_FAIL, "%s", cpu->message);
    NEAR(cpu->value, 30, 1e-4);
    cr_assert_eq(avx->status, WC_CHECK_PASS, "%s", avx->message);
    const wc_check *node = find_check(v, "node", "");
    cr_assert_not_null(node);
    cr_assert_eq(node->status, WC_CHECK_SKIP, "no ground truth: skipped, never passed");
    cr_assert_eq(v->passed + v->failed + v->skipped, v->nchecks);
    cr_assert(v->failed >= 1);
    /* JUnit: one testcase per check, labels escaped */
    path_in_tmp(junit, sizeof junit, "gate.xml");
    cr_assert_eq(wc_junit_write(junit, v, path, &err), 0, "%s", err.msg);
    size_t len = 0;
    char *xml = wc_test_slurp(junit, &len);
    size_t cases = 0;
    for (const char *p = xml; (p = strstr(p, "<testcase ")); p++)
        cases++;
    cr_assert_eq(cases, v->nchecks);
    cr_assert(strstr(xml, "<failure type=\"tolerance\""));
    cr_assert(strstr(xml, "<error type=\"no-verdict\" message="), "NO VERDICT is a JUnit error, never skipped");
    cr_assert_null(strstr(xml, "<skipped"));
    cr_assert_null(strstr(xml, "mix<&>"), "a raw label reached the XML");
    cr_assert_null(strchr(xml, 0x1b), "a control byte reached the XML");
    free(xml);
    /* JSON: parses, nulls for unknowns, every check present */
    path_in_tmp(json, sizeof json, "gate.json");
    cr_assert_eq(wc_summary_json_write(json, v, path, &err), 0, "%s", err.msg);
    char *doc = wc_test_slurp(json, &len);
    cr_assert_null(strchr(doc, (char)0xff), "invalid UTF-8 from the run reached the JSON");
    cr_assert(strstr(doc, "mix<&>\\\"x?\\u001b"), "the label, its invalid byte as '?', its ESC escaped");
    cJSON *root = cJSON_Parse(doc);
    cr_assert_not_null(root, "the summary is not valid JSON");
    cr_assert_str_eq(cJSON_GetObjectItem(root, "schema")->valuestring, "wattcal-validate/2");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "checks")), (int)v->nchecks);
    cJSON *classes = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "bias"), "classes");
    cr_assert_eq(cJSON_GetArraySize(classes), 2);
    cJSON *f = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(classes, 0), "package"), "factor");
    NEAR(cJSON_GetObjectItem(f, "est")->valuedouble, 1.3, 1e-6);
    cJSON *dram = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(classes, 0), "dram"), "factor");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(dram, "est")), "unknown is null, never 0");
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "summary"), "failed")->valueint, (int)v->failed);
    cJSON_Delete(root);
    free(doc);
    wc_validation_free(v);
    free(v);
    wc_store_close(st);
}

/* Pod energy per tick for two pods over 600 s, written for model ids. */
static void build_diff(const char *path, int64_t model_id, const char *model, double pod_b_w,
                       int fresh)
{
    if (fresh) {
        trun t;
        trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
        trun_create(&t, path, z, 1);
        for (int k = 0; k <= 600; k++) {
            double w = 50;
            trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
        }
        trun_finish(&t);
    }
    char *sql = malloc(1 << 20);
    size_t used = (size_t)snprintf(sql, 1 << 20, "INSERT INTO model VALUES (%lld, '%s');",
                                   (long long)model_id, model);
    unsigned s = 5;
    for (int tick = 2; tick <= 601; tick++) {
        s = s * 1103515245u + 12345u;
        double wiggle = ((s >> 16) % 100) / 100.0 - 0.5; /* ±0.5 W */
        used += (size_t)snprintf(sql + used, (1 << 20) - used,
            "INSERT INTO work_attr(model_id, tick_id, level, key, zone, energy_uj) VALUES"
            " (%lld, %d, 3, 'pod-a', 'package', %.0f), (%lld, %d, 3, 'pod-b', 'package', %.0f);"
            "INSERT INTO node_attr(model_id, tick_id, zone, delta_uj, active_uj, idle_uj, flags)"
            " VALUES (%lld, %d, 'package', 50000000, 30000000, 20000000, 0);",
            (long long)model_id, tick, (10 + wiggle) * 1e6, (long long)model_id, tick,
            (pod_b_w + wiggle) * 1e6, (long long)model_id, tick);
    }
    trun_exec(path, sql);
    free(sql);
}

static const wc_diff_row *diff_row(const wc_diff_report *r, const char *key)
{
    const wc_diff_table *t = &r->tables[WC_DIFF_POD];
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->rows[i].key, key))
            return &t->rows[i];
    cr_assert_fail("no pod %s", key);
    return NULL;
}

Test(diff, two_runs_and_two_models)
{
    char a[512], b[512];
    path_in_tmp(a, sizeof a, "a.db");
    path_in_tmp(b, sizeof b, "b.db");
    build_diff(a, 1, "kepler-0.11", 5, 1);
    build_diff(b, 1, "kepler-0.11", 6, 1);
    wc_error oerr = {{0}};
    wc_store *da = wc_store_open(a, WC_STORE_READ, &oerr), *db = wc_store_open(b, WC_STORE_READ, &oerr);
    cr_assert(da && db, "%s", oerr.msg);
    wc_diff_side sa = {.st = da, .model_id = 1}, sb = {.st = db, .model_id = 1};
    snprintf(sa.label, sizeof sa.label, "A");
    snprintf(sb.label, sizeof sb.label, "B");
    wc_diff_opts o = {.top = 10, .window_s = 60, .tolerance_pct = 10, .boot = {.replicates = 500, .seed = 1}};
    wc_diff_report *r = calloc(1, sizeof *r);
    wc_error err = {{0}};
    cr_assert_eq(wc_diff_compute(&sa, &sb, &o, r, &err), 0, "%s", err.msg);
    cr_assert_not(r->paired);
    cr_assert_eq(r->a_windows, 10);
    const wc_diff_row *pa = diff_row(r, "pod-a"), *pb = diff_row(r, "pod-b");
    NEAR(pb->diff_pct, 20, 0.5);
    cr_assert_eq(pb->verdict, WC_DIFF_CHANGED);
    cr_assert_eq(pa->verdict, WC_DIFF_SAME, "identical pod: interval within ±10 %%");
    NEAR(pa->a_j, pa->b_j, 1e-6);
    cr_assert(pb->diff_w.lo > 0.9 && pb->diff_w.hi < 1.1, "[%g, %g]", pb->diff_w.lo, pb->diff_w.hi);
    wc_store_close(da);
    wc_store_close(db);
    /* the same samples under two models: paired, the difference is exact */
    build_diff(a, 2, "kepler-head", 5.3, 0);
    da = wc_store_open(a, WC_STORE_READ, &oerr);
    cr_assert_not_null(da, "%s", oerr.msg);
    wc_diff_side m1 = {.st = da, .model_id = 1}, m2 = {.st = da, .model_id = 2};
    cr_assert_eq(wc_diff_compute(&m1, &m2, &o, r, &err), 0, "%s", err.msg);
    cr_assert(r->paired);
    pb = diff_row(r, "pod-b");
    NEAR(pb->diff_w.est, 0.3, 1e-6);
    NEAR(pb->diff_w.lo, 0.3, 1e-6);
    NEAR(pb->diff_w.hi, 0.3, 1e-6);
    NEAR(pb->b_j - pb->a_j, 0.3 * 600, 1e-3);
    cr_assert_eq(pb->verdict, WC_DIFF_SAME, "+6 %%, exactly: within the ±10 %% tolerance");
    wc_store_close(da);
    free(r);
}

Test(validation, stored_fits_with_non_finite_coefficients_are_ignored)
{
    char path[512];
    path_in_tmp(path, sizeof path, "badfit.db");
    build_levels(path);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_WRITE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_calibration c;
    memset(&c, 0, sizeof c);
    c.kind = WC_CAL_TRUTH_METER;
    snprintf(c.target, sizeof c.target, "ipmi:local");
    snprintf(c.input, sizeof c.input, "meter:package");
    c.fit.c0 = 40, c.fit.c1 = 1.2, c.fit.n = 10;
    cr_assert_eq(wc_calibration_store(st, &c, &err), 0, "%s", err.msg);
    wc_store_close(st);
    trun_exec(path, "UPDATE calibration SET c1 = 9e999;");
    st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_calibration fits[WC_CAL_MAX];
    size_t n = 9, ignored = 0;
    cr_assert_eq(wc_calibration_load(st, fits, WC_CAL_MAX, &n, &ignored, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 0, "an infinite slope is no fit");
    cr_assert_eq(ignored, 1);
    wc_store_close(st);
    trun_exec(path, "UPDATE calibration SET c1 = 'abc';");
    st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    cr_assert_eq(wc_calibration_load(st, fits, WC_CAL_MAX, &n, &ignored, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 0, "a text slope is no fit");
    wc_store_close(st);
}
