/*
 * expo_lex.c — the token readers of the exposition parser (expo_internal.h):
 * metric and label names, quoted strings with their escapes and UTF-8 check,
 * sample values (Go ParseFloat / OpenMetrics number syntax, correctly
 * rounded, locale-free) and both timestamp forms. Each reads [s, e) of an
 * untrusted body that is not NUL-terminated and never reads past e.
 */
#include "collector/exporter/expo_internal.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_text.h"

/* Character classes of names (the ABNF's, ASCII only). */
static inline int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A byte that ends a plain run inside a quoted string. */
static inline int qstop(unsigned char c)
{
    return c == '"' || c == '\\' || c == 0 || c >= 0x80;
}

/* SWAR: does any byte of v equal c? (exact for "any") */
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
static inline uint64_t has_byte(uint64_t v, unsigned char c)
{
    uint64_t x = v ^ (ONES * c);
    return (x - ONES) & ~x & HIGHS;
}

int expo_fail(expo_parser *p, const char *at, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    for (char *c = why; *c; c++) /* a byte or name it quotes may be a control byte */
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    size_t col = at >= p->ls ? (size_t)(at - p->ls) + 1 : 1;
    return wc_error_set(p->err, -EINVAL, "%s:%zu:%zu: %s", p->source, p->line, col, why);
}

