/*
 * test_redfish_cases.c — the Redfish ground-truth source on the project's own
 * mockups, tests/fixtures/redfish: the pure parsers (collections, chassis
 * links, supplies, EnvironmentMetrics, PowerSupplyMetrics, Power/PowerControl
 * with and without statistics, the B22 one-minute mean, invalid JSON, issue
 * excerpts, error bodies) and the walk over each service layout (modern,
 * legacy PowerControl beside unreadable supplies, no chassis collection,
 * bladed, power shelf, nested chassis, telemetry) served by a file-backed
 * fetch function, with preference order, caching, rediscovery and HTTP / JSON
 * / transport failures injected per path. test_redfish_parse.c proves the
 * same on the shared corpus/redfish mockups, Kepler's and cases/B22.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/truth/redfish_parse.h"
#include "collector/truth/truth.h"
#include "common/wc_fs.h"
#include "tests/unit/support/test_support.h"

#define RF "redfish/"
#define FILES RF "files/"

/* ---- helpers ------------------------------------------------------------- */

static char *fixture_text(const char *rel, size_t *len)
{
    return wc_test_slurp(wc_own_fixture(rel), len);
}

/* "<tree>/redfish/v1/<path>/index.json" below tests/fixtures/redfish. */
static const char *res(const char *tree, const char *path)
{
    static char buf[8][512];
    static int next;
    char *out = buf[next++ % 8];
    snprintf(out, sizeof buf[0], RF "%s/redfish/v1/%s/index.json", tree, path);
    return out;
}

static int power_of(const char *rel, wc_redfish_power *pw, wc_error *err)
{
    size_t len;
    char *text = fixture_text(rel, &len);
    int rc = wc_redfish_parse_power_control(rel, text, len, pw, err);
    free(text);
    return rc;
}

static void expect_contains(const char *text, const char *needle)
{
    cr_expect(strstr(text, needle) != NULL, "expected '%s' in: %s", needle, text);
}

static wc_truth_sample blank_sample(void)
{
    wc_truth_sample t;
    memset(&t, 0, sizeof t);
    t.watts = t.min_watts = t.max_watts = t.avg_watts = NAN;
    return t;
}

/* ---- file-backed fetcher --------------------------------------------------- */

typedef struct route {
    const char *path;        /* service path */
    const char *file;        /* own-fixture-relative body, or NULL */
    const char *body;        /* inline body when file is NULL */
    long status;             /* 0 means 200 */
    int transport_errno;     /* > 0: the fetch fails with -errno */
} route;

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
        return wc_read_all(wc_own_fixture(r->file), &resp->body, &resp->len, err);
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

