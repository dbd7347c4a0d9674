/*
 * expo_parse.c — the Prometheus text exposition (0.0.4) and OpenMetrics 1.0
 * text parser (expo_parse.h): one pass over the body, line by line (memchr
 * finds each end), metadata lines setting the current family, each sample
 * line read into one reused scratch buffer, checked against the series set
 * (expo_series.c) and handed to the callback. Tokens are read by expo_lex.c.
 *
 * Decisions the specs leave open, taken here (docs/kepler-model.md §11 and
 * collector/exporter/README.md repeat them):
 * - CR before LF is an error in both formats (both say lines end in \n;
 *   Prometheus fails such a scrape too), naming CRLF.
 * - The 0.0.4 text allows blanks/tabs between tokens, blank lines, other
 *   comments, a trailing comma in a label set, and the quoted UTF-8 metric
 *   and label names of today's text format ({"my.name", "a.b"="x"}).
 *   OpenMetrics is read as its ABNF has it: single spaces, no blank lines,
 *   no comments but HELP/TYPE/UNIT/EOF, "# EOF" last.
 * - A series repeated in one body is a duplicate (counted, first kept),
 *   except in OpenMetrics when the timestamps differ (two points).
 * - Grouping rules (one TYPE per family, families not interleaved) are not
 *   enforced, as Prometheus does not enforce them.
 */
#include "collector/exporter/expo_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/wc_text.h"

#define DEFAULT_MAX_SERIES 100000
#define DEFAULT_MAX_BODY (64u << 20)
#define DEFAULT_MAX_LABEL_VALUE 4096
#define DEFAULT_MAX_LABELS 64

/* The types a TYPE line may name, per format. */
static const struct {
    const char *word;
    wc_expo_type type;
    int text, om;
} TYPES[] = {
    {"counter", WC_EXPO_COUNTER, 1, 1},     {"gauge", WC_EXPO_GAUGE, 1, 1},
    {"histogram", WC_EXPO_HISTOGRAM, 1, 1}, {"summary", WC_EXPO_SUMMARY, 1, 1},
    {"untyped", WC_EXPO_UNTYPED, 1, 0},     {"unknown", WC_EXPO_UNKNOWN, 0, 1},
    {"info", WC_EXPO_INFO, 0, 1},           {"stateset", WC_EXPO_STATESET, 0, 1},
    {"gaugehistogram", WC_EXPO_GAUGEHISTOGRAM, 0, 1},
};

/* The sample-name suffixes of a family of each type ("" is always allowed). */
static int suffix_ok(wc_expo_type t, const char *suf)
{
    static const char *const counter[] = {"_total", "_created", NULL};
    static const char *const summary[] = {"_sum", "_count", "_created", NULL};
    static const char *const hist[] = {"_bucket", "_sum", "_count", "_created", NULL};
    static const char *const ghist[] = {"_bucket", "_gsum", "_gcount", NULL};
    static const char *const info[] = {"_info", NULL};
    const char *const *list = t == WC_EXPO_COUNTER          ? counter
                              : t == WC_EXPO_SUMMARY        ? summary
                              : t == WC_EXPO_HISTOGRAM      ? hist
                              : t == WC_EXPO_GAUGEHISTOGRAM ? ghist
                              : t == WC_EXPO_INFO           ? info
                                                            : NULL;
    if (!*suf)
        return 1;
    for (; list && *list; list++)
        if (!strcmp(suf, *list))
            return 1;
    return 0;
}

static int is_text(const expo_parser *p)
{
    return p->fmt != WC_EXPO_OPENMETRICS;
}

