/*
 * test_rapl_cases.c — RAPL discovery and reads (collector/meter/meter_rapl.c)
 * on the project's own powercap fixtures (tests/fixtures/sysfs): the node
 * tree (package, disabled core subzone, a package whose socket id differs
 * from its index, an MMIO twin), the malformed trees of rapl-edge/ (what
 * intel/powertelemetry's scenarios cover), and two-read trees built from
 * rapl-cases/ for the shared bug cases B07 (psys index), B08 (subzone names),
 * B09 (MMIO duplicate), B25 (a package vanishes) and B05 (EACCES, as nobody).
 * test_meter_rapl.c proves the same on the shared fixtures.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
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

#define NODE "sysfs/node"
#define EDGE "sysfs/rapl-edge/"
#define CASES "sysfs/rapl-cases/"

/* ---- helpers ----------------------------------------------------------- */

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

/* The data rows of a rapl-cases CSV, each split into trimmed fields. */
typedef struct csv_rows {
    char *text;
    char *f[16][5];
    int nf[16];
    int n;
} csv_rows;

static void read_csv(const char *rel, csv_rows *rows)
{
    rows->text = wc_test_slurp(wc_own_fixture(rel), NULL);
    rows->n = 0;
    char *save = NULL;
    for (char *l = strtok_r(rows->text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] == '#')
            continue;
        cr_assert_lt(rows->n, 16);
        int k = 0;
        char *s2 = NULL;
        for (char *tok = strtok_r(l, ",", &s2); tok && k < 5; tok = strtok_r(NULL, ",", &s2)) {
            tok += strspn(tok, " ");
            rows->f[rows->n][k++] = tok;
        }
        rows->nf[rows->n++] = k;
    }
}

/* A two-read tree: every zone gets name/energy at t0; returns the tmp root.
 * t1[] gets each row's second value, entry[] its directory. */
typedef struct two_reads {
    char *root;
    wc_meter m;
    wc_reading a[16], b[16];
} two_reads;

/* Discovers tr->root, reads, applies t1 to entries, reads again. */
static void read_twice(two_reads *tr, char *const *entry, const uint64_t *t1, int n)
{
    wc_error err;
    cr_assert_eq(discover_at(&tr->m, tr->root, &err), 0, "%s", err.msg);
    cr_assert_leq(tr->m.nzones, 16);
    cr_assert_eq(wc_meter_read(&tr->m, tr->a, &err), 0, "%s", err.msg);
    for (int i = 0; i < n; i++)
        put_u64(tr->root, entry[i], "energy_uj", t1[i]);
    cr_assert_eq(wc_meter_read(&tr->m, tr->b, &err), 0, "%s", err.msg);
}

static double watts_of(two_reads *tr, const char *name, int socket)
{
    int z = zone_named(&tr->m, name, socket);
    cr_assert_geq(z, 0, "no %s on socket %d: %s", name, socket, tr->m.description);
    return zone_watts(&tr->m, (size_t)z, tr->a, tr->b, WC_NS_PER_S);
}

/* ---- the node tree ----------------------------------------------------- */

Test(rapl_cases, node_tree_package_core_and_socket_from_name)
{
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, wc_own_fixture(NODE), &err), 0, "%s", err.msg);
    cr_assert_eq(m.nzones, 3, "zones: %zu (%s)", m.nzones, m.description);
    cr_assert_eq(m.provenance, WC_PROV_MEASURED);
    cr_assert_str_eq(m.ops->kind, "rapl");
    int pkg0 = zone_at(&m, "intel-rapl:0"), core = zone_at(&m, "intel-rapl:0:0");
    int pkg3 = zone_at(&m, "intel-rapl:1");
    cr_assert(pkg0 >= 0 && core >= 0 && pkg3 >= 0);
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
    z = &m.zones[pkg3];
    cr_assert_str_eq(z->name, "package");
    cr_assert_eq(z->socket, 3, "intel-rapl:1 named package-3 is socket 3");
    cr_assert_eq(z->index, 0);
    wc_reading r[3];
    cr_assert_eq(wc_meter_read(&m, r, &err), 0, "%s", err.msg);
    cr_assert_eq(r[pkg0].status, 0);
    cr_assert_eq(r[pkg0].value, 123456789012ull, "the MSR copy, not the MMIO one");
    cr_assert_eq(r[core].value, 45678901234ull);
    cr_assert_eq(r[pkg3].value, 98765432100ull);
    cr_assert_gt(r[pkg0].mono_ns, 0);
    cr_assert_not_null(strstr(m.description, "RAPL (powercap) at "), "%s", m.description);
    cr_assert_not_null(strstr(m.description, "/class/powercap: 2 packages, 1 core"), "%s",
                       m.description);
    cr_assert_not_null(strstr(m.description, "dropped 1 MMIO duplicate"), "%s", m.description);
    wc_meter_close(&m);
    wc_meter_close(&m);
}

