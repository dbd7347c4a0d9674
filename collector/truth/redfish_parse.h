/*
 * redfish_parse.h — reading power out of Redfish resources, and the walk of a
 * Redfish service that finds the node's wall power.
 *
 * Part 1 (collector/truth/redfish_parse.c) is pure: functions over the JSON text of
 * one resource (cJSON), no I/O. Each names the resource's URL in its messages
 * and returns
 *     0          the property was found and is usable,
 *    -ENODATA    the resource answered but holds no usable reading (property
 *                missing, null, not a number, 0 W, empty list, or an
 *                implausible value: non-finite, the 65535 W 'no reading'
 *                marker, above WC_REDFISH_MAX_NODE_WATTS): err says which
 *                property of which URL and why — the caller records the
 *                sample as UNAVAILABLE, never as 0 W,
 *    -EBADMSG    the text is not JSON: err names the URL and the parse
 *                position (line, column, byte offset).
 * Strings taken from the device (Ids, links, error messages) are untrusted:
 * they are copied bounded and reduced to printable ASCII.
 *
 * Part 2 (collector/truth/truth_redfish.c) walks a service through a pluggable
 * fetch function (libcurl in production, a mockup directory in the tests) and
 * fills a wc_truth_sample. Order of preference, on the first chassis of
 * /redfish/v1/Chassis that yields a reading (chassis nest — a blade inside an
 * enclosure, a card inside a server — so readings are never summed across
 * chassis):
 *   1. Chassis/{id}/EnvironmentMetrics  PowerWatts.Reading
 *        path "redfish:{id}:EnvironmentMetrics.PowerWatts"
 *   2. Chassis/{id}/PowerSubsystem -> PowerSupplies -> each present supply's
 *      Metrics InputPowerWatts.Reading, summed (wall side: INPUT, not output)
 *        path "redfish:{id}:PowerSupplies.InputPowerWatts(sum of N)"
 *   3. Chassis/{id}/Power (deprecated)  PowerControl[i].PowerConsumedWatts,
 *      the first member with a reading; PowerMetrics.IntervalInMin gives the
 *      window (60 x IntervalInMin s, window_known = 1) and Average/Min/Max
 *      ConsumedWatts the statistics
 *        path "redfish:{id}:Power.PowerControl[i].PowerConsumedWatts"
 * Oem-only power (e.g. Fujitsu Oem.ts_fujitsu) is not read.
 */
#ifndef WC_REDFISH_PARSE_H
#define WC_REDFISH_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "collector/truth/truth.h"
#include "common/wc_error.h"

/* Longest service path kept for a link ("/redfish/v1/Chassis/1U/Power"). */
#define WC_REDFISH_PATH_MAX 256
/* Most members kept from one collection (chassis, power supplies). */
#define WC_REDFISH_MAX_MEMBERS 64
/* Largest response body accepted, in bytes (4 MiB). */
#define WC_REDFISH_MAX_BODY_BYTES (4u * 1024u * 1024u)
/* Longest chassis/supply Id kept (sanitised) for sample paths and messages. */
#define WC_REDFISH_ID_MAX 48
/* Plausibility ceiling: 100 kW per node. A reading above it (one property,
 * or the sum of the supplies' inputs) is "implausible reading N W":
 * UNAVAILABLE, never stored as ok. */
#define WC_REDFISH_MAX_NODE_WATTS 100000.0
/* A common 'no reading' marker (0xFFFF W): UNAVAILABLE as well. */
#define WC_REDFISH_NO_READING_WATTS 65535.0

/* ---- Part 1: pure parsing (redfish_parse.c) ---------------------------- */

/* Power read from one resource. Every watts field is NAN when not reported. */
typedef struct wc_redfish_power {
    double watts;          /* the reading (W) */
    double avg_watts;      /* PowerMetrics.AverageConsumedWatts (W) */
    double min_watts;      /* PowerMetrics.MinConsumedWatts (W) */
    double max_watts;      /* PowerMetrics.MaxConsumedWatts (W) */
    double window_s;       /* window of `watts`: 60 x IntervalInMin only when the reading equals
                              AverageConsumedWatts (then it IS the window mean, cases/B22);
                              otherwise 0 (an instantaneous or unstated reading) */
    int window_known;      /* 1 when window_s was established that way */
    double stats_window_s; /* 60 x PowerMetrics.IntervalInMin: window of avg/min/max; 0 unknown */
    int member;            /* PowerControl index used; -1 when not PowerControl */
} wc_redfish_power;

/* The links of a Chassis resource that lead to power ("" when absent or
 * unusable) and its Id. */
typedef struct wc_redfish_chassis {
    char id[WC_REDFISH_ID_MAX];                       /* Id, else last path segment */
    char environment_metrics[WC_REDFISH_PATH_MAX];    /* EnvironmentMetrics link */
    char power_subsystem[WC_REDFISH_PATH_MAX];        /* PowerSubsystem link */
    char power[WC_REDFISH_PATH_MAX];                  /* deprecated Power link */
} wc_redfish_chassis;

