/*
 * wc_error.h — one error record passed down every fallible call.
 *
 * wattcal functions that can fail return 0 on success or a negative errno-style
 * code (-ENOENT, -EACCES, -EINVAL, -EIO...) and, when given a non-NULL wc_error,
 * fill msg with a sentence that names the file, line or field at fault and, where
 * there is one, the fix. Callers print msg as is.
 */
#ifndef WC_ERROR_H
#define WC_ERROR_H

#include <stddef.h>

/* A human-readable error message; msg is always NUL-terminated (empty = no error). */
typedef struct wc_error {
    char msg[768];
} wc_error;

/* Sets err->msg from a printf format (no-op when err is NULL). Returns `code`
 * unchanged so callers can write `return wc_error_set(err, -EINVAL, "...")`. */
int wc_error_set(wc_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefixes err->msg with a printf-formatted context ("reading /proc/1/stat: ").
 * Returns `code` unchanged. */
int wc_error_prefix(wc_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