/* Skips blanks and tabs (0.0.4 only: OpenMetrics has single spaces). */
static const char *ws(const expo_parser *p, const char *s)
{
    if (is_text(p))
        while (s < p->le && (*s == ' ' || *s == '\t'))
            s++;
    return s;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Makes the current family name[0..n) with type t (keep_type: a HELP or
 * UNIT line keeps the type when the family is already the current one). */
static int set_family(expo_parser *p, const char *name, size_t n, wc_expo_type t, int keep_type)
{
    if (keep_type && p->fam && p->fam_len == n && !memcmp(p->fam, name, n))
        return 0;
    if (n + 1 > p->fam_cap) {
        char *f = realloc(p->fam, n + 64);
        if (!f)
            return wc_error_set(p->err, -ENOMEM, "%s: out of memory", p->source);
        p->fam = f;
        p->fam_cap = n + 64;
    }
    memcpy(p->fam, name, n);
    p->fam[n] = '\0';
    p->fam_len = n;
    p->ftype = keep_type ? WC_EXPO_UNTYPED : t;
    return 0;
}

/* Reads the metric name of a metadata line at *ps (an identifier, or in
 * 0.0.4 a quoted name) into the scratch buffer. */
static int meta_name(expo_parser *p, const char **ps, const char *kw, const char **name,
                     size_t *n)
{
    const char *s = *ps, *e = expo_name_end(s, p->le, 0);
    char *w = p->scr;
    if (s < p->le && *s == '"' && is_text(p)) {
        int rc = expo_qstring(p, &s, &w, p->le - p->ls, "the quoted metric name", NULL, n);
        if (rc)
            return rc;
        if (!*n)
            return expo_fail(p, *ps, "an empty quoted metric name after %s", kw);
        e = s;
    } else if (e == s) {
        char q[32];
        return expo_fail(p, s, "expected a metric name after %s, got '%s'", kw,
                         expo_excerpt(q, sizeof q, s, p->le));
    } else {
        *n = (size_t)(e - s);
        memcpy(w, s, *n);
        w[*n] = '\0';
    }
    *name = p->scr;
    *ps = e;
    return 0;
}

/* The type named by [s, e) in this format, or -1. */
static int type_of(const expo_parser *p, const char *s, const char *e)
{
    size_t n = (size_t)(e - s);
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++)
        if ((is_text(p) ? TYPES[i].text : TYPES[i].om) && strlen(TYPES[i].word) == n &&
            !memcmp(TYPES[i].word, s, n))
            return (int)TYPES[i].type;
    return -1;
}

/* A TYPE line's type word [s, e): sets the family. */
static int meta_type(expo_parser *p, const char *name, size_t n, const char *s, const char *e)
{
    int t = type_of(p, s, e);
    if (t < 0) {
        char q[48];
        return expo_fail(p, s, "unknown metric type '%s' (%s)", expo_excerpt(q, sizeof q, s, e),
                         is_text(p) ? "0.0.4 has counter, gauge, histogram, summary, untyped"
                                    : "OpenMetrics has counter, gauge, histogram, "
                                      "gaugehistogram, stateset, info, summary, unknown");
    }
    return set_family(p, name, n, (wc_expo_type)t, 0);
}

/* "# HELP name text" / "# TYPE name type" in 0.0.4; any other comment is
 * ignored. s is at the '#'. */
static int text_comment(expo_parser *p, const char *s)
{
    const char *t = s + 1, *le = p->le;
    if (t >= le || !is_blank(*t))
        return 0;
    t = ws(p, t);
    int help = le - t > 4 && !memcmp(t, "HELP", 4) && is_blank(t[4]);
    int type = le - t > 4 && !memcmp(t, "TYPE", 4) && is_blank(t[4]);
    if (!help && !type)
        return 0;
    const char *kw = help ? "# HELP" : "# TYPE", *name;
    size_t n;
    t = ws(p, t + 4);
    int rc = meta_name(p, &t, kw, &name, &n);
    if (rc)
        return rc;
    if (t < le && !is_blank(*t))
        return expo_fail(p, t, "unexpected '%c' after the metric name of %s", *t, kw);
    t = ws(p, t);
    if (help) {
        const char *bad = expo_utf8_check(t, le);
        if (bad)
            return expo_fail(p, bad, "the HELP text is not valid UTF-8");
        return set_family(p, name, n, WC_EXPO_UNTYPED, 1);
    }
    const char *e = le;
    while (e > t && is_blank(e[-1]))
        e--;
    return meta_type(p, name, n, t, e);
}

/* A UNIT line's unit [s, e): metric-name characters, the family name's
 * suffix after '_' when not empty. */
