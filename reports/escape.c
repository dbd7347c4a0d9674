/*
 * escape.c — untrusted strings into HTML, Markdown and gnuplot data files
 * (escape.h).
 */
#include "reports/escape.h"

#include <string.h>

#include "common/wc_text.h"

/* Writes the visible form of a control or stray byte. */
static void visible_byte(FILE *f, unsigned char c, int md)
{
    const char *bs = md ? "\\\\" : "\\"; /* Markdown: a literal backslash is \\ */
    if (c == '\n')
        fprintf(f, "%sn", bs);
    else if (c == '\t')
        fprintf(f, "%st", bs);
    else if (c == '\r')
        fprintf(f, "%sr", bs);
    else
        fprintf(f, "%sx%02X", bs, c);
}

/* The walk shared by the three formats: plain printable ASCII goes to out();
 * multi-byte UTF-8 is copied; anything else becomes visible text. */
static void walk(FILE *f, const char *s, int md, void (*out)(FILE *, char))
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        if (*p >= 0x20 && *p < 0x7f) {
            out(f, (char)*p++);
            continue;
        }
        size_t n = *p >= 0x80 ? wc_utf8_len(p) : 0;
        if (n) {
            fwrite(p, 1, n, f);
            p += n;
            continue;
        }
        visible_byte(f, *p++, md);
    }
}

static void html_char(FILE *f, char c)
{
    switch (c) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default: fputc(c, f);
    }
}

/* Where the Markdown walk is: at the start of the text, in its leading
 * digits, or further on (one walk at a time: the report is single-threaded). */
static int md_pos;

static void md_char(FILE *f, char c)
{
    int at_start = md_pos == 0, after_digits = md_pos > 0;
    if (c >= '0' && c <= '9' && md_pos >= 0)
        md_pos++;
    else
        md_pos = -1;
    if (c == '&' || c == '<' || c == '>') {
        html_char(f, c); /* no tag can form, so quotes stay as they are */
        return;
    }
    /* everywhere: emphasis, code, links, tables, escapes, strikethrough;
     * at the start only: headings, lists, quotes, rules ("1." too) */
    if (strchr("\\`*_[]|~", c) || (at_start && strchr("#+-=!", c)) || (after_digits && (c == '.' || c == ')')))
        fputc('\\', f);
    fputc(c, f);
}

static void gp_char(FILE *f, char c)
{
    fputc(c, f);
}

void wc_html_escape(FILE *f, const char *s)
{
    walk(f, s, 0, html_char);
}

void wc_md_escape(FILE *f, const char *s)
{
    md_pos = 0;
    walk(f, s, 1, md_char);
}

void wc_gp_field(FILE *f, const char *s)
{
    if (!s || !*s) {
        fputs("-", f); /* an empty field would shift the columns */
        return;
    }
    walk(f, s, 0, gp_char);
}

/* Appends the visible form of one character at p (advances *pp) to buf;
 * returns its length, 0 when it does not fit in room. */
static size_t visible_char(const unsigned char **pp, char *out, size_t room)
{
    const unsigned char *p = *pp;
    char tmp[8];
    size_t n;
    if (*p >= 0x20 && *p < 0x7f) {
        tmp[0] = (char)*p, n = 1;
        p++;
    } else if (*p >= 0x80 && (n = wc_utf8_len(p)) > 0) {
        memcpy(tmp, p, n);
        p += n;
    } else {
        const char *named = *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : *p == '\r' ? "\\r" : NULL;
        if (named)
            n = (size_t)snprintf(tmp, sizeof tmp, "%s", named);
        else
            n = (size_t)snprintf(tmp, sizeof tmp, "\\x%02X", *p);
        p++;
    }
    if (n > room)
        return 0;
    memcpy(out, tmp, n);
    *pp = p;
    return n;
}

const char *wc_visible(const char *s, size_t max_bytes, char *buf, size_t cap)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t len = 0, limit = max_bytes < cap - 1 ? max_bytes : cap - 1;
    while (*p) {
        const unsigned char *save = p;
        size_t n = visible_char(&p, buf + len, limit - len);
        if (!n) {
            p = save;
            break;
        }
        len += n;
    }
    if (*p) { /* cut: make room for "..." at a character boundary */
        while (len > 0 && len + 3 > limit) {
            len--;
            while (len > 0 && ((unsigned char)buf[len] & 0xC0) == 0x80)
                len--;
        }
        if (len + 3 <= limit)
            memcpy(buf + len, "...", 3), len += 3;
    }
    buf[len] = '\0';
    return buf;
}

void wc_gp_hex(FILE *f, const char *s, size_t max_bytes)
{
    char buf[512];
    wc_visible(s, max_bytes, buf, sizeof buf);
    if (!buf[0]) {
        fputs("2d", f); /* "-": an empty field would shift the columns */
        return;
    }
    for (const unsigned char *p = (const unsigned char *)buf; *p; p++)
        fprintf(f, "%02x", *p);
}

void wc_gp_string(FILE *f, const char *s, size_t max_bytes)
{
    fputs("dec(\"", f);
    if (s && *s)
        wc_gp_hex(f, s, max_bytes);
    fputs("\")", f);
}

const char WC_GP_DECODER[] =
    "hexdigit(c) = strstrt(\"0123456789abcdef\", c) - 1\n"
    "dec(s) = strlen(s) < 2 ? \"\" : sprintf(\"%c\", 16 * hexdigit(s[1:1]) + hexdigit(s[2:2])) . dec(s[3:])\n";
