/*
 * escape.c — untrusted strings into HTML, Markdown and gnuplot data files
 * (escape.h).
 */
#include "reports/escape.h"

#include <string.h>

#include "common/wc_text.h"

/* Code points shown as \u{XXXX} rather than drawn: C1 controls, and the
 * invisible ones that can make a name look like another (zero-width and
 * direction controls, the soft hyphen, the BOM), and U+FFFE / U+FFFF, which
 * XML forbids. */
static int hidden_cp(unsigned cp)
{
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0xAD || (cp >= 0x200B && cp <= 0x200F) ||
           (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF ||
           cp == 0xFFFE || cp == 0xFFFF;
}

static unsigned decode_cp(const unsigned char *p, size_t n)
{
    if (n == 2)
        return ((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu);
    if (n == 3)
        return ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    return ((p[0] & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
}

/* One character of s at p. Printable ASCII: returns 1 with *plain set (the
 * format escapes it). Otherwise writes into tmp (16 bytes) what shows it —
 * a visible UTF-8 character as is, anything else as \n, \t, \r, \xNN or
 * \u{XXXX} — and returns the bytes of s it stands for, *len its length. */
static size_t one_char(const unsigned char *p, char *tmp, size_t *len, int *plain)
{
    *plain = 0;
    if (*p >= 0x20 && *p < 0x7f) {
        *plain = 1;
        tmp[0] = (char)*p;
        *len = 1;
        return 1;
    }
    size_t n = *p >= 0x80 ? wc_utf8_len(p) : 0;
    if (n > 1) {
        unsigned cp = decode_cp(p, n);
        if (hidden_cp(cp))
            *len = (size_t)snprintf(tmp, 16, "\\u{%04X}", cp);
        else
            memcpy(tmp, p, n), *len = n;
        return n;
    }
    const char *named = *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : *p == '\r' ? "\\r" : NULL;
    if (named)
        *len = (size_t)snprintf(tmp, 16, "%s", named);
    else
        *len = (size_t)snprintf(tmp, 16, "\\x%02X", *p);
    return 1;
}

/* The walk shared by the formats: printable ASCII goes to out(); the rest
 * as one_char shows it (in Markdown a shown backslash is doubled). */
static void walk(FILE *f, const char *s, int md, void (*out)(FILE *, char))
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        char tmp[16];
        size_t len;
        int plain;
        p += one_char(p, tmp, &len, &plain);
        if (plain) {
            out(f, tmp[0]);
            continue;
        }
        for (size_t i = 0; i < len; i++) {
            if (md && tmp[i] == '\\')
                fputc('\\', f);
            fputc(tmp[i], f);
        }
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
    md_pos = -1; /* not at a line's start: block syntax cannot begin here */
    walk(f, s, 1, md_char);
}

void wc_md_escape_block(FILE *f, const char *s)
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

/* Appends the visible form of the character at *pp to out (advancing *pp);
 * returns its length, 0 when it does not fit in room. A '>' closing "]]>"
 * is shown as \x3E: gnuplot's SVG leaves '>' as is, and "]]>" is not allowed
 * in XML text. */
static size_t visible_char(const unsigned char *start, const unsigned char **pp, char *out, size_t room)
{
    char tmp[16];
    size_t len;
    int plain;
    const unsigned char *p = *pp;
    size_t used = one_char(p, tmp, &len, &plain);
    if (plain && *p == '>' && p - start >= 2 && p[-1] == ']' && p[-2] == ']')
        len = (size_t)snprintf(tmp, sizeof tmp, "\\x3E");
    if (len > room)
        return 0;
    memcpy(out, tmp, len);
    *pp = p + used;
    return len;
}

const char *wc_visible(const char *s, size_t max_bytes, char *buf, size_t cap)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t len = 0, limit = max_bytes < cap - 1 ? max_bytes : cap - 1;
    while (*p) {
        const unsigned char *save = p;
        size_t n = visible_char((const unsigned char *)(s ? s : ""), &p, buf + len, limit - len);
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
