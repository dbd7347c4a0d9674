/*
 * test_exporter_vm.c — the exporter's second opinion at the VM level
 * (validator/exporter_ref.c): kepler_vm_cpu_joules_total{vm_id} matched to
 * the reference model's work_attr level-4 rows by vm_id, with a known answer.
 * Ticks every second; model "kepler-main" (id 1) gives the node 6 J active
 * and VM "u-1" 2 J, VM "u-2" 1 J per tick; the exporter, scraped half a
 * second after each tick, reports the same node active energy, u-1 at
 * 2.4 J/s (+20 %) and u-2 at 1 J/s (0 %); a VM only the exporter knows
 * ("ghost") is a disagreement too: its row has 0 J of reference.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collector/store/store_exporter.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"
#include "tests/unit/validator/xp_store.h"
#include "validator/exporter_data.h"
#include "validator/exporter_report.h"

#define S(k) ((int64_t)(k) * 1000000000LL)
#define NTICKS 20

static void build(const char *path)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 1);
    double w = 10;
    for (int k = 0; k <= NTICKS; k++)
        trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
    int64_t id = xp_put_exporter(t.st, "kepler:http://127.0.0.1:1/metrics", "n1");
    char text[1024];
    for (int k = 1; k <= NTICKS; k++) {
        snprintf(text, sizeof text,
                 "kepler_node_cpu_active_joules_total{path=\"/sys/class/powercap/intel-rapl:0\","
                 "zone=\"package\"} %d\n"
                 "kepler_node_cpu_idle_joules_total{path=\"/sys/class/powercap/intel-rapl:0\","
                 "zone=\"package\"} %d\n"
                 "kepler_vm_cpu_joules_total{vm_id=\"u-1\",vm_name=\"guest1\",state=\"running\","
                 "zone=\"package\"} %.1f\n"
                 "kepler_vm_cpu_joules_total{vm_id=\"u-2\",vm_name=\"guest2\",state=\"running\","
                 "zone=\"package\"} %d\n"
                 "kepler_vm_cpu_joules_total{vm_id=\"ghost\",vm_name=\"ghost\",state=\"running\","
                 "zone=\"package\"} %d\n",
                 6 * k, 4 * k, 2.4 * k, k, k);
        xp_put_scrape(t.st, id, S(k) + S(1) / 2, text);
    }
    trun_finish(&t);
    char sql[16384];
    size_t used = (size_t)snprintf(sql, sizeof sql, "INSERT INTO model VALUES (1, 'kepler-main');");
    for (int k = 1; k <= NTICKS; k++)
        used += (size_t)snprintf(sql + used, sizeof sql - used,
            "INSERT INTO node_attr(model_id, tick_id, zone, delta_uj, active_uj, idle_uj, flags)"
            " VALUES (1, %d, 'package', 10000000, 6000000, 4000000, 0);"
            "INSERT INTO work_attr(model_id, tick_id, level, process_id, key, zone, energy_uj) VALUES"
            " (1, %d, 4, NULL, 'u-1', 'package', 2000000), (1, %d, 4, NULL, 'u-2', 'package', 1000000);",
            k + 1, k + 1, k + 1);
    trun_exec(path, sql);
}

static const wc_xp_ref *ref_row(const wc_xp_one *x, const char *key)
{
    for (size_t i = 0; i < x->nref; i++)
        if (!strcmp(x->ref[i].level, "vm") && !strcmp(x->ref[i].key, key))
            return &x->ref[i];
    return NULL;
}

Test(exporter_vm, vm_rows_matched_by_vm_id)
{
    char path[512];
    snprintf(path, sizeof path, "%s/xvm.db", wc_test_tmpdir());
    build(path);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_exporter_info info[1];
    size_t n = 0;
    cr_assert_eq(wc_store_exporters(st, info, 1, &n, &err), 0, "%s", err.msg);
    wc_xp_data d;
    cr_assert_eq(wc_xp_load(st, &info[0], &d, &err), 0, "%s", err.msg);
    static wc_xp_one x;
    memset(&x, 0, sizeof x);
    x.info = info[0];
    wc_boot_cfg boot = {0};
    cr_assert_eq(wc_xp_reference(st, 1, "kepler-main", &d, &boot, &x, &err), 0, "%s", err.msg);
    const wc_xp_ref *a = ref_row(&x, "u-1"), *b = ref_row(&x, "u-2");
    cr_assert_not_null(a, "%zu rows; %s", x.nref, x.ref_note);
    cr_assert_not_null(b);
    const wc_xp_ref *g = ref_row(&x, "ghost");
    cr_assert_not_null(g);
    cr_assert_float_eq(g->ref_j, 0, 0);
    cr_assert_gt(g->exp_j, 10);
    cr_assert_str_eq(a->name, "guest1");
    cr_assert_geq(a->n, 15);
    cr_assert_float_eq(a->exp_j / a->ref_j, 1.2, 1e-9, "%g / %g", a->exp_j, a->ref_j);
    cr_assert_float_eq(a->bias_pct.est, 20, 1e-6);
    cr_assert_float_eq(b->exp_j, b->ref_j, 1e-9);
    cr_assert(strstr(x.ref_note, "VMs by vm_id"), "%s", x.ref_note);
    wc_xp_free(&d);
    wc_store_close(st);
}