static int meta_unit(expo_parser *p, const char *name, size_t n, const char *s, const char *e)
{
    const char *x = s;
    while (x < e && (expo_name_end(x, e, 0) > x || (*x >= '0' && *x <= '9')))
        x++;
    if (x < e)
        return expo_fail(p, x, "a UNIT holds metric-name characters only");
    size_t u = (size_t)(e - s);
    if (u && (n < u + 1 || name[n - u - 1] != '_' || memcmp(name + n - u, s, u))) {
        char q[48];
        return expo_fail(p, s, "unit '%s' is not the suffix of the family name '%s'",
                         expo_excerpt(q, sizeof q, s, e), name);
    }
    return set_family(p, name, n, WC_EXPO_UNTYPED, 1);
}

/* The keyword of an OpenMetrics metadata line at s ("# HELP ", "# TYPE ",
 * "# UNIT "): 1, 2, 3; 0 for anything else. */
static int om_keyword(const expo_parser *p, const char *s)
{
    static const char *const kw[] = {"# HELP ", "# TYPE ", "# UNIT "};
    for (int i = 0; i < 3; i++)
        if (p->le - s > 7 && !memcmp(s, kw[i], 7))
            return i + 1;
    return 0;
}

/* An OpenMetrics metadata line (s at the '#'): # EOF, # HELP, # TYPE, # UNIT. */
static int om_meta(expo_parser *p, const char *s)
{
    static const char *const kw[] = {"", "# HELP", "# TYPE", "# UNIT"};
    const char *le = p->le, *t = s + 7, *name;
    if (le - s == 5 && !memcmp(s, "# EOF", 5)) {
        p->st->saw_eof = 1;
        return 0;
    }
    int kind = om_keyword(p, s);
    if (!kind)
        return expo_fail(p, s, "OpenMetrics allows no comments: a '#' line is '# HELP', "
                               "'# TYPE', '# UNIT' or '# EOF'");
    size_t n;
    int rc = meta_name(p, &t, kw[kind], &name, &n);
    if (rc)
        return rc;
    if (t >= le || *t != ' ')
        return expo_fail(p, t, "expected one space after the metric name of %s", kw[kind]);
    t++;
    if (kind == 2)
        return meta_type(p, name, n, t, le);
    if (kind == 3)
        return meta_unit(p, name, n, t, le);
    const char *bad = expo_utf8_check(t, le);
    if (bad)
        return expo_fail(p, bad, "the HELP text is not valid UTF-8");
    return set_family(p, name, n, WC_EXPO_UNTYPED, 1);
}

/* ---- sample lines ------------------------------------------------------- */

/* A sample being read: its strings live in p->scr from w0 on. */
typedef struct sample_buf {
    wc_expo_sample s;
    char *w;                 /* next free byte of the scratch buffer */
    int exemplar;            /* reading an exemplar's labels: checked, not kept */
    int sorted;              /* the label names so far are in ascending order */
} sample_buf;

/* Adds label (name, value) to the sample (len: strlen(name) + 1 +
 * strlen(value)), refusing a repeated name and one label too many. Names in
 * ascending order (as client libraries write them) need one comparison. */
static int add_label(expo_parser *p, sample_buf *b, const char *at, const char *name,
                     const char *value, size_t len)
{
    if (b->exemplar)
        return 0;
    size_t n = b->s.nlabels;
    const char *last = n ? p->labels[n - 1].name : NULL;
    int c = !last                ? 1
            : name[0] != last[0] ? (unsigned char)name[0] - (unsigned char)last[0]
                                 : strcmp(name, last);
    if (c < 0 || (c > 0 && !b->sorted)) {
        b->sorted = 0;
        for (size_t i = 0; i + 1 < n && c; i++)
            c = strcmp(p->labels[i].name, name);
    }
    if (c == 0)
        return expo_fail(p, at, "label '%s' given twice", name);
    if (n >= p->lim.max_labels)
        return expo_fail(p, at, "more than %zu labels on one sample", p->lim.max_labels);
    p->labels[n] = (wc_expo_label){.name = name, .value = value};
    p->lens[n] = len;
    b->s.nlabels = n + 1;
    return 0;
}

