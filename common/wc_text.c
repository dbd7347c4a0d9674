/*
 * wc_text.c — see wc_text.h.
 */
#include "common/wc_text.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void wc_append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    if (cap == 0 || *used >= cap - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    *used += (size_t)n < cap - *used ? (size_t)n : cap - 1 - *used;
}

void wc_copy_trunc(char *dst, size_t cap, const char *src)
{
    if (cap == 0)
        return;
    size_t len = strlen(src);
    if (len >= cap)
        len = cap - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

void wc_textf(char *buf, size_t cap, const char *fmt, ...)
{
    if (cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
}

void wc_fputs_safe(const char *text, FILE *out)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        fputc(*c < 0x20 || *c == 0x7f ? '?' : *c, out);
}

size_t wc_utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (!n || (n == 2 && s[0] < 0xC2) || (n == 4 && s[0] > 0xF4))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0)))
        return 0; /* overlong, or a UTF-16 surrogate */
    if (n == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90)))
        return 0;
    return n;
}

size_t wc_url_authority_len(const char *a)
{
    size_t n = 0;
    if (a[0] == '[') {
        n = 1 + strspn(a + 1, "0123456789abcdefABCDEF:.");
        if (a[n] != ']' || n == 1)
            return 0;
        n++;
    } else {
        n = strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-");
        if (n == 0)
            return 0;
    }
    if (a[n] == ':') {
        size_t d = strspn(a + n + 1, "0123456789");
        long port = d && d <= 5 ? strtol(a + n + 1, NULL, 10) : 0;
        if (port < 1 || port > 65535)
            return 0;
        n += 1 + d;
    }
    return n;
}