/* ---- rapl-edge: malformed trees ---------------------------------------- */

Test(rapl_cases, odd_attributes_each_handled)
{
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, wc_own_fixture(EDGE "odd-attributes"), &err), 0, "%s", err.msg);
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
    cr_assert_eq(m.zones[dom].max_energy_range_uj, 0, "missing file");
    cr_assert_eq(m.zones[zone_at(&m, "intel-rapl:1")].socket, 1);
    cr_assert_eq(m.zones[zone_at(&m, "intel-rapl:1")].max_energy_range_uj, 0, "\"abcdef\"");
    int d20 = zone_at(&m, "intel-rapl:2:0");
    cr_assert_eq(m.zones[d20].socket, 2);
    cr_assert_eq(m.zones[d20].max_energy_range_uj, 0, "empty file is no range");
    cr_assert_eq(m.zones[zone_at(&m, "intel-rapl:3")].max_energy_range_uj, 0);
    int psys = zone_at(&m, "intel-rapl:4"), core = zone_at(&m, "intel-rapl:5");
    cr_assert_eq(m.zones[psys].socket, -1);
    cr_assert_str_eq(m.zones[core].name, "core");
    cr_assert_eq(m.zones[core].socket, -1, "top-level core has no package");
    cr_assert_eq(m.zones[core].parent, -1);
    wc_reading r[9];
    cr_assert_eq(wc_meter_read(&m, r, &err), 0, "%s", err.msg);
    cr_assert_eq(r[p0].value, 150000000000ull);
    cr_assert_eq(r[dom].status, 0);
    cr_assert_eq(r[dom].value, 0, "a real 0 uJ reading");
    cr_assert_eq(r[d01].value, 30000000000ull);
    cr_assert_eq(r[psys].value, 250000000000ull);
    wc_meter_close(&m);
}

/* A tree where nothing is measurable: -ENODEV naming class/powercap and why. */
static void expect_nodev(const char *root, const char *why)
{
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, root, &err), -ENODEV, "%s: %s", root, err.msg);
    char cls[4096];
    snprintf(cls, sizeof cls, "%s/class/powercap", root);
    cr_assert_not_null(strstr(err.msg, cls), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, why), "%s: %s", root, err.msg);
    cr_assert_eq(m.nzones, 0);
    wc_meter_close(&m);
}

Test(rapl_cases, name_empty_or_missing_is_no_zone)
{
    expect_nodev(wc_own_fixture(EDGE "name-empty"), "`name`");
    expect_nodev(wc_own_fixture(EDGE "name-missing"), "`name`");
}

Test(rapl_cases, zone_without_energy_attr)
{
    /* the package has no energy_uj and the subzone no name: nothing to measure */
    expect_nodev(wc_own_fixture(EDGE "no-counter-anywhere"), "energy_uj");
    wc_meter m;
    wc_error err;
    /* the dram has no energy_uj: the package alone */
    cr_assert_eq(discover_at(&m, wc_own_fixture(EDGE "dram-without-counter"), &err), 0, "%s",
                 err.msg);
    cr_assert_eq(m.nzones, 1);
    cr_assert_str_eq(m.zones[0].name, "package");
    cr_assert_eq(m.zones[0].socket, 0);
    cr_assert_eq(m.zones[0].max_energy_range_uj, 262143328850ull);
    cr_assert_not_null(strstr(m.description, "skipped 1 zone"), "%s", m.description);
    wc_meter_close(&m);
    /* the package has no energy_uj: the dram alone, still on socket 0 */
    cr_assert_eq(discover_at(&m, wc_own_fixture(EDGE "package-without-counter"), &err), 0, "%s",
                 err.msg);
    cr_assert_eq(m.nzones, 1);
    cr_assert_str_eq(m.zones[0].name, "dram");
    cr_assert_eq(m.zones[0].socket, 0, "socket from the parent's name package-0");
    cr_assert_eq(m.zones[0].parent, -1, "the parent is not a zone");
    wc_reading r[1];
    cr_assert_eq(wc_meter_read(&m, r, &err), 0, "%s", err.msg);
    cr_assert_eq(r[0].value, 30000000000ull);
    wc_meter_close(&m);
}

