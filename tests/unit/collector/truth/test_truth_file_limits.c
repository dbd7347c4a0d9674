/*
 * test_truth_file_limits.c — the wall-log parser at its limits (issue 16,
 * collector/truth/truth_file.c): an epoch time past int64 nanoseconds
 * refused with FILE:LINE:COLUMN (defect 1), a log of any length streamed in
 * bounded memory (defect 7), a line longer than the window refused, a FIFO
 * refused without waiting, and a sink that stops the parse.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "collector/truth/truth_file.h"
#include "tests/unit/support/test_support.h"

static const char *log_path(const char *name, const char *text)
{
    static char path[512];
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, name, text);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

Test(truth_limits, epoch_seconds_past_int64_ns_are_refused)
{
    int64_t ns = 0;
    cr_assert_eq(wc_parse_epoch_ns("9223372036.9", 1000000000LL, &ns), -ERANGE);
    cr_assert_eq(wc_parse_epoch_ns("9223372036.854775808", 1000000000LL, &ns), -ERANGE);
    cr_assert_eq(wc_parse_epoch_ns("9223372036.854775807", 1000000000LL, &ns), 0);
    cr_assert_eq(ns, INT64_MAX);
    cr_assert_eq(wc_parse_epoch_ns("9223372036854775807", 1, &ns), 0);
    cr_assert_eq(wc_parse_epoch_ns("9223372036854775807.9", 1, &ns), 0); /* below 1 ns: cut */
    cr_assert_eq(wc_parse_epoch_ns("9223372036854775808", 1, &ns), -ERANGE);
    cr_assert_eq(wc_parse_epoch_ns("99999999999999999999x", 1, &ns), -EINVAL); /* malformed first */

    const char *p = log_path("far.csv", "time,watts\n1764431237,100\n9223372036.9,100\n");
    wc_truth_sample *s = NULL;
    size_t n = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_file_parse(p, "csv", &s, &n, &err), -EINVAL);
    cr_assert_null(s);
    cr_assert(strstr(err.msg, "far.csv:3:1: column 'time': '9223372036.9' is out of range: after "
                              "2262-04-11T23:47:16Z"),
              "%s", err.msg);
}

static int count_sample(void *ctx, const wc_truth_sample *s, wc_error *err)
{
    (void)err;
    size_t *n = ctx;
    cr_assert_eq(s->status, WC_TRUTH_OK);
    (*n)++;
    return 0;
}

/* Peak resident set of this process, KiB. */
static long peak_kib(void)
{
    struct rusage ru;
    cr_assert_eq(getrusage(RUSAGE_SELF, &ru), 0);
    return ru.ru_maxrss;
}

Test(truth_limits, a_long_log_streams_in_bounded_memory, .timeout = 120)
{
    const size_t lines = 200000; /* ~100 MB when every sample was kept (504 B each) */
    const char *dir = wc_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/long.csv", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("time,watts\n", f);
    for (size_t i = 0; i < lines; i++)
        fprintf(f, "%zu.25,%zu.5\n", 1764431237 + i, 100 + i % 50);
    cr_assert_eq(fclose(f), 0);
    long before = peak_kib();
    size_t seen = 0, n = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_file_each(path, "csv", count_sample, &seen, &n, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(seen, lines);
    cr_assert_eq(n, lines);
    long grown = peak_kib() - before;
    cr_assert(grown < 16 * 1024, "peak memory grew by %ld KiB for %zu lines", grown, lines);
}

Test(truth_limits, a_line_longer_than_the_window_is_refused)
{
    size_t n = WC_CSV_MAX_LINE + 16;
    char *text = malloc(n + 64);
    cr_assert_not_null(text);
    int k = snprintf(text, 64, "time,watts\n1764431237,");
    memset(text + k, '1', n);
    memcpy(text + k + n, "\n", 2);
    const char *p = log_path("wide.csv", text);
    free(text);
    wc_truth_sample *s = NULL;
    size_t got = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_file_parse(p, "csv", &s, &got, &err), -EINVAL);
    cr_assert(strstr(err.msg, "wide.csv:2: line longer than 4 MiB"), "%s", err.msg);
}

Test(truth_limits, a_fifo_is_refused_without_waiting, .timeout = 10)
{
    const char *dir = wc_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/meter.fifo", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    wc_truth_sample *s = NULL;
    size_t n = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_file_parse(path, "csv", &s, &n, &err), -EINVAL);
    cr_assert(strstr(err.msg, "not a regular file"), "%s", err.msg);
}

static int stop_at_second(void *ctx, const wc_truth_sample *s, wc_error *err)
{
    (void)s;
    int *calls = ctx;
    return ++*calls == 2 ? wc_error_set(err, -ENOSPC, "sink full") : 0;
}

Test(truth_limits, the_sink_stops_the_parse_with_its_error)
{
    const char *p = log_path("three.csv", "time,watts\n1764431237,1\n1764431238,2\n1764431239,3\n");
    int calls = 0;
    size_t n = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_file_each(p, "csv", stop_at_second, &calls, &n, &err), -ENOSPC);
    cr_assert_eq(calls, 2);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(err.msg, "sink full");
}

Test(truth_limits, align_saturates_instead_of_overflowing)
{
    wc_truth_sample s[2];
    memset(s, 0, sizeof s);
    s[0].poll_wall_ns = INT64_MAX;
    s[1].poll_wall_ns = 0;
    wc_truth_file_align(s, 2, INT64_MIN + 5, 1000);
    cr_assert_eq(s[0].poll_mono_ns, INT64_MAX);
    wc_truth_file_align(s, 2, INT64_MAX, -1000);
    cr_assert_eq(s[1].poll_mono_ns, INT64_MIN);
}
