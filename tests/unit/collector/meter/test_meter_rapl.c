/*
 * test_meter_rapl.c — RAPL discovery and reads over real fixture trees
 * (Kepler's and node_exporter's testdata, intel/powertelemetry's scenarios)
 * and over temporary trees built from the bug cases' CSVs: B07 (socket from
 * the name, psys apart), B08 (subzones named by their `name`), B09 (MMIO
 * duplicate dropped), B25 (a package vanishes), B05 (EACCES, as nobody).
 * Powers are computed from two reads 1 s apart (the fixtures' t0/t1) through
 * counter.c, as the sampler does.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/meter/counter.h"
#include "collector/meter/meter_rapl.h"
#include "common/wc_clock.h"
#include "common/wc_tmptree.h"
#include "tests/unit/support/test_support.h"

/* ---- helpers ----------------------------------------------------------- */

/* rm -rf of a temporary tree. */
static void rm_tree(const char *dir) { (void)wc_remove_tree(dir); }

/* Copies the static path a test_support helper returned. */
static char *dup_path(const char *p)
{
    char *s = strdup(p);
    cr_assert_not_null(s);
    return s;
}

/* Index of the zone whose directory is class/powercap/<entry>, or -1. */
static int zone_at(const wc_meter *m, const char *entry)
{
    size_t el = strlen(entry);
    for (size_t i = 0; i < m->nzones; i++) {
        size_t pl = strlen(m->zones[i].path);
        if (pl > el && m->zones[i].path[pl - el - 1] == '/' &&
            strcmp(m->zones[i].path + pl - el, entry) == 0)
            return (int)i;
    }
    return -1;
}

/* Index of the zone with this domain name and socket, or -1. */
static int zone_named(const wc_meter *m, const char *name, int socket)
{
    for (size_t i = 0; i < m->nzones; i++)
        if (strcmp(m->zones[i].name, name) == 0 && m->zones[i].socket == socket)
            return (int)i;
    return -1;
}

/* Initialises and discovers a RAPL meter at root; returns discover's rc. */
static int discover_at(wc_meter *m, const char *root, wc_error *err)
{
    err->msg[0] = '\0';
    cr_assert_eq(wc_meter_rapl_init(m, root, err), 0, "%s", err->msg);
    return wc_meter_discover(m, err);
}

/* Writes <root>/class/powercap/<entry>/<file> = text. */
static void put(const char *root, const char *entry, const char *file, const char *text)
{
    char rel[512];
    snprintf(rel, sizeof rel, "class/powercap/%s/%s", entry, file);
    wc_test_write(root, rel, text);
}

static void put_u64(const char *root, const char *entry, const char *file, uint64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64 "\n", v);
    put(root, entry, file, text);
}

/* Creates <root>/class/powercap/<entry>/ with no `name` (a control type). */
static void put_control_dir(const char *root, const char *entry)
{
    put(root, entry, "enabled", "1\n");
}

/* Power of zone z between two readings taken `ns` apart, via counter.c. */
static double zone_watts(const wc_meter *m, size_t z, const wc_reading *a, const wc_reading *b,
                         int64_t ns)
{
    cr_assert_eq(a[z].status, 0, "zone %zu t0 status %d", z, a[z].status);
    cr_assert_eq(b[z].status, 0, "zone %zu t1 status %d", z, b[z].status);
    uint64_t d = 0;
    wc_delta_status st = wc_counter_delta(a[z].value, b[z].value, m->zones[z].max_energy_range_uj,
                                          ns, 0, &d);
    cr_assert(wc_delta_usable(st), "zone %s: %s", m->zones[z].path, wc_delta_status_name(st));
    return (double)d * 1e3 / (double)ns;
}

/* Splits a CSV line in place into at most max trimmed fields; returns count. */
static int split_csv(char *line, char **fields, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        size_t len = strlen(tok);
        while (len > 0 && (tok[len - 1] == ' ' || tok[len - 1] == '\r'))
            tok[--len] = '\0';
        fields[n++] = tok;
    }
    return n;
}

/* One data row of a powercap CSV (comments skipped), fields split. */
typedef struct csv_rows {
    char *text;
    char *lines[32];
    int n;
} csv_rows;

static void read_csv(const char *path, csv_rows *rows)
{
    rows->text = wc_test_slurp(path, NULL);
    rows->n = 0;
    char *save = NULL;
    for (char *l = strtok_r(rows->text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] == '#' || l[0] == '\0')
            continue;
        cr_assert_lt(rows->n, 32);
        rows->lines[rows->n++] = l;
    }
}

