/*
 * truth_file.c — wall meter / PDU / SPEC PTDaemon logs as ground truth (see
 * truth_file.h for the formats), and the locale-free parsers for delimited
 * rows, decimals, epoch and ISO 8601 times that the importers of
 * collector/import/ share.
 */
#include "collector/truth/truth_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/wc_clock.h"
#include "common/wc_fs.h"

/* ---------------------------------------------------------------- numbers */

static const double POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Scales an integer mantissa by 10^exp10 (correctly rounded for |exp10| <= 22
 * and a mantissa below 2^53; within 2 ulp otherwise). */
static double scale_pow10(uint64_t mant, int exp10)
{
    double v = (double)mant;
    if (exp10 == 0)
        return v;
    if (exp10 > 0 && exp10 <= 22)
        return v * POW10[exp10];
    if (exp10 < 0 && exp10 >= -22)
        return v / POW10[-exp10];
    return v * pow(10.0, exp10);
}

/* Parses "e[+-]digits" at *p into *e10 (capped so it cannot overflow). */
static int parse_exponent(const char **p, int *e10)
{
    const char *q = *p + 1;
    int neg = 0, v = 0, nd = 0;
    if (*q == '+' || *q == '-')
        neg = *q++ == '-';
    for (; is_digit(*q); q++, nd++)
        if (v < 100000)
            v = v * 10 + (*q - '0');
    if (nd == 0)
        return -EINVAL;
    *e10 = neg ? -v : v;
    *p = q;
    return 0;
}

int wc_parse_decimal(const char *s, double *out)
{
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    uint64_t mant = 0;
    int exp10 = 0, digits = 0;
    /* Keep 19 significant digits (one rounding to double); count the rest. */
    for (; is_digit(*p); p++, digits++) {
        if (mant < 1000000000000000000ULL)
            mant = mant * 10 + (uint64_t)(*p - '0');
        else if (exp10 < 1000000)
            exp10++; /* capped: the value is already far out of range */
    }
    if (*p == '.') {
        for (p++; is_digit(*p); p++, digits++) {
            if (mant < 1000000000000000000ULL) {
                mant = mant * 10 + (uint64_t)(*p - '0');
                exp10--;
            }
        }
    }
    if (digits == 0)
        return -EINVAL;
    if (*p == 'e' || *p == 'E') {
        int e10 = 0;
        if (parse_exponent(&p, &e10))
            return -EINVAL;
        exp10 += e10;
    }
    if (*p != '\0')
        return -EINVAL;
    double v = scale_pow10(mant, exp10);
    if (!isfinite(v))
        return -ERANGE;
    *out = neg ? -v : v;
    return 0;
}

/* Why a 0 W reading is not taken as one. */
#define ZERO_WATTS "0 W: a running node cannot draw 0 W at the wall (no meter or no reading)"

int wc_truth_watts_class(double w, const char **why)
{
    if (!isfinite(w) || w > WC_TRUTH_MAX_WALL_WATTS)
        return -ERANGE;
    if (w == 0) {
        *why = ZERO_WATTS;
        return 1;
    }
    if (w == WC_TRUTH_NO_READING_WATTS) {
        *why = "65535 W: the \"no reading\" marker (0xFFFF) of a BMC, not a measurement";
        return 1;
    }
    return 0;
}