Test(rapl_cases, package_id_differs_from_index)
{
    /* As written the zone has only a name: not measurable. */
    expect_nodev(wc_own_fixture(EDGE "name-only"), "energy_uj");
    /* With a counter added, intel-rapl:1 named package-0 is socket 0, no error. */
    char name[4096];
    cr_assert_not_null(realpath(wc_own_fixture(EDGE "name-only/class/powercap/intel-rapl:1/name"),
                                name));
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
    free(tmp);
}

/* ---- two-read trees from rapl-cases/ ------------------------------------ */

Test(rapl_cases, psys_index_socket_from_name_psys_apart)
{
    csv_rows rows;
    read_csv(CASES "psys-index.csv", &rows);
    cr_assert_eq(rows.n, 5);
    two_reads tr = {.root = dup_path(wc_test_tmpdir())};
    put(tr.root, "intel-rapl", "enabled", "1\n");
    uint64_t t1[16];
    char *entry[16];
    for (int i = 0; i < rows.n; i++) {
        cr_assert_eq(rows.nf[i], 5);
        char text[80];
        snprintf(text, sizeof text, "%s\n", rows.f[i][1]);
        put(tr.root, rows.f[i][0], "name", text);
        snprintf(text, sizeof text, "%s\n", rows.f[i][2]);
        put(tr.root, rows.f[i][0], "enabled", text);
        put_u64(tr.root, rows.f[i][0], "energy_uj", strtoull(rows.f[i][3], NULL, 10));
        t1[i] = strtoull(rows.f[i][4], NULL, 10);
        entry[i] = rows.f[i][0];
    }
    read_twice(&tr, entry, t1, rows.n);
    cr_assert_eq(tr.m.nzones, 5);
    int pk1 = zone_named(&tr.m, "package", 1), dr1 = zone_named(&tr.m, "dram", 1);
    int ps = zone_named(&tr.m, "psys", -1);
    cr_assert_eq(pk1, zone_at(&tr.m, "intel-rapl:2"), "package-1 lives at intel-rapl:2");
    cr_assert_eq(dr1, zone_at(&tr.m, "intel-rapl:2:0"));
    cr_assert_eq(tr.m.zones[dr1].parent, pk1);
    cr_assert_eq(tr.m.zones[ps].parent, -1);
    cr_assert_eq(tr.m.zones[ps].enabled, 0);
    double pk0w = watts_of(&tr, "package", 0), pk1w = watts_of(&tr, "package", 1);
    double dr0w = watts_of(&tr, "dram", 0), dr1w = watts_of(&tr, "dram", 1);
    cr_assert_float_eq(pk0w, 150.0, 1e-9);
    cr_assert_float_eq(dr0w, 9.0, 1e-9);
    cr_assert_float_eq(pk1w, 170.0, 1e-9);
    cr_assert_float_eq(dr1w, 10.0, 1e-9);
    cr_assert_float_eq(watts_of(&tr, "psys", -1), 400.0, 1e-9);
    cr_assert_float_eq(pk0w + pk1w + dr0w + dr1w, 339.0, 1e-9, "psys never added");
    cr_assert_not_null(strstr(tr.m.description, ": 2 packages, 2 dram, psys"), "%s",
                       tr.m.description);
    wc_meter_close(&tr.m);
    free(tr.root);
    free(rows.text);
}