/* ---- real fixture trees ------------------------------------------------ */

Test(meter_rapl, kepler_testdata_tree)
{
    char *root = dup_path(wc_shared_fixture("kepler/internal/device/testdata/sys"));
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, root, &err), 0, "%s", err.msg);
    cr_assert_eq(m.nzones, 3, "zones: %zu (%s)", m.nzones, m.description);
    cr_assert_eq(m.provenance, WC_PROV_MEASURED);
    cr_assert_str_eq(m.ops->kind, "rapl");

    int pkg0 = zone_at(&m, "intel-rapl:0"), core = zone_at(&m, "intel-rapl:0:0");
    int pkg10 = zone_at(&m, "intel-rapl:a");
    cr_assert(pkg0 >= 0 && core >= 0 && pkg10 >= 0);
    cr_assert_eq(zone_at(&m, "intel-rapl-mmio:0"), -1, "MMIO duplicate of package-0 kept");

    const wc_zone *z = &m.zones[pkg0];
    cr_assert_str_eq(z->name, "package");
    cr_assert_str_eq(z->raw_name, "package-0");
    cr_assert_eq(z->socket, 0);
    cr_assert_eq(z->parent, -1);
    cr_assert_eq(z->enabled, 1);
    cr_assert_eq(z->max_energy_range_uj, 262143328850ull);
    cr_assert_eq(z->kind, WC_KIND_COUNTER_UJ);

    z = &m.zones[core];
    cr_assert_str_eq(z->name, "core");
    cr_assert_eq(z->socket, 0);
    cr_assert_eq(z->parent, pkg0);
    cr_assert_eq(z->enabled, 0, "enabled=0 is recorded, the zone still read");

    z = &m.zones[pkg10];
    cr_assert_str_eq(z->name, "package");
    cr_assert_eq(z->socket, 10, "intel-rapl:a named package-10 is socket 10");
    cr_assert_eq(z->index, 0);

    wc_reading r[3];
    cr_assert_eq(wc_meter_read(&m, r, &err), 0, "%s", err.msg);
    cr_assert_eq(r[pkg0].status, 0);
    cr_assert_eq(r[pkg0].value, 240422366267ull);
    cr_assert_eq(r[core].value, 118821284256ull);
    cr_assert_eq(r[pkg10].value, 240422366267ull);
    cr_assert_gt(r[pkg0].mono_ns, 0);

    cr_assert_not_null(strstr(m.description, "RAPL (powercap) at "), "%s", m.description);
    cr_assert_not_null(strstr(m.description, "/class/powercap: 2 packages, 1 core"), "%s",
                       m.description);
    cr_assert_not_null(strstr(m.description, "dropped 1 MMIO duplicate"), "%s", m.description);
    wc_meter_close(&m);
    wc_meter_close(&m); /* second close is a no-op */
    free(root);
}

Test(meter_rapl, node_exporter_tree)
{
    char *root = dup_path(wc_shared_fixture("corpus/sysfs/node-exporter-fixture/sys"));
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, root, &err), 0, "%s", err.msg);
    cr_assert_eq(m.nzones, 2);
    cr_assert_str_eq(m.zones[0].name, "package");
    cr_assert_eq(m.zones[0].socket, 0);
    cr_assert_str_eq(m.zones[1].name, "core");
    cr_assert_eq(m.zones[1].parent, 0);
    cr_assert_eq(m.zones[1].enabled, 0);
    wc_reading r[2];
    cr_assert_eq(wc_meter_read(&m, r, &err), 0, "%s", err.msg);
    cr_assert_eq(r[0].value, 240422366267ull);
    cr_assert_eq(r[1].value, 118821284256ull);
    cr_assert_eq(m.zones[0].max_energy_range_uj, 262143328850ull);
    wc_meter_close(&m);
    free(root);
}

/* Builds <tmp>/class/powercap with a symlink for every intel-rapl* directory
 * of a powertelemetry scenario, at the top and one level down (as the real
 * class/powercap flattens /sys/devices/virtual/powercap). Returns tmp. */