/* Reads a label name (identifier, or quoted in 0.0.4) at *ps into the
 * scratch; *quoted says which, *n its length. */
static int label_name(expo_parser *p, sample_buf *b, const char **ps, const char **name,
                      int *quoted, size_t *n)
{
    const char *s = *ps, *e = expo_name_end(s, p->le, 1);
    *name = b->w;
    *quoted = s < p->le && *s == '"' && is_text(p) && !b->exemplar;
    if (*quoted) {
        int rc = expo_qstring(p, ps, &b->w, p->le - p->ls, "the quoted name", NULL, n);
        return rc || *n ? rc : expo_fail(p, s, "an empty quoted name (a metric or label "
                                               "name has at least one character)");
    }
    if (e == s) {
        char q[32];
        return expo_fail(p, s, "expected a label name, got '%s'",
                         expo_excerpt(q, sizeof q, s, p->le));
    }
    *n = (size_t)(e - s);
    memcpy(b->w, s, *n);
    b->w[*n] = '\0';
    b->w += *n + 1;
    *ps = e;
    return 0;
}

/* One label (or, in 0.0.4, the quoted metric name) at *ps. */
static int one_label(expo_parser *p, sample_buf *b, const char **ps)
{
    const char *at = *ps, *name, *value;
    int quoted;
    size_t n, vn;
    int rc = label_name(p, b, ps, &name, &quoted, &n);
    if (rc)
        return rc;
    const char *s = ws(p, *ps);
    if (quoted && s < p->le && (*s == ',' || *s == '}')) {
        if (b->s.name)
            return expo_fail(p, at, "a second metric name in the label set");
        b->s.name = name;
        *ps = s;
        return 0;
    }
    if (s >= p->le || *s != '=')
        return expo_fail(p, s, "expected '=' after label name '%s'", name);
    s = ws(p, s + 1);
    if (s >= p->le || *s != '"')
        return expo_fail(p, s, "expected a quoted value for label '%s'", name);
    value = b->w;
    rc = expo_qstring(p, &s, &b->w, b->exemplar ? (size_t)(p->le - p->ls) : p->lim.max_label_value,
                      "the value of label", name, &vn);
    if (rc)
        return rc;
    *ps = s;
    return add_label(p, b, at, name, value, n + 1 + vn);
}

/* The label set at *ps ('{' at **ps) up to and past its '}'. */
static int label_set(expo_parser *p, sample_buf *b, const char **ps)
{
    const char *s = ws(p, *ps + 1), *le = p->le;
    while (s < le && *s != '}') {
        int rc = one_label(p, b, &s);
        if (rc)
            return rc;
        s = ws(p, s);
        if (s < le && *s == ',') {
            s = ws(p, s + 1);
            if (!is_text(p) && s < le && *s == '}')
                return expo_fail(p, s - 1, "a comma before '}' (OpenMetrics allows none)");
        } else if (s < le && *s != '}') {
            return expo_fail(p, s, "expected ',' or '}' after a label, got '%c'", *s);
        }
    }
    if (s >= le)
        return expo_fail(p, *ps, "the label set has no closing '}' on this line");
    *ps = s + 1;
    return 0;
}

/* The end of the token starting at s: the next blank (0.0.4: blank or tab;
 * OpenMetrics: space) or the end of the line. */
static const char *token_end(const expo_parser *p, const char *s)
{
    while (s < p->le && *s != ' ' && !(is_text(p) && *s == '\t'))
        s++;
    return s;
}

/* The sample value at s (the token [s, token_end)). */
static int read_value(expo_parser *p, const char **ps, double *v, const char *what)
{
    const char *s = *ps, *e = token_end(p, s);
    char q[40];
    int rc = s == e ? -EINVAL : expo_number(s, e, v);
    if (rc == -ENOMEM)
        return wc_error_set(p->err, -ENOMEM, "%s: out of memory", p->source);
    if (rc == -ERANGE)
        return expo_fail(p, s, "%s '%s' is beyond the range of a double", what,
                         expo_excerpt(q, sizeof q, s, e));
    if (rc)
        return expo_fail(p, s, "expected %s (a number, NaN, +Inf or -Inf), got '%s'", what,
                         expo_excerpt(q, sizeof q, s, e));
    *ps = e;
    return 0;
}

