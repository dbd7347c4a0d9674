/*
 * test_exporter_blip.c — the second opinion's process level
 * (validator/exporter_procs.c) on a process that lives one tick and that the
 * exporter shows only once it ended (Kepler's terminated export): it must
 * still be matched to the recorded process by pid + comm, never read as
 * "no recorded process" beside a reference of 0 J (the demo's cc1 rows).
 * Ticks every second; model 1 gives process "steady" (pid 5) 1 J per tick and
 * process "blip" (pid 77) 3 J at one tick only (k = 10, the interval (9, 10]);
 * the exporter, scraped half a second after each tick, shows steady running
 * throughout and blip once, terminated, at 11.5 s (the refresh after it ended).
 */
#include <criterion/criterion.h>
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
#define BLIP_K 10

#define ACTIVE "kepler_node_cpu_active_joules_total{path=\"/sys/class/powercap/intel-rapl:0\"," \
               "zone=\"package\"} %d\n"
#define IDLE "kepler_node_cpu_idle_joules_total{path=\"/sys/class/powercap/intel-rapl:0\"," \
             "zone=\"package\"} %d\n"
#define PROC "kepler_process_cpu_joules_total{comm=\"%s\",container_id=\"\",pid=\"%d\"," \
             "state=\"%s\",zone=\"package\"} %d\n"

static void scrapes(trun *t)
{
    int64_t id = xp_put_exporter(t->st, "kepler:http://127.0.0.1:1/metrics", "n1");
    char text[1024];
    for (int k = 1; k <= NTICKS; k++) {
        int n = snprintf(text, sizeof text, ACTIVE IDLE PROC, 4 * k, 6 * k, "steady", 5, "running", k);
        if (k == BLIP_K + 1)
            snprintf(text + n, sizeof text - (size_t)n, PROC, "blip", 77, "terminated", 3);
        xp_put_scrape(t->st, id, S(k) + S(1) / 2, text);
    }
}

static void build(const char *path)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 1);
    double w = 10;
    for (int k = 0; k <= NTICKS; k++)
        trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
    scrapes(&t);
    trun_finish(&t);
    char sql[16384];
    size_t used = (size_t)snprintf(sql, sizeof sql,
        "INSERT INTO model VALUES (1, 'kepler-0.11');"
        "INSERT INTO process(id, pid, starttime, comm, first_tick_id, last_tick_id) VALUES"
        " (1, 5, 100, 'steady', 2, %d), (2, 77, 900, 'blip', %d, %d);",
        NTICKS + 1, BLIP_K + 1, BLIP_K + 1);
    for (int k = 1; k <= NTICKS; k++) /* tick id k + 1 is at k s */
        used += (size_t)snprintf(sql + used, sizeof sql - used,
            "INSERT INTO node_attr(model_id, tick_id, zone, delta_uj, active_uj, idle_uj, flags)"
            " VALUES (1, %d, 'package', 10000000, 4000000, 6000000, 0);"
            "INSERT INTO work_attr(model_id, tick_id, level, process_id, key, zone, energy_uj)"
            " VALUES (1, %d, 1, 1, '1', 'package', 1000000);", k + 1, k + 1);
    snprintf(sql + used, sizeof sql - used,
             "INSERT INTO work_attr(model_id, tick_id, level, process_id, key, zone, energy_uj)"
             " VALUES (1, %d, 1, 2, '2', 'package', 3000000);", BLIP_K + 1);
    trun_exec(path, sql);
}

static const wc_xp_ref *ref_row(const wc_xp_one *x, const char *name)
{
    for (size_t i = 0; i < x->nref; i++)
        if (!strcmp(x->ref[i].level, "process") && !strcmp(x->ref[i].name, name))
            return &x->ref[i];
    return NULL;
}

Test(exporter_blip, one_tick_process_exported_terminated_is_matched)
{
    char path[512];
    snprintf(path, sizeof path, "%s/xblip.db", wc_test_tmpdir());
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
    cr_assert_eq(wc_xp_reference(st, 1, "kepler-0.11", &d, &boot, &x, &err), 0, "%s", err.msg);
    const wc_xp_ref *b = ref_row(&x, "blip"), *s = ref_row(&x, "steady");
    cr_assert_not_null(b, "%zu rows; %s", x.nref, x.ref_note);
    cr_assert_not_null(s);
    cr_assert_str_eq(b->key, "pid 77 start 900", "the one-tick process is the recorded one");
    cr_assert_float_eq(b->ref_j, 3, 1e-9, "reference %g J", b->ref_j);
    cr_assert_float_eq(b->exp_j, b->ref_j, 1e-9, "exporter %g J, reference %g J", b->exp_j, b->ref_j);
    cr_assert_str_eq(s->key, "pid 5 start 100");
    for (size_t i = 0; i < x.nref; i++)
        cr_assert(!strstr(x.ref[i].key, "no recorded process"), "%s", x.ref[i].key);
    wc_xp_free(&d);
    wc_store_close(st);
}