static char *link_scenario(const char *scenario)
{
    char *tmp = dup_path(wc_test_tmpdir());
    char cls[4096];
    snprintf(cls, sizeof cls, "%s/class", tmp);
    cr_assert_eq(mkdir(cls, 0755), 0);
    snprintf(cls, sizeof cls, "%s/class/powercap", tmp);
    cr_assert_eq(mkdir(cls, 0755), 0);
    for (int depth = 0; depth < 2; depth++) {
        DIR *d = opendir(scenario);
        cr_assert_not_null(d, "%s", scenario);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strncmp(e->d_name, "intel-rapl", 10) != 0)
                continue;
            char top[4096];
            snprintf(top, sizeof top, "%s/%s", scenario, e->d_name);
            if (depth == 0) {
                char link[4400];
                snprintf(link, sizeof link, "%s/%s", cls, e->d_name);
                cr_assert_eq(symlink(top, link), 0, "symlink %s", link);
                continue;
            }
            DIR *sd = opendir(top);
            cr_assert_not_null(sd);
            struct dirent *se;
            while ((se = readdir(sd)) != NULL) {
                if (strncmp(se->d_name, "intel-rapl", 10) != 0)
                    continue;
                char target[4400], link[4400];
                snprintf(target, sizeof target, "%s/%s", top, se->d_name);
                snprintf(link, sizeof link, "%s/%s", cls, se->d_name);
                cr_assert_eq(symlink(target, link), 0, "symlink %s", link);
            }
            closedir(sd);
        }
        closedir(d);
    }
    return tmp;
}

static char *scenario_root(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "corpus/sysfs/intel-powertelemetry-scenarios/%s", name);
    char *dir = dup_path(wc_shared_fixture(rel));
    char *tmp = link_scenario(dir);
    free(dir);
    return tmp;
}

Test(meter_rapl, powertelemetry_full_tree)
{
    char *tmp = scenario_root("intel-rapl");
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), 0, "%s", err.msg);
    /* ten named entries; intel-rapl:1:0 ("socket") has no energy_uj: skipped */
    cr_assert_eq(m.nzones, 9, "%zu zones: %s", m.nzones, m.description);
    cr_assert_eq(zone_at(&m, "intel-rapl:1:0"), -1);
    cr_assert_not_null(strstr(m.description, "skipped 1 zone without readable energy_uj "
                                             "(intel-rapl:1:0)"), "%s", m.description);

    int p0 = zone_at(&m, "intel-rapl:0"), d01 = zone_at(&m, "intel-rapl:0:1");
    cr_assert(p0 >= 0 && d01 >= 0);
    cr_assert_str_eq(m.zones[d01].name, "dram");
    cr_assert_eq(m.zones[d01].socket, 0);
    cr_assert_eq(m.zones[d01].parent, p0);
    cr_assert_eq(m.zones[d01].max_energy_range_uj, 65712999613ull);
    cr_assert_eq(m.zones[p0].enabled, -1, "no enabled file");

    int dom = zone_at(&m, "intel-rapl:0:0");
    cr_assert_str_eq(m.zones[dom].name, "domain");
    cr_assert_eq(m.zones[dom].max_energy_range_uj, 0);

    int p1 = zone_at(&m, "intel-rapl:1");
    cr_assert_eq(m.zones[p1].socket, 1);
    cr_assert_eq(m.zones[p1].max_energy_range_uj, 0, "\"abcdef\" is no range");
    int d20 = zone_at(&m, "intel-rapl:2:0");
    cr_assert_eq(m.zones[d20].socket, 2);
    cr_assert_eq(m.zones[d20].max_energy_range_uj, 0, "empty file is no range");
    cr_assert_eq(m.zones[zone_at(&m, "intel-rapl:3")].max_energy_range_uj, 0, "missing file");
    int psys = zone_at(&m, "intel-rapl:4"), core = zone_at(&m, "intel-rapl:5");
    cr_assert_eq(m.zones[psys].socket, -1);
    cr_assert_str_eq(m.zones[core].name, "core");
    cr_assert_eq(m.zones[core].socket, -1, "top-level core has no package");
    cr_assert_eq(m.zones[core].parent, -1);

    wc_reading r[9];
    cr_assert_eq(wc_meter_read(&m, r, &err), 0, "%s", err.msg);
    cr_assert_eq(r[p0].value, 206999074695ull);
    cr_assert_eq(r[dom].status, 0);
    cr_assert_eq(r[dom].value, 0, "a real 0 µJ reading");
    cr_assert_eq(r[d01].value, 64155753419ull);
    cr_assert_eq(r[psys].value, 205888075695ull);
    wc_meter_close(&m);
    rm_tree(tmp);
    free(tmp);
}

