/*
 * poll_once.c — test driver for tests/integration/ipmi_sim.sh: opens one
 * IPMI ground-truth source (collector/truth/truth_ipmi.c) from a --truth SPEC,
 * polls it N times and prints one line per poll:
 *
 *   status=ok watts=245 path=sdr:Pwr Consumption window_s=0 elapsed_ms=61 rc=0 error=
 *
 * Usage: poll_once SPEC [--timeout-ms N] [--polls N]
 * Credentials come from IPMI_USER / IPMI_PASSWORD, as for wattcal itself.
 * Exit status: 0 when every poll returned 0, 1 otherwise, 2 on bad usage or
 * a source that does not open. Only for tests, until `wattcal probe --truth
 * SPEC --json` exists; it is compiled by the script, not by the Makefile,
 * against the built library (every source kind is linked in).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/truth/truth.h"
#include "common/wc_clock.h"

static int usage(void)
{
    fprintf(stderr, "usage: poll_once SPEC [--timeout-ms N] [--polls N]\n");
    return 2;
}

static void print_sample(const wc_truth_sample *t, int64_t elapsed_ns, int rc)
{
    printf("status=%s watts=%g path=%s window_s=%g elapsed_ms=%lld rc=%d error=%s\n",
           wc_truth_status_name(t->status), t->watts, t->path, t->window_s,
           (long long)(elapsed_ns / 1000000), rc, t->error);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    long polls = 1;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--timeout-ms") == 0 && i + 1 < argc)
            cfg.timeout_ns = atol(argv[++i]) * 1000000LL;
        else if (strcmp(argv[i], "--polls") == 0 && i + 1 < argc)
            polls = atol(argv[++i]);
        else
            return usage();
    }
    if (cfg.timeout_ns <= 0 || polls <= 0)
        return usage();
    wc_truth_source s;
    wc_error err = {{0}};
    if (wc_truth_open(argv[1], &cfg, &s, &err)) {
        fprintf(stderr, "poll_once: %s\n", err.msg);
        wc_truth_close(&s);
        return 2;
    }
    printf("source=%s\n", s.description);
    int failed = 0;
    for (long k = 0; k < polls; k++) {
        wc_truth_sample t;
        int64_t t0 = wc_mono_ns();
        int rc = wc_truth_poll(&s, &t);
        print_sample(&t, wc_mono_ns() - t0, rc);
        failed |= rc != 0;
    }
    wc_truth_close(&s);
    return failed;
}
