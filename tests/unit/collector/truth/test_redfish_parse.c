/*
 * test_redfish_parse.c — the Redfish ground-truth source without a BMC:
 *  - the pure parsers (redfish_parse.c) over every file of the shared corpus
 *    (corpus/redfish: DMTF mockups, Dell iDRAC9, HPE iLO 5, telegraf and
 *    Kepler fixtures, invalid JSON, issue excerpts), Kepler's
 *    public-rackmount mockup and cases/B22, with the exact watts / window /
 *    statistics or the reason a resource holds no reading;
 *  - the walk (truth_redfish.c) over those mockups served by a file-backed
 *    fetch function (<dir>/<path>/index.json), including the order of
 *    preference, caching and rediscovery, and HTTP 401/404/500, invalid JSON
 *    and transport failures injected per path;
 *  - the libcurl client on loopback only: connection refused and a silent
 *    server (timeout), plus SPEC/credential handling.
 * Shared fixtures are read in place; tests skip when they are absent.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "collector/truth/redfish_parse.h"
#include "collector/truth/truth.h"
#include "collector/truth/truth_table.h"
#include "common/wc_clock.h"
#include "common/wc_fs.h"
#include "tests/unit/support/test_support.h"

#define RF "corpus/redfish/"

/* ---- helpers ------------------------------------------------------------- */

/* Reads a shared fixture (skips the test when absent); caller frees. */
static char *fixture_text(const char *rel, size_t *len)
{
    return wc_test_slurp(wc_shared_fixture(rel), len);
}

/* Parses a Power (or bare PowerControl) fixture; returns the parser's rc. */
static int power_of(const char *rel, wc_redfish_power *pw, wc_error *err)
{
    size_t len;
    char *text = fixture_text(rel, &len);
    int rc = wc_redfish_parse_power_control(rel, text, len, pw, err);
    free(text);
    return rc;
}

static int env_of(const char *rel, wc_redfish_power *pw, wc_error *err)
{
    size_t len;
    char *text = fixture_text(rel, &len);
    int rc = wc_redfish_parse_environment_metrics(rel, text, len, pw, err);
    free(text);
    return rc;
}

static int supply_metrics_of(const char *rel, double *w, wc_error *err)
{
    size_t len;
    char *text = fixture_text(rel, &len);
    int rc = wc_redfish_parse_supply_metrics(rel, text, len, w, err);
    free(text);
    return rc;
}

static void expect_contains(const char *text, const char *needle)
{
    cr_expect(strstr(text, needle) != NULL, "expected '%s' in: %s", needle, text);
}

/* A fresh sample as wc_truth_poll prepares it. */
static wc_truth_sample blank_sample(void)
{
    wc_truth_sample t;
    memset(&t, 0, sizeof t);
    t.watts = t.min_watts = t.max_watts = t.avg_watts = NAN;
    return t;
}

/* ---- file-backed fetcher --------------------------------------------------- */

/* One injected answer for a service path. */
typedef struct route {
    const char *path;        /* service path, e.g. "/redfish/v1/Chassis/1/Power" */
    const char *file;        /* shared-fixture-relative file served as body, or NULL */
    const char *body;        /* inline body when file is NULL */
    long status;             /* HTTP status (0 means 200) */
    int transport_errno;     /* > 0: the fetch fails with -errno instead */
} route;

/* Serves <root>/<path below /redfish/v1>/index.json, routes first, 404 for
 * what is missing or hidden. */
typedef struct tree_fetcher {
    char root[4096];         /* directory playing /redfish/v1 ("" = routes only) */
    const route *routes;
    size_t nroutes;
    const char *hidden[4];   /* service paths answered 404 */
    unsigned long calls;
} tree_fetcher;

static int set_body(wc_redfish_response *resp, const char *text)
{
    resp->len = strlen(text);
    resp->body = strdup(text);
    return resp->body ? 0 : -ENOMEM;
}

static int serve_route(const route *r, wc_redfish_response *resp, wc_error *err)
{
    if (r->transport_errno > 0)
        return wc_error_set(err, -r->transport_errno, "mock://%s: injected transport failure (%s)",
                            r->path, strerror(r->transport_errno));
    resp->http_status = r->status ? r->status : 200;
    if (r->file)
        return wc_read_all(wc_shared_fixture(r->file), &resp->body, &resp->len, err);
    return set_body(resp, r->body ? r->body : "");
}

static int tree_fetch(void *ctx, const char *path, wc_redfish_response *resp, wc_error *err)
{
    tree_fetcher *f = ctx;
    f->calls++;
    for (size_t i = 0; i < f->nroutes; i++)
        if (strcmp(f->routes[i].path, path) == 0)
            return serve_route(&f->routes[i], resp, err);
    for (size_t i = 0; i < 4 && f->hidden[i]; i++)
        if (strcmp(f->hidden[i], path) == 0)
            goto not_found;
    if (f->root[0] && strncmp(path, "/redfish/v1", 11) == 0) {
        char rel[1024];
        snprintf(rel, sizeof rel, "%s", path + 11);
        size_t n = strlen(rel);
        while (n > 0 && rel[n - 1] == '/')
            rel[--n] = '\0';
        char file[8192];
        snprintf(file, sizeof file, "%s%s/index.json", f->root, rel);
        if (access(file, R_OK) == 0) {
            resp->http_status = 200;
            return wc_read_all(file, &resp->body, &resp->len, err);
        }
    }
not_found:
    resp->http_status = 404;
    return set_body(resp, "{\"error\":{\"code\":\"Base.1.0.ResourceNotFound\","
                          "\"message\":\"not found\"}}");
}

/* A fetcher over a shared mockup directory (the one playing /redfish/v1). */
static tree_fetcher tree(const char *rel)
{
    tree_fetcher f;
    memset(&f, 0, sizeof f);
    snprintf(f.root, sizeof f.root, "%s", wc_shared_fixture(rel));
    return f;
}

static wc_redfish_walker walker(tree_fetcher *f)
{
    wc_redfish_walker w;
    memset(&w, 0, sizeof w);
    w.fetch = tree_fetch;
    w.ctx = f;
    snprintf(w.service, sizeof w.service, "mock://bmc");
    snprintf(w.auth_hint, sizeof w.auth_hint, "check REDFISH_USER and REDFISH_PASSWORD");
    return w;
}

/* Discovers over a corpus mockup; returns the walk's rc and the sample. */
static int walk_dir(const char *rel, wc_truth_sample *out)
{
    tree_fetcher f = tree(rel);
    wc_redfish_walker w = walker(&f);
    *out = blank_sample();
    return wc_redfish_walk_poll(&w, out);
}

static void expect_ok(const wc_truth_sample *t, double watts, const char *path, double window_s,
                      int window_known)
{
    cr_expect_eq(t->status, WC_TRUTH_OK, "status %s: %s", wc_truth_status_name(t->status),
                 t->error);
    cr_expect_float_eq(t->watts, watts, 1e-9, "watts %g, want %g", t->watts, watts);
    cr_expect_str_eq(t->path, path);
    cr_expect_float_eq(t->window_s, window_s, 1e-9, "window %g", t->window_s);
    cr_expect_eq(t->window_known, window_known);
    cr_expect_eq(t->device_ts_ns, 0);
}

static void expect_unavailable(int rc, const wc_truth_sample *t, const char *reason)
{
    cr_expect_eq(rc, 0);
    cr_expect_eq(t->status, WC_TRUTH_UNAVAILABLE, "status %s", wc_truth_status_name(t->status));
    cr_expect(isnan(t->watts), "unavailable must not carry watts (got %g)", t->watts);
    expect_contains(t->error, reason);
}

/* ---- collections and chassis --------------------------------------------- */

typedef struct members_case {
    const char *file;
    size_t n;
    const char *first, *last;
    size_t dropped;
} members_case;

