/*
 * fuzz_ipmi_sdr.c — sensor tables read for a node power reading (`ipmitool
 * sdr`/`sensor`, FreeIPMI `ipmi-sensors`; collector/truth/ipmi_parse.c:
 * wc_ipmi_parse_sdr, and wc_ipmi_classify_failure on the same text).
 * Contract (ipmi_parse.h): an error return iff status ERROR; OK only with a
 * reading in (0, 100 kW] and a "sdr:" path; no statistics and no window;
 * an unavailable sample says why; path and messages printable; a failure
 * class is one of -ENODATA, -EACCES, -EIO, -EPROTO.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "collector/truth/ipmi_parse.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    wc_truth_sample s;
    wc_error err = {{0}};
    int rc = wc_ipmi_parse_sdr(text, size, &s, &err);
    FUZZ_CHECK(rc == 0 || rc == -ENODATA || rc == -EIO || rc == -EACCES || rc == -EPROTO,
               "rc %d", rc);
    FUZZ_CHECK((rc < 0) == (s.status == WC_TRUTH_ERROR), "rc %d with status %d", rc, s.status);
    FUZZ_CHECK(fuzz_printable(s.path) && fuzz_printable(s.error), "control byte in '%s' / '%s'",
               s.path, s.error);
    if (s.status == WC_TRUTH_OK) {
        FUZZ_CHECK(isfinite(s.watts) && s.watts > 0 && s.watts <= WC_IPMI_MAX_NODE_WATTS,
                   "ok with %g W", s.watts);
        FUZZ_CHECK(strncmp(s.path, "sdr:", 4) == 0, "path '%s'", s.path);
    } else {
        FUZZ_CHECK(s.error[0], "status %d without a reason", s.status);
    }
    FUZZ_CHECK(isnan(s.min_watts) && isnan(s.max_watts) && isnan(s.avg_watts) && !s.window_known,
               "statistics or window from a sensor table");
    wc_error ferr = {{0}};
    rc = wc_ipmi_classify_failure(text, size, "fuzz", &ferr);
    FUZZ_CHECK(rc == -ENODATA || rc == -EACCES || rc == -EIO || rc == -EPROTO, "class %d", rc);
    FUZZ_CHECK(strncmp(ferr.msg, "fuzz: ", 6) == 0 && fuzz_printable(ferr.msg), "message '%s'",
               ferr.msg);
    return 0;
}