Test(rapl_cases, subzone_named_by_its_name_file)
{
    csv_rows rows;
    read_csv(CASES "subzone-names.csv", &rows);
    cr_assert_eq(rows.n, 4);
    two_reads tr = {.root = dup_path(wc_test_tmpdir())};
    uint64_t t1[16];
    char *entry[16];
    for (int i = 0; i < rows.n; i++) {
        cr_assert_eq(rows.nf[i], 4);
        char text[80];
        snprintf(text, sizeof text, "%s\n", rows.f[i][1]);
        put(tr.root, rows.f[i][0], "name", text);
        put_u64(tr.root, rows.f[i][0], "energy_uj", strtoull(rows.f[i][2], NULL, 10));
        t1[i] = strtoull(rows.f[i][3], NULL, 10);
        entry[i] = rows.f[i][0];
    }
    read_twice(&tr, entry, t1, rows.n);
    int s0 = zone_at(&tr.m, "intel-rapl:0:0"), s1 = zone_at(&tr.m, "intel-rapl:1:0");
    cr_assert_str_eq(tr.m.zones[s0].name, "dram", "the first subzone is dram here, not core");
    cr_assert_str_eq(tr.m.zones[s1].name, "dram", "not uncore");
    cr_assert_eq(zone_named(&tr.m, "core", 0), -1);
    cr_assert_eq(zone_named(&tr.m, "uncore", 1), -1);
    cr_assert_eq(tr.m.zones[s0].enabled, -1);
    double p0 = watts_of(&tr, "package", 0), p1 = watts_of(&tr, "package", 1);
    double d0 = watts_of(&tr, "dram", 0), d1 = watts_of(&tr, "dram", 1);
    cr_assert_float_eq(p0, 21.5, 1e-9);
    cr_assert_float_eq(d0, 2.25, 1e-9);
    cr_assert_float_eq(p1, 19.75, 1e-9);
    cr_assert_float_eq(d1, 2.5, 1e-9);
    cr_assert_float_eq(p0 + p1, 41.25, 1e-9);
    cr_assert_float_eq(p0 + p1 + d0 + d1, 46.0, 1e-9);
    wc_meter_close(&tr.m);
    free(tr.root);
    free(rows.text);
}

Test(rapl_cases, mmio_duplicate_dropped)
{
    csv_rows rows;
    read_csv(CASES "mmio-duplicate.csv", &rows);
    cr_assert_eq(rows.n, 7);
    two_reads tr = {.root = dup_path(wc_test_tmpdir())};
    const uint64_t base_uj = 1000000000ull;
    uint64_t t1[16];
    char *entry[16];
    int nzone = 0;
    for (int i = 0; i < rows.n; i++) {
        if (rows.nf[i] == 1) { /* a control type: a directory without a name */
            put(tr.root, rows.f[i][0], "enabled", "1\n");
            continue;
        }
        cr_assert_eq(rows.nf[i], 3);
        char text[80];
        snprintf(text, sizeof text, "%s\n", rows.f[i][1]);
        put(tr.root, rows.f[i][0], "name", text);
        put_u64(tr.root, rows.f[i][0], "energy_uj", base_uj);
        t1[nzone] = base_uj + strtoull(rows.f[i][2], NULL, 10);
        entry[nzone++] = rows.f[i][0];
    }
    read_twice(&tr, entry, t1, nzone);
    cr_assert_eq(tr.m.nzones, 4, "%s", tr.m.description);
    cr_assert_eq(zone_at(&tr.m, "intel-rapl-mmio:0"), -1);
    int pkg = zone_named(&tr.m, "package", 0);
    cr_assert_eq(pkg, zone_at(&tr.m, "intel-rapl:0"), "the MSR package, not the MMIO copy");
    cr_assert_eq(tr.m.zones[zone_named(&tr.m, "core", 0)].parent, pkg);
    cr_assert_eq(tr.m.zones[zone_named(&tr.m, "uncore", 0)].parent, pkg);
    cr_assert_eq(tr.m.zones[zone_named(&tr.m, "psys", -1)].parent, -1);
    /* Non-overlapping top-level CPU zones: only the one package. */
    double cpu_watts = 0;
    for (size_t z = 0; z < tr.m.nzones; z++)
        if (tr.m.zones[z].parent < 0 && strcmp(tr.m.zones[z].name, "package") == 0)
            cpu_watts += zone_watts(&tr.m, z, tr.a, tr.b, WC_NS_PER_S);
    cr_assert_float_eq(cpu_watts, 12.5, 1e-9, "never both copies (24.7 W)");
    cr_assert_float_eq(watts_of(&tr, "psys", -1), 30.75, 1e-9);
    cr_assert_float_eq(watts_of(&tr, "core", 0), 7.25, 1e-9);
    cr_assert_float_eq(watts_of(&tr, "uncore", 0), 1.1, 1e-9);
    cr_assert_not_null(strstr(tr.m.description, "dropped 1 MMIO duplicate"), "%s",
                       tr.m.description);
    wc_meter_close(&tr.m);
    free(tr.root);
    free(rows.text);
}