/* A fetcher over tests/fixtures/redfish/<name>/redfish/v1. */
static tree_fetcher tree(const char *name)
{
    tree_fetcher f;
    memset(&f, 0, sizeof f);
    snprintf(f.root, sizeof f.root, "%s%s/redfish/v1", wc_own_fixture(RF), name);
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

static int walk_dir(const char *name, wc_truth_sample *out)
{
    tree_fetcher f = tree(name);
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

/* ---- collections, chassis, supplies ----------------------------------------- */

Test(redfish_cases, collections_of_every_mockup)
{
    static const struct {
        const char *tree, *path;
        size_t n;
        const char *first, *last;
        size_t dropped;
    } cases[] = {
        {"modern", "Chassis", 1, "/redfish/v1/Chassis/Node", "/redfish/v1/Chassis/Node", 0},
        {"legacy", "Chassis", 2, "/redfish/v1/Chassis/1U", "/redfish/v1/Chassis/2U", 0},
        {"bladed", "Chassis", 3, "/redfish/v1/Chassis/Encl", "/redfish/v1/Chassis/SledB", 0},
        {"nested", "Chassis", 2, "/redfish/v1/Chassis/Server", "/redfish/v1/Chassis/NIC1", 0},
        {"telemetry", "Chassis", 2, "/redfish/v1/Chassis/Rack1", "/redfish/v1/Chassis/Tray1", 0},
        {"power-shelf", "Chassis", 1, "/redfish/v1/Chassis/Shelf", "/redfish/v1/Chassis/Shelf", 0},
        {"modern", "Chassis/Node/PowerSubsystem/PowerSupplies", 3,
         "/redfish/v1/Chassis/Node/PowerSubsystem/PowerSupplies/PSU1",
         "/redfish/v1/Chassis/Node/PowerSubsystem/PowerSupplies/PSU3", 0},
        {"power-shelf", "Chassis/Shelf/PowerSubsystem/PowerSupplies", 4,
         "/redfish/v1/Chassis/Shelf/PowerSubsystem/PowerSupplies/Bay1",
         "/redfish/v1/Chassis/Shelf/PowerSubsystem/PowerSupplies/Bay4", 1 /* Bay2 twice */},
        {"no-collection", "Chassis/2/PowerSubsystem/PowerSupplies", 1,
         "/redfish/v1/Chassis/2/PowerSubsystem/PowerSupplies/PowerSupply1",
         "/redfish/v1/Chassis/2/PowerSubsystem/PowerSupplies/PowerSupply1", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *file = res(cases[i].tree, cases[i].path);
        size_t len;
        char *text = fixture_text(file, &len);
        wc_redfish_members *m = malloc(sizeof *m);
        wc_error err = {{0}};
        cr_expect_eq(wc_redfish_parse_members(file, text, len, m, &err), 0, "%s: %s", file,
                     err.msg);
        cr_expect_eq(m->n, cases[i].n, "%s: %zu members", file, m->n);
        cr_expect_eq(m->dropped, cases[i].dropped, "%s: %zu dropped", file, m->dropped);
        cr_expect_str_eq(m->path[0], cases[i].first, "%s", file);
        cr_expect_str_eq(m->path[m->n - 1], cases[i].last, "%s", file);
        free(m);
        free(text);
    }
    /* a single-document collection, and a resource without Members */
    size_t len;
    char *text = fixture_text(FILES "chassis_collection.json", &len);
    wc_redfish_members *m = malloc(sizeof *m);
    wc_error err = {{0}};
    cr_expect_eq(wc_redfish_parse_members("c", text, len, m, &err), 0);
    cr_expect_eq(m->n, 1);
    cr_expect_str_eq(m->path[0], "/redfish/v1/Chassis/1");
    free(text);
    text = fixture_text(FILES "service_root.json", &len);
    cr_expect_eq(wc_redfish_parse_members("root", text, len, m, &err), -ENODATA);
    expect_contains(err.msg, "no Members");
    free(text);
    free(m);
}

Test(redfish_cases, chassis_links)
{
    static const struct {
        const char *file, *id, *env, *subsys, *power;
    } cases[] = {
        {RF "modern/redfish/v1/Chassis/Node/index.json", "Node",
         "/redfish/v1/Chassis/Node/EnvironmentMetrics", "/redfish/v1/Chassis/Node/PowerSubsystem",
         "/redfish/v1/Chassis/Node/Power"},
        {RF "legacy/redfish/v1/Chassis/1U/index.json", "1U", "",
         "/redfish/v1/Chassis/1U/PowerSubsystem", "/redfish/v1/Chassis/1U/Power"},
        {RF "power-shelf/redfish/v1/Chassis/Shelf/index.json", "Shelf",
         "/redfish/v1/Chassis/Shelf/EnvironmentMetrics",
         "/redfish/v1/Chassis/Shelf/Sensors" /* sic: the service links Sensors */, ""},
        {RF "bladed/redfish/v1/Chassis/SledA/index.json", "SledA", "", "", ""},
        {RF "no-collection/redfish/v1/Chassis/System.Embedded.1/index.json", "System.Embedded.1",
         "", "", "/redfish/v1/Chassis/System.Embedded.1/Power"},
        /* no Id: the last segment of the URL given (the walk passes the service path) */
        {RF "no-collection/redfish/v1/Chassis/1/index.json", "index.json", "", "",
         "/redfish/v1/Chassis/1/Power"},
        {RF "no-collection/redfish/v1/Chassis/2/index.json", "index.json", "",
         "/redfish/v1/Chassis/2/PowerSubsystem", ""},
        {FILES "chassis.json", "1", "", "", "/redfish/v1/Chassis/1/Power"},
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

Test(redfish_cases, power_supplies_and_their_link)
{
    static const struct {
        const char *tree, *path, *id;
        int absent;
        const char *metrics;
    } cases[] = {
        {"modern", "Chassis/Node/PowerSubsystem/PowerSupplies/PSU1", "PSU1", 0,
         "/redfish/v1/Chassis/Node/PowerSubsystem/PowerSupplies/PSU1/Metrics"},
        {"modern", "Chassis/Node/PowerSubsystem/PowerSupplies/PSU3", "PSU3", 1, ""},
        {"power-shelf", "Chassis/Shelf/PowerSubsystem/PowerSupplies/Bay4", "Bay4", 1, ""},
        /* the resource says Bay1 although the collection says PowerSupply1 */
        {"no-collection", "Chassis/2/PowerSubsystem/PowerSupplies/PowerSupply1", "Bay1", 0,
         "/redfish/v1/Chassis/2/PowerSubsystem/PowerSupplies/PowerSupply1/Metrics"},
        {"legacy", "Chassis/1U/PowerSubsystem/PowerSupplies/PS1", "PS1", 0,
         "/redfish/v1/Chassis/1U/PowerSubsystem/PowerSupplies/PS1/Metrics"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *file = res(cases[i].tree, cases[i].path);
        size_t len;
        char *text = fixture_text(file, &len);
        wc_redfish_supply s;
        wc_error err = {{0}};
        cr_expect_eq(wc_redfish_parse_supply(file, text, len, &s, &err), 0, "%s", err.msg);
        cr_expect_str_eq(s.id, cases[i].id, "%s", file);
        cr_expect_eq(s.absent, cases[i].absent, "%s", file);
        cr_expect_str_eq(s.metrics, cases[i].metrics, "%s", file);
        free(text);
    }
    const char *f = res("modern", "Chassis/Node/PowerSubsystem");
    size_t len;
    char *text = fixture_text(f, &len);
    char out[WC_REDFISH_PATH_MAX];
    wc_error err = {{0}};
    cr_expect_eq(wc_redfish_parse_link(f, text, len, "PowerSupplies", out, sizeof out, &err), 0);
    cr_expect_str_eq(out, "/redfish/v1/Chassis/Node/PowerSubsystem/PowerSupplies");
    cr_expect_eq(wc_redfish_parse_link(f, text, len, "Nope", out, sizeof out, &err), -ENODATA);
    expect_contains(err.msg, "no Nope link");
    free(text);
}

/* ---- readings ---------------------------------------------------------------- */

Test(redfish_cases, environment_metrics)
{
    static const struct {
        const char *tree, *path;
        double watts;
    } cases[] = {
        {"modern", "Chassis/Node/EnvironmentMetrics", 612},
        {"nested", "Chassis/Server/EnvironmentMetrics", 455},
        {"nested", "Chassis/NIC1/EnvironmentMetrics", 38},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *file = res(cases[i].tree, cases[i].path);
        size_t len;
        char *text = fixture_text(file, &len);
        wc_redfish_power pw;
        wc_error err = {{0}};
        cr_expect_eq(wc_redfish_parse_environment_metrics(file, text, len, &pw, &err), 0, "%s",
                     err.msg);
        cr_expect_float_eq(pw.watts, cases[i].watts, 1e-9, "%s", file);
        cr_expect_eq(pw.window_known, 0);
        cr_expect(isnan(pw.avg_watts));
        free(text);
    }
    const char *f = res("power-shelf", "Chassis/Shelf/EnvironmentMetrics");
    size_t len;
    char *text = fixture_text(f, &len);
    wc_redfish_power pw;
    wc_error err = {{0}};
    cr_expect_eq(wc_redfish_parse_environment_metrics(f, text, len, &pw, &err), -ENODATA);
    expect_contains(err.msg, f);
    expect_contains(err.msg, "no PowerWatts");
    cr_expect(isnan(pw.watts));
    free(text);
}

Test(redfish_cases, supply_metrics_input_not_output)
{
    static const struct {
        const char *tree, *path;
        double input_w;
    } cases[] = {
        {"modern", "Chassis/Node/PowerSubsystem/PowerSupplies/PSU1/Metrics", 318.6},
        {"modern", "Chassis/Node/PowerSubsystem/PowerSupplies/PSU2/Metrics", 301.4},
        {"no-collection", "Chassis/2/PowerSubsystem/PowerSupplies/PowerSupply1/Metrics", 812.5},
        {"power-shelf", "Chassis/Shelf/PowerSubsystem/PowerSupplies/Bay1/Metrics", 1210.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *file = res(cases[i].tree, cases[i].path);
        size_t len;
        char *text = fixture_text(file, &len);
        double w = NAN;
        wc_error err = {{0}};
        cr_expect_eq(wc_redfish_parse_supply_metrics(file, text, len, &w, &err), 0, "%s",
                     err.msg);
        cr_expect_float_eq(w, cases[i].input_w, 1e-9, "%s: %g", file, w);
        free(text);
    }
}

typedef struct pc_case {
    const char *file;
    double watts, window_s;
    int window_known;
    double avg, min, max; /* NAN: not reported */
} pc_case;

Test(redfish_cases, power_control_of_every_power_resource)
{
    static const pc_case cases[] = {
        {RF "modern/redfish/v1/Chassis/Node/Power/index.json", 598, 0, 0, 571, 402, 700},
        /* the first PowerControl (server, 377 W), not the chassis one (52 W) */
        {RF "legacy/redfish/v1/Chassis/1U/Power/index.json", 377, 0, 0, 352, 290, 455},
        {RF "legacy/redfish/v1/Chassis/2U/Power/index.json", 455, 0, 0, NAN, NAN, NAN},
        /* the reading IS the 30-minute average: window 1800 s */
        {RF "telemetry/redfish/v1/Chassis/Rack1/Power/index.json", 6400, 1800, 1, 6400, 6100,
         6900},
        {RF "no-collection/redfish/v1/Chassis/1/Power/index.json", 233, 1200, 1, 233, 210, 260},
        {RF "no-collection/redfish/v1/Chassis/System.Embedded.1/Power/index.json", 402, 0, 0, 399,
         395, 410},
        {FILES "power_with_stats.json", 263, 0, 0, 270, 250, 281},
        {FILES "power_plain.json", 215, 0, 0, NAN, NAN, NAN},
        {FILES "power_float.json", 174.6, 0, 0, NAN, NAN, NAN},
        /* B22: a bare PowerControl member; 271 W = the 1-minute average: window 60 s */
        {FILES "b22_powercontrol_member.json", 271, 60, 1, 271, 255, 298},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const pc_case *c = &cases[i];
        wc_redfish_power pw;
        wc_error err = {{0}};
        cr_expect_eq(power_of(c->file, &pw, &err), 0, "%s: %s", c->file, err.msg);
        cr_expect_float_eq(pw.watts, c->watts, 1e-9, "%s watts %g", c->file, pw.watts);
        cr_expect_float_eq(pw.window_s, c->window_s, 1e-9, "%s window %g", c->file, pw.window_s);
        cr_expect_eq(pw.window_known, c->window_known, "%s", c->file);
        cr_expect_eq(pw.member, 0, "%s", c->file);
        const double got[3] = {pw.avg_watts, pw.min_watts, pw.max_watts};
        const double want[3] = {c->avg, c->min, c->max};
        for (int k = 0; k < 3; k++) {
            if (isnan(want[k]))
                cr_expect(isnan(got[k]), "%s stat %d: %g", c->file, k, got[k]);
            else
                cr_expect_float_eq(got[k], want[k], 1e-9, "%s stat %d: %g", c->file, k, got[k]);
        }
    }
}

/* IntervalInMin is the statistics' window; it is the reading's window only
 * when the reading equals the average (B22). */
Test(redfish_cases, b22_stats_window_vs_reading_window)
{
    const char *files[2] = {FILES "instant_vs_average.json", FILES "b22_powercontrol_member.json"};
    for (int i = 0; i < 2; i++) {
        wc_redfish_power pw;
        wc_error err = {{0}};
        cr_assert_eq(power_of(files[i], &pw, &err), 0, "%s", err.msg);
        cr_expect_float_eq(pw.stats_window_s, 60.0, 1e-9, "%s", files[i]);
        cr_expect_float_eq(pw.window_s, i == 1 ? 60.0 : 0.0, 1e-9, "%s", files[i]);
        cr_expect_eq(pw.window_known, i == 1, "%s", files[i]);
        if (i == 1)
            cr_expect_float_eq(pw.watts, pw.avg_watts, 0, "a 1-minute mean, not an instant");
    }
}

Test(redfish_cases, power_without_a_reading)
{
    static const struct {
        const char *file, *reason;
    } cases[] = {
        {FILES "power_empty.json", "PowerControl is empty"},
        {FILES "power_zero.json", "PowerControl[0].PowerConsumedWatts is 0 W"},
        {RF "bladed/redfish/v1/Chassis/Encl/Power/index.json", "no PowerControl"},
        {FILES "service_root.json", "no PowerControl"},
        {FILES "chassis.json", "no PowerControl"},
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

Test(redfish_cases, invalid_json_and_excerpts)
{
    static const struct {
        const char *file, *position;
    } invalid[] = {
        {FILES "invalid_unquoted.json", "line 11 column 15"},
        {FILES "invalid_extra_brace.json", "line 2 column"},
    };
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        wc_redfish_power pw;
        wc_error err = {{0}};
        cr_expect_eq(power_of(invalid[i].file, &pw, &err), -EBADMSG, "%s", invalid[i].file);
        expect_contains(err.msg, invalid[i].file);
        expect_contains(err.msg, "invalid JSON");
        expect_contains(err.msg, invalid[i].position);
    }
    static const char *const excerpts[] = {
        FILES "psu-compact.excerpt.txt", FILES "power-table.excerpt.txt",
        FILES "oem-only.excerpt.txt", FILES "curl-transcript.excerpt.txt"};
    for (size_t i = 0; i < sizeof excerpts / sizeof excerpts[0]; i++) {
        size_t len;
        char *text = fixture_text(excerpts[i], &len);
        wc_redfish_power pw;
        wc_redfish_supply s;
        wc_error err = {{0}};
        cr_expect_eq(wc_redfish_parse_power_control(excerpts[i], text, len, &pw, &err), -EBADMSG,
                     "%s", excerpts[i]);
        expect_contains(err.msg, "invalid JSON");
        expect_contains(err.msg, "line ");
        cr_expect_eq(wc_redfish_parse_supply(excerpts[i], text, len, &s, &err), -EBADMSG);
        free(text);
    }
}

Test(redfish_cases, error_bodies)
{
    static const struct {
        const char *file, *msg;
    } cases[] = {
        {FILES "error_auth.json", "Login refused"},
        {FILES "error_not_found.json", "No such resource."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *text = fixture_text(cases[i].file, &len);
        char msg[64];
        wc_redfish_error_message(text, len, msg, sizeof msg);
        cr_expect_str_eq(msg, cases[i].msg);
        free(text);
    }
}

/* ---- the walk ------------------------------------------------------------------ */

Test(redfish_cases, walk_every_mockup_with_a_chassis_collection)
{
    static const struct {
        const char *tree;
        double watts;
        const char *path;
        double window_s;
        int window_known;
    } cases[] = {
        {"modern", 612, "redfish:Node:EnvironmentMetrics.PowerWatts", 0, 0},
        /* the supplies' Metrics are absent: PowerControl[0], not the 261 W PSU output */
        {"legacy", 377, "redfish:1U:Power.PowerControl[0].PowerConsumedWatts", 0, 0},
        /* the server chassis, never server + NIC (chassis nest: no sum) */
        {"nested", 455, "redfish:Server:EnvironmentMetrics.PowerWatts", 0, 0},
        {"telemetry", 6400, "redfish:Rack1:Power.PowerControl[0].PowerConsumedWatts", 1800, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wc_truth_sample t;
        int rc = walk_dir(cases[i].tree, &t);
        cr_expect_eq(rc, 0, "%s: %s", cases[i].tree, t.error);
        expect_ok(&t, cases[i].watts, cases[i].path, cases[i].window_s, cases[i].window_known);
    }
}

Test(redfish_cases, walk_statistics_travel_with_power_control)
{
    wc_truth_sample t;
    cr_assert_eq(walk_dir("telemetry", &t), 0);
    cr_expect_float_eq(t.avg_watts, 6400, 0);
    cr_expect_float_eq(t.min_watts, 6100, 0);
    cr_expect_float_eq(t.max_watts, 6900, 0);
    cr_assert_eq(walk_dir("legacy", &t), 0);
    cr_expect_neq(t.watts, 261.0, "Kepler's PSU output reading");
    cr_expect_float_eq(t.avg_watts, 352, 0);
    cr_assert_eq(walk_dir("modern", &t), 0);
    cr_expect(isnan(t.avg_watts), "EnvironmentMetrics has no statistics");
}

Test(redfish_cases, walk_bladed_and_power_shelf_have_no_reading)
{
    wc_truth_sample t;
    int rc = walk_dir("bladed", &t);
    expect_unavailable(rc, &t, "no power reading");
    expect_contains(t.error, "Chassis/Encl/Power: no PowerControl");
    expect_contains(t.error, "Chassis/SledA: no EnvironmentMetrics, PowerSubsystem or Power link");
    rc = walk_dir("power-shelf", &t);
    expect_unavailable(rc, &t, "Chassis/Shelf/EnvironmentMetrics: no PowerWatts");
    expect_contains(t.error, "Chassis/Shelf/Sensors: HTTP 404");
    expect_contains(t.error, "no Power link");
}

Test(redfish_cases, walk_without_a_chassis_collection)
{
    wc_truth_sample t;
    int rc = walk_dir("no-collection", &t);
    expect_unavailable(rc, &t, "/redfish/v1/Chassis: HTTP 404");
    static const struct {
        const char *chassis;
        double watts;
        const char *path;
        double window_s;
        int window_known;
    } cases[] = {
        {"/redfish/v1/Chassis/System.Embedded.1", 402,
         "redfish:System.Embedded.1:Power.PowerControl[0].PowerConsumedWatts", 0, 0},
        {"/redfish/v1/Chassis/1", 233, "redfish:1:Power.PowerControl[0].PowerConsumedWatts", 1200,
         1},
        {"/redfish/v1/Chassis/2", 812.5, "redfish:2:PowerSupplies.InputPowerWatts(sum of 1)", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tree_fetcher f = tree("no-collection");
        wc_redfish_walker w = walker(&f);
        t = blank_sample();
        rc = wc_redfish_walk_chassis(&w, cases[i].chassis, &t);
        cr_expect_eq(rc, 0, "%s: %s", cases[i].chassis, t.error);
        expect_ok(&t, cases[i].watts, cases[i].path, cases[i].window_s, cases[i].window_known);
        cr_expect_eq(w.plan.kind, WC_REDFISH_PLAN_NONE, "walk_chassis leaves the plan alone");
    }
}

Test(redfish_cases, walk_order_of_preference_and_absent_supplies)
{
    tree_fetcher f = tree("modern");
    f.hidden[0] = "/redfish/v1/Chassis/Node/EnvironmentMetrics";
    wc_redfish_walker w = walker(&f);
    wc_truth_sample t = blank_sample();
    cr_assert_eq(wc_redfish_walk_poll(&w, &t), 0, "%s", t.error);
    /* inputs 318.6 + 301.4 (not outputs 295.2 + 280); the absent PSU3 skipped */
    expect_ok(&t, 620.0, "redfish:Node:PowerSupplies.InputPowerWatts(sum of 2)", 0, 0);
    tree_fetcher g = tree("modern");
    g.hidden[0] = "/redfish/v1/Chassis/Node/EnvironmentMetrics";
    g.hidden[1] = "/redfish/v1/Chassis/Node/PowerSubsystem";
    wc_redfish_walker w2 = walker(&g);
    t = blank_sample();
    cr_assert_eq(wc_redfish_walk_poll(&w2, &t), 0, "%s", t.error);
    expect_ok(&t, 598, "redfish:Node:Power.PowerControl[0].PowerConsumedWatts", 0, 0);
}

Test(redfish_cases, walk_present_supply_without_reading_or_too_much)
{
    static const route null_input[] = {
        {"/redfish/v1/Chassis/Node/PowerSubsystem/PowerSupplies/PSU2/Metrics", NULL,
         "{\"InputPowerWatts\":{\"Reading\":null},\"OutputPowerWatts\":{\"Reading\":280}}", 200,
         0},
        {"/redfish/v1/Chassis/Node/EnvironmentMetrics", NULL, "{}", 404, 0},
        {"/redfish/v1/Chassis/Node/Power", NULL, "{}", 404, 0},
    };
    tree_fetcher f = tree("modern");
    f.routes = null_input;
    f.nroutes = 3;
    wc_redfish_walker w = walker(&f);
    wc_truth_sample t = blank_sample();
    int rc = wc_redfish_walk_poll(&w, &t);
    expect_unavailable(rc, &t, "PowerSupplies/PSU2/Metrics: InputPowerWatts.Reading is null");
    cr_expect_eq(w.plan.kind, WC_REDFISH_PLAN_NONE);
    static const route huge[] = {
        {"/redfish/v1/Chassis/Node/PowerSubsystem/PowerSupplies/PSU1/Metrics", NULL,
         "{\"InputPowerWatts\":{\"Reading\":60000}}", 200, 0},
        {"/redfish/v1/Chassis/Node/PowerSubsystem/PowerSupplies/PSU2/Metrics", NULL,
         "{\"InputPowerWatts\":{\"Reading\":60000}}", 200, 0},
        {"/redfish/v1/Chassis/Node/EnvironmentMetrics", NULL, "{}", 404, 0},
        {"/redfish/v1/Chassis/Node/Power", NULL, "{}", 404, 0},
    };
    tree_fetcher g = tree("modern");
    g.routes = huge;
    g.nroutes = 4;
    wc_redfish_walker w2 = walker(&g);
    t = blank_sample();
    rc = wc_redfish_walk_poll(&w2, &t);
    expect_unavailable(rc, &t, "Chassis/Node: implausible reading 120000 W");
    expect_contains(t.error, "100 kW");
    cr_expect_eq(w2.plan.kind, WC_REDFISH_PLAN_NONE);
}

/* The single documents of files/ served as a one-chassis service. */
static tree_fetcher files_service(route *routes, const char *power_file, long power_status)
{
    routes[0] = (route){"/redfish/v1/Chassis", FILES "chassis_collection.json", NULL, 200, 0};
    routes[1] = (route){"/redfish/v1/Chassis/1", FILES "chassis.json", NULL, 200, 0};
    routes[2] = (route){"/redfish/v1/Chassis/1/Power", power_file, NULL, power_status, 0};
    tree_fetcher f;
    memset(&f, 0, sizeof f);
    f.routes = routes;
    f.nroutes = 3;
    return f;
}

Test(redfish_cases, walk_single_document_service)
{
    static const struct {
        const char *file;
        double watts;
    } ok[] = {
        {FILES "power_with_stats.json", 263},
        {FILES "power_plain.json", 215},
        {FILES "power_float.json", 174.6},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        route routes[3];
        tree_fetcher f = files_service(routes, ok[i].file, 200);
        wc_redfish_walker w = walker(&f);
        wc_truth_sample t = blank_sample();
        cr_expect_eq(wc_redfish_walk_poll(&w, &t), 0, "%s: %s", ok[i].file, t.error);
        expect_ok(&t, ok[i].watts, "redfish:1:Power.PowerControl[0].PowerConsumedWatts", 0, 0);
    }
    static const struct {
        const char *file;
        long status;
        const char *reason;
    } unavailable[] = {
        {FILES "power_zero.json", 200, "is 0 W"},
        {FILES "power_empty.json", 200, "PowerControl is empty"},
        {FILES "error_not_found.json", 404, "Chassis/1/Power: HTTP 404"},
    };
    for (size_t i = 0; i < sizeof unavailable / sizeof unavailable[0]; i++) {
        route routes[3];
        tree_fetcher f = files_service(routes, unavailable[i].file, unavailable[i].status);
        wc_redfish_walker w = walker(&f);
        wc_truth_sample t = blank_sample();
        expect_unavailable(wc_redfish_walk_poll(&w, &t), &t, unavailable[i].reason);
    }
}

Test(redfish_cases, walk_http_401_is_an_authentication_error)
{
    route routes[3];
    tree_fetcher f = files_service(routes, FILES "power_plain.json", 200);
    routes[0].file = FILES "error_auth.json";
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

Test(redfish_cases, walk_5xx_invalid_json_and_transport_errors)
{
    static const struct {
        route inject;
        int rc;
        const char *text1, *text2;
    } cases[] = {
        {{"/redfish/v1/Chassis/1/Power", NULL, "{\"error\":{\"message\":\"Busy\\nretry\"}}", 500,
          0},
         -EIO, "mock://bmc/redfish/v1/Chassis/1/Power: HTTP 500", "Busy?retry"},
        {{"/redfish/v1/Chassis/1/Power", FILES "invalid_unquoted.json", NULL, 200, 0}, -EBADMSG,
         "mock://bmc/redfish/v1/Chassis/1/Power: invalid JSON", "line 11 column 15"},
        {{"/redfish/v1/Chassis/1/Power", NULL, NULL, 0, ETIMEDOUT}, -ETIMEDOUT,
         "injected transport failure", "/redfish/v1/Chassis/1/Power"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        route routes[4];
        tree_fetcher f = files_service(routes, FILES "power_plain.json", 200);
        routes[3] = routes[0];
        routes[0] = cases[i].inject; /* the injected route must win: first */
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

/* ---- the source: caching, rediscovery --------------------------------------------- */

static void source_over(wc_truth_source *s, tree_fetcher *f)
{
    memset(s, 0, sizeof *s);
    wc_truth_config_defaults(&s->cfg);
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_redfish_init_fetcher(s, "mock://bmc", tree_fetch, f, &err), 0, "%s",
                 err.msg);
}

Test(redfish_cases, source_discovers_once_then_reads_one_resource)
{
    tree_fetcher f = tree("modern");
    wc_truth_source s;
    source_over(&s, &f);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&s, &t), 0, "%s", t.error);
    expect_ok(&t, 612, "redfish:Node:EnvironmentMetrics.PowerWatts", 0, 0);
    cr_expect_eq(f.calls, 3, "collection, chassis, EnvironmentMetrics: %lu", f.calls);
    cr_expect_eq(wc_truth_redfish_walker(&s)->plan.kind, WC_REDFISH_PLAN_ENVIRONMENT);
    cr_expect_gt(t.poll_mono_ns, 0);
    for (int i = 0; i < 3; i++) {
        unsigned long before = f.calls;
        cr_assert_eq(wc_truth_poll(&s, &t), 0);
        cr_expect_eq(t.status, WC_TRUTH_OK, "no device timestamp: never stale");
        cr_expect_eq(f.calls - before, 1, "cached plan: one request per poll");
    }
    wc_truth_close(&s);
}

Test(redfish_cases, source_rediscovers_after_an_error)
{
    static route broken[] = {
        {"/redfish/v1/Chassis/Node/EnvironmentMetrics", NULL, "{\"error\":{}}", 500, 0},
    };
    tree_fetcher f = tree("modern");
    wc_truth_source s;
    source_over(&s, &f);
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

Test(redfish_cases, source_supplies_plan_reads_each_metrics)
{
    tree_fetcher f = tree("modern");
    f.hidden[0] = "/redfish/v1/Chassis/Node/EnvironmentMetrics";
    wc_truth_source s;
    source_over(&s, &f);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&s, &t), 0);
    cr_expect_eq(wc_truth_redfish_walker(&s)->plan.kind, WC_REDFISH_PLAN_SUPPLIES);
    unsigned long before = f.calls;
    cr_assert_eq(wc_truth_poll(&s, &t), 0);
    cr_expect_float_eq(t.watts, 620.0, 1e-9);
    cr_expect_eq(f.calls - before, 2, "one Metrics request per present supply");
    wc_truth_close(&s);
}
