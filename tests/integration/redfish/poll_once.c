/*
 * poll_once.c — test driver for tests/integration/redfish_http.sh: opens one
 * `--truth` SPEC through wc_truth_open (the Redfish source against the
 * loopback test server) and polls it, printing one line per poll:
 *
 *   poll=1 status=ok rc=0 watts=300.000 avg_watts=nan window_s=0 window_known=0
 *   elapsed_ms=3<TAB>path=redfish:Node:EnvironmentMetrics.PowerWatts<TAB>error=
 *
 * Usage: poll_once SPEC [--timeout SEC] [--connect-timeout SEC]
 *                       [--password-file FILE] [--polls N] [--insecure]
 * Exit: 0 when the source opened (whatever the polls said), 2 when it did
 * not ("open: <message>" on stderr), 64 on bad usage. Credentials come from
 * REDFISH_USER and the password file / REDFISH_PASSWORD, as in the CLI.
 * Until the CLI grows --truth, this is how the HTTP path is exercised. The
 * script builds it against the built library (every source kind linked in).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/truth/truth.h"
#include "common/wc_clock.h"

static int usage(void)
{
    fprintf(stderr, "usage: poll_once SPEC [--timeout SEC] [--connect-timeout SEC] "
                    "[--password-file FILE] [--polls N] [--insecure]\n");
    return 64;
}

static int64_t seconds_ns(const char *text)
{
    return (int64_t)(strtod(text, NULL) * 1e9);
}

static void print_sample(int i, int rc, const wc_truth_sample *t, int64_t elapsed_ns)
{
    printf("poll=%d status=%s rc=%d watts=%.3f avg_watts=%.3f window_s=%g window_known=%d "
           "elapsed_ms=%lld\tpath=%s\terror=%s\n",
           i, wc_truth_status_name(t->status), rc, t->watts, t->avg_watts, t->window_s,
           t->window_known, (long long)(elapsed_ns / 1000000), t->path, t->error);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    int polls = 1;
    for (int i = 2; i < argc; i++) {
        int has_value = i + 1 < argc;
        if (strcmp(argv[i], "--timeout") == 0 && has_value)
            cfg.timeout_ns = seconds_ns(argv[++i]);
        else if (strcmp(argv[i], "--connect-timeout") == 0 && has_value)
            cfg.connect_timeout_ns = seconds_ns(argv[++i]);
        else if (strcmp(argv[i], "--password-file") == 0 && has_value)
            cfg.password_file = argv[++i];
        else if (strcmp(argv[i], "--polls") == 0 && has_value)
            polls = atoi(argv[++i]);
        else if (strcmp(argv[i], "--insecure") == 0)
            cfg.insecure = 1;
        else
            return usage();
    }
    wc_truth_source s;
    wc_error err = {{0}};
    if (wc_truth_open(argv[1], &cfg, &s, &err) != 0) {
        fprintf(stderr, "open: %s\n", err.msg);
        wc_truth_close(&s);
        return 2;
    }
    printf("source: %s\n", s.description);
    for (int i = 1; i <= polls; i++) {
        wc_truth_sample t;
        int64_t t0 = wc_mono_ns();
        int rc = wc_truth_poll(&s, &t);
        print_sample(i, rc, &t, wc_mono_ns() - t0);
    }
    wc_truth_close(&s);
    return 0;
}