Test(redfish_parse, chassis_collections_of_every_mockup)
{
    static const members_case cases[] = {
        {RF "dmtf-mockupserver-2020-rackmount1/redfish/v1/Chassis/index.json", 1,
         "/redfish/v1/Chassis/1U", "/redfish/v1/Chassis/1U", 0},
        {RF "dmtf-mockupserver-2023-rackmount1/redfish/v1/Chassis/index.json", 1,
         "/redfish/v1/Chassis/1U", "/redfish/v1/Chassis/1U", 0},
        {RF "dmtf-pub-2026-acd/redfish/v1/Chassis/index.json", 1, "/redfish/v1/Chassis/1U",
         "/redfish/v1/Chassis/1U", 0},
        {RF "dmtf-pub-2026-bladed/redfish/v1/Chassis/index.json", 5,
         "/redfish/v1/Chassis/MultiBladeEncl", "/redfish/v1/Chassis/Blade4", 0},
        {RF "dmtf-pub-2026-catfish/redfish/v1/Chassis/index.json", 1, "/redfish/v1/Chassis/1",
         "/redfish/v1/Chassis/1", 0},
        {RF "dmtf-pub-2026-localstorage/redfish/v1/Chassis/index.json", 1,
         "/redfish/v1/Chassis/1U", "/redfish/v1/Chassis/1U", 0},
        {RF "dmtf-pub-2026-power-shelf/redfish/v1/Chassis/index.json", 1,
         "/redfish/v1/Chassis/PowerShelf", "/redfish/v1/Chassis/PowerShelf", 0},
        {RF "dmtf-pub-2026-rackmount1/redfish/v1/Chassis/index.json", 1,
         "/redfish/v1/Chassis/1U", "/redfish/v1/Chassis/1U", 0},
        {RF "dmtf-pub-2026-smartnic/redfish/v1/Chassis/index.json", 2, "/redfish/v1/Chassis/1U",
         "/redfish/v1/Chassis/Card1", 0},
        {RF "dmtf-pub-2026-telemetry/redfish/v1/Chassis/index.json", 4, "/redfish/v1/Chassis/1",
         "/redfish/v1/Chassis/Tray_3", 0},
        {RF "dmtf-pub-2026-tower/redfish/v1/Chassis/index.json", 1, "/redfish/v1/Chassis/Tower",
         "/redfish/v1/Chassis/Tower", 0},
        {RF "kepler-fixtures/chassis_collection.json", 1, "/redfish/v1/Chassis/1",
         "/redfish/v1/Chassis/1", 0},
        {"kepler/hack/mockups/public-rackmount/Chassis/index.json", 3, "/redfish/v1/Chassis/1U",
         "/redfish/v1/Chassis/4U", 0},
        /* PowerSupplies collections */
        {RF "dmtf-pub-2026-power-shelf/redfish/v1/Chassis/PowerShelf/PowerSubsystem/"
            "PowerSupplies/index.json",
         5, "/redfish/v1/Chassis/PowerShelf/PowerSubsystem/PowerSupplies/Bay1",
         "/redfish/v1/Chassis/PowerShelf/PowerSubsystem/PowerSupplies/Bay6", 1 /* Bay3 twice */},
        {RF "telegraf-hpe-style-powersubsystem/redfish/v1/Chassis/1/PowerSubsystem/"
            "PowerSupplies/index.json",
         1, "/redfish/v1/Chassis/1/PowerSubsystem/PowerSupplies/PowerSupply1",
         "/redfish/v1/Chassis/1/PowerSubsystem/PowerSupplies/PowerSupply1", 0},
        {"kepler/hack/mockups/public-rackmount/Chassis/1U/PowerSubsystem/PowerSupplies/index.json",
         2, "/redfish/v1/Chassis/1U/PowerSubsystem/PowerSupplies/PS1",
         "/redfish/v1/Chassis/1U/PowerSubsystem/PowerSupplies/PS2", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const members_case *c = &cases[i];
        size_t len;
        char *text = fixture_text(c->file, &len);
        wc_redfish_members *m = malloc(sizeof *m);
        wc_error err = {{0}};
        int rc = wc_redfish_parse_members(c->file, text, len, m, &err);
        cr_expect_eq(rc, 0, "%s: %s", c->file, err.msg);
        cr_expect_eq(m->n, c->n, "%s: %zu members", c->file, m->n);
        cr_expect_eq(m->dropped, c->dropped, "%s: %zu dropped", c->file, m->dropped);
        if (m->n) {
            cr_expect_str_eq(m->path[0], c->first, "%s", c->file);
            cr_expect_str_eq(m->path[m->n - 1], c->last, "%s", c->file);
        }
        free(m);
        free(text);
    }
}

Test(redfish_parse, members_missing_or_not_a_collection)
{
    wc_redfish_members *m = malloc(sizeof *m);
    wc_error err = {{0}};
    const char *root = RF "kepler-fixtures/service_root.json";
    size_t len;
    char *text = fixture_text(root, &len);
    cr_expect_eq(wc_redfish_parse_members(root, text, len, m, &err), -ENODATA);
    expect_contains(err.msg, "no Members");
    free(text);
    const char *empty = "{\"Members\": []}";
    cr_expect_eq(wc_redfish_parse_members("/x", empty, strlen(empty), m, &err), 0);
    cr_expect_eq(m->n, 0);
    free(m);
}

Test(redfish_parse, members_capped_deduplicated_and_only_service_links)
{
    char *text = malloc(200000);
    size_t used = 0;
    used += (size_t)sprintf(text + used, "{\"Members\":[");
    for (int i = 0; i < 100; i++)
        used += (size_t)sprintf(text + used, "{\"@odata.id\":\"/redfish/v1/Chassis/C%d\"},", i);
    used += (size_t)sprintf(text + used,
                            "{\"@odata.id\":\"https://evil.example/redfish/v1/Chassis/X\"},"
                            "{\"@odata.id\":\"/redfish/v1/Chassis/../../etc\"},"
                            "{\"@odata.id\":42},{\"nolink\":1},\"str\","
                            "{\"@odata.id\":\"/redfish/v1/Chassis/C0/\"}]}");
    wc_redfish_members *m = malloc(sizeof *m);
    wc_error err = {{0}};
    cr_assert_eq(wc_redfish_parse_members("/redfish/v1/Chassis", text, used, m, &err), 0, "%s",
                 err.msg);
    cr_expect_eq(m->n, WC_REDFISH_MAX_MEMBERS);
    cr_expect_eq(m->dropped, 100 - WC_REDFISH_MAX_MEMBERS + 6);
    cr_expect_str_eq(m->path[0], "/redfish/v1/Chassis/C0");
    free(m);
    free(text);
}

Test(redfish_parse, link_paths)
{
    char out[WC_REDFISH_PATH_MAX];
    wc_error err = {{0}};
    cr_expect_eq(wc_redfish_link_path("/redfish/v1/Chassis/1U/", out, sizeof out, &err), 0);
    cr_expect_str_eq(out, "/redfish/v1/Chassis/1U");
    cr_expect_eq(wc_redfish_link_path("/redfish/v1/Chassis/1/Power#/PowerControl/0", out,
                                      sizeof out, &err), 0);
    cr_expect_str_eq(out, "/redfish/v1/Chassis/1/Power");
    cr_expect_eq(wc_redfish_link_path("/redfish/v1/Chassis/System.Embedded.1", out, sizeof out,
                                      &err), 0);
    cr_expect_eq(wc_redfish_link_path("https://redfishpdu.contoso.com/redfish/v1/PowerEquipment",
                                      out, sizeof out, &err), -EINVAL);
    expect_contains(err.msg, "points off the service");
    cr_expect_eq(wc_redfish_link_path("//evil/redfish/v1", out, sizeof out, &err), -EINVAL);
    cr_expect_eq(wc_redfish_link_path("/redfish/v1/a/../b", out, sizeof out, &err), -EINVAL);
    cr_expect_eq(wc_redfish_link_path("/redfish/v1/a/..", out, sizeof out, &err), -EINVAL);
    cr_expect_eq(wc_redfish_link_path("/redfish/v1/a b", out, sizeof out, &err), -EINVAL);
    cr_expect_eq(wc_redfish_link_path("/redfish/v1/a\nb", out, sizeof out, &err), -EINVAL);
    cr_expect(strchr(err.msg, '\n') == NULL, "untrusted link echoed raw: %s", err.msg);
    cr_expect_eq(wc_redfish_link_path("Chassis/1U", out, sizeof out, &err), -EINVAL);
    cr_expect_eq(wc_redfish_link_path("", out, sizeof out, &err), -EINVAL);
    char longlink[600];
    memset(longlink, 'a', sizeof longlink);
    memcpy(longlink, "/redfish/v1/", 12);
    longlink[sizeof longlink - 1] = '\0';
    cr_expect_eq(wc_redfish_link_path(longlink, out, sizeof out, &err), -ENAMETOOLONG);
}

Test(redfish_parse, chassis_links)
{
    static const struct {
        const char *file, *id, *env, *subsys, *power;
    } cases[] = {
        {RF "dmtf-mockupserver-2023-rackmount1/redfish/v1/Chassis/1U/index.json", "1U",
         "/redfish/v1/Chassis/1U/EnvironmentMetrics", "/redfish/v1/Chassis/1U/PowerSubsystem",
         "/redfish/v1/Chassis/1U/Power"},
        {RF "dmtf-mockupserver-2020-rackmount1/redfish/v1/Chassis/1U/index.json", "1U", "", "",
         "/redfish/v1/Chassis/1U/Power"},
        {RF "dmtf-pub-2026-power-shelf/redfish/v1/Chassis/PowerShelf/index.json", "PowerShelf",
         "/redfish/v1/Chassis/PowerShelf/EnvironmentMetrics",
         "/redfish/v1/Chassis/PowerShelf/Sensors" /* sic: the mockup links Sensors */, ""},
        {RF "dmtf-pub-2026-bladed/redfish/v1/Chassis/Blade1/index.json", "Blade1", "", "", ""},
        {RF "vendor-dell-idrac9-r640/redfish/v1/Chassis/System.Embedded.1/index.json",
         "System.Embedded.1", "", "", "/redfish/v1/Chassis/System.Embedded.1/Power"},
        /* no Id: the last segment of the chassis URL (the walk passes the service path) */
        {RF "vendor-hpe-ilo5/redfish/v1/Chassis/1/index.json", "index.json", "", "",
         "/redfish/v1/Chassis/1/Power"},
        {RF "telegraf-hpe-style-powersubsystem/redfish/v1/Chassis/1/index.json", "index.json", "",
         "/redfish/v1/Chassis/1/PowerSubsystem", ""},
        {RF "kepler-fixtures/chassis.json", "1", "", "", "/redfish/v1/Chassis/1/Power"},
        {"kepler/hack/mockups/public-rackmount/Chassis/1U/index.json", "1U", "",
         "/redfish/v1/Chassis/1U/PowerSubsystem", "/redfish/v1/Chassis/1U/Power"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *text = fixture_text(cases[i].file, &len);
        wc_redfish_chassis ch;
        wc_error err = {{0}};
        cr_expect_eq(wc_redfish_parse_chassis(cases[i].file, text, len, &ch, &err), 0, "%s",
                     err.msg);
        cr_expect_str_eq(ch.id, cases[i].id, "%s", cases[i].file);
        cr_expect_str_eq(ch.environment_metrics, cases[i].env, "%s", cases[i].file);
        cr_expect_str_eq(ch.power_subsystem, cases[i].subsys, "%s", cases[i].file);
        cr_expect_str_eq(ch.power, cases[i].power, "%s", cases[i].file);
        free(text);
    }
}

Test(redfish_parse, chassis_id_is_sanitised_and_bounded)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"Id\":\"a:b/c\\u0001d%s\",\"Power\":{\"@odata.id\":\"https://x/redfish/v1/P\"}}",
             "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
    wc_redfish_chassis ch;
    cr_assert_eq(wc_redfish_parse_chassis("/redfish/v1/Chassis/x", text, strlen(text), &ch, NULL),
                 0);
    cr_expect_eq(strncmp(ch.id, "a_b_c_d", 7), 0, "id %s", ch.id);
    cr_expect_eq(strlen(ch.id), WC_REDFISH_ID_MAX - 1);
    cr_expect_str_eq(ch.power, "", "off-service link must not be kept");
    const char *noid = "{\"Name\":\"x\"}";
    cr_assert_eq(wc_redfish_parse_chassis("/redfish/v1/Chassis/Self/", noid, strlen(noid), &ch,
                                          NULL), 0);
    cr_expect_str_eq(ch.id, "Self");
}

Test(redfish_parse, power_supplies)
{
    static const struct {
        const char *file, *id;
        int absent;
        const char *metrics;
    } cases[] = {
        {RF "dmtf-mockupserver-2023-rackmount1/redfish/v1/Chassis/1U/PowerSubsystem/"
            "PowerSupplies/Bay1/index.json",
         "Bay1", 0, "/redfish/v1/Chassis/1U/PowerSubsystem/PowerSupplies/Bay1/Metrics"},
        {RF "dmtf-mockupserver-2023-rackmount1/redfish/v1/Chassis/1U/PowerSubsystem/"
            "PowerSupplies/Bay2/index.json",
         "Bay2", 1, ""},
        {RF "dmtf-pub-2026-power-shelf/redfish/v1/Chassis/PowerShelf/PowerSubsystem/"
            "PowerSupplies/Bay6/index.json",
         "Bay6", 1, ""},
        {RF "telegraf-hpe-style-powersubsystem/redfish/v1/Chassis/1/PowerSubsystem/"
            "PowerSupplies/PowerSupply1/index.json",
         "Bay1" /* the resource says Bay1 although the collection says PowerSupply1 */, 0,
         "/redfish/v1/Chassis/1/PowerSubsystem/PowerSupplies/PowerSupply1/Metrics"},
        {"kepler/hack/mockups/public-rackmount/Chassis/1U/PowerSubsystem/PowerSupplies/PS1/"
         "index.json",
         "PS1", 0, "/redfish/v1/Chassis/1U/PowerSubsystem/PowerSupplies/PS1/Metrics"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *text = fixture_text(cases[i].file, &len);
        wc_redfish_supply s;
        wc_error err = {{0}};
        cr_expect_eq(wc_redfish_parse_supply(cases[i].file, text, len, &s, &err), 0, "%s",
                     err.msg);
        cr_expect_str_eq(s.id, cases[i].id, "%s", cases[i].file);
        cr_expect_eq(s.absent, cases[i].absent, "%s", cases[i].file);
        cr_expect_str_eq(s.metrics, cases[i].metrics, "%s", cases[i].file);
        free(text);
    }
}

Test(redfish_parse, power_subsystem_link_to_supplies)
{
    const char *f = RF "dmtf-pub-2026-tower/redfish/v1/Chassis/Tower/PowerSubsystem/index.json";
    size_t len;
    char *text = fixture_text(f, &len);
    char out[WC_REDFISH_PATH_MAX];
    wc_error err = {{0}};
    cr_expect_eq(wc_redfish_parse_link(f, text, len, "PowerSupplies", out, sizeof out, &err), 0);
    cr_expect_str_eq(out, "/redfish/v1/Chassis/Tower/PowerSubsystem/PowerSupplies");
    cr_expect_eq(wc_redfish_parse_link(f, text, len, "Nope", out, sizeof out, &err), -ENODATA);
    expect_contains(err.msg, "no Nope link");
    free(text);
}

/* ---- EnvironmentMetrics ---------------------------------------------------- */

Test(redfish_parse, environment_metrics_power_watts)
{
    static const struct {
        const char *file;
        double watts;
    } cases[] = {
        {RF "dmtf-mockupserver-2023-rackmount1/redfish/v1/Chassis/1U/EnvironmentMetrics/index.json",
         374},
        {RF "dmtf-pub-2026-acd/redfish/v1/Chassis/1U/EnvironmentMetrics/index.json", 374},
        {RF "dmtf-pub-2026-rackmount1/redfish/v1/Chassis/1U/EnvironmentMetrics/index.json", 374},
        {RF "dmtf-pub-2026-smartnic/redfish/v1/Chassis/1U/EnvironmentMetrics/index.json", 374},
        {RF "dmtf-pub-2026-smartnic/redfish/v1/Chassis/Card1/EnvironmentMetrics/index.json", 374},
        {RF "dmtf-pub-2026-smartnic/redfish/v1/Chassis/Card2/EnvironmentMetrics/index.json", 374},
        {RF "dmtf-pub-2026-tower/redfish/v1/Chassis/Tower/EnvironmentMetrics/index.json", 974},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wc_redfish_power pw;
        wc_error err = {{0}};
        cr_expect_eq(env_of(cases[i].file, &pw, &err), 0, "%s", err.msg);
        cr_expect_float_eq(pw.watts, cases[i].watts, 1e-9, "%s", cases[i].file);
        cr_expect_eq(pw.window_known, 0);
        cr_expect(isnan(pw.avg_watts));
    }
}

Test(redfish_parse, environment_metrics_without_power)
{
    wc_redfish_power pw;
    wc_error err = {{0}};
    const char *f =
        RF "dmtf-pub-2026-power-shelf/redfish/v1/Chassis/PowerShelf/EnvironmentMetrics/index.json";
    cr_expect_eq(env_of(f, &pw, &err), -ENODATA);
    expect_contains(err.msg, f);
    expect_contains(err.msg, "no PowerWatts");
    cr_expect(isnan(pw.watts));
}

Test(redfish_parse, readings_null_missing_not_numbers)
{
    static const struct {
        const char *json, *reason;
    } cases[] = {
        {"{\"PowerWatts\":{\"Reading\":null}}", "PowerWatts.Reading is null"},
        {"{\"PowerWatts\":{\"DataSourceUri\":\"/x\"}}", "no PowerWatts.Reading"},
        {"{\"PowerWatts\":null}", "PowerWatts is null"},
        {"{\"PowerWatts\":[1]}", "PowerWatts is not an object"},
        {"{\"PowerWatts\":{\"Reading\":\"374\"}}", "is not a number"},
        {"{\"PowerWatts\":{\"Reading\":-5}}", "-5 W (invalid)"},
        {"{\"PowerWatts\":{\"Reading\":0}}", "0 W (host off or no sensor"},
        {"{\"PowerWatts\":{\"Reading\":1e999}}", "implausible reading inf W"},
        {"{}", "no PowerWatts"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wc_redfish_power pw;
        wc_error err = {{0}};
        int rc = wc_redfish_parse_environment_metrics("/redfish/v1/Chassis/1U/EnvironmentMetrics",
                                                      cases[i].json, strlen(cases[i].json), &pw,
                                                      &err);
        cr_expect_eq(rc, -ENODATA, "%s -> %d", cases[i].json, rc);
        expect_contains(err.msg, "/redfish/v1/Chassis/1U/EnvironmentMetrics");
        expect_contains(err.msg, cases[i].reason);
        cr_expect(isnan(pw.watts));
    }
}

/* Above the 100 kW per node ceiling, non-finite, or the 65535 W marker:
 * unavailable ("implausible reading N W"), never an ok reading. */
Test(redfish_parse, implausible_readings_are_unavailable)
{
    static const char *const URL = "/redfish/v1/Chassis/1U/EnvironmentMetrics";
    static const struct {
        const char *json, *reason;
    } bad[] = {
        {"{\"PowerWatts\":{\"Reading\":1e308}}", "implausible reading 1e+308 W"},
        {"{\"PowerWatts\":{\"Reading\":100000.5}}", "implausible reading 100000 W"},
        {"{\"PowerWatts\":{\"Reading\":250000}}", "over the plausibility ceiling 100 kW per node"},
        {"{\"PowerWatts\":{\"Reading\":65535}}", "implausible reading 65535 W"},
        {"{\"PowerWatts\":{\"Reading\":-1e999}}", "implausible reading -inf W"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wc_redfish_power pw;
        wc_error err = {{0}};
        int rc = wc_redfish_parse_environment_metrics(URL, bad[i].json, strlen(bad[i].json), &pw,
                                                      &err);
        cr_expect_eq(rc, -ENODATA, "%s -> %d", bad[i].json, rc);
        expect_contains(err.msg, URL);
        expect_contains(err.msg, "PowerWatts.Reading");
        expect_contains(err.msg, bad[i].reason);
        cr_expect(isnan(pw.watts), "%s gave %g W", bad[i].json, pw.watts);
    }
    /* the ceiling itself and a large but real node are readings */
    static const char *const ok[] = {"{\"PowerWatts\":{\"Reading\":100000}}",
                                     "{\"PowerWatts\":{\"Reading\":65534}}"};
    for (size_t i = 0; i < 2; i++) {
        wc_redfish_power pw;
        wc_error err = {{0}};
        cr_expect_eq(wc_redfish_parse_environment_metrics(URL, ok[i], strlen(ok[i]), &pw, &err), 0,
                     "%s: %s", ok[i], err.msg);
    }
    /* one supply's input */
    double w = 0;
    wc_error err = {{0}};
    const char *sm = "{\"InputPowerWatts\":{\"Reading\":1e308}}";
    cr_expect_eq(wc_redfish_parse_supply_metrics("/m", sm, strlen(sm), &w, &err), -ENODATA);
    expect_contains(err.msg, "InputPowerWatts.Reading: implausible reading 1e+308 W");
    cr_expect(isnan(w));
    sm = "{\"InputPowerWatts\":{\"Reading\":65535}}";
    cr_expect_eq(wc_redfish_parse_supply_metrics("/m", sm, strlen(sm), &w, &err), -ENODATA);
    expect_contains(err.msg, "implausible reading 65535 W");
    /* PowerControl: the only member implausible -> no reading */
    wc_redfish_power pw;
    const char *pc = "{\"PowerControl\":[{\"PowerConsumedWatts\":1e308}]}";
    cr_expect_eq(wc_redfish_parse_power_control("/p", pc, strlen(pc), &pw, &err), -ENODATA);
    expect_contains(err.msg, "PowerControl[0].PowerConsumedWatts: implausible reading 1e+308 W");
    cr_expect(isnan(pw.watts));
    /* ...an implausible member is skipped; implausible statistics are dropped */
    pc = "{\"PowerControl\":[{\"PowerConsumedWatts\":65535},{\"PowerConsumedWatts\":412,"
         "\"PowerMetrics\":{\"IntervalInMin\":1,\"AverageConsumedWatts\":1e308,"
         "\"MinConsumedWatts\":300,\"MaxConsumedWatts\":2e5}}]}";
    cr_assert_eq(wc_redfish_parse_power_control("/p", pc, strlen(pc), &pw, &err), 0, "%s",
                 err.msg);
    cr_expect_eq(pw.member, 1);
    cr_expect_float_eq(pw.watts, 412, 1e-9);
    cr_expect(isnan(pw.avg_watts), "avg %g", pw.avg_watts);
    cr_expect(isnan(pw.max_watts), "max %g", pw.max_watts);
    cr_expect_float_eq(pw.min_watts, 300, 1e-9);
    cr_expect_eq(pw.window_known, 0);
}

/* ---- PowerSupplyMetrics: INPUT power --------------------------------------- */

Test(redfish_parse, supply_metrics_input_not_output)
{
    static const struct {
        const char *file;
        double input_w;
    } cases[] = {
        {RF "dmtf-mockupserver-2023-rackmount1/redfish/v1/Chassis/1U/PowerSubsystem/"
            "PowerSupplies/Bay1/Metrics/index.json",
         937.4},
        {RF "dmtf-pub-2026-acd/redfish/v1/Chassis/1U/PowerSubsystem/PowerSupplies/Bay1/Metrics/"
            "index.json",
         937.4},
        {RF "dmtf-pub-2026-power-shelf/redfish/v1/Chassis/PowerShelf/PowerSubsystem/"
            "PowerSupplies/Bay1/Metrics/index.json",
         937.4},
        {RF "dmtf-pub-2026-rackmount1/redfish/v1/Chassis/1U/PowerSubsystem/PowerSupplies/Bay1/"
            "Metrics/index.json",
         937.4},
        {RF "dmtf-pub-2026-smartnic/redfish/v1/Chassis/1U/PowerSubsystem/PowerSupplies/Bay1/"
            "Metrics/index.json",
         937.4},
        /* tower: input 487.4 W while OutputPowerWatts is 463.1 / 463 W */
        {RF "dmtf-pub-2026-tower/redfish/v1/Chassis/Tower/PowerSubsystem/PowerSupplies/Bay1/"
            "Metrics/index.json",
         487.4},
        {RF "dmtf-pub-2026-tower/redfish/v1/Chassis/Tower/PowerSubsystem/PowerSupplies/Bay2/"
            "Metrics/index.json",
         487.4},
        {RF "telegraf-hpe-style-powersubsystem/redfish/v1/Chassis/1/PowerSubsystem/"
            "PowerSupplies/PowerSupply1/Metrics/index.json",
         937.4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double w = NAN;
        wc_error err = {{0}};
        cr_expect_eq(supply_metrics_of(cases[i].file, &w, &err), 0, "%s", err.msg);
        cr_expect_float_eq(w, cases[i].input_w, 1e-9, "%s: %g", cases[i].file, w);
    }
}

Test(redfish_parse, supply_metrics_zero_is_a_reading_output_only_is_not)
{
    double w = NAN;
    wc_error err = {{0}};
    const char *zero = "{\"InputPowerWatts\":{\"Reading\":0}}";
    cr_expect_eq(wc_redfish_parse_supply_metrics("/m", zero, strlen(zero), &w, &err), 0);
    cr_expect_float_eq(w, 0.0, 0);
    const char *out_only = "{\"OutputPowerWatts\":{\"Reading\":245}}";
    cr_expect_eq(wc_redfish_parse_supply_metrics("/m", out_only, strlen(out_only), &w, &err),
                 -ENODATA);
    expect_contains(err.msg, "no InputPowerWatts");
    const char *null_in = "{\"InputPowerWatts\":{\"Reading\":null}}";
    cr_expect_eq(wc_redfish_parse_supply_metrics("/m", null_in, strlen(null_in), &w, &err),
                 -ENODATA);
    expect_contains(err.msg, "InputPowerWatts.Reading is null");
}

/* ---- Power / PowerControl -------------------------------------------------- */

typedef struct pc_case {
    const char *file;
    double watts, window_s;
    int window_known;
    double avg, min, max; /* NAN: not reported */
    int member;
} pc_case;

static void check_pc(const pc_case *c)
{
    wc_redfish_power pw;
    wc_error err = {{0}};
    cr_expect_eq(power_of(c->file, &pw, &err), 0, "%s: %s", c->file, err.msg);
    cr_expect_float_eq(pw.watts, c->watts, 1e-9, "%s watts %g", c->file, pw.watts);
    cr_expect_float_eq(pw.window_s, c->window_s, 1e-9, "%s window %g", c->file, pw.window_s);
    cr_expect_eq(pw.window_known, c->window_known, "%s", c->file);
    cr_expect_eq(pw.member, c->member, "%s", c->file);
    const double got[3] = {pw.avg_watts, pw.min_watts, pw.max_watts};
    const double want[3] = {c->avg, c->min, c->max};
    for (int k = 0; k < 3; k++) {
        if (isnan(want[k]))
            cr_expect(isnan(got[k]), "%s stat %d: %g", c->file, k, got[k]);
        else
            cr_expect_float_eq(got[k], want[k], 1e-9, "%s stat %d: %g", c->file, k, got[k]);
    }
}

Test(redfish_parse, power_control_of_every_power_resource)
{
    static const pc_case cases[] = {
        {RF "dmtf-mockupserver-2020-rackmount1/redfish/v1/Chassis/1U/Power/index.json", 344,
         0, 0, 319, 271, 489, 0},
        {RF "dmtf-mockupserver-2023-rackmount1/redfish/v1/Chassis/1U/Power/index.json", 344,
         0, 0, 319, 271, 489, 0},
        {RF "dmtf-pub-2026-acd/redfish/v1/Chassis/1U/Power/index.json", 344, 0, 0, 319, 271,
         489, 0},
        {RF "dmtf-pub-2026-catfish/redfish/v1/Chassis/1/Power/index.json", 224, 0, 0, NAN, NAN,
         NAN, 0},
        {RF "dmtf-pub-2026-localstorage/redfish/v1/Chassis/1U/Power/index.json", 344, 0, 0, 319,
         271, 489, 0},
        {RF "dmtf-pub-2026-rackmount1/redfish/v1/Chassis/1U/Power/index.json", 344, 0, 0, 319,
         271, 489, 0},
        {RF "dmtf-pub-2026-telemetry/redfish/v1/Chassis/1/Power/index.json", 8000, 1800, 1, 8000,
         7500, 8200, 0},
        {RF "dmtf-pub-2026-telemetry/redfish/v1/Chassis/Tray_1/Power/index.json", 8000, 1800, 1,
         8000, 7500, 8200, 0},
        {RF "dmtf-pub-2026-telemetry/redfish/v1/Chassis/Tray_2/Power/index.json", 8000, 1800, 1,
         8000, 7500, 8200, 0},
        {RF "dmtf-pub-2026-telemetry/redfish/v1/Chassis/Tray_3/Power/index.json", 8000, 1800, 1,
         8000, 7500, 8200, 0},
        {RF "dmtf-pub-2026-tower/redfish/v1/Chassis/Tower/Power/index.json", 926, 0, 0, 827,
         671, 1030, 0},
        /* real Dell iDRAC9: 1-minute statistics */
        {RF "vendor-dell-idrac9-r640/redfish/v1/Chassis/System.Embedded.1/Power/index.json", 429,
         0, 0, 426, 425, 436, 0},
        /* real HPE iLO 5: 20-minute statistics */
        {RF "vendor-hpe-ilo5/redfish/v1/Chassis/1/Power/index.json", 221, 1200, 1, 221, 220, 252,
         0},
        {RF "kepler-fixtures/dell_power_245w.json", 245, 0, 0, 250, 235, 265, 0},
        {RF "kepler-fixtures/generic_power_200w.json", 200, 0, 0, NAN, NAN, NAN, 0},
        {RF "kepler-fixtures/generic_power_590w.json", 590, 0, 0, 581, 200, 600, 0},
        {RF "kepler-fixtures/hpe_power_189w.json", 189.5, 0, 0, NAN, NAN, NAN, 0},
        {RF "kepler-fixtures/lenovo_power_167w.json", 167.8, 0, 0, NAN, NAN, NAN, 0},
        /* Kepler's mockup: the first PowerControl (server, 344 W), not the chassis one (45 W) */
        {"kepler/hack/mockups/public-rackmount/Chassis/1U/Power/index.json", 344, 0, 0, 319,
         271, 489, 0},
        {"kepler/hack/mockups/public-rackmount/Chassis/2U/Power/index.json", 450, 0, 0, 420,
         350, 550, 0},
        {"kepler/hack/mockups/public-rackmount/Chassis/4U/Power/index.json", 750, 0, 0, 720,
         600, 900, 0},
        /* B22: a bare PowerControl member; 389 W = the 1-minute average: window 60 s */
        {"cases/B22/redfish_powercontrol_dell.json", 389, 60, 1, 389, 386, 415, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_pc(&cases[i]);
}

Test(redfish_parse, b22_expected_text_says_one_minute_mean)
{
    size_t len;
    char *text = fixture_text("cases/B22/expected.txt", &len);
    expect_contains(text, "IntervalInMin 1");
    expect_contains(text, "1-minute mean");
    free(text);
    wc_redfish_power pw;
    cr_assert_eq(power_of("cases/B22/redfish_powercontrol_dell.json", &pw, NULL), 0);
    cr_expect_float_eq(pw.window_s, 60.0, 0);
    cr_expect_eq(pw.window_known, 1);
    cr_expect_float_eq(pw.watts, pw.avg_watts, 0);
}

Test(redfish_parse, power_without_a_reading)
{
    static const struct {
        const char *file, *reason;
    } cases[] = {
        {RF "kepler-fixtures/empty_power_control.json", "PowerControl is empty"},
        {RF "kepler-fixtures/zero_power.json", "PowerControl[0].PowerConsumedWatts is 0 W"},
        {RF "dmtf-pub-2026-bladed/redfish/v1/Chassis/MultiBladeEncl/Power/index.json",
         "no PowerControl"},
        {RF "kepler-fixtures/service_root.json", "no PowerControl"},
        {RF "kepler-fixtures/chassis.json", "no PowerControl"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wc_redfish_power pw;
        wc_error err = {{0}};
        cr_expect_eq(power_of(cases[i].file, &pw, &err), -ENODATA, "%s", cases[i].file);
        expect_contains(err.msg, cases[i].file);
        expect_contains(err.msg, cases[i].reason);
        cr_expect(isnan(pw.watts));
    }
}

Test(redfish_parse, power_control_skips_members_without_reading)
{
    const char *json = "{\"PowerControl\":[{\"PowerConsumedWatts\":null},"
                       "{\"PowerConsumedWatts\":232.0,\"PowerMetrics\":{\"IntervalInMin\":null,"
                       "\"AverageConsumedWatts\":\"x\",\"MinConsumedWatts\":-1}}]}";
    wc_redfish_power pw;
    wc_error err = {{0}};
    cr_assert_eq(wc_redfish_parse_power_control("/p", json, strlen(json), &pw, &err), 0, "%s",
                 err.msg);
    cr_expect_float_eq(pw.watts, 232.0, 0);
    cr_expect_eq(pw.member, 1);
    cr_expect_eq(pw.window_known, 0);
    cr_expect(isnan(pw.avg_watts) && isnan(pw.min_watts) && isnan(pw.max_watts));
    const char *all_null = "{\"PowerControl\":[{\"PowerConsumedWatts\":null},{}]}";
    cr_expect_eq(wc_redfish_parse_power_control("/p", all_null, strlen(all_null), &pw, &err),
                 -ENODATA);
    expect_contains(err.msg, "PowerControl[0].PowerConsumedWatts is null");
    expect_contains(err.msg, "none of the other 1");
    const char *not_list = "{\"PowerControl\":{\"PowerConsumedWatts\":5}}";
    cr_expect_eq(wc_redfish_parse_power_control("/p", not_list, strlen(not_list), &pw, &err),
                 -ENODATA);
    expect_contains(err.msg, "not a list");
}

Test(redfish_parse, openbmc_and_fujitsu_fragments_completed)
{
    /* The OpenBMC excerpt's PowerControl, closed: float watts, type on the member. */
    const char *openbmc =
        "{\"PowerControl\":[{\"@odata.id\":\"/redfish/v1/Chassis/chassis/Power#/PowerControl/0\","
        "\"@odata.type\":\"#Power.v1_0_0.PowerControl\",\"MemberId\":\"0\","
        "\"PowerConsumedWatts\":232.0,\"PowerLimit\":{\"LimitInWatts\":null}}]}";
    wc_redfish_power pw;
    cr_assert_eq(wc_redfish_parse_power_control("/p", openbmc, strlen(openbmc), &pw, NULL), 0);
    cr_expect_float_eq(pw.watts, 232.0, 0);
    /* Fujitsu: power only under Oem.ts_fujitsu, "\/" escapes: not read, said so. */
    const char *fujitsu = "{\"@odata.id\":\"\\/redfish\\/v1\\/Chassis\\/0\\/Power\",\"Oem\":{"
                          "\"ts_fujitsu\":{\"ChassisPowerConsumption\":{"
                          "\"CurrentPowerConsumptionW\":160}}}}";
    wc_error err = {{0}};
    cr_expect_eq(wc_redfish_parse_power_control("/p", fujitsu, strlen(fujitsu), &pw, &err),
                 -ENODATA);
    expect_contains(err.msg, "no PowerControl");
}

/* ---- invalid JSON ---------------------------------------------------------- */

Test(redfish_parse, invalid_json_names_url_and_position)
{
    static const struct {
        const char *file, *position;
    } cases[] = {
        {RF "invalid/dell_power_unquoted_string.json", "line 71 column 15"},
        {RF "invalid/hpe_power_extra_brace.json", "line 2 column"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wc_redfish_power pw;
        wc_error err = {{0}};
        cr_expect_eq(power_of(cases[i].file, &pw, &err), -EBADMSG, "%s", cases[i].file);
        expect_contains(err.msg, cases[i].file);
        expect_contains(err.msg, "invalid JSON");
        expect_contains(err.msg, cases[i].position);
    }
}

Test(redfish_parse, issue_excerpts_are_not_json)
{
    static const char *const files[] = {
        RF "issue-excerpts/dell-idrac7-r720-psu-compact.excerpt.txt",
        RF "issue-excerpts/dell-idrac9-3.21-power-table.excerpt.txt",
        RF "issue-excerpts/fujitsu-irmc-power-oem-ts_fujitsu.excerpt.txt",
        RF "issue-excerpts/openbmc-power-v1_0_0-powercontrol.excerpt.txt",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t len;
        char *text = fixture_text(files[i], &len);
        wc_redfish_power pw;
        wc_redfish_supply s;
        wc_error err = {{0}};
        cr_expect_eq(wc_redfish_parse_power_control(files[i], text, len, &pw, &err), -EBADMSG,
                     "%s", files[i]);
        expect_contains(err.msg, "invalid JSON");
        expect_contains(err.msg, "line ");
        cr_expect_eq(wc_redfish_parse_supply(files[i], text, len, &s, &err), -EBADMSG);
        free(text);
    }
}

Test(redfish_parse, invalid_documents_of_every_shape)
{
    static const struct {
        const char *json;
        size_t len;
        const char *what;
    } cases[] = {
        {"", 0, "empty body"},
        {"[1,2]", 5, "not an object"},
        {"{\"a\":1} trailing", 16, "data after the document"},
        {"{\"a\":1}\0{}", 10, "NUL byte"},
        {"{\"a\":\n  nope}", 13, "line 2 column 3"},
        {"<html>502 Bad Gateway</html>", 28, "line 1 column 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wc_redfish_power pw;
        wc_error err = {{0}};
        cr_expect_eq(wc_redfish_parse_environment_metrics("/u", cases[i].json, cases[i].len, &pw,
                                                          &err), -EBADMSG, "case %zu", i);
        expect_contains(err.msg, cases[i].what);
    }
}

Test(redfish_parse, deep_nesting_does_not_crash)
{
    size_t n = 200000;
    char *text = malloc(2 * n + 16);
    memset(text, '[', n);
    memset(text + n, ']', n);
    wc_redfish_power pw;
    wc_error err = {{0}};
    cr_expect_eq(wc_redfish_parse_power_control("/d", text, 2 * n, &pw, &err), -EBADMSG);
    free(text);
}

Test(redfish_parse, error_bodies)
{
    static const struct {
        const char *file, *msg;
    } cases[] = {
        {RF "kepler-fixtures/error_auth_failed.json", "Authentication failed"},
        {RF "kepler-fixtures/error_not_found.json", "The requested resource was not found."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *text = fixture_text(cases[i].file, &len);
        char msg[64];
        wc_redfish_error_message(text, len, msg, sizeof msg);
        cr_expect_str_eq(msg, cases[i].msg);
        free(text);
    }
    const char *ext = "{\"error\":{\"@Message.ExtendedInfo\":[{\"Message\":\"bad\\u0007 x\"}]}}";
    char msg[64];
    wc_redfish_error_message(ext, strlen(ext), msg, sizeof msg);
    cr_expect_str_eq(msg, "bad? x");
    wc_redfish_error_message("nope", 4, msg, sizeof msg);
    cr_expect_str_eq(msg, "");
}

/* ---- the walk over mockup directories ------------------------------------- */

Test(redfish_walk, every_mockup_with_a_chassis_collection)
{
    static const struct {
        const char *dir;
        double watts;
        const char *path;
        double window_s;
        int window_known;
    } cases[] = {
        {RF "dmtf-mockupserver-2020-rackmount1/redfish/v1", 344,
         "redfish:1U:Power.PowerControl[0].PowerConsumedWatts", 0, 0},
        {RF "dmtf-mockupserver-2023-rackmount1/redfish/v1", 374,
         "redfish:1U:EnvironmentMetrics.PowerWatts", 0, 0},
        {RF "dmtf-pub-2026-acd/redfish/v1", 374, "redfish:1U:EnvironmentMetrics.PowerWatts", 0, 0},
        {RF "dmtf-pub-2026-catfish/redfish/v1", 224,
         "redfish:1:Power.PowerControl[0].PowerConsumedWatts", 0, 0},
        {RF "dmtf-pub-2026-localstorage/redfish/v1", 344,
         "redfish:1U:Power.PowerControl[0].PowerConsumedWatts", 0, 0},
        {RF "dmtf-pub-2026-rackmount1/redfish/v1", 374, "redfish:1U:EnvironmentMetrics.PowerWatts",
         0, 0},
        /* the server chassis 1U, never 1U + Card1 (chassis nest: no sum) */
        {RF "dmtf-pub-2026-smartnic/redfish/v1", 374, "redfish:1U:EnvironmentMetrics.PowerWatts",
         0, 0},
        {RF "dmtf-pub-2026-telemetry/redfish/v1", 8000,
         "redfish:1:Power.PowerControl[0].PowerConsumedWatts", 1800, 1},
        {RF "dmtf-pub-2026-tower/redfish/v1", 974, "redfish:Tower:EnvironmentMetrics.PowerWatts", 0,
         0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wc_truth_sample t;
        int rc = walk_dir(cases[i].dir, &t);
        cr_expect_eq(rc, 0, "%s: %s", cases[i].dir, t.error);
        expect_ok(&t, cases[i].watts, cases[i].path, cases[i].window_s, cases[i].window_known);
    }
}

Test(redfish_walk, statistics_travel_with_power_control)
{
    wc_truth_sample t;
    cr_assert_eq(walk_dir(RF "dmtf-pub-2026-telemetry/redfish/v1", &t), 0);
    cr_expect_float_eq(t.avg_watts, 8000, 0);
    cr_expect_float_eq(t.min_watts, 7500, 0);
    cr_expect_float_eq(t.max_watts, 8200, 0);
    cr_assert_eq(walk_dir(RF "dmtf-pub-2026-tower/redfish/v1", &t), 0);
    cr_expect(isnan(t.avg_watts), "EnvironmentMetrics has no statistics");
}

Test(redfish_walk, bladed_enclosure_has_no_reading)
{
    wc_truth_sample t;
    int rc = walk_dir(RF "dmtf-pub-2026-bladed/redfish/v1", &t);
    expect_unavailable(rc, &t, "no power reading");
    expect_contains(t.error, "Chassis/MultiBladeEncl/Power: no PowerControl");
    expect_contains(t.error, "Chassis/Blade1: no EnvironmentMetrics, PowerSubsystem or Power link");
}

Test(redfish_walk, power_shelf_has_no_reading)
{
    wc_truth_sample t;
    int rc = walk_dir(RF "dmtf-pub-2026-power-shelf/redfish/v1", &t);
    expect_unavailable(rc, &t, "Chassis/PowerShelf/EnvironmentMetrics: no PowerWatts");
    expect_contains(t.error, "Chassis/PowerShelf/Sensors: HTTP 404");
    expect_contains(t.error, "no Power link");
}

Test(redfish_walk, mockups_without_a_chassis_collection)
{
    wc_truth_sample t;
    int rc = walk_dir(RF "vendor-hpe-ilo5/redfish/v1", &t);
    expect_unavailable(rc, &t, "/redfish/v1/Chassis: HTTP 404");

    static const struct {
        const char *dir, *chassis;
        double watts;
        const char *path;
        double window_s;
        int window_known;
    } cases[] = {
        {RF "vendor-dell-idrac9-r640/redfish/v1", "/redfish/v1/Chassis/System.Embedded.1", 429,
         "redfish:System.Embedded.1:Power.PowerControl[0].PowerConsumedWatts", 0, 0},
        {RF "vendor-hpe-ilo5/redfish/v1", "/redfish/v1/Chassis/1", 221,
         "redfish:1:Power.PowerControl[0].PowerConsumedWatts", 1200, 1},
        {RF "telegraf-hpe-style-powersubsystem/redfish/v1", "/redfish/v1/Chassis/1", 937.4,
         "redfish:1:PowerSupplies.InputPowerWatts(sum of 1)", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tree_fetcher f = tree(cases[i].dir);
        wc_redfish_walker w = walker(&f);
        t = blank_sample();
        rc = wc_redfish_walk_chassis(&w, cases[i].chassis, &t);
        cr_expect_eq(rc, 0, "%s: %s", cases[i].dir, t.error);
        expect_ok(&t, cases[i].watts, cases[i].path, cases[i].window_s, cases[i].window_known);
        cr_expect_eq(w.plan.kind, WC_REDFISH_PLAN_NONE, "walk_chassis leaves the plan alone");
    }
}

Test(redfish_walk, kepler_public_rackmount_reads_power_control_not_psu_output)
{
    /* Kepler reads PowerSupply PowerOutputWatts (245 W). We want wall power:
     * PS1's Metrics (InputPowerWatts) is absent from the mockup (404), so the
     * supplies path is unavailable and PowerControl[0] (344 W) serves. */
    wc_truth_sample t;
    int rc = walk_dir("kepler/hack/mockups/public-rackmount", &t);
    cr_expect_eq(rc, 0, "%s", t.error);
    expect_ok(&t, 344, "redfish:1U:Power.PowerControl[0].PowerConsumedWatts", 0, 0);
    cr_expect_neq(t.watts, 245.0);
    cr_expect_float_eq(t.avg_watts, 319, 0);
}

Test(redfish_walk, order_of_preference_when_paths_disappear)
{
    const char *dir = RF "dmtf-pub-2026-tower/redfish/v1";
    tree_fetcher f = tree(dir);
    f.hidden[0] = "/redfish/v1/Chassis/Tower/EnvironmentMetrics";
    wc_redfish_walker w = walker(&f);
    wc_truth_sample t = blank_sample();
    cr_assert_eq(wc_redfish_walk_poll(&w, &t), 0, "%s", t.error);
    /* input 487.4 + 487.4, not output 463.1 + 463 */
    expect_ok(&t, 974.8, "redfish:Tower:PowerSupplies.InputPowerWatts(sum of 2)", 0, 0);

    tree_fetcher g = tree(dir);
    g.hidden[0] = "/redfish/v1/Chassis/Tower/EnvironmentMetrics";
    g.hidden[1] = "/redfish/v1/Chassis/Tower/PowerSubsystem";
    wc_redfish_walker w2 = walker(&g);
    t = blank_sample();
    cr_assert_eq(wc_redfish_walk_poll(&w2, &t), 0, "%s", t.error);
    expect_ok(&t, 926, "redfish:Tower:Power.PowerControl[0].PowerConsumedWatts", 0, 0);
}

Test(redfish_walk, absent_supplies_are_skipped)
{
    tree_fetcher f = tree(RF "dmtf-mockupserver-2023-rackmount1/redfish/v1");
    f.hidden[0] = "/redfish/v1/Chassis/1U/EnvironmentMetrics";
    wc_redfish_walker w = walker(&f);
    wc_truth_sample t = blank_sample();
    cr_assert_eq(wc_redfish_walk_poll(&w, &t), 0, "%s", t.error);
    expect_ok(&t, 937.4, "redfish:1U:PowerSupplies.InputPowerWatts(sum of 1)", 0, 0);
}

Test(redfish_walk, present_supply_without_reading_makes_the_sum_unavailable)
{
    static const route routes[] = {
        {"/redfish/v1/Chassis/Tower/PowerSubsystem/PowerSupplies/Bay2/Metrics", NULL,
         "{\"InputPowerWatts\":{\"Reading\":null},\"OutputPowerWatts\":{\"Reading\":463}}", 200,
         0},
        {"/redfish/v1/Chassis/Tower/EnvironmentMetrics", NULL, "{}", 404, 0},
        {"/redfish/v1/Chassis/Tower/Power", NULL, "{}", 404, 0},
    };
    tree_fetcher f = tree(RF "dmtf-pub-2026-tower/redfish/v1");
    f.routes = routes;
    f.nroutes = 3;
    wc_redfish_walker w = walker(&f);
    wc_truth_sample t = blank_sample();
    int rc = wc_redfish_walk_poll(&w, &t);
    expect_unavailable(rc, &t, "PowerSupplies/Bay2/Metrics: InputPowerWatts.Reading is null");
    cr_expect_eq(w.plan.kind, WC_REDFISH_PLAN_NONE);
}

/* 1e308 W from the deprecated Power resource goes through the whole source
 * as UNAVAILABLE (validate once printed "inf W" from it). */
Test(redfish_source, implausible_power_consumed_is_unavailable_never_ok)
{
    static const route routes[] = {
        {"/redfish/v1/Chassis", NULL,
         "{\"Members\":[{\"@odata.id\":\"/redfish/v1/Chassis/1\"}]}", 200, 0},
        {"/redfish/v1/Chassis/1", NULL,
         "{\"Id\":\"1\",\"Power\":{\"@odata.id\":\"/redfish/v1/Chassis/1/Power\"},"
         "\"EnvironmentMetrics\":{\"@odata.id\":\"/redfish/v1/Chassis/1/EnvironmentMetrics\"}}",
         200, 0},
        {"/redfish/v1/Chassis/1/EnvironmentMetrics", NULL,
         "{\"PowerWatts\":{\"Reading\":1e308}}", 200, 0},
        {"/redfish/v1/Chassis/1/Power", NULL,
         "{\"PowerControl\":[{\"PowerConsumedWatts\":1e308}]}", 200, 0},
    };
    tree_fetcher f;
    memset(&f, 0, sizeof f);
    f.routes = routes;
    f.nroutes = 4;
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    wc_truth_source s;
    memset(&s, 0, sizeof s);
    s.cfg = cfg;
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_redfish_init_fetcher(&s, "mock://bmc", tree_fetch, &f, &err), 0);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&s, &t), 0, "%s", t.error);
    cr_expect_eq(t.status, WC_TRUTH_UNAVAILABLE, "status %s", wc_truth_status_name(t.status));
    cr_expect(isnan(t.watts), "watts %g", t.watts);
    expect_contains(t.error, "EnvironmentMetrics: PowerWatts.Reading: implausible reading 1e+308 W");
    expect_contains(t.error, "PowerConsumedWatts: implausible reading 1e+308 W");
    cr_expect_eq(wc_truth_redfish_walker(&s)->plan.kind, WC_REDFISH_PLAN_NONE);
    wc_truth_close(&s);
}

Test(redfish_walk, sum_of_supplies_above_100_kw_is_unavailable)
{
    static const route routes[] = {
        {"/redfish/v1/Chassis/Tower/PowerSubsystem/PowerSupplies/Bay1/Metrics", NULL,
         "{\"InputPowerWatts\":{\"Reading\":60000}}", 200, 0},
        {"/redfish/v1/Chassis/Tower/PowerSubsystem/PowerSupplies/Bay2/Metrics", NULL,
         "{\"InputPowerWatts\":{\"Reading\":60000}}", 200, 0},
        {"/redfish/v1/Chassis/Tower/EnvironmentMetrics", NULL, "{}", 404, 0},
        {"/redfish/v1/Chassis/Tower/Power", NULL, "{}", 404, 0},
    };
    tree_fetcher f = tree(RF "dmtf-pub-2026-tower/redfish/v1");
    f.routes = routes;
    f.nroutes = 4;
    wc_redfish_walker w = walker(&f);
    wc_truth_sample t = blank_sample();
    int rc = wc_redfish_walk_poll(&w, &t);
    expect_unavailable(rc, &t, "Chassis/Tower: implausible reading 120000 W");
    expect_contains(t.error, "100 kW");
    cr_expect_eq(w.plan.kind, WC_REDFISH_PLAN_NONE);
}

/* The Kepler unit-test fixtures served as a one-chassis service. */
static tree_fetcher kepler_service(route *routes, const char *power_file, long power_status)
{
    routes[0] = (route){"/redfish/v1/Chassis", RF "kepler-fixtures/chassis_collection.json", NULL,
                        200, 0};
    routes[1] = (route){"/redfish/v1/Chassis/1", RF "kepler-fixtures/chassis.json", NULL, 200, 0};
    routes[2] = (route){"/redfish/v1/Chassis/1/Power", power_file, NULL, power_status, 0};
    tree_fetcher f;
    memset(&f, 0, sizeof f);
    f.routes = routes;
    f.nroutes = 3;
    return f;
}

Test(redfish_walk, kepler_fixture_service)
{
    static const struct {
        const char *file;
        double watts, window_s;
        int window_known;
    } ok[] = {
        {RF "kepler-fixtures/dell_power_245w.json", 245, 0, 0},
        {RF "kepler-fixtures/generic_power_200w.json", 200, 0, 0},
        {RF "kepler-fixtures/generic_power_590w.json", 590, 0, 0},
        {RF "kepler-fixtures/hpe_power_189w.json", 189.5, 0, 0},
        {RF "kepler-fixtures/lenovo_power_167w.json", 167.8, 0, 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        route routes[3];
        tree_fetcher f = kepler_service(routes, ok[i].file, 200);
        wc_redfish_walker w = walker(&f);
        wc_truth_sample t = blank_sample();
        cr_expect_eq(wc_redfish_walk_poll(&w, &t), 0, "%s: %s", ok[i].file, t.error);
        expect_ok(&t, ok[i].watts, "redfish:1:Power.PowerControl[0].PowerConsumedWatts",
                  ok[i].window_s, ok[i].window_known);
    }
    static const struct {
        const char *file;
        long status;
        const char *reason;
    } unavailable[] = {
        {RF "kepler-fixtures/zero_power.json", 200, "is 0 W"},
        {RF "kepler-fixtures/empty_power_control.json", 200, "PowerControl is empty"},
        {RF "kepler-fixtures/error_not_found.json", 404, "Chassis/1/Power: HTTP 404"},
    };
    for (size_t i = 0; i < sizeof unavailable / sizeof unavailable[0]; i++) {
        route routes[3];
        tree_fetcher f = kepler_service(routes, unavailable[i].file, unavailable[i].status);
        wc_redfish_walker w = walker(&f);
        wc_truth_sample t = blank_sample();
        int rc = wc_redfish_walk_poll(&w, &t);
        expect_unavailable(rc, &t, unavailable[i].reason);
    }
}

Test(redfish_walk, http_401_is_an_authentication_error)
{
    route routes[3];
    tree_fetcher f = kepler_service(routes, RF "kepler-fixtures/dell_power_245w.json", 200);
    routes[0].file = RF "kepler-fixtures/error_auth_failed.json";
    routes[0].status = 401;
    wc_redfish_walker w = walker(&f);
    wc_truth_sample t = blank_sample();
    int rc = wc_redfish_walk_poll(&w, &t);
    cr_expect_eq(rc, -EACCES);
    cr_expect_eq(t.status, WC_TRUTH_ERROR);
    expect_contains(t.error, "mock://bmc/redfish/v1/Chassis");
    expect_contains(t.error, "authentication failed");
    expect_contains(t.error, "REDFISH_USER");
    expect_contains(t.error, "REDFISH_PASSWORD");
    cr_expect(isnan(t.watts));
}

Test(redfish_walk, http_5xx_invalid_json_and_transport_errors)
{
    static const struct {
        route inject;
        int rc;
        const char *text1, *text2;
    } cases[] = {
        {{"/redfish/v1/Chassis/1/Power", NULL,
          "{\"error\":{\"message\":\"Internal error\\nwith newline\"}}", 500, 0},
         -EIO, "mock://bmc/redfish/v1/Chassis/1/Power: HTTP 500", "Internal error?with newline"},
        {{"/redfish/v1/Chassis/1/Power", NULL, "<html>Service Unavailable</html>", 503, 0}, -EIO,
         "HTTP 503 server error", "mock://bmc"},
        {{"/redfish/v1/Chassis/1/Power", RF "invalid/dell_power_unquoted_string.json", NULL, 200,
          0},
         -EBADMSG, "mock://bmc/redfish/v1/Chassis/1/Power: invalid JSON", "line 71 column 15"},
        {{"/redfish/v1/Chassis/1", NULL, "{\"Id\":", 200, 0}, -EBADMSG,
         "mock://bmc/redfish/v1/Chassis/1: invalid JSON", "line 1"},
        {{"/redfish/v1/Chassis/1/Power", NULL, NULL, 0, ETIMEDOUT}, -ETIMEDOUT,
         "injected transport failure", "/redfish/v1/Chassis/1/Power"},
        {{"/redfish/v1/Chassis", NULL, NULL, 0, ECONNREFUSED}, -ECONNREFUSED,
         "injected transport failure", "/redfish/v1/Chassis"},
        {{"/redfish/v1/Chassis", NULL, "{}", 302, 0}, -EIO, "unexpected HTTP 302", "Chassis"},
        {{"/redfish/v1/Chassis", NULL, "{}", 403, 0}, -EACCES, "HTTP 403 forbidden",
         "REDFISH_USER"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        route routes[4];
        tree_fetcher f = kepler_service(routes, RF "kepler-fixtures/dell_power_245w.json", 200);
        routes[3] = cases[i].inject;
        /* the injected route must win: put it first */
        route tmp = routes[0];
        routes[0] = routes[3];
        routes[3] = tmp;
        f.nroutes = 4;
        wc_redfish_walker w = walker(&f);
        wc_truth_sample t = blank_sample();
        int rc = wc_redfish_walk_poll(&w, &t);
        cr_expect_eq(rc, cases[i].rc, "case %zu: rc %d (%s)", i, rc, t.error);
        cr_expect_eq(t.status, WC_TRUTH_ERROR, "case %zu", i);
        expect_contains(t.error, cases[i].text1);
        expect_contains(t.error, cases[i].text2);
        cr_expect(isnan(t.watts));
    }
}

/* ---- the source: caching, rediscovery, wc_truth_poll ------------------------ */

Test(redfish_source, discovers_once_then_reads_one_resource)
{
    tree_fetcher f = tree(RF "dmtf-pub-2026-tower/redfish/v1");
    wc_truth_source s;
    memset(&s, 0, sizeof s);
    wc_truth_config_defaults(&s.cfg);
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_redfish_init_fetcher(&s, "mock://bmc", tree_fetch, &f, &err), 0);
    wc_redfish_walker *w = wc_truth_redfish_walker(&s);
    cr_assert_not_null(w);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&s, &t), 0, "%s", t.error);
    expect_ok(&t, 974, "redfish:Tower:EnvironmentMetrics.PowerWatts", 0, 0);
    cr_expect_eq(f.calls, 3, "collection, chassis, EnvironmentMetrics: %lu", f.calls);
    cr_expect_eq(w->plan.kind, WC_REDFISH_PLAN_ENVIRONMENT);
    cr_expect_gt(t.poll_mono_ns, 0);
    for (int i = 0; i < 3; i++) {
        unsigned long before = f.calls;
        cr_assert_eq(wc_truth_poll(&s, &t), 0);
        cr_expect_eq(t.status, WC_TRUTH_OK, "no device timestamp: never stale");
        cr_expect_eq(f.calls - before, 1, "cached plan: one request per poll");
    }
    wc_truth_close(&s);
}

Test(redfish_source, rediscovers_after_an_error)
{
    static route broken[] = {
        {"/redfish/v1/Chassis/Tower/EnvironmentMetrics", NULL, "{\"error\":{}}", 500, 0},
    };
    tree_fetcher f = tree(RF "dmtf-pub-2026-tower/redfish/v1");
    wc_truth_source s;
    memset(&s, 0, sizeof s);
    wc_truth_config_defaults(&s.cfg);
    cr_assert_eq(wc_truth_redfish_init_fetcher(&s, "mock://bmc", tree_fetch, &f, NULL), 0);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&s, &t), 0);
    f.routes = broken;
    f.nroutes = 1;
    cr_expect_eq(wc_truth_poll(&s, &t), -EIO);
    cr_expect_eq(t.status, WC_TRUTH_ERROR);
    expect_contains(t.error, "HTTP 500");
    cr_expect_eq(wc_truth_redfish_walker(&s)->plan.kind, WC_REDFISH_PLAN_NONE);
    f.routes = NULL;
    f.nroutes = 0;
    unsigned long before = f.calls;
    cr_assert_eq(wc_truth_poll(&s, &t), 0, "%s", t.error);
    cr_expect_eq(t.status, WC_TRUTH_OK);
    cr_expect_eq(f.calls - before, 3, "rediscovery walks from the collection again");
    wc_truth_close(&s);
}

Test(redfish_source, supplies_plan_reads_each_metrics)
{
    tree_fetcher f = tree(RF "dmtf-pub-2026-tower/redfish/v1");
    f.hidden[0] = "/redfish/v1/Chassis/Tower/EnvironmentMetrics";
    wc_truth_source s;
    memset(&s, 0, sizeof s);
    wc_truth_config_defaults(&s.cfg);
    cr_assert_eq(wc_truth_redfish_init_fetcher(&s, "mock://bmc", tree_fetch, &f, NULL), 0);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&s, &t), 0);
    cr_expect_eq(wc_truth_redfish_walker(&s)->plan.kind, WC_REDFISH_PLAN_SUPPLIES);
    unsigned long before = f.calls;
    cr_assert_eq(wc_truth_poll(&s, &t), 0);
    cr_expect_float_eq(t.watts, 974.8, 1e-9);
    cr_expect_eq(f.calls - before, 2, "one Metrics request per supply");
    wc_truth_close(&s);
}

Test(redfish_source, walker_accessor_rejects_other_sources)
{
    wc_truth_source s;
    memset(&s, 0, sizeof s);
    cr_expect_null(wc_truth_redfish_walker(&s));
    cr_expect_null(wc_truth_redfish_walker(NULL));
}

/* ---- the libcurl source on loopback ---------------------------------------- */

Test(redfish_http, spec_urls)
{
    static const struct {
        const char *url;
        int rc;
    } cases[] = {
        {"https://bmc.example.com", 0},
        {"https://bmc.example.com:8443", 0},
        {"https://10.0.0.5/", 0},
        {"https://[fe80::1]:443/redfish/v1", 0},
        {"http://127.0.0.1:8000/redfish/v1/", 0},
        {"http://127.3.2.1", 0},
        {"http://localhost:8000", 0},
        {"http://LocalHost", 0},
        {"http://[::1]:8000/", 0},
        {"http://[::ffff:127.0.0.1]:8000", 0},
        {"http://bmc.example.com", -EINVAL},
        {"http://10.0.0.5:80", -EINVAL},
        {"http://128.0.0.1", -EINVAL},
        {"http://127.0.0.1.evil.example", -EINVAL},
        {"http://localhost.evil.example", -EINVAL},
        {"http://127.1", -EINVAL},
        {"http://[fe80::1]", -EINVAL},
        {"http://[::2]", -EINVAL},
        {"ftp://bmc", -EINVAL},
        {"https://", -EINVAL},
        {"https://bmc:0", -EINVAL},
        {"https://bmc:70000", -EINVAL},
        {"https://bmc:", -EINVAL},
        {"https://bmc/other/path", -EINVAL},
        {"https://bmc?x=1", -EINVAL},
        {"https://bm c", -EINVAL},
        {"bmc.example.com", -EINVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wc_truth_source s;
        memset(&s, 0, sizeof s);
        wc_truth_config_defaults(&s.cfg);
        wc_error err = {{0}};
        int rc = wc_truth_redfish_init(&s, cases[i].url, &err);
        cr_expect_eq(rc, cases[i].rc, "%s: %d %s", cases[i].url, rc, err.msg);
        wc_truth_close(&s);
    }
}

/* Basic auth over plain HTTP is the password in clear text: refused for any
 * host but loopback, before anything is sent. */
Test(redfish_http, plain_http_to_a_remote_host_is_refused)
{
    setenv("REDFISH_USER", "admin", 1);
    setenv("REDFISH_PASSWORD", "s3cret-pw", 1);
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    wc_truth_source s;
    wc_error err = {{0}};
    cr_expect_eq(wc_truth_open("redfish:http://bmc.example.com", &cfg, &s, &err), -EINVAL);
    expect_contains(err.msg, "plain HTTP would send the BMC password in clear text: use https://");
    expect_contains(err.msg, "bmc.example.com");
    cr_expect_null(strstr(err.msg, "s3cret-pw"));
    cr_expect_null(s.priv);
    cfg.insecure = 1; /* --insecure is about TLS; it does not allow clear text */
    cr_expect_eq(wc_truth_open("redfish:HTTP://10.1.2.3:8080/redfish/v1", &cfg, &s, &err),
                 -EINVAL);
    expect_contains(err.msg, "use https://");
    cfg.insecure = 0;
    cr_assert_eq(wc_truth_open("redfish:http://localhost:8000", &cfg, &s, &err), 0, "%s",
                 err.msg);
    expect_contains(s.description, "plain HTTP to a loopback host");
    wc_truth_close(&s);
    cr_assert_eq(wc_truth_open("redfish:https://bmc.example.com", &cfg, &s, &err), 0, "%s",
                 err.msg);
    expect_contains(s.description, "TLS verified");
    wc_truth_close(&s);
}

Test(redfish_http, credentials_in_the_url_are_refused_and_not_echoed)
{
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    wc_truth_source s;
    wc_error err = {{0}};
    int rc = wc_truth_open("redfish:https://root:hunter2@bmc.example.com", &cfg, &s, &err);
    cr_expect_eq(rc, -EINVAL);
    cr_expect(strstr(err.msg, "hunter2") == NULL, "password echoed: %s", err.msg);
    cr_expect(strstr(s.spec, "hunter2") == NULL, "password kept in spec");
    expect_contains(err.msg, "REDFISH_USER");
}

Test(redfish_http, open_needs_user_and_password)
{
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    wc_truth_source s;
    wc_error err = {{0}};
    unsetenv("REDFISH_USER");
    unsetenv("REDFISH_PASSWORD");
    cr_expect_eq(wc_truth_open("redfish:https://bmc.example.com", &cfg, &s, &err), -ENOENT);
    expect_contains(err.msg, "--truth redfish:https://bmc.example.com: no user"); /* spec as typed */
    expect_contains(err.msg, "REDFISH_USER");
    wc_truth_close(&s);
    setenv("REDFISH_USER", "admin", 1);
    cr_expect_eq(wc_truth_open("redfish:https://bmc.example.com", &cfg, &s, &err), -ENOENT);
    expect_contains(err.msg, "REDFISH_PASSWORD");
    expect_contains(err.msg, "--truth-password-file");
    wc_truth_close(&s);
    setenv("REDFISH_PASSWORD", "s3cret-pw", 1);
    cr_assert_eq(wc_truth_open("redfish:https://bmc.example.com", &cfg, &s, &err), 0, "%s",
                 err.msg);
    expect_contains(s.description, "https://bmc.example.com as admin");
    expect_contains(s.description, "TLS verified");
    cr_expect(strstr(s.description, "s3cret-pw") == NULL);
    cr_expect_str_eq(s.ops->kind, "redfish");
    wc_truth_close(&s);
}

Test(redfish_http, password_file_is_named_in_the_auth_hint)
{
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "pw", "from-file\n");
    char pwfile[512];
    snprintf(pwfile, sizeof pwfile, "%s/pw", dir);
    setenv("REDFISH_USER", "admin", 1);
    unsetenv("REDFISH_PASSWORD");
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    cfg.password_file = pwfile;
    cfg.insecure = 1;
    wc_truth_source s;
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_open("redfish:https://bmc.example.com", &cfg, &s, &err), 0, "%s",
                 err.msg);
    expect_contains(wc_truth_redfish_walker(&s)->auth_hint, pwfile);
    expect_contains(s.description, "TLS NOT verified");
    wc_truth_close(&s);
}

/* An empty password (file or environment) or a password "file" that is a
 * directory is refused at open, naming the file; nothing is sent. */
Test(redfish_http, empty_or_unusable_password_source_is_refused_at_open)
{
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "empty", "");
    wc_test_write(dir, "blank", "  \r\nsecond-line\n");
    wc_test_write(dir, "good", "pw-ok\n");
    setenv("REDFISH_USER", "admin", 1);
    unsetenv("REDFISH_PASSWORD");
    static const struct {
        const char *file, *reason;
        int rc;
    } cases[] = {
        {"empty", "empty first line (no password)", -EINVAL},
        {"blank", "empty first line (no password)", -EINVAL},
        {"", "is a directory", -EISDIR},
        {"missing", "No such file", -ENOENT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char pwfile[512];
        snprintf(pwfile, sizeof pwfile, "%s/%s", dir, cases[i].file);
        wc_truth_config cfg;
        wc_truth_config_defaults(&cfg);
        cfg.password_file = pwfile;
        wc_truth_source s;
        wc_error err = {{0}};
        cr_expect_eq(wc_truth_open("redfish:https://bmc.example.com", &cfg, &s, &err),
                     cases[i].rc, "%s: %s", pwfile, err.msg);
        char want[600];
        snprintf(want, sizeof want, "--truth-password-file %s: %s", pwfile, cases[i].reason);
        expect_contains(err.msg, want);
        expect_contains(err.msg, "--truth redfish:https://bmc.example.com: ");
        cr_expect_null(s.priv, "a refused source is not kept");
    }
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    wc_truth_source s;
    wc_error err = {{0}};
    setenv("REDFISH_PASSWORD", "", 1);
    cr_expect_eq(wc_truth_open("redfish:https://bmc.example.com", &cfg, &s, &err), -EINVAL);
    expect_contains(err.msg, "REDFISH_PASSWORD is empty");
    unsetenv("REDFISH_PASSWORD");
    char pwfile[512];
    snprintf(pwfile, sizeof pwfile, "%s/good", dir);
    cfg.password_file = pwfile;
    cr_assert_eq(wc_truth_open("redfish:https://bmc.example.com", &cfg, &s, &err), 0, "%s",
                 err.msg);
    wc_truth_close(&s);
}

/* A loopback port with nothing listening (bound, then closed). */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t alen = sizeof a;
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* A loopback listener that never accepts nor answers; returns the fd. */
static int silent_listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(fd, 4), 0);
    socklen_t alen = sizeof a;
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void open_loopback(wc_truth_source *s, int port, int64_t timeout_ns)
{
    setenv("REDFISH_USER", "wattcal", 1);
    setenv("REDFISH_PASSWORD", "pw", 1);
    unsetenv("http_proxy");
    unsetenv("HTTP_PROXY");
    unsetenv("all_proxy");
    unsetenv("ALL_PROXY");
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    cfg.timeout_ns = timeout_ns;
    cfg.connect_timeout_ns = timeout_ns;
    char spec[128];
    snprintf(spec, sizeof spec, "redfish:http://127.0.0.1:%d", port);
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_open(spec, &cfg, s, &err), 0, "%s", err.msg);
}

Test(redfish_http, connection_refused_is_an_error)
{
    wc_truth_source s;
    int port = free_port();
    open_loopback(&s, port, 2 * WC_NS_PER_S);
    wc_truth_sample t;
    int rc = wc_truth_poll(&s, &t);
    cr_expect_eq(rc, -ECONNREFUSED, "rc %d: %s", rc, t.error);
    cr_expect_eq(t.status, WC_TRUTH_ERROR);
    expect_contains(t.error, "http://127.0.0.1:");
    expect_contains(t.error, "/redfish/v1/Chassis");
    expect_contains(t.error, "connection refused");
    wc_truth_close(&s);
}

Test(redfish_http, silent_server_times_out_at_the_configured_timeout)
{
    int port;
    int fd = silent_listener(&port);
    wc_truth_source s;
    open_loopback(&s, port, WC_NS_PER_S);
    wc_truth_sample t;
    int64_t t0 = wc_mono_ns();
    int rc = wc_truth_poll(&s, &t);
    double took_s = (double)(wc_mono_ns() - t0) / 1e9;
    cr_expect_eq(rc, -ETIMEDOUT, "rc %d: %s", rc, t.error);
    cr_expect_eq(t.status, WC_TRUTH_ERROR);
    expect_contains(t.error, "timed out after 1 s");
    cr_expect(took_s >= 0.9 && took_s < 3.0, "took %.2f s", took_s);
    wc_truth_close(&s);
    close(fd);
}

/* IntervalInMin is the statistics' window; it is the reading's window only
 * when the reading equals the average (B22), not for a separate instantaneous
 * PowerConsumedWatts (Dell iDRAC9: 429 W now, 426 W mean over 1 min). */
Test(redfish_parse, stats_window_vs_reading_window)
{
    const char *files[2] = {
        RF "vendor-dell-idrac9-r640/redfish/v1/Chassis/System.Embedded.1/Power/index.json",
        "cases/B22/redfish_powercontrol_dell.json"};
    const double want_window[2] = {0, 60};
    for (int i = 0; i < 2; i++) {
        size_t len = 0;
        char *body = wc_test_slurp(wc_shared_fixture(files[i]), &len);
        wc_redfish_power pw;
        wc_error err = {{0}};
        cr_assert_eq(wc_redfish_parse_power_control(files[i], body, len, &pw, &err), 0, "%s", err.msg);
        cr_expect_float_eq(pw.stats_window_s, 60.0, 1e-9, "%s", files[i]);
        cr_expect_float_eq(pw.window_s, want_window[i], 1e-9, "%s", files[i]);
        cr_expect_eq(pw.window_known, i == 1, "%s", files[i]);
        free(body);
    }
}