/* A timestamp token at *ps: ms in 0.0.4, seconds in OpenMetrics. */
static int read_timestamp(expo_parser *p, const char **ps, int64_t *ms)
{
    const char *s = *ps, *e = token_end(p, s);
    int rc = is_text(p) ? expo_ts_ms(s, e, ms) : expo_ts_seconds(s, e, ms);
    if (rc) {
        char q[40];
        return expo_fail(p, s, "%s timestamp '%s' (%s)", rc == -ERANGE ? "out-of-range" : "bad",
                         expo_excerpt(q, sizeof q, s, e),
                         is_text(p) ? "0.0.4: integer milliseconds" : "OpenMetrics: seconds");
    }
    *ps = e;
    return 0;
}

/* An OpenMetrics exemplar at s ("# {labels} value [timestamp]"): checked,
 * then ignored. */
static int exemplar(expo_parser *p, sample_buf *b, const char *s)
{
    sample_buf x = {.w = b->w, .exemplar = 1};
    double v;
    int64_t ts;
    if (p->le - s < 3 || s[0] != '#' || s[1] != ' ' || s[2] != '{')
        return expo_fail(p, s, "expected a timestamp or an exemplar ' # {...}'");
    s += 2;
    int rc = label_set(p, &x, &s);
    if (rc)
        return rc;
    if (s >= p->le || *s != ' ')
        return expo_fail(p, s, "expected one space and the exemplar's value");
    s++;
    if ((rc = read_value(p, &s, &v, "the exemplar value")) || s >= p->le)
        return rc;
    if (*s != ' ')
        return expo_fail(p, s, "unexpected '%c' after the exemplar value", *s);
    s++;
    if ((rc = read_timestamp(p, &s, &ts)))
        return rc;
    return s < p->le ? expo_fail(p, s, "unexpected text after the exemplar timestamp") : 0;
}

/* What follows the value in OpenMetrics: [ SP timestamp ] [ SP exemplar ]. */
static int om_tail(expo_parser *p, sample_buf *b, const char *s)
{
    if (s >= p->le)
        return 0;
    if (*s != ' ' || ++s >= p->le)
        return expo_fail(p, s, "expected one space, then a timestamp or an exemplar");
    if (*s == '#')
        return exemplar(p, b, s);
    int rc = read_timestamp(p, &s, &b->s.timestamp_ms);
    if (rc)
        return rc;
    b->s.has_timestamp = 1;
    if (s >= p->le)
        return 0;
    if (*s != ' ' || s + 1 >= p->le)
        return expo_fail(p, s, "expected one space and an exemplar after the timestamp");
    return exemplar(p, b, s + 1);
}

/* The value and what follows it, from s (just after the name or labels). */
static int sample_tail(expo_parser *p, sample_buf *b, const char *s)
{
    if (!is_text(p)) {
        if (s >= p->le || *s != ' ')
            return expo_fail(p, s, "expected one space, then the value");
        s++;
        int rc = read_value(p, &s, &b->s.value, "the value");
        return rc ? rc : om_tail(p, b, s);
    }
    s = ws(p, s);
    int rc = read_value(p, &s, &b->s.value, "the value");
    if (rc)
        return rc;
    s = ws(p, s);
    if (s < p->le) {
        if ((rc = read_timestamp(p, &s, &b->s.timestamp_ms)))
            return rc;
        b->s.has_timestamp = 1;
        s = ws(p, s);
        if (s < p->le)
            return expo_fail(p, s, "unexpected text after the timestamp");
    }
    return 0;
}

/* The family a sample of this name belongs to: the current one when the
 * name is its name plus a suffix its type allows, else its own (untyped). */
static void family_of(const expo_parser *p, wc_expo_sample *s)
{
    size_t n = strlen(s->name);
    if (p->fam_len && n >= p->fam_len && !memcmp(s->name, p->fam, p->fam_len) &&
        suffix_ok(p->ftype, s->name + p->fam_len)) {
        s->family = p->fam;
        s->type = p->ftype;
    } else {
        s->family = s->name;
        s->type = WC_EXPO_UNTYPED;
    }
}

