/*
 * expo_internal.h — what the three files of the exposition parser share
 * (private to collector/exporter/): the parser state, the error helper, the
 * token readers of expo_lex.c and the series set of expo_series.c.
 *
 * expo_parse.c drives the lines (metadata, samples, EOF); expo_lex.c reads
 * one token at a time (names, quoted strings, numbers, timestamps) from the
 * untrusted body, never past the current line; expo_series.c hashes a
 * sample's name and labels and keeps the set of series seen.
 */
#ifndef WC_EXPO_INTERNAL_H
#define WC_EXPO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "collector/exporter/expo_parse.h"

/* One entry of the series set: the series hash (its lowest bit replaced by
 * "has a timestamp") and the timestamp of its last sample (OpenMetrics
 * allows several points of one series when their timestamps differ). */
typedef struct expo_slot {
    uint64_t key;       /* 0 = empty slot */
    int64_t ts_ms;
} expo_slot;

/* The distinct series of one body (open addressing, linear probing). */
typedef struct expo_set {
    expo_slot *slot;
    size_t cap, count;  /* cap a power of two */
} expo_set;

/* What expo_set_add found. */
enum { EXPO_NEW = 0, EXPO_DUPLICATE, EXPO_NEW_POINT, EXPO_FULL };

/* The state of one wc_expo_parse call. */
typedef struct expo_parser {
    const char *buf, *end;       /* the body */
    wc_expo_format fmt;
    const char *source;
    wc_expo_limits lim;          /* defaults filled in */
    wc_expo_cb cb;
    void *ctx;
    wc_expo_stats *st;
    wc_error *err;
    size_t line;                 /* 1-based number of the current line */
    const char *ls, *le;         /* current line: first byte, its '\n' (or end) */
    char *fam;                   /* current family name ("" none), NUL-terminated */
    size_t fam_cap, fam_len;
    wc_expo_type ftype;
    char *scr;                   /* one sample's names and values, NUL-separated */
    size_t scr_cap;
    wc_expo_label *labels;       /* lim.max_labels */
    size_t *lens;                /* per label: strlen(name) + 1 + strlen(value) */
    expo_set set;
    size_t dup_line, cap_line;   /* first duplicate, first sample over the cap */
    char dup_name[96];
} expo_parser;

/* Sets p->err to "SOURCE:LINE:COL: <message>" (control bytes of the message
 * shown as '?'; COL: 1-based byte column of
 * at in the current line) and returns -EINVAL. */
int expo_fail(expo_parser *p, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Copies up to cap-1 bytes of [s, e) into out for a message: control bytes
 * and bytes >= 0x7f become '?', a longer text ends in "...". Returns out. */
const char *expo_excerpt(char *out, size_t cap, const char *s, const char *e);

/* End of the metric name (label_name = 0: [a-zA-Z_:][a-zA-Z0-9_:]*) or
 * label name (label_name = 1: [a-zA-Z_][a-zA-Z0-9_]*) starting at s; s
 * itself when none starts there. */
const char *expo_name_end(const char *s, const char *e, int label_name);

/* Reads the quoted string at *ps ('"' at **ps) up to its closing quote on the
 * current line, unescaping \\, \" and \n (any other backslash stands for
 * itself, as the OpenMetrics ABNF has it), into *pw, NUL-terminated. UTF-8 is
 * checked; a NUL byte is refused (labels are C strings); more than limit
 * unescaped bytes is an error. Errors name what ("the value of label") and,
 * when not NULL, label ("'zone'"). Advances *ps past the quote and *pw past
 * the NUL; *len = the unescaped length. 0 or -EINVAL (p->err set). */
int expo_qstring(expo_parser *p, const char **ps, char **pw, size_t limit, const char *what,
                 const char *label, size_t *len);

/* Checks that [s, e) is UTF-8 (RFC 3629). Returns NULL when it is, else the
 * first byte that is not. */
const char *expo_utf8_check(const char *s, const char *e);

/* A sample value: Go's ParseFloat syntax as the 0.0.4 text names it (which is
 * also OpenMetrics' number): [+-]digits[.digits][(e|E)[+-]digits], "." with
 * digits on one side at least, [+-]Inf/Infinity and NaN in any case, no hex,
 * no '_'. Correctly rounded, locale-free. The token is [s, e), all of it.
 * 0; -EINVAL not a number; -ERANGE beyond a double. */
int expo_number(const char *s, const char *e, double *out);

/* A 0.0.4 timestamp: an int64 of milliseconds, [+-]digits. 0, -EINVAL, -ERANGE. */
int expo_ts_ms(const char *s, const char *e, int64_t *out);

/* An OpenMetrics timestamp: seconds as a real number (no Inf/NaN), in ms,
 * computed from the decimal digits (no float rounding), digits below the ms
 * truncated toward zero. 0, -EINVAL, -ERANGE. */
int expo_ts_seconds(const char *s, const char *e, int64_t *out_ms);

/* The hash of a series: its name and its labels, order-independent; a label
 * with an empty value counts as absent (Prometheus's data model). lens[i] is
 * strlen(name) + 1 + strlen(value) of label i, whose value follows its name
 * and NUL in memory (as the parser's scratch buffer holds them). Never 0. */
uint64_t expo_series_hash(const char *name, const wc_expo_label *labels, const size_t *lens,
                          size_t n);

/* Sizes an empty set for about n series (fewer slots later mean rehashing
 * while parsing). 0 or -ENOMEM. */
int expo_set_reserve(expo_set *s, size_t n);

/* Records a series hash. EXPO_NEW (added), EXPO_DUPLICATE (seen, and not a
 * new point: no timestamp on either, or the same one), EXPO_NEW_POINT (seen
 * with another timestamp: remembered as its latest), EXPO_FULL (new but the
 * set holds max series already: not added), or -ENOMEM. */
int expo_set_add(expo_set *s, uint64_t hash, int has_ts, int64_t ts_ms, size_t max);

void expo_set_free(expo_set *s);

#endif