/* A scenario where nothing is measurable: -ENODEV naming the directory. */
static void expect_nodev(const char *scenario, const char *why)
{
    char *tmp = scenario_root(scenario);
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), -ENODEV, "%s: %s", scenario, err.msg);
    char cls[4096];
    snprintf(cls, sizeof cls, "%s/class/powercap", tmp);
    cr_assert_not_null(strstr(err.msg, cls), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, why), "%s: %s", scenario, err.msg);
    cr_assert_eq(m.nzones, 0);
    wc_meter_close(&m);
    rm_tree(tmp);
    free(tmp);
}

Test(meter_rapl, powertelemetry_name_empty_or_missing_is_no_zone)
{
    expect_nodev("intel-rapl-domain-name-empty", "`name`");
    expect_nodev("intel-rapl-package-domain-name-not-exist", "`name`");
}

Test(meter_rapl, powertelemetry_zone_without_energy_attr)
{
    /* the package has no energy_uj and the dram no name: nothing to measure */
    expect_nodev("intel-rapl-dram-domain-name-not-exist", "energy_uj");

    /* the dram has no energy_uj: the package alone */
    char *tmp = scenario_root("intel-rapl-dram-curr-energy-attr-file-not-exist");
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), 0, "%s", err.msg);
    cr_assert_eq(m.nzones, 1);
    cr_assert_str_eq(m.zones[0].name, "package");
    cr_assert_eq(m.zones[0].socket, 0);
    cr_assert_eq(m.zones[0].max_energy_range_uj, 262143328850ull);
    cr_assert_not_null(strstr(m.description, "skipped 1 zone"), "%s", m.description);
    wc_meter_close(&m);
    rm_tree(tmp);
    free(tmp);

    /* the package has no energy_uj: the dram alone, still on socket 0 */
    tmp = scenario_root("intel-rapl-package-curr-energy-attr-file-not-exist");
    cr_assert_eq(discover_at(&m, tmp, &err), 0, "%s", err.msg);
    cr_assert_eq(m.nzones, 1);
    cr_assert_str_eq(m.zones[0].name, "dram");
    cr_assert_eq(m.zones[0].socket, 0, "socket from the parent's name package-0");
    cr_assert_eq(m.zones[0].parent, -1, "the parent is not a zone");
    wc_reading r[1];
    cr_assert_eq(wc_meter_read(&m, r, &err), 0, "%s", err.msg);
    cr_assert_eq(r[0].value, 64155753419ull);
    wc_meter_close(&m);
    rm_tree(tmp);
    free(tmp);
}

Test(meter_rapl, powertelemetry_package_id_differs_from_index)
{
    /* As shipped the zone has only a name: not measurable. */
    expect_nodev("intel-rapl-invalid-package-domain-name-id", "energy_uj");

    /* With a counter added, intel-rapl:1 named package-0 is socket 0, no error. */
    char *name = dup_path(wc_shared_fixture(
        "corpus/sysfs/intel-powertelemetry-scenarios/intel-rapl-invalid-package-domain-name-id/"
        "intel-rapl:1/name"));
    char *tmp = dup_path(wc_test_tmpdir());
    put_u64(tmp, "intel-rapl:1", "energy_uj", 1000);
    char link[4096];
    snprintf(link, sizeof link, "%s/class/powercap/intel-rapl:1/name", tmp);
    cr_assert_eq(symlink(name, link), 0);
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), 0, "%s", err.msg);
    cr_assert_eq(m.nzones, 1);
    cr_assert_str_eq(m.zones[0].name, "package");
    cr_assert_eq(m.zones[0].socket, 0);
    wc_meter_close(&m);
    rm_tree(tmp);
    free(tmp);
    free(name);
}

/* ---- trees built from the bug cases ------------------------------------ */