/* What a PowerSupply resource says about itself. */
typedef struct wc_redfish_supply {
    char id[WC_REDFISH_ID_MAX];                       /* Id, else last path segment */
    int absent;                                       /* Status.State is "Absent" */
    char metrics[WC_REDFISH_PATH_MAX];                /* Metrics link, "" when none */
} wc_redfish_supply;

/* Member links of a collection, in document order, duplicates removed. */
typedef struct wc_redfish_members {
    size_t n;                                         /* links kept in path[] */
    size_t dropped;                                   /* unusable, duplicated or over the cap */
    char path[WC_REDFISH_MAX_MEMBERS][WC_REDFISH_PATH_MAX];
} wc_redfish_members;

/* Normalises one @odata.id link into a service path in out (cap bytes):
 * drops a "#fragment" and a trailing '/', and accepts only a path starting
 * with "/redfish/" made of printable URL characters with no ".." segment.
 * Absolute links ("https://other-host/...") are refused: credentials are
 * never sent off the service. Returns 0, or -EINVAL with err saying why
 * (the link quoted, sanitised). */
int wc_redfish_link_path(const char *link, char *out, size_t cap, wc_error *err);

/* Parses a collection (ChassisCollection, PowerSupplyCollection): the
 * @odata.id of each Members[] entry, normalised by wc_redfish_link_path.
 * An empty Members array gives n = 0 and returns 0. Returns -ENODATA when
 * Members is missing or not an array, -EBADMSG on invalid JSON. */
int wc_redfish_parse_members(const char *url, const char *json, size_t len,
                             wc_redfish_members *out, wc_error *err);

/* The normalised @odata.id of the navigation property prop of a resource
 * (e.g. "PowerSupplies" of a PowerSubsystem) into out (cap bytes). Returns 0,
 * -ENODATA when the property is absent or its link unusable, or -EBADMSG. */
int wc_redfish_parse_link(const char *url, const char *json, size_t len, const char *prop,
                          char *out, size_t cap, wc_error *err);

/* Parses a Chassis resource: Id and the EnvironmentMetrics, PowerSubsystem
 * and Power links. Returns 0 (links may all be ""), or -EBADMSG. */
int wc_redfish_parse_chassis(const char *url, const char *json, size_t len,
                             wc_redfish_chassis *out, wc_error *err);

/* Parses a PowerSupply resource: Id, Status.State == "Absent", Metrics link.
 * Returns 0 or -EBADMSG. */
int wc_redfish_parse_supply(const char *url, const char *json, size_t len,
                            wc_redfish_supply *out, wc_error *err);

/* Parses an EnvironmentMetrics resource: PowerWatts.Reading (W) into
 * out->watts (no window, no statistics). Returns 0, -ENODATA (no PowerWatts,
 * Reading null / not a number / <= 0 W / implausible) or -EBADMSG. */
int wc_redfish_parse_environment_metrics(const char *url, const char *json, size_t len,
                                         wc_redfish_power *out, wc_error *err);

/* Parses a PowerSupplyMetrics resource: InputPowerWatts.Reading (W, the
 * supply's input — never OutputPowerWatts) into *watts. 0 W is a valid
 * reading for one supply (an idle redundant unit). Returns 0, -ENODATA
 * (missing, null, not a number, negative, implausible) or -EBADMSG. The
 * walk also refuses a sum of supplies above WC_REDFISH_MAX_NODE_WATTS. */
int wc_redfish_parse_supply_metrics(const char *url, const char *json, size_t len,
                                    double *watts, wc_error *err);

/* Parses a Power resource (deprecated schema): the first PowerControl[]
 * member whose PowerConsumedWatts is a number > 0 W, with its PowerMetrics
 * (IntervalInMin -> window_s = 60 x IntervalInMin, window_known = 1;
 * Average/Min/MaxConsumedWatts -> avg/min/max, NAN when implausible). A
 * member whose PowerConsumedWatts is implausible is skipped like a null
 * one. Also accepts a bare
 * PowerControl member as the whole document (iDRAC serves
 * .../Power/PowerControl as its own resource). Returns 0, -ENODATA (no
 * PowerControl, empty, every member null/0 W) or -EBADMSG. */
int wc_redfish_parse_power_control(const char *url, const char *json, size_t len,
                                   wc_redfish_power *out, wc_error *err);

/* Extracts the human message of a Redfish error body ("error.message", else
 * the first "@Message.ExtendedInfo" Message) into out (cap bytes, printable
 * ASCII, bounded). out is "" when the body holds none or is not JSON. */
void wc_redfish_error_message(const char *json, size_t len, char *out, size_t cap);

