/*
 * redfish_parse.c — pure parsing of Redfish resources (see redfish_parse.h,
 * part 1): collection members, Chassis links, PowerSupply state, and the
 * three power readings (EnvironmentMetrics, PowerSupplyMetrics, Power /
 * PowerControl). No I/O; device text is untrusted and copied bounded.
 */
#include "collector/truth/redfish_parse.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void wc_redfish_copy_untrusted(char *out, size_t cap, const char *text)
{
    if (!cap)
        return;
    size_t i = 0;
    for (; text && text[i] && i + 1 < cap; i++) {
        unsigned char c = (unsigned char)text[i];
        out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    out[i] = '\0';
}

/* An Id fit for a sample path "redfish:<id>:...": [A-Za-z0-9._-] kept,
 * anything else '_'. */
static void copy_id(char *out, size_t cap, const char *text)
{
    wc_redfish_copy_untrusted(out, cap, text);
    for (char *p = out; *p; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        if (!ok)
            *p = '_';
    }
}

/* The last non-empty segment of a path or URL ("/redfish/v1/Chassis/1U/" -> "1U"). */
static void last_segment(char *out, size_t cap, const char *url)
{
    size_t n = strlen(url);
    while (n > 0 && url[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && url[start - 1] != '/')
        start--;
    char seg[WC_REDFISH_ID_MAX];
    size_t len = n - start < sizeof seg - 1 ? n - start : sizeof seg - 1;
    memcpy(seg, url + start, len);
    seg[len] = '\0';
    copy_id(out, cap, seg);
}

/* Line (1-based), column (1-based) of byte offset off in text. */
static void text_position(const char *text, size_t off, int *line, int *col)
{
    int l = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            l++;
            line_start = i + 1;
        }
    }
    *line = l;
    *col = (int)(off - line_start) + 1;
}

static int invalid_json(const char *url, const char *json, size_t len, size_t off,
                        const char *what, wc_error *err)
{
    if (off > len)
        off = len;
    int line, col;
    text_position(json, off, &line, &col);
    char near[24];
    size_t n = len - off < sizeof near - 1 ? len - off : sizeof near - 1;
    char raw[sizeof near];
    memcpy(raw, json + off, n);
    raw[n] = '\0';
    wc_redfish_copy_untrusted(near, sizeof near, raw);
    return wc_error_set(err, -EBADMSG, "%s: invalid JSON (%s) at line %d column %d (byte %zu) near '%s'",
                        url, what, line, col, off, near);
}

/* Parses the whole text as one JSON value. Returns 0 with *root set (caller
 * deletes), or -EBADMSG naming url and the position. */
static int parse_doc(const char *url, const char *json, size_t len, cJSON **root, wc_error *err)
{
    *root = NULL;
    if (!json || len == 0)
        return wc_error_set(err, -EBADMSG, "%s: invalid JSON: empty body", url);
    const char *nul = memchr(json, '\0', len);
    if (nul)
        return invalid_json(url, json, len, (size_t)(nul - json), "NUL byte", err);
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    size_t off = end ? (size_t)(end - json) : 0;
    if (!doc)
        return invalid_json(url, json, len, off, "syntax error", err);
    while (off < len && (json[off] == ' ' || json[off] == '\t' || json[off] == '\n' ||
                         json[off] == '\r'))
        off++;
    if (off < len) {
        cJSON_Delete(doc);
        return invalid_json(url, json, len, off, "data after the document", err);
    }
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return invalid_json(url, json, len, 0, "not an object", err);
    }
    *root = doc;
    return 0;
}

static const cJSON *get(const cJSON *obj, const char *key)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