Test(meter_rapl, b07_socket_from_name_psys_apart)
{
    csv_rows rows;
    read_csv(wc_shared_fixture("cases/B07/powercap_tree.csv"), &rows);
    cr_assert_eq(rows.n, 5);
    char *tmp = dup_path(wc_test_tmpdir());
    put_control_dir(tmp, "intel-rapl");
    uint64_t t1[32];
    char *entry[32];
    for (int i = 0; i < rows.n; i++) {
        char *f[5];
        cr_assert_eq(split_csv(rows.lines[i], f, 5), 5);
        char text[80];
        snprintf(text, sizeof text, "%s\n", f[1]);
        put(tmp, f[0], "name", text);
        snprintf(text, sizeof text, "%s\n", f[2]);
        put(tmp, f[0], "enabled", text);
        put_u64(tmp, f[0], "energy_uj", strtoull(f[3], NULL, 10));
        t1[i] = strtoull(f[4], NULL, 10);
        entry[i] = f[0];
    }
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), 0, "%s", err.msg);
    cr_assert_eq(m.nzones, 5);
    wc_reading a[5], b[5];
    cr_assert_eq(wc_meter_read(&m, a, &err), 0, "%s", err.msg);
    for (int i = 0; i < rows.n; i++)
        put_u64(tmp, entry[i], "energy_uj", t1[i]);
    cr_assert_eq(wc_meter_read(&m, b, &err), 0, "%s", err.msg);

    int64_t s = WC_NS_PER_S; /* t1 - t0 = 1.000 s in the fixture */
    int pk0 = zone_named(&m, "package", 0), pk1 = zone_named(&m, "package", 1);
    int dr0 = zone_named(&m, "dram", 0), dr1 = zone_named(&m, "dram", 1);
    int ps = zone_named(&m, "psys", -1);
    cr_assert(pk0 >= 0 && pk1 >= 0 && dr0 >= 0 && dr1 >= 0 && ps >= 0, "%s", m.description);
    cr_assert_eq(pk1, zone_at(&m, "intel-rapl:2"), "package-1 lives at intel-rapl:2");
    cr_assert_eq(dr1, zone_at(&m, "intel-rapl:2:0"));
    cr_assert_eq(m.zones[dr1].parent, pk1);
    cr_assert_eq(m.zones[ps].parent, -1);
    cr_assert_eq(m.zones[ps].enabled, 0);
    double w_pk0 = zone_watts(&m, pk0, a, b, s), w_pk1 = zone_watts(&m, pk1, a, b, s);
    double w_dr0 = zone_watts(&m, dr0, a, b, s), w_dr1 = zone_watts(&m, dr1, a, b, s);
    double w_ps = zone_watts(&m, ps, a, b, s);
    cr_assert_float_eq(w_pk0, 185.0, 1e-9);
    cr_assert_float_eq(w_dr0, 12.0, 1e-9);
    cr_assert_float_eq(w_pk1, 240.0, 1e-9);
    cr_assert_float_eq(w_dr1, 11.0, 1e-9);
    cr_assert_float_eq(w_ps, 520.0, 1e-9);
    cr_assert_float_eq(w_pk0 + w_pk1 + w_dr0 + w_dr1, 448.0, 1e-9);
    cr_assert_not_null(strstr(m.description, ": 2 packages, 2 dram, psys"), "%s", m.description);
    wc_meter_close(&m);
    rm_tree(tmp);
    free(tmp);
    free(rows.text);
}

Test(meter_rapl, b08_subzone_named_by_its_name_file)
{
    csv_rows rows;
    read_csv(wc_shared_fixture("cases/B08/powercap_tree.csv"), &rows);
    cr_assert_eq(rows.n, 4);
    char *tmp = dup_path(wc_test_tmpdir());
    uint64_t t1[32];
    char *entry[32];
    for (int i = 0; i < rows.n; i++) {
        char *f[4];
        cr_assert_eq(split_csv(rows.lines[i], f, 4), 4);
        char text[80];
        snprintf(text, sizeof text, "%s\n", f[1]);
        put(tmp, f[0], "name", text);
        put_u64(tmp, f[0], "energy_uj", strtoull(f[2], NULL, 10));
        t1[i] = strtoull(f[3], NULL, 10);
        entry[i] = f[0];
    }
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), 0, "%s", err.msg);
    wc_reading a[4], b[4];
    cr_assert_eq(wc_meter_read(&m, a, &err), 0, "%s", err.msg);
    for (int i = 0; i < rows.n; i++)
        put_u64(tmp, entry[i], "energy_uj", t1[i]);
    cr_assert_eq(wc_meter_read(&m, b, &err), 0, "%s", err.msg);

    int s0 = zone_at(&m, "intel-rapl:0:0"), s1 = zone_at(&m, "intel-rapl:1:0");
    cr_assert_str_eq(m.zones[s0].name, "dram", "the first subzone is dram here, not core");
    cr_assert_str_eq(m.zones[s1].name, "dram", "not uncore");
    cr_assert_eq(zone_named(&m, "core", 0), -1);
    cr_assert_eq(zone_named(&m, "uncore", 1), -1);
    cr_assert_eq(m.zones[s0].enabled, -1);
    int64_t s = WC_NS_PER_S;
    double p0 = zone_watts(&m, (size_t)zone_named(&m, "package", 0), a, b, s);
    double p1 = zone_watts(&m, (size_t)zone_named(&m, "package", 1), a, b, s);
    double d0 = zone_watts(&m, (size_t)zone_named(&m, "dram", 0), a, b, s);
    double d1 = zone_watts(&m, (size_t)zone_named(&m, "dram", 1), a, b, s);
    cr_assert_float_eq(p0, 17.822326, 1e-9);
    cr_assert_float_eq(d0, 1.738454, 1e-9);
    cr_assert_float_eq(p1, 14.311183, 1e-9);
    cr_assert_float_eq(d1, 1.509426, 1e-9);
    cr_assert_float_eq(p0 + p1, 32.133509, 1e-9);
    cr_assert_float_eq(p0 + p1 + d0 + d1, 35.381389, 1e-9);
    wc_meter_close(&m);
    rm_tree(tmp);
    free(tmp);
    free(rows.text);
}