const char *expo_excerpt(char *out, size_t cap, const char *s, const char *e)
{
    size_t n = 0, want = (size_t)(e - s);
    size_t room = want < cap ? want : (cap > 4 ? cap - 4 : 0);
    for (; n < room; n++) {
        unsigned char c = (unsigned char)s[n];
        out[n] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (n < want && cap > 4) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

const char *expo_name_end(const char *s, const char *e, int label_name)
{
    if (s >= e || !(is_alpha(*s) || (!label_name && *s == ':')))
        return s;
    for (s++; s < e && (is_alpha(*s) || is_digit(*s) || (!label_name && *s == ':')); s++)
        ;
    return s;
}

/* Length (2..4) of the well-formed UTF-8 sequence at s (its first byte is
 * >= 0x80), or 0: no overlong form, no surrogate, nothing above U+10FFFF. */
static size_t utf8_seq(const unsigned char *s, const unsigned char *e)
{
    unsigned c = s[0];
    size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    if (n == 0 || c > 0xf4 || c == 0xc0 || c == 0xc1 || (size_t)(e - s) < n)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
        (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

const char *expo_utf8_check(const char *s, const char *e)
{
    const unsigned char *u = (const unsigned char *)s, *ue = (const unsigned char *)e;
    while (u < ue) {
        if (*u < 0x80) {
            u++;
            continue;
        }
        size_t n = utf8_seq(u, ue);
        if (!n)
            return (const char *)u;
        u += n;
    }
    return NULL;
}

/* One escape at s (the byte after a backslash): writes what it stands for and
 * returns how many bytes of s it used (0: the backslash stands for itself). */
static size_t unescape(const char *s, char **pw)
{
    char *w = *pw;
    size_t used = 1;
    if (*s == 'n')
        *w++ = '\n';
    else if (*s == '\\' || *s == '"')
        *w++ = *s;
    else {
        *w++ = '\\';
        used = 0;
    }
    *pw = w;
    return used;
}

/* "the value of label 'zone'" / "the quoted name": the subject of an error. */
static const char *subject(char *buf, size_t cap, const char *what, const char *label)
{
    if (!label)
        return what;
    char q[64];
    wc_textf(buf, cap, "%s '%s'", what, expo_excerpt(q, sizeof q, label, label + strlen(label)));
    return buf;
}

int expo_qstring(expo_parser *p, const char **ps, char **pw, size_t limit, const char *what,
                 const char *label, size_t *len)
{
    char sb[128];
    const char *open = *ps, *s = open + 1, *e = p->le;
    char *w = *pw, *w0 = w;
    for (;;) {
        /* 8 plain bytes at a time (the scratch has room: see scratch_for) */
        while (e - s >= 8 && (size_t)(w - w0) + 8 <= limit) {
            uint64_t v;
            memcpy(&v, s, 8);
            if (has_byte(v, '"') | has_byte(v, '\\') | has_byte(v, 0) | (v & HIGHS))
                break;
            memcpy(w, &v, 8);
            w += 8;
            s += 8;
        }
        while (s < e && !qstop((unsigned char)*s) && (size_t)(w - w0) < limit)
            *w++ = *s++;
        if (s >= e)
            return expo_fail(p, open, "%s: no closing quote on this line",
                             subject(sb, sizeof sb, what, label));
        if ((size_t)(w - w0) >= limit && *s != '"')
            return expo_fail(p, open, "%s is over the limit of %zu bytes",
                             subject(sb, sizeof sb, what, label), limit);
        unsigned char c = (unsigned char)*s;
        if (c == '"')
            break;
        if (c == '\\') {
            if (++s >= e)
                return expo_fail(p, s - 1, "%s: a backslash ends the line",
                                 subject(sb, sizeof sb, what, label));
            s += unescape(s, &w);
        } else if (c == 0) {
            return expo_fail(p, s, "%s holds a NUL byte",
                             subject(sb, sizeof sb, what, label));
        } else {
            size_t n = utf8_seq((const unsigned char *)s, (const unsigned char *)e);
            if (!n)
                return expo_fail(p, s, "%s is not valid UTF-8 (byte 0x%02x)",
                                 subject(sb, sizeof sb, what, label), c);
            if ((size_t)(w - w0) + n > limit)
                return expo_fail(p, open, "%s is over the limit of %zu bytes",
                             subject(sb, sizeof sb, what, label), limit);
            memcpy(w, s, n);
            w += n;
            s += n;
        }
    }
    *len = (size_t)(w - w0);
    *w++ = '\0';
    *ps = s + 1;
    *pw = w;
    return 0;
}

/* ---- numbers ------------------------------------------------------------ */

/* Case-insensitive: does [s, e) equal word? */
static int word_is(const char *s, const char *e, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(e - s) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != word[i])
            return 0;
    }
    return 1;
}

/* The decimal digits of a real number: up to 19 significant digits in mant,
 * value = mant * 10^exp10 (sticky: a non-zero digit was dropped). */
typedef struct decimal {
    uint64_t mant;
    int exp10, sig, sticky, neg;
} decimal;

static void take_digit(decimal *d, int digit, int fraction)
{
    if (d->mant == 0 && digit == 0) {
        if (fraction)
            d->exp10--;
    } else if (d->sig < 19) {
        d->mant = d->mant * 10 + (uint64_t)digit;
        d->sig++;
        if (fraction)
            d->exp10--;
    } else {
        if (!fraction)
            d->exp10++;
        d->sticky |= digit != 0;
    }
}

/* Reads [+-]digits[.digits][(e|E)[+-]digits] filling all of [s, e). 0 or -EINVAL. */
static int read_decimal(const char *s, const char *e, decimal *d)
{
    memset(d, 0, sizeof *d);
    if (s < e && (*s == '+' || *s == '-'))
        d->neg = *s++ == '-';
    int digits = 0;
    for (; s < e && *s >= '0' && *s <= '9'; s++, digits++)
        take_digit(d, *s - '0', 0);
    if (s < e && *s == '.')
        for (s++; s < e && *s >= '0' && *s <= '9'; s++, digits++)
            take_digit(d, *s - '0', 1);
    if (digits == 0)
        return -EINVAL;
    if (s < e && (*s == 'e' || *s == 'E')) {
        int neg = 0, n = 0, x = 0;
        if (++s < e && (*s == '+' || *s == '-'))
            neg = *s++ == '-';
        for (; s < e && *s >= '0' && *s <= '9'; s++, n++)
            if (x < 100000)
                x = x * 10 + (*s - '0');
        if (n == 0)
            return -EINVAL;
        d->exp10 += neg ? -x : x;
    }
    return s == e ? 0 : -EINVAL;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* The slow path: strtod in the C locale on a NUL-terminated copy. */
static int number_strtod(const char *s, const char *e, double *out)
{
    pthread_once(&c_locale_once, c_locale_init);
    if (!c_locale)
        return -ENOMEM;
    size_t n = (size_t)(e - s);
    char small[128], *copy = n < sizeof small ? small : malloc(n + 1);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, s, n);
    copy[n] = '\0';
    errno = 0;
    char *end;
    double v = strtod_l(copy, &end, c_locale);
    int rc = (end != copy + n) ? -EINVAL : (errno == ERANGE && isinf(v)) ? -ERANGE : 0;
    if (copy != small)
        free(copy);
    if (rc == 0)
        *out = v;
    return rc;
}

__extension__ typedef unsigned __int128 u128;

/* v * 2^exp2 (+ a little more when sticky: a non-zero part below v's last
 * bit), rounded to the nearest double, ties to even. v has 64 bits or more
 * when sticky is set, so the sticky part is below the rounding bit. */
static double round_u128(u128 v, int sticky, int exp2)
{
    uint64_t hi = (uint64_t)(v >> 64), lo = (uint64_t)v;
    int bits = hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
    if (bits <= 53)
        return ldexp((double)(uint64_t)v, exp2);
    int shift = bits - 53;
    uint64_t keep = (uint64_t)(v >> shift);
    u128 rem = v & (((u128)1 << shift) - 1), half = (u128)1 << (shift - 1);
    if (rem > half || (rem == half && (sticky || (keep & 1))))
        keep++; /* 2^53 after a carry is still exact */
    return ldexp((double)keep, shift + exp2);
}

/* mant * 10^exp10 correctly rounded, exactly, when 10^|exp10| fits 64 bits
 * (|exp10| <= 19): 1 and *out, else 0 (the caller uses strtod). */
static int decimal_exact(const decimal *d, double *out)
{
    static const uint64_t p10[] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL,
                                   1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL,
                                   10000000000ULL, 100000000000ULL, 1000000000000ULL,
                                   10000000000000ULL, 100000000000000ULL,
                                   1000000000000000ULL, 10000000000000000ULL,
                                   100000000000000000ULL, 1000000000000000000ULL,
                                   10000000000000000000ULL};
    if (d->sticky || d->exp10 > 19 || d->exp10 < -19)
        return 0;
    double v;
    if (d->exp10 >= 0) {
        v = round_u128((u128)d->mant * p10[d->exp10], 0, 0);
    } else {
        /* m normalised to 64 bits; q = m * 2^64 / 10^k has 64 bits or more */
        int lz = __builtin_clzll(d->mant);
        u128 n = (u128)(d->mant << lz) << 64;
        uint64_t den = p10[-d->exp10];
        v = round_u128(n / den, n % den != 0, -64 - lz);
    }
    *out = d->neg ? -v : v;
    return 1;
}

int expo_number(const char *s, const char *e, double *out)
{
    const char *t = s < e && (*s == '+' || *s == '-') ? s + 1 : s;
    if (t < e && ((*t | 0x20) == 'i' || (*t | 0x20) == 'n')) {
        if (word_is(t, e, "inf") || word_is(t, e, "infinity")) {
            *out = *s == '-' ? -INFINITY : INFINITY;
            return 0;
        }
        if (t == s && word_is(t, e, "nan")) {
            *out = NAN;
            return 0;
        }
        return -EINVAL;
    }
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    decimal d;
    if (read_decimal(s, e, &d))
        return -EINVAL;
    if (d.mant == 0) {
        *out = d.neg ? -0.0 : 0.0;
        return 0;
    }
    /* Clinger's fast path: mant and 10^|exp10| both exact doubles, so one
     * correctly rounded operation gives the correctly rounded value. */
    if (!d.sticky && d.mant <= (1ULL << 53) && d.exp10 >= -22 && d.exp10 <= 22) {
        double v = (double)d.mant;
        v = d.exp10 < 0 ? v / p10[-d.exp10] : v * p10[d.exp10];
        *out = d.neg ? -v : v;
        return 0;
    }
    /* Go prints 17 significant digits: exact 128-bit arithmetic, else strtod */
    return decimal_exact(&d, out) ? 0 : number_strtod(s, e, out);
}

/* Parses [+-]digits into an int64. 0, -EINVAL, -ERANGE. */
int expo_ts_ms(const char *s, const char *e, int64_t *out)
{
    int neg = 0;
    if (s < e && (*s == '+' || *s == '-'))
        neg = *s++ == '-';
    if (s >= e)
        return -EINVAL;
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9')
            return -EINVAL;
        unsigned dgt = (unsigned)(*s - '0');
        if (v > (lim - dgt) / 10)
            return -ERANGE;
        v = v * 10 + dgt;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

int expo_ts_seconds(const char *s, const char *e, int64_t *out_ms)
{
    decimal d;
    if (read_decimal(s, e, &d))
        return -EINVAL;
    int shift = d.exp10 + 3; /* ms = mant * 10^shift */
    uint64_t v = d.mant;
    if (v == 0 || shift <= -20) {
        *out_ms = 0;
        return 0;
    }
    for (; shift < 0; shift++)
        v /= 10;
    for (; shift > 0; shift--) {
        if (v > (uint64_t)INT64_MAX / 10)
            return -ERANGE;
        v *= 10;
    }
    if (v > (uint64_t)INT64_MAX)
        return -ERANGE;
    *out_ms = d.neg ? -(int64_t)v : (int64_t)v;
    return 0;
}
