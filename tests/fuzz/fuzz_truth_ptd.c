/*
 * fuzz_truth_ptd.c — SPEC PTDaemon logs (`--truth file:PATH --truth-format
 * ptd:OFFSET`; collector/truth/truth_file.c, wc_truth_file_each; the input is
 * written to a file on a memory-backed scratch directory). The offset comes
 * from an optional first line "#wc: format=ptd:+01:00" (default ptd:Z).
 * Contract (truth_file.h): as for the csv format (times past 1970 and never
 * backwards, plausible or unavailable readings, failures naming FILE:LINE),
 * the path "ptd:Watts" with the Mark label, no window; and the samples
 * written back as PTDaemon lines in the same offset read back the same
 * (times to the ns, readings, marks).
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

/* Civil date of a day number since 1970-01-01 (H. Hinnant's civil_from_days). */
static void civil(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* "MM-DD-YYYY HH:MM:SS.nnnnnnnnn" of wall_ns in the zone offset_s east of UTC. */
static void ptd_time(int64_t wall_ns, int offset_s, FILE *f)
{
    int64_t secs = wall_ns / 1000000000 + offset_s, ns = wall_ns % 1000000000;
    int64_t days = secs / 86400, sod = secs % 86400, y;
    unsigned m, d;
    civil(days, &y, &m, &d);
    fprintf(f, "%02u-%02u-%04" PRId64 " %02d:%02d:%02d.%09" PRId64, m, d, y, (int)(sod / 3600),
            (int)(sod / 60 % 60), (int)(sod % 60), ns);
}

static void check_sample(const wc_truth_sample *s, int64_t prev_ns)
{
    FUZZ_CHECK(s->poll_wall_ns >= prev_ns && s->poll_wall_ns == s->device_ts_ns,
               "time %" PRId64, s->poll_wall_ns);
    if (s->status == WC_TRUTH_OK)
        FUZZ_CHECK(isfinite(s->watts) && s->watts > 0 && s->watts <= WC_TRUTH_MAX_WALL_WATTS &&
                       s->watts != WC_TRUTH_NO_READING_WATTS,
                   "ok with %g W", s->watts);
    else
        FUZZ_CHECK(s->status == WC_TRUTH_UNAVAILABLE && isnan(s->watts) && s->error[0],
                   "status %d, %g W", s->status, s->watts);
    FUZZ_CHECK(strncmp(s->path, "ptd:Watts", 9) == 0 && !s->window_known, "path '%s'", s->path);
}

static void write_back(FILE *f, const wc_truth_sample *s, int offset_s)
{
    fputs("Time,", f);
    ptd_time(s->poll_wall_ns, offset_s, f);
    if (s->status == WC_TRUTH_OK)
        fprintf(f, ",Watts,%.17g", s->watts);
    else
        fputs(",Watts,nan", f);
    const char *mark = strstr(s->path, " mark=");
    if (mark) {
        fputs(",Mark,\"", f);
        for (const char *c = mark + 6; *c; c++)
            fputs(*c == '"' ? "\"\"" : (char[2]){*c, 0}, f);
        fputc('"', f);
    }
    fputc('\n', f);
}

static void round_trip(const wc_truth_sample *s, size_t n, const char *format)
{
    int offset_s = 0;
    FUZZ_CHECK(wc_parse_utc_offset(format + 4, &offset_s) == 0, "format %s", format);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    for (size_t i = 0; i < n; i++)
        write_back(f, &s[i], offset_s);
    fclose(f);
    const char *path = fuzz_write_file(fuzz_scratch(), "again.ptd", text, len);
    free(text);
    wc_truth_sample *t = NULL;
    size_t m = 0;
    wc_error err = {{0}};
    FUZZ_CHECK(wc_truth_file_parse(path, format, &t, &m, &err) == 0, "reparse: %s", err.msg);
    FUZZ_CHECK(m == n, "%zu samples, then %zu", n, m);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(t[i].poll_wall_ns == s[i].poll_wall_ns && t[i].status == s[i].status &&
                       (isnan(s[i].watts) ? isnan(t[i].watts)
                                          : fabs(t[i].watts - s[i].watts) <=
                                                4 * DBL_EPSILON * s[i].watts) &&
                       strcmp(t[i].path, s[i].path) == 0,
                   "sample %zu differs ('%s' / '%s')", i, s[i].path, t[i].path);
    free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char format[64];
    if (!fuzz_option(data, size, "format", format, sizeof format) ||
        strncmp(format, "ptd:", 4) != 0 || wc_truth_file_check_format(format, NULL) != 0)
        snprintf(format, sizeof format, "ptd:Z");
    char file[1024];
    snprintf(file, sizeof file, "%s", fuzz_write_file(fuzz_scratch(), "log.ptd", data, size));
    wc_truth_sample *s = NULL;
    size_t n = 0;
    wc_error err = {{0}};
    int rc = wc_truth_file_parse(file, format, &s, &n, &err);
    if (rc) {
        FUZZ_CHECK(rc == -EINVAL || rc == -ENODATA || rc == -ENOMEM, "rc %d", rc);
        FUZZ_CHECK(strncmp(err.msg, file, strlen(file)) == 0 && fuzz_printable(err.msg),
                   "message '%s'", err.msg);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        check_sample(&s[i], i ? s[i - 1].poll_wall_ns : 0);
    round_trip(s, n, format);
    free(s);
    return 0;
}