Test(meter_rapl, b09_mmio_duplicate_dropped)
{
    csv_rows rows;
    read_csv(wc_shared_fixture("cases/B09/powercap_flat_listing.csv"), &rows);
    cr_assert_eq(rows.n, 7);
    char *tmp = dup_path(wc_test_tmpdir());
    const uint64_t base_uj = 1000000000ull;
    uint64_t t1[32];
    char *entry[32];
    int nzone = 0;
    for (int i = 0; i < rows.n; i++) {
        /* strtok_r folds ",," so a control dir is just its entry */
        char *f[3];
        int nf = split_csv(rows.lines[i], f, 3);
        if (nf == 1) {
            put_control_dir(tmp, f[0]);
            continue;
        }
        cr_assert_eq(nf, 3);
        char text[80];
        snprintf(text, sizeof text, "%s\n", f[1]);
        put(tmp, f[0], "name", text);
        put_u64(tmp, f[0], "energy_uj", base_uj);
        t1[nzone] = base_uj + strtoull(f[2], NULL, 10);
        entry[nzone++] = f[0];
    }
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), 0, "%s", err.msg);
    cr_assert_eq(m.nzones, 4, "%s", m.description);
    cr_assert_eq(zone_at(&m, "intel-rapl-mmio:0"), -1);
    wc_reading a[4], b[4];
    cr_assert_eq(wc_meter_read(&m, a, &err), 0, "%s", err.msg);
    for (int i = 0; i < nzone; i++)
        put_u64(tmp, entry[i], "energy_uj", t1[i]);
    cr_assert_eq(wc_meter_read(&m, b, &err), 0, "%s", err.msg);

    int pkg = zone_named(&m, "package", 0), ps = zone_named(&m, "psys", -1);
    int core = zone_named(&m, "core", 0), unc = zone_named(&m, "uncore", 0);
    cr_assert(pkg >= 0 && ps >= 0 && core >= 0 && unc >= 0);
    cr_assert_eq(pkg, zone_at(&m, "intel-rapl:0"), "the MSR package, not the MMIO copy");
    cr_assert_eq(m.zones[core].parent, pkg);
    cr_assert_eq(m.zones[unc].parent, pkg);
    cr_assert_eq(m.zones[ps].parent, -1);
    int64_t s = WC_NS_PER_S;
    /* Non-overlapping top-level CPU zones: only the one package. */
    double cpu_watts = 0;
    for (size_t z = 0; z < m.nzones; z++)
        if (m.zones[z].parent < 0 && strcmp(m.zones[z].name, "package") == 0)
            cpu_watts += zone_watts(&m, z, a, b, s);
    cr_assert_float_eq(cpu_watts, 3.93, 1e-9);
    cr_assert_float_eq(zone_watts(&m, (size_t)ps, a, b, s), 9.61, 1e-9);
    cr_assert_float_eq(zone_watts(&m, (size_t)core, a, b, s), 0.84, 1e-9);
    cr_assert_float_eq(zone_watts(&m, (size_t)unc, a, b, s), 0.21, 1e-9);
    cr_assert_not_null(strstr(m.description, "dropped 1 MMIO duplicate"), "%s", m.description);
    wc_meter_close(&m);
    rm_tree(tmp);
    free(tmp);
    free(rows.text);
}

