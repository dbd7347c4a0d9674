/*
 * ipmi_parse.c — pure parsers for ipmitool / FreeIPMI / ipmiutil power
 * output (see ipmi_parse.h). Everything works on (pointer, length) slices of
 * untrusted BMC text: bounded copies only, no format-string use, nothing
 * read past the given length.
 */
#include "collector/truth/ipmi_parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_clock.h"
#include "common/wc_text.h"

/* ---------------------------------------------------------------- slices */

typedef struct slice {
    const char *p;
    size_t n;
} slice;


static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static slice trim(slice s)
{
    while (s.n && is_blank(s.p[0])) {
        s.p++;
        s.n--;
    }
    while (s.n && is_blank(s.p[s.n - 1]))
        s.n--;
    return s;
}

static char lower(char c)
{
    return (char)tolower((unsigned char)c);
}

static int ci_starts(slice s, const char *lit);

/* Case-insensitive search of lit in s; returns its offset or -1. Candidates
 * are the places of lit's first letter in either case, found with memchr
 * (each case's next place looked up once): linear, and fast on long text. */
static long ci_find(slice s, const char *lit)
{
    size_t m = strlen(lit);
    if (m == 0 || m > s.n)
        return m == 0 ? 0 : -1;
    char a = lower(lit[0]), b = (char)toupper((unsigned char)lit[0]);
    const char *end = s.p + s.n - m + 1; /* the last candidate is end - 1 */
    const char *na = memchr(s.p, a, (size_t)(end - s.p));
    const char *nb = a == b ? NULL : memchr(s.p, b, (size_t)(end - s.p));
    while (na || nb) {
        const char *at = !nb || (na && na < nb) ? na : nb;
        if (ci_starts((slice){at, s.n - (size_t)(at - s.p)}, lit))
            return (long)(at - s.p);
        if (at == na)
            na = memchr(at + 1, a, (size_t)(end - at - 1));
        else
            nb = memchr(at + 1, b, (size_t)(end - at - 1));
    }
    return -1;
}

static int ci_starts(slice s, const char *lit)
{
    size_t m = strlen(lit);
    if (m > s.n)
        return 0;
    for (size_t k = 0; k < m; k++)
        if (lower(s.p[k]) != lower(lit[k]))
            return 0;
    return 1;
}

static int ci_eq(slice s, const char *lit)
{
    return strlen(lit) == s.n && ci_starts(s, lit);
}

/* Next line of text from *pos (without its '\n'); 0 at the end. */
static int next_line(const char *text, size_t len, size_t *pos, slice *line)
{
    if (*pos >= len)
        return 0;
    const char *start = text + *pos;
    const char *nl = memchr(start, '\n', len - *pos);
    size_t n = nl ? (size_t)(nl - start) : len - *pos;
    line->p = start;
    line->n = n;
    *pos += n + (nl ? 1 : 0);
    return 1;
}