/* Checks the sample against the series set and hands it on. */
static int emit(expo_parser *p, wc_expo_sample *s)
{
    uint64_t h = expo_series_hash(s->name, s->labels, p->lens, s->nlabels);
    int r = expo_set_add(&p->set, h, s->has_timestamp, s->timestamp_ms, p->lim.max_series);
    if (r < 0)
        return wc_error_set(p->err, -ENOMEM, "%s: out of memory", p->source);
    if (r == EXPO_DUPLICATE) {
        if (!p->st->duplicates++) {
            p->dup_line = p->line;
            wc_copy_trunc(p->dup_name, sizeof p->dup_name, s->name);
        }
        return 0;
    }
    if (r == EXPO_FULL) {
        if (!p->st->series_dropped++)
            p->cap_line = p->line;
        return 0;
    }
    family_of(p, s);
    if (!isfinite(s->value))
        p->st->nonfinite++;
    p->st->samples++;
    return p->cb ? p->cb(p->ctx, s) : 0;
}

/* A sample line starting at s. */
static int sample_line(expo_parser *p, const char *s)
{
    sample_buf b = {.w = p->scr, .sorted = 1};
    b.s.labels = p->labels;
    b.s.line = p->line;
    if (*s != '{') {
        const char *e = expo_name_end(s, p->le, 0);
        char q[32];
        if (e == s)
            return expo_fail(p, s, "expected a metric name, got '%s'",
                             expo_excerpt(q, sizeof q, s, p->le));
        memcpy(b.w, s, (size_t)(e - s));
        b.s.name = b.w;
        b.w += e - s;
        *b.w++ = '\0';
        if (e < p->le && *e != '{' && !is_blank(*e))
            return expo_fail(p, e, "unexpected '%c' in the metric name", *e);
        s = ws(p, e);
    }
    int rc = s < p->le && *s == '{' ? label_set(p, &b, &s) : 0;
    if (rc)
        return rc;
    if (!b.s.name)
        return expo_fail(p, p->ls, "the sample has no metric name");
    if ((rc = sample_tail(p, &b, s)))
        return rc;
    return emit(p, &b.s);
}

/* ---- lines -------------------------------------------------------------- */

static int one_line(expo_parser *p)
{
    const char *s = p->ls;
    if (is_text(p)) {
        s = ws(p, s);
        if (s == p->le)
            return 0;
        return *s == '#' ? text_comment(p, s) : sample_line(p, s);
    }
    if (s == p->le)
        return expo_fail(p, s, "an empty line (OpenMetrics has none)");
    return *s == '#' ? om_meta(p, s) : sample_line(p, s);
}

/* The scratch buffer holds one line's strings: unescaped text is never
 * longer than the line, and each NUL replaces a delimiter. */
static int scratch_for(expo_parser *p, size_t line_len)
{
    size_t need = line_len + 64;
    if (need <= p->scr_cap)
        return 0;
    size_t cap = p->scr_cap ? p->scr_cap : 4096;
    while (cap < need)
        cap *= 2;
    char *n = realloc(p->scr, cap);
    if (!n)
        return wc_error_set(p->err, -ENOMEM, "%s: out of memory (a line of %zu bytes)", p->source,
                            line_len);
    p->scr = n;
    p->scr_cap = cap;
    return 0;
}

/* The last line has no line feed: only OpenMetrics' "# EOF" may end so. */
static int last_line(expo_parser *p)
{
    if (!is_text(p) && p->le - p->ls == 5 && !memcmp(p->ls, "# EOF", 5)) {
        p->st->saw_eof = 1;
        return 0;
    }
    return expo_fail(p, p->le, "truncated: the body ends in the middle of line %zu (no line "
                               "feed after it)", p->line);
}