Test(meter_rapl, mmio_without_msr_twin_is_kept)
{
    char *tmp = dup_path(wc_test_tmpdir());
    put_control_dir(tmp, "intel-rapl-mmio");
    put(tmp, "intel-rapl-mmio:0", "name", "package-0\n");
    put_u64(tmp, "intel-rapl-mmio:0", "energy_uj", 5000);
    put(tmp, "intel-rapl:1", "name", "package-1\n"); /* another socket: not a twin */
    put_u64(tmp, "intel-rapl:1", "energy_uj", 6000);
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), 0, "%s", err.msg);
    cr_assert_eq(m.nzones, 2);
    cr_assert_eq(m.zones[zone_at(&m, "intel-rapl-mmio:0")].socket, 0);
    cr_assert_eq(m.zones[zone_at(&m, "intel-rapl:1")].socket, 1);
    wc_meter_close(&m);
    rm_tree(tmp);
    free(tmp);
}

Test(meter_rapl, name_forms_and_index)
{
    char *tmp = dup_path(wc_test_tmpdir());
    put(tmp, "intel-rapl:0", "name", "package-0-die-0\n");
    put_u64(tmp, "intel-rapl:0", "energy_uj", 1);
    put(tmp, "intel-rapl:1", "name", "package-0-die-1\n");
    put_u64(tmp, "intel-rapl:1", "energy_uj", 2);
    put(tmp, "intel-rapl:1:0", "name", "core\n");
    put_u64(tmp, "intel-rapl:1:0", "energy_uj", 3);
    put(tmp, "intel-rapl:2", "name", "package-x\n");
    put_u64(tmp, "intel-rapl:2", "energy_uj", 4);
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), 0, "%s", err.msg);
    cr_assert_eq(m.nzones, 4);
    cr_assert_str_eq(m.zones[0].name, "package");
    cr_assert_eq(m.zones[0].socket, 0);
    cr_assert_eq(m.zones[0].index, 0);
    cr_assert_str_eq(m.zones[1].name, "package");
    cr_assert_eq(m.zones[1].socket, 0);
    cr_assert_eq(m.zones[1].index, 1, "second die of socket 0");
    cr_assert_str_eq(m.zones[1].raw_name, "package-0-die-1");
    cr_assert_str_eq(m.zones[2].name, "core");
    cr_assert_eq(m.zones[2].socket, 0);
    cr_assert_eq(m.zones[2].parent, 1);
    cr_assert_str_eq(m.zones[3].name, "package-x", "not a number: kept whole");
    cr_assert_eq(m.zones[3].socket, -1);
    wc_meter_close(&m);
    rm_tree(tmp);
    free(tmp);
}

Test(meter_rapl, b25_vanished_package_reads_enoent)
{
    char *listing = wc_test_slurp(
        wc_shared_fixture("cases/B25/powercap_when_package1_offline.txt"), NULL);
    char *tmp = dup_path(wc_test_tmpdir());
    char absent[64] = "";
    char *save = NULL;
    int n = 0;
    for (char *l = strtok_r(listing, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char entry[64], name[64];
        if (sscanf(l, "/sys/class/powercap/%63[^/]/name = %63s", entry, name) == 2) {
            put(tmp, entry, "name", name);
            put_u64(tmp, entry, "energy_uj", 1000000 + (uint64_t)n++);
        } else if (sscanf(l, "/sys/class/powercap/%63s (absent)", entry) == 1 &&
                   strstr(l, "(absent)")) {
            /* present before the CPUs of its package went offline */
            snprintf(absent, sizeof absent, "%s", entry);
            put(tmp, entry, "name", "package-1\n");
            put_u64(tmp, entry, "energy_uj", 2000000);
        }
    }
    free(listing);
    cr_assert_str_eq(absent, "intel-rapl:1");
    cr_assert_eq(n, 1);

    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), 0, "%s", err.msg);
    cr_assert_eq(m.nzones, 2);
    int gone = zone_at(&m, absent), kept = zone_at(&m, "intel-rapl:0");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/class/powercap/%s", tmp, absent);
    rm_tree(dir);

    wc_reading r[2];
    cr_assert_eq(wc_meter_read(&m, r, &err), -ENOENT, "%s", err.msg);
    cr_assert_eq(r[gone].status, -ENOENT);
    cr_assert_eq(r[kept].status, 0);
    cr_assert_eq(r[kept].value, 1000000);
    char file[4200];
    snprintf(file, sizeof file, "%s/energy_uj", dir);
    cr_assert_not_null(strstr(err.msg, file), "%s", err.msg);
    wc_meter_close(&m);
    rm_tree(tmp);
    free(tmp);
}

