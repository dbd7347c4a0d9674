/*
 * pidstat.c — parser for one /proc/<pid>/stat line (see pidstat.h).
 *
 * Used by the process sampler (proc_scan.c) on every process of every tick,
 * so it works in place on the caller's buffer: no allocation, no copy beyond
 * comm, and it stops tokenising after field 22 (starttime), the last one
 * wattcal needs. comm runs from the FIRST '(' to the LAST ')' (names may hold
 * spaces and parentheses, B16); the fields after it are split on single
 * spaces and numbered as in proc(5) (state is field 3). wc_pidstat_read_at
 * is the one read of a stat file both readers of untrusted trees use (the
 * sampler, the simulated node): non-blocking, bounded, whole or refused.
 */
#include "collector/procfs/pidstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "common/wc_fs.h"

/* The last proc(5) field wattcal reads. */
#define PS_LAST_FIELD 22

/* proc(5) name of a field wattcal reads (for error messages). */
static const char *field_name(int field)
{
    switch (field) {
    case 1: return "pid";
    case 2: return "comm";
    case 3: return "state";
    case 4: return "ppid";
    case 5: return "pgrp";
    case 14: return "utime";
    case 15: return "stime";
    case 20: return "num_threads";
    case 22: return "starttime";
    default: return "field";
    }
}

/* Parses a signed decimal ("-12", "34") from [s, s+n). 0 or -EINVAL. */
static int parse_i64(const char *s, size_t n, int64_t *out)
{
    int neg = n > 0 && s[0] == '-';
    uint64_t mag = 0;
    if (wc_parse_u64(s + neg, n - (size_t)neg, &mag) != 0)
        return -EINVAL;
    if (!neg && mag > (uint64_t)INT64_MAX)
        return -EINVAL;
    if (neg && mag > (uint64_t)INT64_MAX + 1u)
        return -EINVAL;
    if (neg)
        *out = mag == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)mag;
    else
        *out = (int64_t)mag;
    return 0;
}

/* Error for a field that is present but not what proc(5) says it is. */
static int bad_field(const char *origin, int field, const char *tok, size_t n, wc_error *err)
{
    return wc_error_set(err, -EINVAL, "%s: field %d (%s) is not a valid number: \"%.*s\"",
                        origin, field, field_name(field), (int)(n > 40 ? 40 : n), tok);
}

/* Stores one token of field `field` (3..22) into out; fields wattcal does not
 * use are skipped without inspection. 0 or -EINVAL with err set. */
static int store_field(int field, const char *tok, size_t n, const char *origin,
                       wc_pidstat *out, wc_error *err)
{
    uint64_t u = 0;
    int64_t i = 0;
    switch (field) {
    case 3:
        if (n != 1)
            return wc_error_set(err, -EINVAL, "%s: field 3 (state) is not one character: \"%.*s\"",
                                origin, (int)(n > 40 ? 40 : n), tok);
        out->state = tok[0];
        return 0;
    case 4:
        if (wc_parse_u64(tok, n, &u) != 0 || u > INT32_MAX)
            return bad_field(origin, field, tok, n, err);
        out->ppid = (int32_t)u;
        return 0;
    case 5: /* proc(5) %d: -1 is a process without a group (seen on real
             * machines); any other negative value is refused */
        if (parse_i64(tok, n, &i) != 0 || i < -1 || i > INT32_MAX)
            return bad_field(origin, field, tok, n, err);
        out->pgrp = (int32_t)i;
        return 0;
    case 14:
    case 15:
    case 22:
        if (wc_parse_u64(tok, n, &u) != 0)
            return bad_field(origin, field, tok, n, err);
        if (field == 14)
            out->utime = u;
        else if (field == 15)
            out->stime = u;
        else
            out->starttime = u;
        return 0;
    case 20:
        if (parse_i64(tok, n, &i) != 0)
            return bad_field(origin, field, tok, n, err);
        out->num_threads = i;
        return 0;
    default:
        return 0;
    }
}