Test(rapl_cases, vanished_package_reads_enoent)
{
    char *listing = wc_test_slurp(wc_own_fixture(CASES "package-offline.txt"), NULL);
    char *tmp = dup_path(wc_test_tmpdir());
    char absent[64] = "", kept[64] = "";
    char *save = NULL;
    for (char *l = strtok_r(listing, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char state[16], entry[64], name[64];
        if (l[0] == '#' || sscanf(l, "%15s %63s %63s", state, entry, name) != 3)
            continue;
        char text[80];
        snprintf(text, sizeof text, "%s\n", name);
        put(tmp, entry, "name", text);
        int gone = strcmp(state, "vanishes") == 0;
        put_u64(tmp, entry, "energy_uj", gone ? 2000000 : 1000000);
        snprintf(gone ? absent : kept, 64, "%s", entry);
    }
    free(listing);
    cr_assert_str_eq(absent, "intel-rapl:1");
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), 0, "%s", err.msg);
    cr_assert_eq(m.nzones, 2);
    int gone = zone_at(&m, absent), stay = zone_at(&m, kept);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/class/powercap/%s", tmp, absent);
    cr_assert_eq(wc_remove_tree(dir), 0);
    wc_reading r[2];
    cr_assert_eq(wc_meter_read(&m, r, &err), -ENOENT, "%s", err.msg);
    cr_assert_eq(r[gone].status, -ENOENT, "unavailable, not 0 J");
    cr_assert_eq(r[stay].status, 0);
    cr_assert_eq(r[stay].value, 1000000);
    char file[4200];
    snprintf(file, sizeof file, "%s/energy_uj", dir);
    cr_assert_not_null(strstr(err.msg, file), "%s", err.msg);
    wc_meter_close(&m);
    free(tmp);
}

/* Applies the modes of eacces-modes.txt to <root>/class/powercap/intel-rapl:0. */
static void apply_modes(const char *root)
{
    char *text = wc_test_slurp(wc_own_fixture(CASES "eacces-modes.txt"), NULL);
    int applied = 0;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char file[64];
        unsigned mode;
        if (l[0] == '#' || sscanf(l, "%63s %o", file, &mode) != 2)
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/class/powercap/intel-rapl:0/%s", root, file);
        cr_assert_eq(chmod(path, (mode_t)mode), 0, "chmod %s", path);
        applied++;
    }
    free(text);
    cr_assert_eq(applied, 3);
}

Test(rapl_cases, eacces_names_file_and_fix)
{
    if (geteuid() != 0)
        cr_skip_test("needs root to create root-owned 0400 files and drop to nobody");
    char *tmp = dup_path(wc_test_tmpdir());
    cr_assert_eq(chmod(tmp, 0755), 0);
    put(tmp, "intel-rapl:0", "name", "package-0\n");
    put_u64(tmp, "intel-rapl:0", "energy_uj", 150000000000ull);
    put_u64(tmp, "intel-rapl:0", "max_energy_range_uj", 262143328850ull);
    apply_modes(tmp);
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

/* Builds the zones of one step of package-returns.txt below root. */
static void put_step(const char *root, const char *step)
{
    char *text = wc_test_slurp(wc_own_fixture(CASES "package-returns.txt"), NULL);
    char *save = NULL;
    int n = 0;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char st[16], entry[64], name[64], line[80];
        unsigned long long e, max;
        if (l[0] == '#' || sscanf(l, "%15s %63s %63s %llu %llu", st, entry, name, &e, &max) != 5 ||
            strcmp(st, step) != 0)
            continue;
        snprintf(line, sizeof line, "%s\n", name);
        put(root, entry, "name", line);
        put_u64(root, entry, "energy_uj", e);
        put_u64(root, entry, "max_energy_range_uj", max);
        n++;
    }
    free(text);
    cr_assert_gt(n, 0, "no step %s", step);
}

/* Issue 14 item 6 (cases/B25): a vanished package is looked for again on
 * every read; a directory named otherwise is not it; when it comes back at
 * another index its name and range are read again and the meter says the
 * layout changed (the recorder rewrites the zone rows). */