Test(meter_rapl, no_powercap_is_enodev_naming_the_path)
{
    char *tmp = dup_path(wc_test_tmpdir());
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), -ENODEV);
    char cls[4096];
    snprintf(cls, sizeof cls, "%s/class/powercap", tmp);
    cr_assert_not_null(strstr(err.msg, cls), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "does not exist"), "%s", err.msg);
    wc_meter_close(&m);

    /* class/powercap with only control types: still no zone */
    put_control_dir(tmp, "intel-rapl");
    cr_assert_eq(discover_at(&m, tmp, &err), -ENODEV);
    cr_assert_not_null(strstr(err.msg, cls), "%s", err.msg);
    wc_meter_close(&m);
    rm_tree(tmp);
    free(tmp);
}

Test(meter_rapl, read_before_and_wrappers_on_null)
{
    wc_error err;
    cr_assert_eq(wc_meter_discover(NULL, &err), -EINVAL);
    cr_assert_eq(wc_meter_read(NULL, NULL, &err), -EINVAL);
    wc_meter_close(NULL);
    cr_assert_str_eq(wc_provenance_name(WC_PROV_MEASURED), "measured");
    cr_assert_str_eq(wc_provenance_name(WC_PROV_ESTIMATED), "estimated");
    cr_assert_str_eq(wc_provenance_name(WC_PROV_SIMULATED), "simulated");
    cr_assert_str_eq(wc_provenance_name(WC_PROV_GROUND_TRUTH), "ground truth");
}

/* Permission string "-r--------" of the B05 listing → mode bits. */
static mode_t mode_of(const char *perm)
{
    mode_t m = 0;
    static const mode_t bits[9] = {S_IRUSR, S_IWUSR, S_IXUSR, S_IRGRP, S_IWGRP,
                                   S_IXGRP, S_IROTH, S_IWOTH, S_IXOTH};
    for (int i = 0; i < 9; i++)
        if (perm[1 + i] != '-')
            m |= bits[i];
    return m;
}

/* Gives <root>/class/powercap/intel-rapl:0/<file> the mode B05 lists for it. */
static void apply_b05_modes(const char *root, const char *listing)
{
    int applied = 0;
    char *text = wc_test_slurp(listing, NULL);
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char perm[16], file[64];
        if (l[0] != '-' || sscanf(l, "%15s %*s %*s %*s %*s %*s %63s", perm, file) != 2)
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/class/powercap/intel-rapl:0/%s", root, file);
        cr_assert_eq(chmod(path, mode_of(perm)), 0, "chmod %s", path);
        applied++;
    }
    free(text);
    cr_assert_eq(applied, 3);
}

Test(meter_rapl, b05_eacces_names_file_and_fix)
{
    char *listing = dup_path(wc_shared_fixture("cases/B05/ls_energy_uj.txt"));
    if (geteuid() != 0)
        cr_skip_test("B05 needs root to create root-owned 0400 files and drop to nobody");
    char *tmp = dup_path(wc_test_tmpdir());
    cr_assert_eq(chmod(tmp, 0755), 0);
    put(tmp, "intel-rapl:0", "name", "package-0\n");
    put_u64(tmp, "intel-rapl:0", "energy_uj", 240422366267ull);
    put_u64(tmp, "intel-rapl:0", "max_energy_range_uj", 262143328850ull);
    apply_b05_modes(tmp, listing);
    free(listing);
    char file[4200];
    snprintf(file, sizeof file, "%s/class/powercap/intel-rapl:0/energy_uj", tmp);

    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(77);
        if (access(tmp, X_OK) != 0) /* a parent of the tree is closed to nobody */
            _exit(78);
        wc_meter m;
        wc_error err;
        int rc = wc_meter_rapl_init(&m, tmp, &err);
        if (rc == 0)
            rc = wc_meter_discover(&m, &err);
        int ok = rc == -EACCES && strstr(err.msg, file) && strstr(err.msg, "CVE-2020-8694") &&
                 strstr(err.msg, "CAP_DAC_READ_SEARCH") && strstr(err.msg, "udev");
        if (!ok)
            fprintf(stderr, "rc=%d err=%s\n", rc, err.msg);
        wc_meter_close(&m);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    rm_tree(tmp);
    free(tmp);
    cr_assert(WIFEXITED(status), "child died");
    if (WEXITSTATUS(status) == 77)
        cr_skip_test("setuid(65534) failed: cannot test EACCES as nobody here");
    if (WEXITSTATUS(status) == 78)
        cr_skip_test("uid 65534 cannot reach the test tree below TMPDIR (%s): EACCES cannot be"
                     " tested here (a private TMPDIR of mode 0700)", getenv("TMPDIR"));
    cr_assert_eq(WEXITSTATUS(status), 0, "discovery as nobody did not return -EACCES naming %s",
                 file);
}