/* Bounded printable copy: non-printable bytes become '?'. */
static void copy_clean(slice s, char *buf, size_t cap)
{
    if (!cap)
        return;
    size_t n = s.n < cap - 1 ? s.n : cap - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s.p[i];
        buf[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    buf[n] = '\0';
}

/* Collapses runs of blanks, '_' and '-' into one space and lower-cases:
 * "PS1_Power  In" -> "ps1 power in". */
static void normalise_name(slice s, char *buf, size_t cap)
{
    size_t used = 0;
    int space = 0;
    s = trim(s);
    for (size_t i = 0; i < s.n && used + 1 < cap; i++) {
        char c = s.p[i];
        if (is_blank(c) || c == '_' || c == '-') {
            space = 1;
            continue;
        }
        if (space && used && used + 2 < cap)
            buf[used++] = ' ';
        space = 0;
        buf[used++] = lower(c);
    }
    buf[used] = '\0';
}

/* Parses a leading decimal number ("215", "189.000", "-3", "00065530").
 * *rest receives what follows. Returns 0 or -EINVAL. */
static int parse_number(slice s, double *out, slice *rest)
{
    s = trim(s);
    char buf[64];
    size_t n = 0;
    while (n < s.n && n < sizeof buf - 1 &&
           (isdigit((unsigned char)s.p[n]) || s.p[n] == '.' || (n == 0 && (s.p[n] == '-' || s.p[n] == '+'))))
        n++;
    if (n == 0)
        return -EINVAL;
    memcpy(buf, s.p, n);
    buf[n] = '\0';
    char *end = NULL;
    double v = strtod(buf, &end);
    if (end == buf || *end != '\0' || !isfinite(v))
        return -EINVAL;
    *out = v;
    if (rest) {
        rest->p = s.p + n;
        rest->n = s.n - n;
    }
    return 0;
}

static int is_watts_unit(slice u)
{
    u = trim(u);
    while (u.n && (u.p[u.n - 1] == '.' || u.p[u.n - 1] == ','))
        u.n--;
    return ci_eq(u, "watts") || ci_eq(u, "watt") || ci_eq(u, "w");
}

/* A reading of a power value that cannot be ground truth. */
static int watts_invalid(double w)
{
    return !isfinite(w) || w <= 0.0 || w >= WC_IPMI_SENTINEL_WATTS;
}

static void sample_reset(wc_truth_sample *out)
{
    out->watts = out->min_watts = out->max_watts = out->avg_watts = NAN;
    out->window_s = 0.0;
    out->window_known = 0;
    out->stats_window_s = 0.0;
    out->device_ts_ns = 0;
    out->path[0] = '\0';
    out->error[0] = '\0';
    out->status = WC_TRUTH_OK;
}

/* Marks the sample unavailable with a reason (plain text, already clean). */
static void set_unavailable(wc_truth_sample *out, const char *reason)
{
    out->status = WC_TRUTH_UNAVAILABLE;
    wc_textf(out->error, sizeof out->error, "%s", reason);
}

/* Marks the sample as an error with err's message; returns code. */
static int fail(wc_truth_sample *out, wc_error *err, int code)
{
    out->status = WC_TRUTH_ERROR;
    out->watts = NAN;
    if (err)
        wc_textf(out->error, sizeof out->error, "%s", err->msg);
    return code;
}

size_t wc_ipmi_first_line(const char *text, size_t len, char *buf, size_t cap)
{
    if (!cap)
        return 0;
    buf[0] = '\0';
    size_t pos = 0;
    slice line;
    while (text && next_line(text, len, &pos, &line)) {
        line = trim(line);
        if (line.n) {
            copy_clean(line, buf, cap);
            return strlen(buf);
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- failures */

typedef struct failure_class {
    int code;
    const char *reason;
    const char *const *patterns;
} failure_class;

static const char *const AUTH_PATTERNS[] = {
    "RAKP", "unauthorized name", "invalid password", "password is invalid", "Invalid user name",
    "Insufficient privilege", "privilege level", "authentication", "cipher suite", NULL};
static const char *const UNSUPPORTED_PATTERNS[] = {
    "DCMI request failed", "valid DCMI command was not returned", "Invalid command",
    "invalid or unsupported", "bad completion code", "not supported", "unsupported",
    "Requested sensor, data, or record not found", "Invalid data field", "rsp=0xc1",
    "rsp=0xcb", "rsp=0xd5", "Parameter out of range", "not present", NULL};
static const char *const TRANSPORT_PATTERNS[] = {
    "Unable to establish", "Session Challenge", "Activate Session", "Error loading interface",
    "Could not open device", "No response", "Unable to send", "timeout", "timed out",
    "Connection refused", "Address lookup", "Unable to get", "command failed",
    "No such file", "Get Device ID", "Error:", NULL};

static const failure_class FAILURE_CLASSES[] = {
    {-EACCES,
     "authentication refused (check IPMI_USER, IPMI_PASSWORD or --truth-password-file, the "
     "user's privilege and ?cipher=N)",
     AUTH_PATTERNS},
    {-ENODATA, "not supported by this BMC", UNSUPPORTED_PATTERNS},
    {-EIO, "cannot reach the BMC or log in (no device, no answer, or user, password or "
           "cipher refused)",
     TRANSPORT_PATTERNS},
};

/* First line of text containing pattern, copied clean; 0 when none. low is
 * text lower-cased (or NULL: then each line is searched case-insensitively,
 * which is slower). */
static int find_line_with(const char *text, size_t len, const char *low, const char *pattern,
                          char *buf, size_t cap)
{
    if (!low) {
        size_t pos = 0;
        slice line;
        while (next_line(text, len, &pos, &line)) {
            if (ci_find(line, pattern) >= 0) {
                copy_clean(trim(line), buf, cap);
                return 1;
            }
        }
        return 0;
    }
    char pat[64];
    size_t m = strlen(pattern);
    if (m == 0 || m >= sizeof pat)
        return 0;
    for (size_t i = 0; i < m; i++)
        pat[i] = lower(pattern[i]);
    const char *at = memmem(low, len, pat, m); /* a pattern never spans lines */
    if (!at)
        return 0;
    size_t start = (size_t)(at - low), end = start;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    while (end < len && text[end] != '\n')
        end++;
    copy_clean(trim((slice){text + start, end - start}), buf, cap);
    return 1;
}

int wc_ipmi_classify_failure(const char *text, size_t len, const char *what, wc_error *err)
{
    char line[160];
    if (!text)
        len = 0;
    /* Lower-cased once, then one memmem per pattern: linear in the output
     * with a small constant (it was a byte-by-byte search per pattern). */
    char *low = len ? malloc(len) : NULL;
    for (size_t i = 0; low && i < len; i++)
        low[i] = lower(text[i]);
    int rc = 0;
    for (size_t c = 0; !rc && c < sizeof FAILURE_CLASSES / sizeof FAILURE_CLASSES[0]; c++) {
        const failure_class *fc = &FAILURE_CLASSES[c];
        for (const char *const *p = fc->patterns; !rc && *p; p++)
            if (find_line_with(text, len, low, *p, line, sizeof line))
                rc = wc_error_set(err, fc->code, "%s: %s: %s", what, fc->reason, line);
    }
    free(low);
    if (rc)
        return rc;
    if (!wc_ipmi_first_line(text, len, line, sizeof line))
        return wc_error_set(err, -EPROTO, "%s: empty output", what);
    return wc_error_set(err, -EPROTO, "%s: unsupported format (not ipmitool, FreeIPMI or "
                                      "ipmiutil output): %s",
                        what, line);
}

/* ---------------------------------------------------------------- time */

static int month_from_name(slice s)
{
    static const char *const names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                        "jul", "aug", "sep", "oct", "nov", "dec"};
    if (s.n < 3)
        return 0;
    for (int i = 0; i < 12; i++)
        if (ci_starts(s, names[i]))
            return i + 1;
    return 0;
}

/* Strict unsigned integer of a whole slice; -1 when not one. */
static long slice_uint(slice s)
{
    if (s.n == 0 || s.n > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (!isdigit((unsigned char)s.p[i]))
            return -1;
        v = v * 10 + (s.p[i] - '0');
    }
    return v;
}

/* Splits s at sep into at most max parts; returns the count. */
static size_t split(slice s, char sep, slice *parts, size_t max)
{
    size_t n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= s.n && n < max; i++) {
        if (i == s.n || s.p[i] == sep) {
            parts[n].p = s.p + start;
            parts[n].n = i - start;
            n++;
            start = i + 1;
        }
    }
    return n;
}

/* Splits on blanks into at most max tokens; returns the count. */
static size_t tokens(slice s, slice *tok, size_t max)
{
    size_t n = 0, i = 0;
    while (i < s.n && n < max) {
        while (i < s.n && is_blank(s.p[i]))
            i++;
        if (i == s.n)
            break;
        size_t start = i;
        while (i < s.n && !is_blank(s.p[i]))
            i++;
        tok[n].p = s.p + start;
        tok[n].n = i - start;
        n++;
    }
    return n;
}

typedef struct civil {
    long year, month, day, hour, min, sec;
} civil;

static int parse_hms(slice s, civil *c)
{
    slice p[3];
    if (split(s, ':', p, 3) != 3)
        return -EINVAL;
    c->hour = slice_uint(p[0]);
    c->min = slice_uint(p[1]);
    c->sec = slice_uint(p[2]);
    if (c->hour < 0 || c->hour > 23 || c->min < 0 || c->min > 59 || c->sec < 0 || c->sec > 60)
        return -EINVAL;
    return 0;
}

/* "MM/DD/YY" or "MM/DD/YYYY" (the C locale's %x, FreeIPMI's date). */
static int parse_mdy(slice s, civil *c)
{
    slice p[3];
    if (split(s, '/', p, 3) != 3)
        return -EINVAL;
    c->month = slice_uint(p[0]);
    c->day = slice_uint(p[1]);
    c->year = slice_uint(p[2]);
    if (c->year < 0)
        return -EINVAL;
    if (p[2].n == 2)
        c->year += c->year < 70 ? 2000 : 1900;
    return 0;
}

/* "YYYY-MM-DD". */
static int parse_ymd(slice s, civil *c)
{
    slice p[3];
    if (split(s, '-', p, 3) != 3)
        return -EINVAL;
    c->year = slice_uint(p[0]);
    c->month = slice_uint(p[1]);
    c->day = slice_uint(p[2]);
    return c->year < 0 ? -EINVAL : 0;
}

/* Offset east of UTC in seconds for a zone token; -EINVAL when unknown. */
static int zone_offset_s(slice z, long *off)
{
    static const struct {
        const char *name;
        int hours_x2;
    } zones[] = {{"UTC", 0},    {"GMT", 0},    {"UCT", 0},    {"Z", 0},      {"WET", 0},
                 {"WEST", 2},   {"BST", 2},    {"CET", 2},    {"CEST", 4},   {"MET", 2},
                 {"MEST", 4},   {"EET", 4},    {"EEST", 6},   {"MSK", 6},    {"JST", 18},
                 {"KST", 18},   {"HKT", 16},   {"AEST", 20},  {"AEDT", 22},  {"EST", -10},
                 {"EDT", -8},   {"CDT", -10},  {"MST", -14},  {"MDT", -12},  {"PST", -16},
                 {"PDT", -14},  {"AKST", -18}, {"AKDT", -16}, {"HST", -20}};
    if (z.n == 5 && (z.p[0] == '+' || z.p[0] == '-')) {
        slice hh = {z.p + 1, 2}, mm = {z.p + 3, 2};
        long h = slice_uint(hh), m = slice_uint(mm);
        if (h < 0 || h > 14 || m < 0 || m > 59)
            return -EINVAL;
        *off = (z.p[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
        return 0;
    }
    for (size_t i = 0; i < sizeof zones / sizeof zones[0]; i++)
        if (ci_eq(z, zones[i].name)) {
            *off = zones[i].hours_x2 * 1800L;
            return 0;
        }
    return -EINVAL;
}

static int civil_valid(const civil *c)
{
    return c->year >= 1970 && c->year <= 2200 && c->month >= 1 && c->month <= 12 && c->day >= 1 &&
           c->day <= 31;
}

/* Recognises the date/time tokens; *next = index of the first token after. */
static int parse_date_tokens(const slice *tok, size_t nt, civil *c, size_t *next)
{
    /* ctime: "Wed Feb 15 12:49:51 2017" */
    if (nt >= 5 && month_from_name(tok[1]) && tok[0].n >= 3 && isalpha((unsigned char)tok[0].p[0])) {
        c->month = month_from_name(tok[1]);
        c->day = slice_uint(tok[2]);
        c->year = slice_uint(tok[4]);
        *next = 5;
        return parse_hms(tok[3], c);
    }
    if (nt >= 2 && parse_mdy(tok[0], c) == 0) {
        size_t t = 1;
        if (tok[t].n == 1 && tok[t].p[0] == '-' && nt >= 3) /* FreeIPMI "11/03/2023 - 08:36:29" */
            t++;
        *next = t + 1;
        return parse_hms(tok[t], c);
    }
    if (nt >= 2 && parse_ymd(tok[0], c) == 0) {
        *next = 2;
        return parse_hms(tok[1], c);
    }
    return -EINVAL;
}

int wc_ipmi_parse_time_ns(const char *text, size_t len, int64_t *out_ns)
{
    *out_ns = 0;
    slice s = trim((slice){text, text ? len : 0});
    if (ci_find(s, "unspecified") >= 0 || ci_find(s, "pre-init") >= 0 ||
        ci_find(s, "unknown") >= 0 || ci_eq(s, "n/a") || ci_eq(s, "na"))
        return 0;
    slice tok[8];
    size_t nt = tokens(s, tok, 8);
    civil c = {0};
    size_t next = 0;
    if (parse_date_tokens(tok, nt, &c, &next) || !civil_valid(&c))
        return -EINVAL;
    long off = 0;
    if (next < nt && zone_offset_s(tok[next], &off))
        return -EINVAL;
    if (next + 1 < nt)
        return -EINVAL;
    int64_t secs = wc_days_from_civil(c.year, (unsigned)c.month, (unsigned)c.day) * 86400 +
                   c.hour * 3600 + c.min * 60 + c.sec - off;
    /* IPMI: timestamps below 0x20000000 are "seconds since BMC init", not wall time. */
    if (secs < 0x20000000LL)
        return 0;
    *out_ns = secs * WC_NS_PER_S;
    return 0;
}

/* ---------------------------------------------------------------- DCMI */

enum dcmi_field { F_CUR, F_MIN, F_MAX, F_AVG, F_TS, F_PERIOD, F_STATE, F_STOP, F_COUNT };

static const struct {
    const char *key;
    enum dcmi_field field;
} DCMI_KEYS[] = {
    {"Instantaneous power reading", F_CUR},
    {"Current Power", F_CUR},
    {"Minimum during sampling period", F_MIN},
    {"Minimum Power over sampling duration", F_MIN},
    {"Min Power over sample duration", F_MIN},
    {"Maximum during sampling period", F_MAX},
    {"Maximum Power over sampling duration", F_MAX},
    {"Max Power over sample duration", F_MAX},
    {"Average power reading over sample period", F_AVG},
    {"Average Power over sampling duration", F_AVG},
    {"Avg Power over sample duration", F_AVG},
    {"IPMI timestamp", F_TS},
    {"Time Stamp", F_TS},
    {"Timestamp", F_TS},
    {"Sampling period", F_PERIOD},
    {"Statistics reporting time period", F_PERIOD},
    {"Power reading state is", F_STATE},
    {"Power Measurement", F_STATE},
    /* ipmiutil's power-limit section follows the reading: stop there. */
    {"Power Limit", F_STOP},
    {"Exception Action", F_STOP},
    {"Correction Time", F_STOP},
};
#define N_DCMI_KEYS (sizeof DCMI_KEYS / sizeof DCMI_KEYS[0])

typedef struct dcmi_fields {
    int seen[F_COUNT];
    slice value[F_COUNT];
    int any;
    int stopped;
} dcmi_fields;

/* Index of the DCMI key equal to `key` (blank runs ignored), or -1. The keys
 * of DCMI_KEYS are already normal (single spaces, no '_' or '-'), so the key
 * is normalised once and compared case-insensitively. */
static int dcmi_key_index(slice key)
{
    char norm[96];
    normalise_name(key, norm, sizeof norm);
    slice n = {norm, strlen(norm)};
    for (size_t i = 0; i < N_DCMI_KEYS; i++)
        if (ci_eq(n, DCMI_KEYS[i].key))
            return (int)i;
    return -1;
}

/* Offset in v of the first DCMI key glued after a blank run ("...CEST
 * Sampling period: 00065530"), or -1. One forward pass that stops at the
 * first key, so a line of many glued keys is read in linear time (it used
 * to search every key to the end of the line for each one it took). */
static long glued_key_offset(slice v)
{
    for (size_t i = 1; i < v.n; i++) {
        if (!is_blank(v.p[i - 1]) || is_blank(v.p[i]))
            continue;
        slice at = {v.p + i, v.n - i};
        char c = lower(v.p[i]);
        for (size_t k = 0; k < N_DCMI_KEYS; k++)
            if (lower(DCMI_KEYS[k].key[0]) == c && ci_starts(at, DCMI_KEYS[k].key))
                return (long)i;
    }
    return -1;
}

static void dcmi_take_line(dcmi_fields *f, slice line)
{
    while (line.n && !f->stopped) {
        const char *colon = memchr(line.p, ':', line.n);
        if (!colon)
            return;
        slice key = {line.p, (size_t)(colon - line.p)};
        slice val = {colon + 1, line.n - key.n - 1};
        int k = dcmi_key_index(key);
        if (k < 0)
            return;
        slice rest = {NULL, 0};
        long glued = glued_key_offset(val);
        if (glued > 0) {
            rest.p = val.p + glued;
            rest.n = val.n - (size_t)glued;
            val.n = (size_t)glued;
        }
        enum dcmi_field fld = DCMI_KEYS[k].field;
        f->any = 1;
        if (fld == F_STOP) {
            f->stopped = 1;
            return;
        }
        if (!f->seen[fld]) { /* first occurrence wins (ipmiutil repeats "Sampling period") */
            f->seen[fld] = 1;
            f->value[fld] = trim(val);
        }
        line = rest;
    }
}

static void dcmi_scan(const char *text, size_t len, dcmi_fields *f)
{
    memset(f, 0, sizeof *f);
    size_t pos = 0;
    slice line;
    while (!f->stopped && next_line(text, len, &pos, &line))
        dcmi_take_line(f, trim(line));
}

/* A "N Watts" field: 0 with *w, or -EINVAL. */
static int dcmi_watts(const dcmi_fields *f, enum dcmi_field fld, double *w)
{
    slice rest;
    if (!f->seen[fld] || parse_number(f->value[fld], w, &rest))
        return -EINVAL;
    rest = trim(rest);
    return rest.n == 0 || is_watts_unit(rest) ? 0 : -EINVAL;
}

/* "01131466 Seconds.", "2685198000 milliseconds", "1000 ms", "1472 sec". */
static int dcmi_period_s(slice v, double *out_s)
{
    double n;
    slice unit;
    if (parse_number(v, &n, &unit) || n < 0)
        return -EINVAL;
    unit = trim(unit);
    while (unit.n && unit.p[unit.n - 1] == '.')
        unit.n--;
    if (unit.n == 0 || ci_starts(unit, "sec") || ci_eq(unit, "s"))
        *out_s = n;
    else if (ci_eq(unit, "ms") || ci_starts(unit, "milli") || ci_eq(unit, "msec"))
        *out_s = n / 1000.0;
    else
        return -EINVAL;
    return 0;
}

enum dcmi_state { ST_MISSING, ST_ACTIVE, ST_INACTIVE, ST_UNKNOWN };

static enum dcmi_state dcmi_state_of(const dcmi_fields *f)
{
    if (!f->seen[F_STATE] || f->value[F_STATE].n == 0)
        return ST_MISSING;
    slice v = f->value[F_STATE];
    static const char *const inactive[] = {"deactivated", "not active", "not available",
                                           "inactive", "disabled", "not activated"};
    for (size_t i = 0; i < sizeof inactive / sizeof inactive[0]; i++)
        if (ci_eq(v, inactive[i]))
            return ST_INACTIVE;
    if (ci_eq(v, "activated") || ci_eq(v, "active"))
        return ST_ACTIVE;
    return ST_UNKNOWN;
}

/* Timestamp and period into out, with notes for the path. */
static void dcmi_time_fields(const dcmi_fields *f, wc_truth_sample *out, char *notes,
                             size_t cap)
{
    size_t used = strlen(notes);
    if (f->seen[F_TS]) {
        int64_t ts = 0;
        int rc = wc_ipmi_parse_time_ns(f->value[F_TS].p, f->value[F_TS].n, &ts);
        if (rc == 0 && ts > 0)
            out->device_ts_ns = ts;
        else
            wc_append(notes, cap, &used, rc ? " (device time unreadable)" : " (device time unset)");
    }
    double period = 0;
    if (f->seen[F_PERIOD] && dcmi_period_s(f->value[F_PERIOD], &period) == 0 && period > 0) {
        /* the period is the window of min/max/avg whatever its length (the
         * 0xFFFA sentinel excepted: it states none) */
        if (period != WC_IPMI_DCMI_PERIOD_SENTINEL_S)
            out->stats_window_s = period;
        if (period <= WC_IPMI_DCMI_MAX_WINDOW_S) {
            out->window_s = period;
            out->window_known = 1;
        } else {
            wc_append(notes, cap, &used, " (stats window %.0f s)", period);
        }
    }
}

/* The min/max/avg statistics that are real readings. */
static void dcmi_stats(const dcmi_fields *f, wc_truth_sample *out)
{
    double v;
    if (dcmi_watts(f, F_MIN, &v) == 0 && !watts_invalid(v))
        out->min_watts = v;
    if (dcmi_watts(f, F_MAX, &v) == 0 && !watts_invalid(v))
        out->max_watts = v;
    if (dcmi_watts(f, F_AVG, &v) == 0 && !watts_invalid(v))
        out->avg_watts = v;
}

/* Deactivated / not active / not available. */
static int dcmi_inactive(const dcmi_fields *f, wc_truth_sample *out, const char *notes)
{
    char state[48], reason[256];
    copy_clean(f->value[F_STATE], state, sizeof state);
    double cur = NAN;
    if (dcmi_watts(f, F_CUR, &cur) == 0 && !watts_invalid(cur)) {
        /* OpenBMC answers real watts with state "deactivated": keep the values
         * on record, but do not call them ground truth. */
        out->watts = cur;
        dcmi_stats(f, out);
        wc_textf(reason, sizeof reason,
                 "dcmi power reading: state '%s' with %.0f W (min %.0f, max %.0f, avg %.0f W)%s: "
                 "not used as ground truth (OpenBMC reports real values in this state; "
                 "read its SDR power sensor instead)",
                 state, cur, out->min_watts, out->max_watts, out->avg_watts, notes);
    } else if (f->seen[F_CUR]) {
        char v[32];
        copy_clean(f->value[F_CUR], v, sizeof v);
        wc_textf(reason, sizeof reason, "dcmi power reading: state '%s', reading '%s'%s: no reading",
                 state, v, notes);
    } else {
        wc_textf(reason, sizeof reason, "dcmi power reading: state '%s'%s: power measurement "
                                        "not available on this BMC",
                 state, notes);
    }
    set_unavailable(out, reason);
    return 0;
}

/* Activated: the instantaneous value, unless it is 0 or a sentinel. */
static int dcmi_active(const dcmi_fields *f, wc_truth_sample *out, const char *notes,
                       wc_error *err)
{
    double cur;
    if (dcmi_watts(f, F_CUR, &cur)) {
        char v[32];
        copy_clean(f->seen[F_CUR] ? f->value[F_CUR] : (slice){"", 0}, v, sizeof v);
        wc_error_set(err, -EPROTO, "dcmi power reading: no instantaneous reading in Watts (got '%s')",
                     v);
        return fail(out, err, -EPROTO);
    }
    if (watts_invalid(cur)) {
        char reason[160];
        wc_textf(reason, sizeof reason, "dcmi power reading: BMC reports %.0f W%s (%s)", cur,
                 notes, cur >= WC_IPMI_SENTINEL_WATTS ? "65535 W is the no-reading sentinel"
                                                     : "no reading, not a measured 0 W");
        set_unavailable(out, reason);
        return 0;
    }
    out->watts = cur;
    dcmi_stats(f, out);
    out->status = WC_TRUTH_OK;
    return 0;
}

int wc_ipmi_parse_dcmi(const char *text, size_t len, wc_truth_sample *out, wc_error *err)
{
    sample_reset(out);
    if (!text)
        len = 0;
    dcmi_fields f;
    dcmi_scan(text, len, &f);
    if (!f.any)
        return fail(out, err, wc_ipmi_classify_failure(text, len, "dcmi power reading", err));
    char notes[96] = "";
    dcmi_time_fields(&f, out, notes, sizeof notes);
    wc_textf(out->path, sizeof out->path, "dcmi:instantaneous%s", notes);
    enum dcmi_state st = dcmi_state_of(&f);
    if (st == ST_MISSING) {
        wc_error_set(err, -EPROTO,
                     "dcmi power reading: truncated output: the power reading state %s",
                     f.seen[F_STATE] ? "line has no value" : "line is missing");
        return fail(out, err, -EPROTO);
    }
    if (st == ST_UNKNOWN) {
        char v[48];
        copy_clean(f.value[F_STATE], v, sizeof v);
        wc_error_set(err, -EPROTO, "dcmi power reading: unknown power reading state '%s'", v);
        return fail(out, err, -EPROTO);
    }
    if (st == ST_INACTIVE)
        return dcmi_inactive(&f, out, notes);
    return dcmi_active(&f, out, notes, err);
}

/* ---------------------------------------------------------------- SDR */

#define SDR_MAX_FIELDS 16
#define SDR_NAME_CAP 48

/* One table row, whatever the layout. */
typedef struct sdr_row {
    char name[SDR_NAME_CAP];  /* clean copy as printed */
    char norm[SDR_NAME_CAP];  /* normalised, for matching */
    int watts;                /* the unit says Watts */
    int has_value;            /* a number was read */
    double value;
    int unreadable;           /* no reading / ns / na / disabled */
    char why[40];             /* the reading or state text when unreadable */
} sdr_row;

static int is_hex_sensor_number(slice s)
{
    s = trim(s);
    if (s.n < 2 || lower(s.p[s.n - 1]) != 'h')
        return 0;
    for (size_t i = 0; i + 1 < s.n; i++)
        if (!isxdigit((unsigned char)s.p[i]))
            return 0;
    return 1;
}

static int all_digits(slice s)
{
    s = trim(s);
    return slice_uint(s) >= 0;
}

/* Reads a value [+ unit] into the row. Returns 0, or -1 for a discrete
 * sensor ("0x00") that must be ignored. */
static int sdr_reading(sdr_row *r, slice value, slice unit, int separate_unit)
{
    value = trim(value);
    const char *comma = memchr(value.p, ',', value.n); /* "110 Watts, Presence detected" */
    if (comma)
        value.n = (size_t)(comma - value.p);
    value = trim(value);
    if (ci_starts(value, "0x"))
        return -1;
    slice rest;
    if (parse_number(value, &r->value, &rest) == 0 && (!separate_unit || trim(rest).n == 0)) {
        r->has_value = 1;
        r->watts = is_watts_unit(separate_unit ? unit : rest);
        return 0;
    }
    r->unreadable = 1;
    r->watts = separate_unit && is_watts_unit(unit);
    copy_clean(value.n ? value : (slice){"empty", 5}, r->why, sizeof r->why);
    return 0;
}

static void sdr_status(sdr_row *r, slice status)
{
    status = trim(status);
    if (ci_eq(status, "ns") || ci_eq(status, "na") || ci_eq(status, "'N/A'") ||
        ci_eq(status, "N/A")) {
        if (!r->unreadable)
            copy_clean(status, r->why, sizeof r->why);
        r->unreadable = 1;
        r->has_value = 0;
    }
}

/* Splits one line into a row. Returns 0, or -1 when it is not a sensor row. */
static int sdr_parse_row(slice line, sdr_row *r)
{
    memset(r, 0, sizeof *r);
    slice f[SDR_MAX_FIELDS];
    size_t nf = split(line, '|', f, SDR_MAX_FIELDS);
    slice name, value, unit = {NULL, 0}, status = {NULL, 0};
    int separate = 0;
    if (nf >= 6 && all_digits(f[0])) { /* ipmi-sensors: ID | Name | Type | Reading | Units | Event */
        name = f[1], value = f[3], unit = f[4], separate = 1;
        status = f[5];
    } else if (nf == 5 && is_hex_sensor_number(f[1])) { /* sdr elist: name | 77h | ok | 7.1 | reading */
        name = f[0], status = f[2], value = f[4];
    } else if (nf >= 4) { /* sensor: name | value | unit | status | thresholds... */
        name = f[0], value = f[1], unit = f[2], status = f[3], separate = 1;
    } else if (nf == 3) { /* sdr list: name | reading | status */
        name = f[0], value = f[1], status = f[2];
    } else {
        return -1;
    }
    name = trim(name);
    if (name.n == 0)
        return -1;
    copy_clean(name, r->name, sizeof r->name);
    normalise_name(name, r->norm, sizeof r->norm);
    if (sdr_reading(r, value, unit, separate))
        return -1;
    sdr_status(r, status);
    return 0;
}

/* Whole-system power sensors, most specific first. */
static const char *const SYSTEM_NAMES[] = {
    "pwr consumption", "power consumption", "system level", "total power", "sys power",
    "system power", "power meter", "node power", "server power", "chassis power",
    "platform power", "avg power", "average power", NULL};

static int system_rank(const sdr_row *r)
{
    for (int i = 0; SYSTEM_NAMES[i]; i++)
        if (strstr(r->norm, SYSTEM_NAMES[i]))
            return i;
    return -1;
}

/* "ps1 ...", "ps 2 ...", "psu1 ...", "power supply 1", "pws ...". */
static int psu_name(const sdr_row *r)
{
    const char *n = r->norm;
    if (strncmp(n, "psu", 3) == 0 || strncmp(n, "pws", 3) == 0 || strstr(n, "power supply") ||
        strstr(n, "pwr supply"))
        return 1;
    return n[0] == 'p' && n[1] == 's' && (isdigit((unsigned char)n[2]) ||
                                          (n[2] == ' ' && isdigit((unsigned char)n[3])));
}

static int psu_output(const sdr_row *r)
{
    return strstr(r->norm, "out") != NULL;
}

/* The name alone says "PSU input power" (so an unreadable row counts). */
static int psu_input_named(const sdr_row *r)
{
    return strstr(r->norm, "power in") || strstr(r->norm, "input power") ||
           strstr(r->norm, "pin") || strstr(r->norm, "input watts");
}

typedef struct sdr_pick {
    int rows;                 /* sensor rows seen */
    sdr_row sys;              /* best readable system-level sensor */
    int sys_rank;             /* -1 none */
    sdr_row sys_bad;          /* first unusable system-level sensor */
    int have_sys_bad;
    double psu_sum;
    int psu_n;
    char psu_names[160];
    size_t psu_used;
    sdr_row psu_bad;          /* first unusable PSU input sensor */
    int have_psu_bad;
    char other[96];           /* component Watts sensors, for the message */
    size_t other_used;
} sdr_pick;

static int row_usable(const sdr_row *r)
{
    return r->watts && r->has_value && !r->unreadable && !watts_invalid(r->value);
}

static void pick_system(sdr_pick *p, const sdr_row *r, int rank)
{
    if (row_usable(r)) {
        if (p->sys_rank < 0 || rank < p->sys_rank) {
            p->sys = *r;
            p->sys_rank = rank;
        }
    } else if (!p->have_sys_bad && (r->watts || r->unreadable)) {
        p->sys_bad = *r;
        p->have_sys_bad = 1;
    }
}

static void pick_psu(sdr_pick *p, const sdr_row *r)
{
    if (r->watts && r->has_value && !r->unreadable && isfinite(r->value) && r->value >= 0 &&
        r->value < WC_IPMI_SENTINEL_WATTS) {
        p->psu_sum += r->value; /* an idle redundant PSU may read 0 W */
        wc_append(p->psu_names, sizeof p->psu_names, &p->psu_used, "%s%s", p->psu_n ? "," : "",
                  r->name);
        p->psu_n++;
    } else if (!p->have_psu_bad && (r->watts || (r->unreadable && psu_input_named(r)))) {
        p->psu_bad = *r;
        p->have_psu_bad = 1;
    }
}

static void pick_row(sdr_pick *p, const sdr_row *r)
{
    p->rows++;
    if (psu_name(r)) {
        if (!psu_output(r) && (r->watts || r->unreadable))
            pick_psu(p, r);
        return;
    }
    int rank = system_rank(r);
    if (rank >= 0) {
        pick_system(p, r, rank);
        return;
    }
    if (r->watts)
        wc_append(p->other, sizeof p->other, &p->other_used, "%s%s", p->other_used ? ", " : "",
                  r->name);
}

/* Why a row gives no reading, as text. */
static void row_problem(const sdr_row *r, char *buf, size_t cap)
{
    if (r->unreadable)
        wc_textf(buf, cap, "%s: %s", r->name, r->why[0] ? r->why : "no reading");
    else if (r->value >= WC_IPMI_SENTINEL_WATTS)
        wc_textf(buf, cap, "%s reads %.0f W (the no-reading sentinel)", r->name, r->value);
    else
        wc_textf(buf, cap, "%s reads %.0f W (no reading, not a measured 0 W)", r->name, r->value);
}

static int sdr_decide(const sdr_pick *p, wc_truth_sample *out, wc_error *err)
{
    char problem[128], reason[256];
    if (p->sys_rank >= 0) {
        out->watts = p->sys.value;
        wc_textf(out->path, sizeof out->path, "sdr:%s", p->sys.name);
        return 0;
    }
    if (p->psu_n && !p->have_psu_bad && p->psu_sum > WC_IPMI_MAX_NODE_WATTS) {
        wc_textf(out->path, sizeof out->path, "sdr:sum(PSU input)");
        wc_textf(reason, sizeof reason,
                 "sdr: implausible reading %.0f W (sum of %d PSU input sensors; over the "
                 "plausibility ceiling 100 kW per node)",
                 p->psu_sum, p->psu_n);
        set_unavailable(out, reason);
        return 0;
    }
    if (p->psu_n && !p->have_psu_bad && p->psu_sum > 0) {
        out->watts = p->psu_sum;
        if (p->psu_used + 10 < sizeof out->path)
            wc_textf(out->path, sizeof out->path, "sdr:sum(%s)", p->psu_names);
        else
            wc_textf(out->path, sizeof out->path, "sdr:sum(%d PSU input sensors)", p->psu_n);
        return 0;
    }
    if (p->have_sys_bad) {
        row_problem(&p->sys_bad, problem, sizeof problem);
        wc_textf(out->path, sizeof out->path, "sdr:%s", p->sys_bad.name);
        wc_textf(reason, sizeof reason, "sdr: %s", problem);
        set_unavailable(out, reason);
        return 0;
    }
    if (p->have_psu_bad || p->psu_n) {
        if (p->have_psu_bad)
            row_problem(&p->psu_bad, problem, sizeof problem);
        else
            wc_textf(problem, sizeof problem, "all read 0 W");
        wc_textf(out->path, sizeof out->path, "sdr:sum(PSU input)");
        wc_textf(reason, sizeof reason, "sdr: sum of PSU input power unavailable: %s", problem);
        set_unavailable(out, reason);
        return 0;
    }
    wc_error_set(err, -ENODATA,
                 "ipmitool sdr: no system or PSU input power sensor in Watts among %d sensors%s%s%s",
                 p->rows, p->other_used ? " (component sensors only: " : "", p->other,
                 p->other_used ? ")" : "");
    return fail(out, err, -ENODATA);
}

int wc_ipmi_parse_sdr(const char *text, size_t len, wc_truth_sample *out, wc_error *err)
{
    sample_reset(out);
    if (!text)
        len = 0;
    sdr_pick p;
    memset(&p, 0, sizeof p);
    p.sys_rank = -1;
    size_t pos = 0;
    slice line;
    while (next_line(text, len, &pos, &line)) {
        sdr_row r;
        if (memchr(line.p, '|', line.n) && sdr_parse_row(line, &r) == 0)
            pick_row(&p, &r);
    }
    if (p.rows == 0)
        return fail(out, err, wc_ipmi_classify_failure(text, len, "ipmitool sdr", err));
    return sdr_decide(&p, out, err);
}