static const char *get_string(const cJSON *obj, const char *key)
{
    const cJSON *v = get(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number property >= 0 (or > 0 when positive), else NAN. */
static double get_number(const cJSON *obj, const char *key, int positive)
{
    const cJSON *v = get(obj, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return NAN;
    if (v->valuedouble < 0 || (positive && v->valuedouble == 0))
        return NAN;
    return v->valuedouble;
}

/* A power value a node can plausibly draw: finite, not the 65535 W 'no
 * reading' marker, at most WC_REDFISH_MAX_NODE_WATTS. */
static int watts_plausible(double w)
{
    return isfinite(w) && w != WC_REDFISH_NO_READING_WATTS && w <= WC_REDFISH_MAX_NODE_WATTS;
}

/* A statistics property (Average/Min/MaxConsumedWatts): >= 0 W and
 * plausible, else NAN. */
static double get_watts(const cJSON *obj, const char *key)
{
    double w = get_number(obj, key, 0);
    return watts_plausible(w) ? w : NAN;
}

/* Checks a reading value: a finite number, >= 0 W (allow_zero) or > 0 W,
 * and plausible (see watts_plausible). field names it in the message
 * ("PowerWatts.Reading"). */
static int reading_of(const cJSON *v, const char *url, const char *field, int allow_zero,
                      double *watts, wc_error *err)
{
    if (!v)
        return wc_error_set(err, -ENODATA, "%s: no %s", url, field);
    if (cJSON_IsNull(v))
        return wc_error_set(err, -ENODATA, "%s: %s is null (no reading)", url, field);
    if (!cJSON_IsNumber(v))
        return wc_error_set(err, -ENODATA, "%s: %s is not a number", url, field);
    double w = v->valuedouble;
    if (!isfinite(w) || w > WC_REDFISH_MAX_NODE_WATTS)
        return wc_error_set(err, -ENODATA, "%s: %s: implausible reading %g W (%s)", url, field, w,
                            isfinite(w) ? "over the plausibility ceiling 100 kW per node"
                                        : "not a finite number");
    if (w == WC_REDFISH_NO_READING_WATTS)
        return wc_error_set(err, -ENODATA,
                            "%s: %s: implausible reading 65535 W (a common 'no reading' "
                            "marker)",
                            url, field);
    if (w < 0)
        return wc_error_set(err, -ENODATA, "%s: %s is %g W (invalid)", url, field, w);
    if (w == 0 && !allow_zero)
        return wc_error_set(err, -ENODATA,
                            "%s: %s is 0 W (host off or no sensor behind it: not a reading)",
                            url, field);
    *watts = w;
    return 0;
}

static int bad_link(wc_error *err, const char *link, const char *why)
{
    char shown[80];
    wc_redfish_copy_untrusted(shown, sizeof shown, link);
    return wc_error_set(err, -EINVAL, "link '%s' %s: not followed", shown, why);
}

static int url_char_ok(unsigned char c)
{
    return c > 0x20 && c < 0x7f && !strchr("\"<>\\^`{|}", c);
}

int wc_redfish_link_path(const char *link, char *out, size_t cap, wc_error *err)
{
    if (cap)
        out[0] = '\0';
    if (!link || !*link || *link == '#')
        return wc_error_set(err, -EINVAL, "empty link: not followed");
    size_t n = strcspn(link, "#");
    if (strncmp(link, "/redfish/", 9) != 0)
        return bad_link(err, link,
                        strstr(link, "://") || strncmp(link, "//", 2) == 0
                            ? "points off the service (absolute URL)"
                            : "is not a /redfish/ path");
    for (size_t i = 0; i < n; i++)
        if (!url_char_ok((unsigned char)link[i]))
            return bad_link(err, link, "holds characters not allowed in a URL path");
    while (n > 9 && link[n - 1] == '/') /* "/redfish/" keeps its slash: a path it accepts */
        n--;
    for (size_t i = 0; i + 2 <= n; i++) {
        if (link[i] == '/' && link[i + 1] == '.' &&
            (i + 2 == n || link[i + 2] == '/' ||
             (link[i + 2] == '.' && (i + 3 == n || link[i + 3] == '/'))))
            return bad_link(err, link, "has a '.' or '..' segment");
    }
    if (n >= cap)
        return wc_error_set(err, -ENAMETOOLONG, "link of %zu bytes longer than %zu: not followed",
                            n, cap - 1);
    memcpy(out, link, n);
    out[n] = '\0';
    return 0;
}

/* The normalised @odata.id of obj[prop] into out; "" when absent/unusable. */
static void link_of(const cJSON *obj, const char *prop, char *out, size_t cap)
{
    out[0] = '\0';
    const char *id = get_string(get(obj, prop), "@odata.id");
    if (id && wc_redfish_link_path(id, out, cap, NULL) != 0)
        out[0] = '\0';
}

int wc_redfish_parse_members(const char *url, const char *json, size_t len,
                             wc_redfish_members *out, wc_error *err)
{
    out->n = 0;
    out->dropped = 0;
    cJSON *root;
    int rc = parse_doc(url, json, len, &root, err);
    if (rc)
        return rc;
    const cJSON *members = get(root, "Members");
    if (!cJSON_IsArray(members)) {
        cJSON_Delete(root);
        return wc_error_set(err, -ENODATA, "%s: no Members list (not a collection)", url);
    }
    const cJSON *m;
    cJSON_ArrayForEach(m, members)
    {
        char path[WC_REDFISH_PATH_MAX];
        const char *id = get_string(m, "@odata.id");
        int dup = 0;
        if (!id || wc_redfish_link_path(id, path, sizeof path, NULL) != 0 ||
            out->n >= WC_REDFISH_MAX_MEMBERS) {
            out->dropped++;
            continue;
        }
        for (size_t i = 0; i < out->n && !dup; i++)
            dup = strcmp(out->path[i], path) == 0;
        if (dup) {
            out->dropped++;
            continue;
        }
        memcpy(out->path[out->n++], path, sizeof path);
    }
    cJSON_Delete(root);
    return 0;
}

int wc_redfish_parse_chassis(const char *url, const char *json, size_t len,
                             wc_redfish_chassis *out, wc_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *root;
    int rc = parse_doc(url, json, len, &root, err);
    if (rc)
        return rc;
    const char *id = get_string(root, "Id");
    if (id && *id)
        copy_id(out->id, sizeof out->id, id);
    else
        last_segment(out->id, sizeof out->id, url);
    link_of(root, "EnvironmentMetrics", out->environment_metrics, sizeof out->environment_metrics);
    link_of(root, "PowerSubsystem", out->power_subsystem, sizeof out->power_subsystem);
    link_of(root, "Power", out->power, sizeof out->power);
    cJSON_Delete(root);
    return 0;
}

int wc_redfish_parse_supply(const char *url, const char *json, size_t len,
                            wc_redfish_supply *out, wc_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *root;
    int rc = parse_doc(url, json, len, &root, err);
    if (rc)
        return rc;
    const char *id = get_string(root, "Id");
    if (id && *id)
        copy_id(out->id, sizeof out->id, id);
    else
        last_segment(out->id, sizeof out->id, url);
    const char *state = get_string(get(root, "Status"), "State");
    out->absent = state && strcmp(state, "Absent") == 0;
    link_of(root, "Metrics", out->metrics, sizeof out->metrics);
    cJSON_Delete(root);
    return 0;
}

static void power_init(wc_redfish_power *out)
{
    out->watts = out->avg_watts = out->min_watts = out->max_watts = NAN;
    out->window_s = 0;
    out->window_known = 0;
    out->member = -1;
}

int wc_redfish_parse_environment_metrics(const char *url, const char *json, size_t len,
                                         wc_redfish_power *out, wc_error *err)
{
    power_init(out);
    cJSON *root;
    int rc = parse_doc(url, json, len, &root, err);
    if (rc)
        return rc;
    const cJSON *pw = get(root, "PowerWatts");
    if (!pw)
        rc = wc_error_set(err, -ENODATA, "%s: no PowerWatts (no power sensor in EnvironmentMetrics)",
                          url);
    else if (cJSON_IsNull(pw))
        rc = wc_error_set(err, -ENODATA, "%s: PowerWatts is null (no reading)", url);
    else if (!cJSON_IsObject(pw))
        rc = wc_error_set(err, -ENODATA, "%s: PowerWatts is not an object", url);
    else
        rc = reading_of(get(pw, "Reading"), url, "PowerWatts.Reading", 0, &out->watts, err);
    cJSON_Delete(root);
    return rc;
}

int wc_redfish_parse_supply_metrics(const char *url, const char *json, size_t len,
                                    double *watts, wc_error *err)
{
    *watts = NAN;
    cJSON *root;
    int rc = parse_doc(url, json, len, &root, err);
    if (rc)
        return rc;
    const cJSON *in = get(root, "InputPowerWatts");
    if (!in)
        rc = wc_error_set(err, -ENODATA, "%s: no InputPowerWatts (supply input power not reported)",
                          url);
    else if (!cJSON_IsObject(in))
        rc = wc_error_set(err, -ENODATA, "%s: InputPowerWatts is %s", url,
                          cJSON_IsNull(in) ? "null (no reading)" : "not an object");
    else
        rc = reading_of(get(in, "Reading"), url, "InputPowerWatts.Reading", 1, watts, err);
    cJSON_Delete(root);
    return rc;
}

/* Fills out from one PowerControl member (index i). */
static int power_control_member(const char *url, const cJSON *m, int i, wc_redfish_power *out,
                                wc_error *err)
{
    char field[64];
    snprintf(field, sizeof field, "PowerControl[%d].PowerConsumedWatts", i);
    double w = NAN;
    int rc = reading_of(get(m, "PowerConsumedWatts"), url, field, 0, &w, err);
    if (rc)
        return rc;
    power_init(out);
    out->watts = w;
    out->member = i;
    const cJSON *pm = get(m, "PowerMetrics");
    double interval_min = get_number(pm, "IntervalInMin", 1);
    out->avg_watts = get_watts(pm, "AverageConsumedWatts");
    if (isfinite(interval_min)) {
        /* IntervalInMin is the window of the statistics. PowerConsumedWatts is
         * that window's mean only when it equals AverageConsumedWatts (B22:
         * 389 W = the 1-minute average); otherwise it is a separate reading
         * (DMTF mockups: 344 W now, 319 W average over 30 min). */
        out->stats_window_s = 60.0 * interval_min;
        if (isfinite(out->avg_watts) && fabs(w - out->avg_watts) < 0.5) {
            out->window_s = out->stats_window_s;
            out->window_known = 1;
        }
    }
    out->min_watts = get_watts(pm, "MinConsumedWatts");
    out->max_watts = get_watts(pm, "MaxConsumedWatts");
    return 0;
}

/* The first member of the PowerControl array with a reading. */
static int power_control_list(const char *url, const cJSON *pc, wc_redfish_power *out,
                              wc_error *err)
{
    int n = cJSON_GetArraySize(pc);
    if (n == 0)
        return wc_error_set(err, -ENODATA, "%s: PowerControl is empty (no power reading)", url);
    wc_error first = {{0}};
    for (int i = 0; i < n; i++) {
        wc_error e = {{0}};
        if (power_control_member(url, cJSON_GetArrayItem(pc, i), i, out, &e) == 0)
            return 0;
        if (i == 0)
            first = e;
    }
    if (n == 1)
        return wc_error_set(err, -ENODATA, "%s", first.msg);
    return wc_error_set(err, -ENODATA, "%s (and none of the other %d members has one)", first.msg,
                        n - 1);
}

int wc_redfish_parse_power_control(const char *url, const char *json, size_t len,
                                   wc_redfish_power *out, wc_error *err)
{
    power_init(out);
    cJSON *root;
    int rc = parse_doc(url, json, len, &root, err);
    if (rc)
        return rc;
    const cJSON *pc = get(root, "PowerControl");
    if (cJSON_IsArray(pc))
        rc = power_control_list(url, pc, out, err);
    else if (!pc && get(root, "PowerConsumedWatts"))
        rc = power_control_member(url, root, 0, out, err); /* a bare PowerControl member */
    else if (pc)
        rc = wc_error_set(err, -ENODATA, "%s: PowerControl is not a list", url);
    else
        rc = wc_error_set(err, -ENODATA, "%s: no PowerControl (no power reading in Power)", url);
    cJSON_Delete(root);
    return rc;
}

void wc_redfish_error_message(const char *json, size_t len, char *out, size_t cap)
{
    if (cap)
        out[0] = '\0';
    cJSON *root;
    if (!cap || parse_doc("", json, len, &root, NULL) != 0)
        return;
    const cJSON *e = get(root, "error");
    const char *msg = get_string(e, "message");
    if (!msg) {
        const cJSON *info = get(e ? e : root, "@Message.ExtendedInfo");
        msg = get_string(cJSON_IsArray(info) ? cJSON_GetArrayItem(info, 0) : NULL, "Message");
    }
    if (msg)
        wc_redfish_copy_untrusted(out, cap, msg);
    cJSON_Delete(root);
}

int wc_redfish_parse_link(const char *url, const char *json, size_t len, const char *prop,
                          char *out, size_t cap, wc_error *err)
{
    out[0] = '\0';
    cJSON *root;
    int rc = parse_doc(url, json, len, &root, err);
    if (rc)
        return rc;
    const char *id = get_string(get(root, prop), "@odata.id");
    if (!id)
        rc = wc_error_set(err, -ENODATA, "%s: no %s link", url, prop);
    else if (wc_redfish_link_path(id, out, cap, err) != 0)
        rc = wc_error_prefix(err, -ENODATA, "%s: %s: ", url, prop);
    cJSON_Delete(root);
    return rc;
}