/* Copies untrusted device text into out (cap bytes): printable ASCII kept,
 * anything else replaced by '?', truncated to fit, always NUL-terminated. */
void wc_redfish_copy_untrusted(char *out, size_t cap, const char *text);

/* ---- Part 2: the service walk (truth_redfish.c) ------------------------ */

/* One HTTP answer: status and body (malloc'd, NUL-terminated, may be NULL
 * when empty; freed by the walker with free()). */
typedef struct wc_redfish_response {
    long http_status;      /* 200, 401, 404, 500...; 0 when unknown */
    char *body;
    size_t len;            /* body bytes, without the NUL */
} wc_redfish_response;

/* Fetches the service path (e.g. "/redfish/v1/Chassis") into *resp. Returns
 * 0 when an answer came back (whatever its HTTP status), or -errno for a
 * transport failure with err set: -ETIMEDOUT ("timed out after N s"),
 * -ECONNREFUSED, -EHOSTUNREACH, -EPROTO (TLS), -EFBIG (body over
 * WC_REDFISH_MAX_BODY_BYTES), -EIO. */
typedef int (*wc_redfish_fetch_fn)(void *ctx, const char *path, wc_redfish_response *resp,
                                   wc_error *err);

/* Where the last successful discovery found power, reused by later polls. */
typedef enum wc_redfish_plan_kind {
    WC_REDFISH_PLAN_NONE = 0,
    WC_REDFISH_PLAN_ENVIRONMENT,   /* EnvironmentMetrics PowerWatts */
    WC_REDFISH_PLAN_SUPPLIES,      /* sum of PowerSupplyMetrics InputPowerWatts */
    WC_REDFISH_PLAN_POWER_CONTROL  /* Power PowerControl[] */
} wc_redfish_plan_kind;

/* Most power supplies summed on the PowerSupplies path. */
#define WC_REDFISH_MAX_SUPPLIES 32

/* The cached reading plan. */
typedef struct wc_redfish_plan {
    wc_redfish_plan_kind kind;
    char chassis[WC_REDFISH_ID_MAX];             /* sanitised chassis Id */
    char resource[WC_REDFISH_PATH_MAX];          /* EnvironmentMetrics or Power path */
    size_t nsupplies;                            /* SUPPLIES: metrics paths below */
    char supply_metrics[WC_REDFISH_MAX_SUPPLIES][WC_REDFISH_PATH_MAX];
} wc_redfish_plan;

/* A walk over one service. Fill fetch/ctx/service/auth_hint, zero the rest. */
typedef struct wc_redfish_walker {
    wc_redfish_fetch_fn fetch;
    void *ctx;
    char service[256];     /* "https://bmc:443" or a mockup dir: prefixes URLs in messages */
    char auth_hint[200];   /* added to "authentication failed": which env var/file to check */
    wc_redfish_plan plan;  /* kind NONE until a discovery succeeds */
    unsigned long requests;/* fetches made so far (tests, diagnostics) */
} wc_redfish_walker;

/* Polls once into *out (watts/avg/min/max/window/path/status/error; poll
 * times are left to the caller). Uses the cached plan, or discovers from
 * /redfish/v1/Chassis when there is none; any result other than OK drops the
 * plan so the next poll rediscovers. Returns 0 when the service answered
 * (out->status OK or UNAVAILABLE with the reason in out->error), or -errno
 * with out->status = ERROR and out->error naming the URL: HTTP 401/403
 * (-EACCES, "authentication failed" + auth_hint), HTTP 5xx and other
 * unexpected statuses (-EIO, with the status), invalid JSON (-EBADMSG, with
 * the position), or the fetch function's transport error. out must have been
 * initialised with NAN watts (wc_truth_poll does). */
int wc_redfish_walk_poll(wc_redfish_walker *w, wc_truth_sample *out);

/* Reads one chassis (service path of a Chassis resource) through the order
 * of preference above, without touching the plan; for services without a
 * Chassis collection and for tests. Same returns as wc_redfish_walk_poll. */
int wc_redfish_walk_chassis(wc_redfish_walker *w, const char *chassis_path,
                            wc_truth_sample *out);

/* Sets up s (already zeroed, s->cfg filled) as a Redfish source that fetches
 * through fetch/ctx instead of libcurl; `service` labels URLs in messages.
 * Used by the unit tests to run wc_truth_poll over a mockup directory.
 * Returns 0 or -ENOMEM. */
int wc_truth_redfish_init_fetcher(wc_truth_source *s, const char *service,
                                  wc_redfish_fetch_fn fetch, void *ctx, wc_error *err);

/* The walker inside a source made by wc_truth_redfish_init or
 * wc_truth_redfish_init_fetcher (NULL for any other source). */
wc_redfish_walker *wc_truth_redfish_walker(wc_truth_source *s);

#endif