char *wc_csv_clean(char *buf, size_t cap, const char *s)
{
    size_t len = strlen(s), n = len < cap ? len : cap - 4;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        buf[i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    if (n < len)
        memcpy(buf + n, "...", 3), n += 3;
    buf[n] = '\0';
    return buf;
}

int wc_parse_epoch_ns(const char *s, int64_t unit_ns, int64_t *out_ns)
{
    if (unit_ns <= 0 || !is_digit(*s))
        return -EINVAL;
    const char *p = s;
    int64_t whole = 0;
    int range = 0; /* well-formed so far but too large: told apart from malformed */
    for (; is_digit(*p); p++) {
        int d = *p - '0';
        if (range || whole > (INT64_MAX - d) / 10)
            range = 1;
        else
            whole = whole * 10 + d;
    }
    if (whole > INT64_MAX / unit_ns)
        range = 1;
    int64_t ns = range ? 0 : whole * unit_ns, frac = 0;
    if (*p == '.') {
        int64_t place = unit_ns / 10;
        if (!is_digit(p[1]))
            return -EINVAL;
        for (p++; is_digit(*p); p++) {
            frac += (*p - '0') * place; /* < unit_ns in total: cannot overflow */
            place /= 10;
        }
    }
    if (*p != '\0')
        return -EINVAL;
    if (range || frac > INT64_MAX - ns) /* "9223372036.9" s: the fraction passes INT64_MAX */
        return -ERANGE;
    *out_ns = ns + frac;
    return 0;
}

/* Reads exactly n digits at s into *v. */
static int digits_n(const char *s, int n, int *v)
{
    int x = 0;
    for (int i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return -EINVAL;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return 0;
}

int wc_parse_utc_offset(const char *s, int *offset_s)
{
    if ((s[0] == 'Z' || s[0] == 'z') && s[1] == '\0') {
        *offset_s = 0;
        return 0;
    }
    if (s[0] != '+' && s[0] != '-')
        return -EINVAL;
    int hh = 0, mm = 0;
    const char *p = s + 1;
    if (digits_n(p, 2, &hh))
        return -EINVAL;
    p += 2;
    if (*p == ':')
        p++;
    if (*p && (digits_n(p, 2, &mm) || p[2] != '\0'))
        return -EINVAL;
    if (!*p && p[-1] == ':')
        return -EINVAL;
    if (hh > 23 || mm > 59)
        return -EINVAL;
    *offset_s = (s[0] == '-' ? -1 : 1) * (hh * 3600 + mm * 60);
    return 0;
}

static unsigned days_in_month(int y, int m)
{
    static const unsigned DIM[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return DIM[m - 1] + (m == 2 && leap);
}

/* The calendar fields of an ISO 8601 date-time. */
typedef struct iso_fields {
    int year, month, day, hour, minute, second;
    int64_t frac_ns;
} iso_fields;

/* Room for a cell quoted in a message (40 bytes, or 40 and "..."). */
#define QUOTE_CAP 44

/* Parses "YYYY-MM-DD?HH:MM:SS[.frac]" and returns the position after it;
 * q is s as quoted in messages. */
static const char *parse_iso_fields(const char *s, const char *q, iso_fields *f, wc_error *err)
{
    if (digits_n(s, 4, &f->year) || s[4] != '-' || digits_n(s + 5, 2, &f->month) ||
        s[7] != '-' || digits_n(s + 8, 2, &f->day)) {
        wc_error_set(err, -EINVAL, "'%s' is not an ISO 8601 date (YYYY-MM-DD)", q);
        return NULL;
    }
    if ((s[10] != 'T' && s[10] != 't' && s[10] != ' ') || digits_n(s + 11, 2, &f->hour) ||
        s[13] != ':' || digits_n(s + 14, 2, &f->minute) || s[16] != ':' ||
        digits_n(s + 17, 2, &f->second)) {
        wc_error_set(err, -EINVAL, "'%s' has no time of day THH:MM:SS", q);
        return NULL;
    }
    const char *p = s + 19;
    f->frac_ns = 0;
    if (*p == '.' || *p == ',') {
        int64_t place = 100000000;
        if (!is_digit(p[1])) {
            wc_error_set(err, -EINVAL, "'%s': empty fraction of a second", q);
            return NULL;
        }
        for (p++; is_digit(*p); p++) {
            f->frac_ns += (*p - '0') * place;
            place /= 10;
        }
    }
    return p;
}

static int check_iso_ranges(const char *q, const iso_fields *f, wc_error *err)
{
    if (f->year < 1970 || f->year > 2261)
        return wc_error_set(err, -EINVAL, "'%s': year %d outside 1970..2261", q, f->year);
    if (f->month < 1 || f->month > 12)
        return wc_error_set(err, -EINVAL, "'%s': month %02d out of range", q, f->month);
    if (f->day < 1 || (unsigned)f->day > days_in_month(f->year, f->month))
        return wc_error_set(err, -EINVAL, "'%s': day %02d does not exist in %04d-%02d", q,
                            f->day, f->year, f->month);
    if (f->hour > 23 || f->minute > 59 || f->second > 60)
        return wc_error_set(err, -EINVAL, "'%s': time of day out of range", q);
    return 0;
}

int wc_parse_iso8601_ns(const char *s, const int *default_offset_s, int64_t *out_ns,
                        wc_error *err)
{
    iso_fields f;
    char q[QUOTE_CAP], z[20];
    wc_csv_clean(q, sizeof q, s);
    const char *p = parse_iso_fields(s, q, &f, err);
    if (!p)
        return -EINVAL;
    int rc = check_iso_ranges(q, &f, err);
    if (rc)
        return rc;
    int offset_s = 0;
    if (*p == '\0') {
        if (!default_offset_s)
            return wc_error_set(err, -EINVAL,
                                "'%s' has no time zone: add Z or +HH:MM to the times, or "
                                "declare the zone of the clock that wrote them",
                                q);
        offset_s = *default_offset_s;
    } else if (wc_parse_utc_offset(p, &offset_s)) {
        return wc_error_set(err, -EINVAL,
                            "'%s': time zone '%s' is not Z, +HH:MM, +HHMM or +HH", q,
                            wc_csv_clean(z, sizeof z, p));
    }
    int64_t days = wc_days_from_civil(f.year, (unsigned)f.month, (unsigned)f.day);
    int64_t secs = days * 86400 + f.hour * 3600 + f.minute * 60 + f.second - offset_s;
    if (secs < 0)
        return wc_error_set(err, -EINVAL, "'%s' is before 1970-01-01T00:00:00Z", q);
    *out_ns = secs * WC_NS_PER_S + f.frac_ns;
    return 0;
}

/* ---------------------------------------------------------------- rows */

/* The window's first size; it grows (doubling) only for a longer line. */
#define CSV_CHUNK ((size_t)64 << 10)

/* Reads more of the file behind the unread bytes, first moving them to the
 * front and, when they fill the whole window (a line longer than it), doubling
 * the window up to WC_CSV_MAX_LINE. 0, or -errno / -EINVAL with err set. */
static int csv_fill(wc_csv *c, wc_error *err)
{
    if (c->pos > 0) {
        memmove(c->buf, c->buf + c->pos, c->len - c->pos);
        c->len -= c->pos;
        c->pos = 0;
    }
    if (c->len == c->cap) {
        if (c->cap >= WC_CSV_MAX_LINE)
            return wc_error_set(err, -EINVAL, "%s:%d: line longer than %zu MiB (not a text log)",
                                c->path, c->line + 1, WC_CSV_MAX_LINE >> 20);
        size_t cap = c->cap * 2 < WC_CSV_MAX_LINE ? c->cap * 2 : WC_CSV_MAX_LINE;
        char *nb = realloc(c->buf, cap + 1);
        if (!nb)
            return wc_error_set(err, -ENOMEM, "%s: out of memory", c->path);
        c->buf = nb;
        c->cap = cap;
    }
    for (;;) {
        ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return wc_error_set(err, -errno, "%s: read: %s", c->path, strerror(errno));
        if (r == 0)
            c->eof = 1;
        c->len += (size_t)r;
        return 0;
    }
}

int wc_csv_open(wc_csv *c, const char *path, char delim, wc_error *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    c->delim = delim;
    c->comments = 1;
    int fd = wc_open_regular(path, err);
    if (fd < 0)
        return fd;
    c->fd = fd;
    c->cap = CSV_CHUNK;
    if (!(c->buf = malloc(c->cap + 1))) {
        close(fd);
        return wc_error_set(err, -ENOMEM, "%s: out of memory", path);
    }
    int rc = 0;
    while (!rc && c->len < 3 && !c->eof)
        rc = csv_fill(c, err);
    if (rc) {
        wc_csv_close(c);
        return rc;
    }
    /* A UTF-8 byte order mark (spreadsheet exports) is not part of the first cell. */
    if (c->len >= 3 && memcmp(c->buf, "\xEF\xBB\xBF", 3) == 0)
        c->pos = 3;
    return 0;
}

void wc_csv_close(wc_csv *c)
{
    if (c->buf)
        close(c->fd);
    free(c->buf);
    c->buf = NULL;
}

static int is_blank(char ch) { return ch == ' ' || ch == '\t'; }

static void trim_right(char *start, char *end)
{
    while (end > start && is_blank(end[-1]))
        end--;
    *end = '\0';
}

static int add_field(wc_csv *c, char *f, wc_error *err)
{
    if (c->nfields == WC_CSV_MAX_FIELDS)
        return wc_error_set(err, -EINVAL, "%s:%d: more than %d cells in one row", c->path,
                            c->line, WC_CSV_MAX_FIELDS);
    c->fields[c->nfields++] = f;
    return 0;
}

/* Splits a row on runs of blanks (whitespace-separated logs). */
static int split_blanks(wc_csv *c, char *p, wc_error *err)
{
    while (*p) {
        while (is_blank(*p))
            p++;
        if (!*p)
            break;
        char *start = p;
        while (*p && !is_blank(*p))
            p++;
        if (*p)
            *p++ = '\0';
        int rc = add_field(c, start, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* Unquotes a "..." cell in place starting at *pp (on the opening quote);
 * leaves *pp after the closing quote. */
static int unquote(wc_csv *c, char **pp, wc_error *err)
{
    char *p = *pp, *out = p;
    int col = (int)c->nfields + 1;
    for (p++;; p++) {
        if (*p == '\0')
            return wc_error_set(err, -EINVAL, "%s:%d:%d: unterminated quoted cell", c->path,
                                c->line, col);
        if (*p == '"') {
            if (p[1] != '"')
                break;
            p++;
        }
        *out++ = *p;
    }
    *out = '\0';
    *pp = p + 1;
    return 0;
}

/* Splits a row on the delimiter, honouring "quoted" cells. Unquoted cells
 * are trimmed; quoted cells keep their blanks. */
static int split_delimited(wc_csv *c, char *p, wc_error *err)
{
    for (;;) {
        while (is_blank(*p) && *p != c->delim)
            p++;
        char *start = p;
        int quoted = *p == '"', rc;
        if (quoted) {
            if ((rc = unquote(c, &p, err)))
                return rc;
            while (is_blank(*p) && *p != c->delim)
                p++;
            if (*p && *p != c->delim)
                return wc_error_set(err, -EINVAL, "%s:%d:%d: text after a closing quote",
                                    c->path, c->line, (int)c->nfields + 1);
        } else {
            while (*p && *p != c->delim)
                p++;
        }
        int last = *p == '\0';
        char *end = p;
        if (!last)
            p++;
        if (quoted)
            *end = '\0';
        else
            trim_right(start, end);
        if ((rc = add_field(c, start, err)))
            return rc;
        if (last)
            return 0;
    }
}

/* The next physical line in the window, read on when it is not whole yet:
 * 1 with *line (NUL-terminated in place, c->pos past it) and *had_nl, 0 at
 * the end of the file, or an error of csv_fill. */
static int csv_line(wc_csv *c, char **line, int *had_nl, wc_error *err)
{
    for (;;) {
        char *start = c->buf + c->pos;
        char *nl = memchr(start, '\n', c->len - c->pos);
        if (!nl && !c->eof) {
            int rc = csv_fill(c, err);
            if (rc)
                return rc;
            continue;
        }
        if (c->pos >= c->len)
            return 0;
        char *end = nl ? nl : c->buf + c->len;
        c->pos = (size_t)(end - c->buf) + (nl ? 1 : 0);
        *end = '\0';
        *line = start;
        *had_nl = nl != NULL;
        if (strlen(start) != (size_t)(end - start))
            return wc_error_set(err, -EINVAL, "%s:%d: NUL byte in a text line", c->path,
                                c->line + 1);
        if (end > start && end[-1] == '\r')
            end[-1] = '\0';
        return 1;
    }
}

int wc_csv_next(wc_csv *c, wc_error *err)
{
    char *line = NULL;
    int nl = 0, got;
    while ((got = csv_line(c, &line, &nl, err)) == 1) {
        c->line++;
        const char *q = line;
        while (is_blank(*q))
            q++;
        if (*q == '\0' || (c->comments && *q == '#'))
            continue;
        c->nfields = 0;
        int open_cell = c->delim == ' ' && is_blank(line[strlen(line) - 1]);
        int rc = c->delim == ' ' ? split_blanks(c, line, err) : split_delimited(c, line, err);
        if (!nl && c->require_newline) { /* first: a cut line can also look malformed */
            /* The cell it cuts: the last one split, or the one a failed split was in. */
            size_t col = c->nfields + (size_t)(open_cell || rc || c->nfields == 0);
            rc = wc_error_set(err, -EINVAL,
                              "%s:%d:%zu: truncated last line (no newline at end of file: the "
                              "logger was still writing or the copy was cut)",
                              c->path, c->line, col);
        }
        return rc ? rc : 1;
    }
    return got;
}

int wc_csv_find(const wc_csv *c, const char *name, int case_insensitive)
{
    for (size_t i = 0; i < c->nfields; i++)
        if (case_insensitive ? strcasecmp(c->fields[i], name) == 0
                             : strcmp(c->fields[i], name) == 0)
            return (int)i;
    return -1;
}

/* ---------------------------------------------------------------- samples */

/* Where the parsed samples go, one at a time, and what the checks across
 * lines need: the log is streamed, never held whole. */
typedef struct sample_out {
    wc_truth_file_sink sink;
    void *ctx;
    size_t n;                /* samples handed to the sink so far */
    int64_t prev_wall_ns;    /* time of the previous sample (n > 0) */
} sample_out;

/* A fresh sample: values NAN, status ok. */
static void sample_init(wc_truth_sample *t)
{
    memset(t, 0, sizeof *t);
    t->watts = t->min_watts = t->max_watts = t->avg_watts = NAN;
    t->status = WC_TRUTH_OK;
}

/* Hands a finished sample to the sink. */
static int emit_sample(sample_out *so, const wc_truth_sample *t, wc_error *err)
{
    int rc = so->sink(so->ctx, t, err);
    if (rc)
        return rc;
    so->n++;
    so->prev_wall_ns = t->poll_wall_ns;
    return 0;
}

static void mark_unavailable(wc_truth_sample *t, int line, const char *why)
{
    t->status = WC_TRUTH_UNAVAILABLE;
    t->watts = NAN;
    snprintf(t->error, sizeof t->error, "line %d: %s", line, why);
}

/* Stamps the time and refuses a time going backwards. */
static int set_time(const wc_csv *c, const sample_out *so, wc_truth_sample *t, int64_t wall_ns,
                    int col, wc_error *err)
{
    if (so->n > 0 && wall_ns < so->prev_wall_ns)
        return wc_error_set(err, -EINVAL,
                            "%s:%d:%d: time goes backwards (%.3f s before the previous line)",
                            c->path, c->line, col, (double)(so->prev_wall_ns - wall_ns) / 1e9);
    t->poll_wall_ns = t->device_ts_ns = wall_ns;
    return 0;
}

/* The parsed --truth-format value. */
typedef struct file_format {
    int ptd;              /* 0 csv, 1 ptd */
    int have_offset;
    int offset_s;
} file_format;

static int parse_format(const char *format, file_format *ff, wc_error *err)
{
    memset(ff, 0, sizeof *ff);
    const char *f = format && *format ? format : "csv";
    const char *colon = strchr(f, ':');
    size_t kind_len = colon ? (size_t)(colon - f) : strlen(f);
    if (kind_len == 3 && strncmp(f, "csv", 3) == 0)
        ff->ptd = 0;
    else if (kind_len == 3 && strncmp(f, "ptd", 3) == 0)
        ff->ptd = 1;
    else
        return wc_error_set(err, -EINVAL,
                            "--truth-format %s: unknown format (csv, csv:+HH:MM, ptd:+HH:MM, ptd:Z)",
                            f);
    if (colon) {
        if (wc_parse_utc_offset(colon + 1, &ff->offset_s))
            return wc_error_set(err, -EINVAL,
                                "--truth-format %s: '%s' is not a UTC offset (Z, +01:00, -05:30)",
                                f, colon + 1);
        ff->have_offset = 1;
    } else if (ff->ptd) {
        return wc_error_set(err, -EINVAL,
                            "--truth-format ptd: PTDaemon logs carry the local time of the "
                            "analyser's host without a zone; give that host's UTC offset, "
                            "e.g. --truth-format ptd:+01:00 (or ptd:Z for UTC)");
    }
    return 0;
}

/* A time cell of the csv format: ISO 8601 when it has a '-' after the first
 * digit or a ':', otherwise epoch seconds. */
static int parse_time_cell(const wc_csv *c, int col, const file_format *ff, int64_t *ns,
                           wc_error *err)
{
    const char *cell = c->fields[col];
    int rc;
    if (strchr(cell + (*cell ? 1 : 0), '-') || strchr(cell, ':'))
        rc = wc_parse_iso8601_ns(cell, ff->have_offset ? &ff->offset_s : NULL, ns, err);
    else if ((rc = wc_parse_epoch_ns(cell, WC_NS_PER_S, ns))) {
        char q[QUOTE_CAP];
        wc_csv_clean(q, sizeof q, cell);
        if (rc == -ERANGE)
            rc = wc_error_set(err, -EINVAL, "'%s' is out of range: %s", q, WC_EPOCH_RANGE_TEXT);
        else
            wc_error_set(err, rc, "'%s' is neither ISO 8601 nor epoch seconds", q);
    }
    if (rc)
        return wc_error_prefix(err, rc, "%s:%d:%d: column 'time': ", c->path, c->line,
                               col + 1);
    return 0;
}

/* A non-negative number cell; empty is allowed when *empty is non-NULL. */
static int parse_number_cell(const wc_csv *c, int col, const char *name, double *v, int *empty,
                             wc_error *err)
{
    const char *cell = c->fields[col];
    if (!*cell && empty) {
        *empty = 1;
        return 0;
    }
    if (empty)
        *empty = 0;
    char q[QUOTE_CAP];
    int rc = wc_parse_decimal(cell, v);
    if (rc == -ERANGE)
        return wc_error_set(err, -EINVAL, "%s:%d:%d: column '%s': '%s' (%zu characters) is out "
                                          "of range",
                            c->path, c->line, col + 1, name, wc_csv_clean(q, sizeof q, cell),
                            strlen(cell));
    if (rc || *v < 0)
        return wc_error_set(err, -EINVAL, "%s:%d:%d: column '%s': '%s' is not a %s",
                            c->path, c->line, col + 1, name, wc_csv_clean(q, sizeof q, cell),
                            *cell == '-' ? "non-negative number" : "number");
    return 0;
}

/* Refuses an implausible wall power (err "FILE:LINE:COL: ... implausible wall
 * power"); 1 with *why for a no-reading value (0 W, 65535 W), else 0. */
static int classify_watts(const wc_csv *c, int col, const char *name, double w,
                          const char **why, wc_error *err)
{
    int k = wc_truth_watts_class(w, why);
    if (k < 0) {
        char q[QUOTE_CAP];
        return wc_error_set(err, -EINVAL,
                            "%s:%d:%d: %s '%s': implausible wall power (%.6g W; a node draws "
                            "at most %.0f W)",
                            c->path, c->line, col + 1, name,
                            wc_csv_clean(q, sizeof q, c->fields[col]), w,
                            WC_TRUTH_MAX_WALL_WATTS);
    }
    return k;
}

#define MAX_WINDOW_S 86400.0

/* The column indexes of the csv format. */
typedef struct csv_cols {
    int time, watts, window;
    size_t need;            /* cells a row must have */
} csv_cols;

static int find_csv_columns(const wc_csv *c, csv_cols *k, wc_error *err)
{
    k->time = wc_csv_find(c, "time", 1);
    k->watts = wc_csv_find(c, "watts", 1);
    k->window = wc_csv_find(c, "window_s", 1);
    if (k->time < 0 || k->watts < 0)
    {
        char q[64];
        return wc_error_set(err, -EINVAL,
                            "%s:%d: the header row needs a 'time' and a 'watts' column "
                            "(found '%s'%s)",
                            c->path, c->line,
                            wc_csv_clean(q, sizeof q, c->nfields ? c->fields[0] : ""),
                            c->nfields > 1 ? ", ..." : "");
    }
    int max = k->time > k->watts ? k->time : k->watts;
    if (k->window > max)
        max = k->window;
    k->need = (size_t)max + 1;
    return 0;
}

static int csv_row(const wc_csv *c, const csv_cols *k, const file_format *ff, sample_out *so,
                   wc_error *err)
{
    if (c->nfields < k->need)
        return wc_error_set(err, -EINVAL, "%s:%d: %zu cells, the header needs at least %zu",
                            c->path, c->line, c->nfields, k->need);
    wc_truth_sample sample, *t = &sample;
    sample_init(t);
    int64_t ns = 0;
    const char *why = "empty watts cell";
    int empty = 0, rc = parse_time_cell(c, k->time, ff, &ns, err);
    if (!rc)
        rc = set_time(c, so, t, ns, k->time + 1, err);
    if (!rc)
        rc = parse_number_cell(c, k->watts, "watts", &t->watts, &empty, err);
    if (!rc && !empty && (rc = classify_watts(c, k->watts, "column 'watts'", t->watts, &why,
                                              err)) == 1) {
        empty = 1;
        rc = 0;
    }
    if (!rc && k->window >= 0 && *c->fields[k->window]) {
        rc = parse_number_cell(c, k->window, "window_s", &t->window_s, NULL, err);
        if (!rc && t->window_s > MAX_WINDOW_S)
            rc = wc_error_set(err, -EINVAL,
                              "%s:%d:%d: column 'window_s': %.6g s is above %.0f s (one day): "
                              "not the averaging window of a wall power reading",
                              c->path, c->line, k->window + 1, t->window_s, MAX_WINDOW_S);
        t->window_known = 1;
    }
    if (rc)
        return rc;
    snprintf(t->path, sizeof t->path, "csv:watts");
    if (empty)
        mark_unavailable(t, c->line, why);
    return emit_sample(so, t, err);
}

static int parse_csv_log(wc_csv *c, const file_format *ff, sample_out *so, wc_error *err)
{
    int rc = wc_csv_next(c, err);
    if (rc <= 0)
        return rc < 0 ? rc : wc_error_set(err, -ENODATA, "%s: empty (no header row)", c->path);
    csv_cols k = {0};
    if ((rc = find_csv_columns(c, &k, err)))
        return rc;
    while ((rc = wc_csv_next(c, err)) == 1)
        if ((rc = csv_row(c, &k, ff, so, err)))
            return rc;
    return rc;
}

/* "MM-DD-YYYY HH:MM:SS[.fff]" (PTDaemon) to ns, via the ISO parser. */
static int parse_ptd_time(const wc_csv *c, const file_format *ff, int64_t *ns, wc_error *err)
{
    const char *s = c->fields[1];
    char iso[64];
    if (strlen(s) < 19 || strlen(s) > 40 || s[2] != '-' || s[5] != '-' || s[10] != ' ') {
        char q[QUOTE_CAP];
        return wc_error_set(err, -EINVAL,
                            "%s:%d:2: '%s' is not a PTDaemon time (MM-DD-YYYY HH:MM:SS.fff)",
                            c->path, c->line, wc_csv_clean(q, sizeof q, s));
    }
    snprintf(iso, sizeof iso, "%.4s-%.2s-%.2sT%s", s + 6, s, s + 3, s + 11);
    int rc = wc_parse_iso8601_ns(iso, &ff->offset_s, ns, err);
    if (rc)
        return wc_error_prefix(err, rc, "%s:%d:2: PTDaemon time: ", c->path, c->line);
    return 0;
}

/* The Mark label of a PTDaemon line ("" when absent). */
static const char *ptd_mark(const wc_csv *c)
{
    for (size_t i = 4; i + 1 < c->nfields; i += 2)
        if (strcmp(c->fields[i], "Mark") == 0)
            return c->fields[i + 1];
    return "";
}

static int ptd_watts(const wc_csv *c, wc_truth_sample *t, wc_error *err)
{
    const char *cell = c->fields[3];
    double w = 0;
    if (strcasecmp(cell, "nan") == 0 || strcasecmp(cell, "-nan") == 0 ||
        (wc_parse_decimal(cell, &w) == 0 && w == -1.0)) {
        mark_unavailable(t, c->line, "PTDaemon reported no reading (Watts -1 or nan)");
        return 0;
    }
    int rc = wc_parse_decimal(cell, &w);
    if (rc || w < 0) {
        char q[QUOTE_CAP];
        return wc_error_set(err, -EINVAL, "%s:%d:4: Watts '%s' is %s", c->path, c->line,
                            wc_csv_clean(q, sizeof q, cell),
                            rc == -ERANGE ? "out of range" : "not a non-negative number");
    }
    const char *why = NULL;
    if ((rc = classify_watts(c, 3, "Watts", w, &why, err)) < 0)
        return rc;
    t->watts = w;
    if (rc == 1)
        mark_unavailable(t, c->line, why);
    return 0;
}

static int ptd_row(const wc_csv *c, const file_format *ff, sample_out *so, wc_error *err)
{
    if (c->nfields < 1 || strcmp(c->fields[0], "Time") != 0)
        return wc_error_set(err, -EINVAL,
                            "%s:%d:1: not a PTDaemon reading (a line starts with "
                            "'Time,MM-DD-YYYY HH:MM:SS.fff,Watts,...')",
                            c->path, c->line);
    if (c->nfields < 4 || strcmp(c->fields[2], "Watts") != 0)
        return wc_error_set(err, -EINVAL, "%s:%d:3: expected 'Watts' after the time",
                            c->path, c->line);
    wc_truth_sample sample, *t = &sample;
    sample_init(t);
    int64_t ns = 0;
    int rc = parse_ptd_time(c, ff, &ns, err);
    if (!rc)
        rc = set_time(c, so, t, ns, 2, err);
    if (!rc)
        rc = ptd_watts(c, t, err);
    if (rc)
        return rc;
    const char *mark = ptd_mark(c);
    snprintf(t->path, sizeof t->path, "ptd:Watts%s%.120s", *mark ? " mark=" : "", mark);
    return emit_sample(so, t, err);
}

static int parse_ptd_log(wc_csv *c, const file_format *ff, sample_out *so, wc_error *err)
{
    int rc;
    while ((rc = wc_csv_next(c, err)) == 1)
        if ((rc = ptd_row(c, ff, so, err)))
            return rc;
    return rc;
}

int wc_truth_file_check_format(const char *format, wc_error *err)
{
    file_format ff;
    return parse_format(format, &ff, err);
}

int wc_truth_file_each(const char *path, const char *format, wc_truth_file_sink sink, void *ctx,
                       size_t *n, wc_error *err)
{
    if (n)
        *n = 0;
    file_format ff;
    int rc = parse_format(format, &ff, err);
    if (rc)
        return rc;
    wc_csv c;
    if ((rc = wc_csv_open(&c, path, ',', err)))
        return rc;
    c.require_newline = 1;
    sample_out so = {.sink = sink, .ctx = ctx};
    rc = ff.ptd ? parse_ptd_log(&c, &ff, &so, err) : parse_csv_log(&c, &ff, &so, err);
    if (!rc && so.n == 0)
        rc = wc_error_set(err, -ENODATA, "%s: no reading in the file", path);
    wc_csv_close(&c);
    if (n)
        *n = so.n;
    return rc;
}

/* The sink of wc_truth_file_parse: an array grown by doubling. */
typedef struct sample_vec {
    wc_truth_sample *v;
    size_t n, cap;
} sample_vec;

static int collect_sample(void *ctx, const wc_truth_sample *t, wc_error *err)
{
    sample_vec *sv = ctx;
    if (sv->n == sv->cap) {
        size_t cap = sv->cap ? sv->cap * 2 : 256;
        wc_truth_sample *nv = realloc(sv->v, cap * sizeof *nv);
        if (!nv)
            return wc_error_set(err, -ENOMEM, "out of memory reading a truth log");
        sv->v = nv;
        sv->cap = cap;
    }
    sv->v[sv->n++] = *t;
    return 0;
}

int wc_truth_file_parse(const char *path, const char *format, wc_truth_sample **out,
                        size_t *n, wc_error *err)
{
    *out = NULL;
    *n = 0;
    sample_vec sv = {0};
    int rc = wc_truth_file_each(path, format, collect_sample, &sv, NULL, err);
    if (rc) {
        free(sv.v);
        return rc;
    }
    *out = sv.v;
    *n = sv.n;
    return 0;
}

/* a + b and a - b, saturated to the int64 range (a log time far from the run's). */
static int64_t add_sat(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

static int64_t sub_sat(int64_t a, int64_t b)
{
    if (b < 0 && a > INT64_MAX + b)
        return INT64_MAX;
    if (b > 0 && a < INT64_MIN + b)
        return INT64_MIN;
    return a - b;
}

void wc_truth_file_align(wc_truth_sample *s, size_t n, int64_t run_wall_ns, int64_t run_mono_ns)
{
    for (size_t i = 0; i < n; i++)
        s[i].poll_mono_ns = add_sat(run_mono_ns, sub_sat(s[i].poll_wall_ns, run_wall_ns));
}

/* ------------------------------------------------- the check at the start */

/* A header cell that names wall power in another unit than watts. */
static const char *other_power_unit(const char *cell)
{
    static const struct {
        const char *name, *unit;
    } OTHER[] = {{"milliwatts", "mW"}, {"kilowatts", "kW"}, {"mw", "mW"}, {"kw", "kW"},
                 {"power_mw", "mW"}, {"power_kw", "kW"}, {"watts_mw", "mW"}, {"uw", "uW"},
                 {"microwatts", "uW"}, {"wh", "Wh (energy, not power)"},
                 {"kwh", "kWh (energy, not power)"}, {"power", "an unstated unit"},
                 {"power_w", "W, but the column must be named 'watts'"}};
    for (size_t i = 0; i < sizeof OTHER / sizeof *OTHER; i++)
        if (!strcasecmp(cell, OTHER[i].name))
            return OTHER[i].unit;
    return NULL;
}

/* A csv header (the first row of path) without 'watts' but with a power
 * column in another unit: "FILE:LINE:COLUMN: ..." naming it. Returns 0 when
 * there is none (the parse then judges the header). */
static int check_header_units(const char *path, wc_error *err)
{
    wc_csv c;
    int rc = wc_csv_open(&c, path, ',', err);
    if (!rc)
        rc = wc_csv_next(&c, err);
    for (size_t i = 0; rc == 1 && wc_csv_find(&c, "watts", 1) < 0 && i < c.nfields; i++) {
        const char *unit = other_power_unit(c.fields[i]);
        char q[64];
        if (unit)
            rc = wc_error_set(err, -EINVAL,
                              "%s:%d:%zu: column '%s' holds power in %s: the log needs a "
                              "'watts' column in W (convert it, or rename a column already "
                              "in W)",
                              c.path, c.line, i + 1, wc_csv_clean(q, sizeof q, c.fields[i]), unit);
    }
    wc_csv_close(&c);
    return rc < 0 ? rc : 0;
}

/* The first max_lines lines of c's buffer, up to the last newline among them
 * (a line still being written is not judged yet). */
static void keep_complete_lines(wc_csv *c, int max_lines)
{
    size_t end = 0;
    int lines = 0;
    for (size_t i = c->pos; i < c->len && lines < max_lines; i++)
        if (c->buf[i] == '\n') {
            end = i + 1;
            lines++;
        }
    c->len = end > c->pos ? end : c->pos;
}

/* Every ok reading of v below 1 W: a log in kW (0.245) reads like this. */
static int all_below_one_watt(const sample_vec *v)
{
    size_t ok = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (v->v[i].status != WC_TRUTH_OK)
            continue;
        if (v->v[i].watts >= 1.0)
            return 0;
        ok++;
    }
    return ok > 0;
}

int wc_truth_file_check_start(const char *path, const char *format, int max_lines,
                              size_t *nread, wc_error *err)
{
    *nread = 0;
    file_format ff;
    int rc = parse_format(format, &ff, err);
    if (!rc && !ff.ptd)
        rc = check_header_units(path, err);
    wc_csv c;
    if (rc || (rc = wc_csv_open(&c, path, ',', err)))
        return rc;
    keep_complete_lines(&c, max_lines);
    c.require_newline = 1;
    sample_vec sv = {0};
    sample_out so = {.sink = collect_sample, .ctx = &sv};
    rc = ff.ptd ? parse_ptd_log(&c, &ff, &so, err) : parse_csv_log(&c, &ff, &so, err);
    if (rc == -ENODATA) /* nothing written yet: judged when the run ends */
        rc = 0;
    if (!rc && all_below_one_watt(&sv))
        rc = wc_error_set(err, -EINVAL,
                          "%s: every reading of the first %zu is below 1 W (e.g. %.6g): a node "
                          "draws tens to hundreds of watts at the wall, so this log looks like "
                          "kW; it must be in W",
                          path, sv.n, sv.v[0].watts);
    *nread = rc ? 0 : sv.n;
    free(sv.v);
    wc_csv_close(&c);
    return rc;
}
