/*
 * wc_clock.c — clock reads and duration parsing (see wc_clock.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "common/wc_clock.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef CLOCK_BOOTTIME
#define CLOCK_BOOTTIME 7
#endif

static int64_t read_clock(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * WC_NS_PER_S + ts.tv_nsec;
}

int64_t wc_mono_ns(void) { return read_clock(CLOCK_MONOTONIC); }
int64_t wc_boot_ns(void) { return read_clock(CLOCK_BOOTTIME); }
int64_t wc_wall_ns(void) { return read_clock(CLOCK_REALTIME); }

/* The multiplier of a unit at *p (longest name first: "ms" before "m"), its
 * length in *len; 0 when no unit starts there. */
static double duration_unit(const char *p, size_t *len)
{
    static const struct {
        const char *name;
        double ns;
    } UNITS[] = {{"min", 60e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}, {"s", 1e9},
                 {"m", 60e9},   {"h", 3600e9}, {"d", 86400e9}};
    for (size_t i = 0; i < sizeof UNITS / sizeof *UNITS; i++) {
        size_t n = strlen(UNITS[i].name);
        if (strncmp(p, UNITS[i].name, n) == 0) {
            *len = n;
            return UNITS[i].ns;
        }
    }
    return 0;
}

/* "digits[.digits]" at *p into *v, *p moved past it. Returns 0 or -EINVAL. */
static int duration_number(const char **p, double *v)
{
    const char *s = *p;
    char *end = NULL;
    if (!(*s >= '0' && *s <= '9') && !(*s == '.' && s[1] >= '0' && s[1] <= '9'))
        return -EINVAL;
    size_t n = strspn(s, "0123456789."), dots = 0;
    for (size_t i = 0; i < n; i++)
        dots += s[i] == '.';
    if (n > 40 || dots > 1)
        return -EINVAL;
    char num[48];
    memcpy(num, s, n);
    num[n] = '\0';
    *v = strtod(num, &end);
    if (!end || *end)
        return -EINVAL;
    *p = s + n;
    return 0;
}

int wc_parse_duration_ns(const char *text, int64_t *out_ns)
{
    if (!text || !*text)
        return -EINVAL;
    const char *p = text;
    double ns = 0, v = 0;
    int parts = 0;
    while (*p) {
        if (duration_number(&p, &v))
            return -EINVAL;
        size_t len = 0;
        double mult = duration_unit(p, &len);
        if (!mult && (*p || parts))
            return -EINVAL; /* a bare number only alone: "90" is 90 s, "1h30" is refused */
        ns += v * (mult ? mult : 1e9);
        p += len;
        parts++;
    }
    if (!isfinite(ns) || ns > 9.2e18)
        return -EINVAL;
    *out_ns = (int64_t)llround(ns);
    return 0;
}

char *wc_format_wall_iso(int64_t wall_ns, char *buf, int cap)
{
    time_t secs = (time_t)(wall_ns / WC_NS_PER_S);
    int ms = (int)((wall_ns % WC_NS_PER_S) / 1000000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char tmp[24];
    strftime(tmp, sizeof tmp, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, (size_t)cap, "%s.%03dZ", tmp, ms);
    return buf;
}

int64_t wc_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}
