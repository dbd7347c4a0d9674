/*
 * fuzz_ipmi_dcmi.c — what a BMC answers to `dcmi power reading` through
 * ipmitool, FreeIPMI or ipmiutil (collector/truth/ipmi_parse.c:
 * wc_ipmi_parse_dcmi, and wc_ipmi_parse_time_ns, wc_ipmi_first_line on the
 * same text). Contract (ipmi_parse.h): an error return iff status ERROR, with
 * the reason in out->error; OK only with a reading in (0, 65535) W; an
 * unavailable sample says why; statistics NAN or real readings; a known
 * window within (0, 3600] s; a device time unset (0) or past the IPMI
 * pre-init range; path and messages printable (device text is cleaned).
 * The corpus holds the glued-key line that once took quadratic time.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "collector/truth/ipmi_parse.h"
#include "tests/fuzz/fuzz.h"

#define PREINIT_NS (0x20000000LL * 1000000000LL)

static int stat_ok(double v)
{
    return isnan(v) || (v > 0 && v < WC_IPMI_SENTINEL_WATTS);
}

static void check_sample(int rc, const wc_truth_sample *s)
{
    FUZZ_CHECK(rc == 0 || rc == -ENODATA || rc == -EIO || rc == -EACCES || rc == -EPROTO,
               "rc %d", rc);
    FUZZ_CHECK((rc < 0) == (s->status == WC_TRUTH_ERROR), "rc %d with status %d", rc, s->status);
    FUZZ_CHECK(memchr(s->path, '\0', sizeof s->path) && memchr(s->error, '\0', sizeof s->error),
               "path or error not terminated");
    FUZZ_CHECK(fuzz_printable(s->path) && fuzz_printable(s->error), "control byte in '%s' / '%s'",
               s->path, s->error);
    if (s->status == WC_TRUTH_OK)
        FUZZ_CHECK(isfinite(s->watts) && s->watts > 0 && s->watts < WC_IPMI_SENTINEL_WATTS,
                   "ok with %g W", s->watts);
    else
        FUZZ_CHECK(s->error[0], "status %d without a reason", s->status);
    FUZZ_CHECK(!s->window_known || (s->window_s > 0 && s->window_s <= WC_IPMI_DCMI_MAX_WINDOW_S),
               "window %g s", s->window_s);
    FUZZ_CHECK(s->device_ts_ns == 0 || s->device_ts_ns >= PREINIT_NS, "device time %lld",
               (long long)s->device_ts_ns);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    wc_truth_sample s;
    wc_error err = {{0}};
    int rc = wc_ipmi_parse_dcmi(text, size, &s, &err);
    check_sample(rc, &s);
    if (s.status == WC_TRUTH_OK) {
        FUZZ_CHECK(strncmp(s.path, "dcmi:instantaneous", 18) == 0, "path '%s'", s.path);
        FUZZ_CHECK(stat_ok(s.min_watts) && stat_ok(s.max_watts) && stat_ok(s.avg_watts),
                   "statistics %g %g %g", s.min_watts, s.max_watts, s.avg_watts);
    }
    if (rc < 0)
        FUZZ_CHECK(strcmp(s.error, err.msg) == 0 || strlen(err.msg) >= sizeof s.error - 1,
                   "error '%s' vs '%s'", s.error, err.msg);
    int64_t ns = -1;
    rc = wc_ipmi_parse_time_ns(text, size, &ns);
    FUZZ_CHECK(rc == 0 || rc == -EINVAL, "time rc %d", rc);
    FUZZ_CHECK(rc != 0 || ns == 0 || ns >= PREINIT_NS, "time %lld", (long long)ns);
    char line[80];
    size_t n = wc_ipmi_first_line(text, size, line, sizeof line);
    FUZZ_CHECK(n == strlen(line) && n < sizeof line && fuzz_printable(line), "first line '%s'",
               line);
    return 0;
}
