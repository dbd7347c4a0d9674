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

int wc_parse_duration_ns(const char *text, int64_t *out_ns)
{
    if (!text || !*text)
        return -EINVAL;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || !isfinite(v) || v < 0)
        return -EINVAL;
    double mult;
    if (*end == '\0' || strcmp(end, "s") == 0)
        mult = 1e9;
    else if (strcmp(end, "ms") == 0)
        mult = 1e6;
    else if (strcmp(end, "us") == 0)
        mult = 1e3;
    else if (strcmp(end, "ns") == 0)
        mult = 1;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        mult = 60e9;
    else if (strcmp(end, "h") == 0)
        mult = 3600e9;
    else
        return -EINVAL;
    double ns = v * mult;
    if (ns > 9.2e18)
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
