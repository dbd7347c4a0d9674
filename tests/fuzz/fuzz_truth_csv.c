/*
 * fuzz_truth_csv.c — wall-meter / PDU logs in the csv format of `--truth
 * file:PATH` (collector/truth/truth_file.c, wc_truth_file_each; the input is
 * written to a file on a memory-backed scratch directory). The format comes
 * from an optional first line "#wc: format=csv:+01:00" (a comment to the
 * parser). Contract (truth_file.h): times are past 1970, never negative and
 * never going backwards; an ok sample is a plausible wall power (> 0 W, at
 * most 100 kW, not 65535 W), an unavailable one NAN with its reason; a window
 * is known only from a cell and within [0, 86400] s; a failure names
 * FILE:LINE; and the samples written back as epoch-seconds CSV read back the
 * same. The corpus holds "9223372036.9" (an epoch past int64 ns).
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/truth/truth_file.h"
#include "tests/fuzz/fuzz.h"

static void check_sample(const wc_truth_sample *s, int64_t prev_ns, const char *kind)
{
    FUZZ_CHECK(s->poll_wall_ns >= 0 && s->poll_wall_ns == s->device_ts_ns && !s->poll_mono_ns,
               "time %" PRId64, s->poll_wall_ns);
    FUZZ_CHECK(s->poll_wall_ns >= prev_ns, "time goes backwards");
    if (s->status == WC_TRUTH_OK)
        FUZZ_CHECK(isfinite(s->watts) && s->watts > 0 && s->watts <= WC_TRUTH_MAX_WALL_WATTS &&
                       s->watts != WC_TRUTH_NO_READING_WATTS,
                   "ok with %g W", s->watts);
    else
        FUZZ_CHECK(s->status == WC_TRUTH_UNAVAILABLE && isnan(s->watts) && s->error[0],
                   "status %d, %g W, '%s'", s->status, s->watts, s->error);
    FUZZ_CHECK(s->window_known ? s->window_s >= 0 && s->window_s <= 86400 : s->window_s == 0,
               "window %g s (known %d)", s->window_s, s->window_known);
    FUZZ_CHECK(strncmp(s->path, kind, strlen(kind)) == 0, "path '%s'", s->path);
    FUZZ_CHECK(isnan(s->min_watts) && isnan(s->max_watts) && isnan(s->avg_watts), "statistics");
}

static int close_enough(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return fabs(a - b) <= 4 * DBL_EPSILON * fabs(a);
}

static void round_trip(const wc_truth_sample *s, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    fputs("time,watts,window_s\n", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%" PRId64 ".%09" PRId64 ",", s[i].poll_wall_ns / 1000000000,
                s[i].poll_wall_ns % 1000000000);
        if (s[i].status == WC_TRUTH_OK)
            fprintf(f, "%.17g", s[i].watts);
        fputc(',', f);
        if (s[i].window_known)
            fprintf(f, "%.17g", s[i].window_s);
        fputc('\n', f);
    }
    fclose(f);
    const char *path = fuzz_write_file(fuzz_scratch(), "again.csv", text, len);
    free(text);
    wc_truth_sample *t = NULL;
    size_t m = 0;
    wc_error err = {{0}};
    FUZZ_CHECK(wc_truth_file_parse(path, "csv", &t, &m, &err) == 0, "reparse: %s", err.msg);
    FUZZ_CHECK(m == n, "%zu samples, then %zu", n, m);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(t[i].poll_wall_ns == s[i].poll_wall_ns && t[i].status == s[i].status &&
                       close_enough(t[i].watts, s[i].watts) &&
                       t[i].window_known == s[i].window_known &&
                       close_enough(t[i].window_s, s[i].window_s),
                   "sample %zu differs", i);
    free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char format[64];
    if (!fuzz_option(data, size, "format", format, sizeof format) ||
        strncmp(format, "csv", 3) != 0 || wc_truth_file_check_format(format, NULL) != 0)
        snprintf(format, sizeof format, "csv");
    const char *path = fuzz_write_file(fuzz_scratch(), "log.csv", data, size);
    char file[1024];
    snprintf(file, sizeof file, "%s", path);
    wc_truth_sample *s = NULL;
    size_t n = 0;
    wc_error err = {{0}};
    int rc = wc_truth_file_parse(file, format, &s, &n, &err);
    if (rc) {
        FUZZ_CHECK(rc == -EINVAL || rc == -ENODATA || rc == -ENOMEM, "rc %d", rc);
        FUZZ_CHECK(strncmp(err.msg, file, strlen(file)) == 0 && fuzz_printable(err.msg),
                   "message '%s'", err.msg);
        FUZZ_CHECK(s == NULL && n == 0, "samples after an error");
        return 0;
    }
    FUZZ_CHECK(n > 0, "no sample and no error");
    for (size_t i = 0; i < n; i++)
        check_sample(&s[i], i ? s[i - 1].poll_wall_ns : 0, "csv:watts");
    round_trip(s, n);
    free(s);
    return 0;
}