/* Parses "<pid> (" : the decimal before the first '('. */
static int parse_pid(const char *text, const char *lparen, const char *origin,
                     wc_pidstat *out, wc_error *err)
{
    const char *end = lparen;
    if (end > text && end[-1] == ' ')
        end--;
    uint64_t pid = 0;
    if (wc_parse_u64(text, (size_t)(end - text), &pid) != 0 || pid > INT32_MAX)
        return wc_error_set(err, -EINVAL, "%s: field 1 (pid) is not a valid number: \"%.*s\"",
                            origin, (int)((end - text) > 40 ? 40 : (end - text)), text);
    out->pid = (int32_t)pid;
    return 0;
}

/* Copies comm verbatim (truncated to fit out->comm). */
static void copy_comm(const char *start, const char *end, wc_pidstat *out)
{
    size_t n = (size_t)(end - start);
    if (n >= sizeof out->comm)
        n = sizeof out->comm - 1;
    memcpy(out->comm, start, n);
    out->comm[n] = '\0';
}

/* Finds the last ')' in [text, text+len); NULL when there is none. */
static const char *last_rparen(const char *text, size_t len)
{
    for (size_t i = len; i > 0; i--)
        if (text[i - 1] == ')')
            return text + i - 1;
    return NULL;
}

/* Splits [p, end) on single spaces into fields 3..22. */
static int parse_fields(const char *p, const char *end, const char *origin,
                        wc_pidstat *out, wc_error *err)
{
    int field = 3;
    while (field <= PS_LAST_FIELD && p < end) {
        const char *sp = memchr(p, ' ', (size_t)(end - p));
        const char *tok_end = sp ? sp : end;
        int rc = store_field(field, p, (size_t)(tok_end - p), origin, out, err);
        if (rc)
            return rc;
        field++;
        if (!sp)
            break;
        p = sp + 1;
    }
    if (field <= PS_LAST_FIELD) {
        int want = field;
        while (want < PS_LAST_FIELD && strcmp(field_name(want), "field") == 0)
            want++;
        return wc_error_set(err, -EINVAL,
                            "%s: truncated: field %d (%s) missing (the line ends after field %d)",
                            origin, want, field_name(want), field - 1);
    }
    return 0;
}

int wc_pidstat_parse(const char *text, size_t len, const char *origin,
                     wc_pidstat *out, wc_error *err)
{
    if (!origin)
        origin = "stat";
    memset(out, 0, sizeof *out);
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\0'))
        len--;
    const char *lparen = memchr(text, '(', len);
    const char *rparen = last_rparen(text, len);
    if (!lparen || !rparen || rparen < lparen)
        return wc_error_set(err, -EINVAL, "%s: field 2 (comm) missing: no \"(...)\" in \"%.*s\"",
                            origin, (int)(len > 60 ? 60 : len), text);
    int rc = parse_pid(text, lparen, origin, out, err);
    if (rc)
        return rc;
    copy_comm(lparen + 1, rparen, out);
    const char *end = text + len;
    const char *p = rparen + 1;
    if (p >= end)
        return wc_error_set(err, -EINVAL,
                            "%s: truncated: field 3 (state) missing (the line ends after comm)",
                            origin);
    if (*p != ' ')
        return wc_error_set(err, -EINVAL, "%s: no space after comm's closing ')'", origin);
    return parse_fields(p + 1, end, origin, out, err);
}

/* One read(2) of up to n bytes, retried on EINTR: the count or -errno. */
static ssize_t read_once(int fd, char *buf, size_t n)
{
    ssize_t r;
    do
        r = read(fd, buf, n);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : r;
}

int wc_pidstat_read_at(int dirfd, const char *rel, char *buf, size_t cap, size_t *len)
{
    *len = 0;
    if (cap < 2)
        return -EINVAL;
    buf[0] = '\0';
    int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -errno;
    ssize_t r = read_once(fd, buf, cap - 1);
    if (r == (ssize_t)(cap - 1)) { /* full: one more byte says whether it was all */
        char more;
        ssize_t m = read_once(fd, &more, 1);
        if (m != 0)
            r = m > 0 ? -EFBIG : m;
    }
    close(fd);
    if (r < 0)
        return (int)r;
    buf[r] = '\0';
    *len = (size_t)r;
    return 0;
}
