/*
 * cli_options.c — option value parsers shared by the analysis commands
 * (validate, calibrate, diff): durations in seconds, whole numbers in a
 * range, and comma-separated zone lists.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/wc_clock.h"

int wc_cli_parse_seconds(const char *text, int zero_ok, double *out)
{
    int64_t ns = 0;
    if (wc_parse_duration_ns(text, &ns) || ns < 0 || (!zero_ok && ns == 0))
        return -1;
    *out = (double)ns / 1e9;
    return 0;
}

int wc_cli_parse_whole(const char *text, double lo, double hi, double *out)
{
    char *end = NULL;
    *out = strtod(text, &end);
    return (!end || end == text || *end || !isfinite(*out) || *out != floor(*out) || *out < lo ||
            *out > hi)
               ? -1
               : 0;
}

int wc_cli_parse_zone_list(const char *text, char *buf, size_t cap, const char **names,
                           size_t max)
{
    if (strlen(text) >= cap)
        return -1;
    snprintf(buf, cap, "%s", text);
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == max || !*t)
            return -1;
        names[n++] = t;
    }
    names[n] = NULL;
    return n ? 0 : -1;
}
