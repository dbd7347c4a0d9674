/*
 * test_ipmi_linear.c — ipmitool output at the 1 MiB capture cap parses in
 * linear time (issue 16, defect 4: a reading followed by many glued
 * "Timestamp:" keys took 47 s at 256 KB), with the same results as a short
 * one; failure classification of a megabyte of noise is as quick.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector/truth/ipmi_parse.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "Instantaneous power reading: 215 Watts" then `glue` repeated to about
 * size bytes, then the state line. */
static char *glued(size_t size, const char *glue, size_t *len)
{
    char *t = malloc(size + 128);
    cr_assert_not_null(t);
    size_t n = (size_t)sprintf(t, "    Instantaneous power reading:   215 Watts ");
    size_t g = strlen(glue);
    while (n + g < size) {
        memcpy(t + n, glue, g);
        n += g;
    }
    n += (size_t)sprintf(t + n, "\n    Power reading state is:   activated\n");
    *len = n;
    return t;
}

Test(ipmi_linear, glued_timestamp_keys_at_the_capture_cap, .timeout = 60)
{
    static const char *const GLUE[] = {" Timestamp:", " Timestamp", "x Timestamp:",
                                       " Sampling period: 1 ms"};
    for (size_t k = 0; k < sizeof GLUE / sizeof *GLUE; k++) {
        size_t len = 0, short_len = 0;
        char *t = glued((size_t)1 << 20, GLUE[k], &len);
        char *u = glued(4096, GLUE[k], &short_len);
        wc_truth_sample s, ref;
        wc_error err = {{0}}, ref_err = {{0}};
        int ref_rc = wc_ipmi_parse_dcmi(u, short_len, &ref, &ref_err);
        double t0 = now_s();
        int rc = wc_ipmi_parse_dcmi(t, len, &s, &err);
        double dt = now_s() - t0;
        cr_assert(dt < 2.0, "'%s' x 1 MiB took %.2f s", GLUE[k], dt);
        cr_assert_eq(rc, ref_rc, "'%s': %s / %s", GLUE[k], err.msg, ref_err.msg);
        cr_assert_eq(s.status, ref.status);
        if (k == 0 || k == 1) { /* the reading stands before the glued keys */
            cr_assert_eq(rc, 0, "'%s': %s", GLUE[k], err.msg);
            cr_assert_float_eq(s.watts, 215.0, 1e-9);
        }
        free(t);
        free(u);
    }
}

Test(ipmi_linear, classifying_a_megabyte_of_noise, .timeout = 60)
{
    size_t n = (size_t)1 << 20;
    char *t = malloc(n);
    cr_assert_not_null(t);
    for (size_t i = 0; i < n; i++)
        t[i] = "rRaAkKpP iInNvVaAlLiIdD\n"[i % 24];
    wc_error err = {{0}};
    double t0 = now_s();
    int rc = wc_ipmi_classify_failure(t, n, "ipmitool dcmi power reading", &err);
    double dt = now_s() - t0;
    cr_assert_eq(rc, -EPROTO, "%s", err.msg);
    cr_assert(dt < 2.0, "took %.2f s", dt);
    memcpy(t + n / 2, "\nError: Unable to establish IPMI v2 / RMCP+ session\n", 52);
    rc = wc_ipmi_classify_failure(t, n, "ipmitool dcmi power reading", &err);
    cr_assert_eq(rc, -EIO, "%s", err.msg);
    cr_assert(strstr(err.msg, ": Error: Unable to establish IPMI v2 / RMCP+ session"), "%s",
              err.msg);
    free(t);
}
