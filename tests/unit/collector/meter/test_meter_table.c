/*
 * test_meter_table.c — the table of meters (collector/meter/meter_table.c):
 * every --meter name is found and none other, the default is a hardware
 * meter in the table, the names read as the recorder's message lists them,
 * and a row's init opens the meter it names (rapl on a sysfs without
 * powercap: initialised, then -ENODEV at discovery, as record reports it;
 * sim: a simulated tree over this machine's /proc with the default model).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "collector/meter/meter_table.h"
#include "common/wc_tmptree.h"
#include "tests/unit/support/test_support.h"

Test(meter_table, finds_each_name_and_no_other)
{
    size_t n = 0;
    const wc_meter_kind *all = wc_meter_kinds(&n);
    cr_assert_eq(n, 2);
    cr_expect_str_eq(all[0].name, "rapl");
    cr_expect_str_eq(all[1].name, "sim");
    for (size_t i = 0; i < n; i++) {
        cr_expect_eq(wc_meter_find(all[i].name), &all[i]);
        cr_expect_not_null(all[i].init);
        cr_expect(all[i].help && all[i].help[0], "meter %s has no help line", all[i].name);
    }
    cr_expect_null(wc_meter_find("hwmon"));
    cr_expect_null(wc_meter_find("RAPL"));
    cr_expect_null(wc_meter_find(""));
    cr_expect_null(wc_meter_find(NULL));
    cr_expect_not_null(wc_meter_find(WC_METER_DEFAULT));
    cr_expect_eq(wc_meter_kinds(NULL), all);
}

Test(meter_table, names_for_messages)
{
    char buf[64];
    cr_expect_str_eq(wc_meter_names(buf, sizeof buf), "rapl or sim");
    char tiny[5];
    cr_expect_str_eq(wc_meter_names(tiny, sizeof tiny), "rapl");
}

Test(meter_table, init_opens_the_named_meter)
{
    const char *sysfs = wc_test_tmpdir(); /* no class/powercap below it */
    wc_meter_env env = {.sysfs_root = sysfs};
    wc_meter m;
    wc_error err = {{0}};
    cr_assert_eq(wc_meter_find("rapl")->init(&m, &env, &err), 0, "%s", err.msg);
    cr_expect_str_eq(m.ops->kind, "rapl");
    cr_expect_eq(m.provenance, WC_PROV_MEASURED);
    cr_expect_eq(wc_meter_discover(&m, &err), -ENODEV);
    wc_meter_close(&m);
    (void)wc_remove_tree(sysfs);
}

Test(meter_table, init_opens_the_simulated_node)
{
    wc_meter_env env = {.procfs_root = "/proc"}; /* sim NULL: the default model */
    wc_meter m;
    wc_error err = {{0}};
    cr_assert_eq(wc_meter_find("sim")->init(&m, &env, &err), 0, "%s", err.msg);
    cr_expect_str_eq(m.ops->kind, "sim");
    cr_expect_eq(m.provenance, WC_PROV_SIMULATED);
    cr_expect_not_null(wc_meter_sim_root(&m));
    cr_expect_eq(wc_meter_discover(&m, &err), 0, "%s", err.msg);
    cr_expect_eq(m.nzones, 5);
    wc_meter_close(&m);
}