Test(rapl_cases, vanished_package_is_rediscovered_with_name_and_range_reread)
{
    char *tmp = dup_path(wc_test_tmpdir());
    put_step(tmp, "before");
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, tmp, &err), 0, "%s", err.msg);
    int z = zone_named(&m, "package", 1);
    cr_assert_geq(z, 0);
    cr_assert_eq(m.layout_version, 0);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/class/powercap/intel-rapl:1", tmp);
    cr_assert_eq(wc_remove_tree(dir), 0);
    wc_reading r[2];
    cr_assert_eq(wc_meter_read(&m, r, &err), -ENOENT);
    cr_assert_eq(r[z].status, -ENOENT);
    /* intel-rapl:1 comes back as another package: not this zone */
    put_step(tmp, "stranger");
    cr_assert_eq(wc_meter_read(&m, r, &err), -ENOENT);
    cr_assert_eq(r[z].status, -ENOENT, "a zone named package-7 is not package-1");
    cr_assert_not_null(strstr(err.msg, "still absent"), "%s", err.msg);
    /* package-1 returns at intel-rapl:3 with another range */
    put_step(tmp, "after");
    cr_assert_eq(wc_meter_read(&m, r, &err), 0, "%s", err.msg);
    cr_assert_eq(r[z].status, 0);
    cr_assert_eq(r[z].value, 5000000);
    cr_assert_eq(zone_at(&m, "intel-rapl:3"), z, "%s", m.zones[z].path);
    cr_assert_eq(m.zones[z].max_energy_range_uj, 65532610987ull);
    cr_assert_str_eq(m.zones[z].raw_name, "package-1");
    cr_assert_eq(m.zones[z].socket, 1);
    cr_assert_eq(m.layout_version, 1);
    /* reads on: no further change */
    cr_assert_eq(wc_meter_read(&m, r, &err), 0, "%s", err.msg);
    cr_assert_eq(m.layout_version, 1);
    wc_meter_close(&m);
    free(tmp);
}

/* Issue 14 item 1 (tests/fixtures/sysfs/rapl-dies/mirrored, codecarbon#1274):
 * two die zones of one socket mirroring one counter are one zone. */
Test(rapl_cases, mirrored_die_zones_are_counted_once)
{
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, wc_own_fixture("sysfs/rapl-dies/mirrored"), &err), 0, "%s",
                 err.msg);
    cr_assert_eq(m.nzones, 1, "a mirrored copy is not a second package");
    cr_assert_str_eq(m.zones[0].name, "package");
    cr_assert_str_eq(m.zones[0].raw_name, "package-0-die-0");
    cr_assert_eq(m.zones[0].socket, 0);
    cr_assert_eq(m.zones[0].dies, 2);
    cr_assert_eq(m.zones[0].dies_mirrored, 1);
    cr_assert_not_null(strstr(m.description, "1 package; package-0: 2 die zones mirror one "
                                             "counter, counted once"), "%s", m.description);
    wc_reading r[1];
    cr_assert_eq(wc_meter_read(&m, r, &err), 0, "%s", err.msg);
    cr_assert_eq(r[0].value, 81234567890ull);
    wc_meter_close(&m);
}

/* Issue 14 item 1 (rapl-dies/distinct, raplcap#9): dies with counters of
 * their own stay zones of their socket, summed per socket. */
Test(rapl_cases, distinct_die_zones_are_summed_per_socket)
{
    wc_meter m;
    wc_error err;
    cr_assert_eq(discover_at(&m, wc_own_fixture("sysfs/rapl-dies/distinct"), &err), 0, "%s",
                 err.msg);
    cr_assert_eq(m.nzones, 4);
    for (int s = 0; s < 2; s++)
        for (int d = 0; d < 2; d++) {
            char entry[32];
            snprintf(entry, sizeof entry, "intel-rapl:%d", 2 * s + d);
            int z = zone_at(&m, entry);
            cr_assert_geq(z, 0, "%s", entry);
            cr_assert_eq(m.zones[z].socket, s, "%s", entry);
            cr_assert_eq(m.zones[z].index, d, "%s", entry);
            cr_assert_eq(m.zones[z].dies, 2, "%s", entry);
            cr_assert_eq(m.zones[z].dies_mirrored, 0, "%s", entry);
        }
    cr_assert_not_null(strstr(m.description, "4 package zones on 2 sockets; package-0: 2 distinct "
                                             "die zones, summed; package-1: 2 distinct die zones, "
                                             "summed"), "%s", m.description);
    wc_meter_close(&m);
}
