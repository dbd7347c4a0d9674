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
    char old[sizeof err->msg];
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%s%s", prefix, old);
    return code;
}
