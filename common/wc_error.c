/*
 * wc_error.c — formatting helpers for wc_error (see wc_error.h).
 */
#include "common/wc_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int wc_error_set(wc_error *err, int code, const char *fmt, ...)
{
    if (!err)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

int wc_error_prefix(wc_error *err, int code, const char *fmt, ...)
{
    if (!err)
        return code;
    char prefix[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    size_t plen = strlen(prefix), olen = strlen(err->msg);
    if (plen >= sizeof err->msg)
        plen = sizeof err->msg - 1;
    if (plen + olen >= sizeof err->msg)
        olen = sizeof err->msg - 1 - plen;
    memmove(err->msg + plen, err->msg, olen);
    memcpy(err->msg, prefix, plen);
    err->msg[plen + olen] = '\0';
    return code;
}