static int parse_lines(expo_parser *p)
{
    const char *s = p->buf;
    while (s < p->end && !p->st->saw_eof) {
        const char *nl = memchr(s, '\n', (size_t)(p->end - s));
        p->ls = s;
        p->le = nl ? nl : p->end;
        p->line++;
        p->st->lines++;
        if (p->le > s && p->le[-1] == '\r')
            return expo_fail(p, p->le - 1, "a carriage return ends the line: CRLF line endings "
                                           "(the format ends lines with \\n alone)");
        if (!nl)
            return last_line(p);
        int rc = scratch_for(p, (size_t)(nl - s));
        if (!rc)
            rc = one_line(p);
        if (rc)
            return rc;
        s = nl + 1;
    }
    if (s < p->end) {
        p->line++;
        p->ls = p->le = s;
        return expo_fail(p, s, "data after '# EOF'");
    }
    if (!is_text(p) && !p->st->saw_eof) {
        p->line++;
        p->ls = p->le = p->end;
        return expo_fail(p, p->end, "truncated: the OpenMetrics body has no '# EOF' line");
    }
    return 0;
}

/* The first warning: the series cap, else the duplicates. */
static void warn(expo_parser *p)
{
    wc_expo_stats *st = p->st;
    if (st->series_dropped)
        wc_textf(st->warning, sizeof st->warning,
                 "%s:%zu: more than %zu distinct series: %zu samples of further series dropped",
                 p->source, p->cap_line, p->lim.max_series, st->series_dropped);
    else if (st->duplicates)
        wc_textf(st->warning, sizeof st->warning,
                 "%s:%zu: %zu samples repeat a series (same name and labels; the first kept), "
                 "the first of %s",
                 p->source, p->dup_line, st->duplicates, p->dup_name);
    for (char *c = st->warning; *c; c++) /* a quoted name may hold control bytes */
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
}

wc_expo_format wc_expo_format_of(const char *content_type)
{
    static const char om[] = "application/openmetrics-text";
    if (!content_type)
        return WC_EXPO_TEXT_004;
    while (*content_type == ' ' || *content_type == '\t')
        content_type++;
    size_t n = sizeof om - 1;
    if (!strncasecmp(content_type, om, n) &&
        (content_type[n] == '\0' || content_type[n] == ';' || content_type[n] == ' '))
        return WC_EXPO_OPENMETRICS;
    return WC_EXPO_TEXT_004;
}

static void limits_of(const wc_expo_limits *lim, wc_expo_limits *out)
{
    wc_expo_limits l = lim ? *lim : (wc_expo_limits){0};
    out->max_series = l.max_series ? l.max_series : DEFAULT_MAX_SERIES;
    out->max_body = l.max_body ? l.max_body : DEFAULT_MAX_BODY;
    out->max_label_value = l.max_label_value ? l.max_label_value : DEFAULT_MAX_LABEL_VALUE;
    out->max_labels = l.max_labels ? l.max_labels : DEFAULT_MAX_LABELS;
}

int wc_expo_parse(const char *buf, size_t len, wc_expo_format fmt, const char *source,
                  const wc_expo_limits *lim, wc_expo_cb cb, void *ctx, wc_expo_stats *st,
                  wc_error *err)
{
    wc_expo_stats local;
    expo_parser p = {.buf = buf, .end = buf + len, .fmt = fmt, .cb = cb, .ctx = ctx,
                     .source = source ? source : "exposition", .st = st ? st : &local, .err = err};
    memset(p.st, 0, sizeof *p.st);
    limits_of(lim, &p.lim);
    if (len > p.lim.max_body)
        return wc_error_set(err, -EFBIG, "%s: a body of %zu bytes is over the limit of %zu bytes",
                            p.source, len, p.lim.max_body);
    if (len && !buf)
        return wc_error_set(err, -EINVAL, "%s: no body", p.source);
    p.labels = calloc(p.lim.max_labels, sizeof *p.labels);
    p.lens = calloc(p.lim.max_labels, sizeof *p.lens);
    /* Kepler's lines are 100-300 bytes: room for len / 128 series up front */
    size_t guess = len / 128 < p.lim.max_series ? len / 128 : p.lim.max_series;
    int rc = p.labels && p.lens && !expo_set_reserve(&p.set, guess)
                 ? parse_lines(&p)
                 : wc_error_set(err, -ENOMEM, "%s: out of memory", p.source);
    warn(&p);
    free(p.labels);
    free(p.lens);
    free(p.scr);
    free(p.fam);
    expo_set_free(&p.set);
    return rc;
}
