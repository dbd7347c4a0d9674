/*
 * wc_text.c — see wc_text.h.
 */
#include "common/wc_text.h"

#include <stdarg.h>
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
