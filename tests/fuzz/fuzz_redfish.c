/*
 * fuzz_redfish.c — Redfish resources (collector/truth/redfish_parse.c): the
 * same JSON text through every parser of Part 1 of redfish_parse.h (members,
 * link, chassis, supply, EnvironmentMetrics, PowerSupplyMetrics, Power,
 * error message), and its first line through wc_redfish_link_path.
 * Contract: returns 0, -ENODATA or -EBADMSG with a printable message naming
 * the URL; a reading is a plausible wall power (> 0 W, a supply's may be
 * 0 W; at most 100 kW; never the 65535 W marker); a kept link is a service
 * path ("/redfish/...", no "..", no fragment, printable) that normalises to
 * itself; at most 64 distinct members; ids printable.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collector/truth/redfish_parse.h"
#include "tests/fuzz/fuzz.h"

#define URL "/redfish/v1/Fuzz"

static void check_rc(int rc, const wc_error *err)
{
    FUZZ_CHECK(rc == 0 || rc == -ENODATA || rc == -EBADMSG, "rc %d", rc);
    FUZZ_CHECK(rc == 0 || (strstr(err->msg, URL) && fuzz_printable(err->msg)), "message '%s'",
               err->msg);
}

/* A kept link: "" or a clean service path that normalises to itself. */
static void check_path(const char *p)
{
    if (!*p)
        return;
    char again[WC_REDFISH_PATH_MAX];
    wc_error err = {{0}};
    FUZZ_CHECK(strncmp(p, "/redfish/", 9) == 0 && !strstr(p, "/../") && !strchr(p, '#') &&
                   fuzz_printable(p),
               "link '%s'", p);
    FUZZ_CHECK(wc_redfish_link_path(p, again, sizeof again, &err) == 0 && strcmp(again, p) == 0,
               "'%s' normalises to '%s' (%s)", p, again, err.msg);
}

static int plausible(double w, int allow_zero)
{
    return isfinite(w) && (allow_zero ? w >= 0 : w > 0) && w <= WC_REDFISH_MAX_NODE_WATTS &&
           w != WC_REDFISH_NO_READING_WATTS;
}

static void members(const char *json, size_t len)
{
    static wc_redfish_members m;
    wc_error err = {{0}};
    int rc = wc_redfish_parse_members(URL, json, len, &m, &err);
    check_rc(rc, &err);
    if (rc)
        return;
    FUZZ_CHECK(m.n <= WC_REDFISH_MAX_MEMBERS, "%zu members", m.n);
    for (size_t i = 0; i < m.n; i++) {
        FUZZ_CHECK(m.path[i][0], "empty member %zu", i);
        check_path(m.path[i]);
        for (size_t j = 0; j < i; j++)
            FUZZ_CHECK(strcmp(m.path[i], m.path[j]) != 0, "member '%s' twice", m.path[i]);
    }
}

static void resources(const char *json, size_t len)
{
    wc_error err = {{0}};
    wc_redfish_chassis ch;
    int rc = wc_redfish_parse_chassis(URL, json, len, &ch, &err);
    check_rc(rc, &err);
    if (!rc) {
        FUZZ_CHECK(fuzz_printable(ch.id), "chassis id '%s'", ch.id);
        check_path(ch.environment_metrics);
        check_path(ch.power_subsystem);
        check_path(ch.power);
    }
    wc_redfish_supply su;
    rc = wc_redfish_parse_supply(URL, json, len, &su, &err);
    check_rc(rc, &err);
    if (!rc) {
        FUZZ_CHECK(fuzz_printable(su.id), "supply id '%s'", su.id);
        check_path(su.metrics);
    }
    char link[WC_REDFISH_PATH_MAX];
    rc = wc_redfish_parse_link(URL, json, len, "PowerSupplies", link, sizeof link, &err);
    check_rc(rc, &err);
    if (!rc)
        check_path(link);
}

static void readings(const char *json, size_t len)
{
    wc_error err = {{0}};
    wc_redfish_power p;
    int rc = wc_redfish_parse_environment_metrics(URL, json, len, &p, &err);
    check_rc(rc, &err);
    FUZZ_CHECK(rc || plausible(p.watts, 0), "EnvironmentMetrics %g W", p.watts);
    double w = NAN;
    rc = wc_redfish_parse_supply_metrics(URL, json, len, &w, &err);
    check_rc(rc, &err);
    FUZZ_CHECK(rc || plausible(w, 1), "supply %g W", w);
    rc = wc_redfish_parse_power_control(URL, json, len, &p, &err);
    check_rc(rc, &err);
    if (!rc) {
        FUZZ_CHECK(plausible(p.watts, 0) && p.member >= -1, "PowerControl[%d] %g W", p.member,
                   p.watts);
        FUZZ_CHECK(!p.window_known || p.window_s > 0, "window %g s", p.window_s);
        FUZZ_CHECK((isnan(p.avg_watts) || plausible(p.avg_watts, 1)) &&
                       (isnan(p.min_watts) || plausible(p.min_watts, 1)) &&
                       (isnan(p.max_watts) || plausible(p.max_watts, 1)),
                   "statistics %g %g %g", p.avg_watts, p.min_watts, p.max_watts);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *json = (const char *)data;
    members(json, size);
    resources(json, size);
    readings(json, size);
    char msg[128];
    wc_redfish_error_message(json, size, msg, sizeof msg);
    FUZZ_CHECK(memchr(msg, '\0', sizeof msg) && fuzz_printable(msg), "error message '%s'", msg);
    char *text = fuzz_cstr(data, size);
    char *nl = strchr(text, '\n');
    if (nl)
        *nl = '\0';
    char path[WC_REDFISH_PATH_MAX];
    wc_error err = {{0}};
    int rc = wc_redfish_link_path(text, path, sizeof path, &err);
    FUZZ_CHECK(rc == 0 || ((rc == -EINVAL || rc == -ENAMETOOLONG) && fuzz_printable(err.msg)),
               "link rc %d '%s'", rc, err.msg);
    if (rc == 0)
        check_path(path);
    free(text);
    return 0;
}
