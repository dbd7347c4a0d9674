/*
 * cli_options.c — what several commands share about options: the tables of
 * the options `record` and `probe` both take (roots, BMC access), and value
 * parsers for the analysis commands (validate, calibrate, diff): durations
 * in seconds, whole numbers in a range, and comma-separated zone lists.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/wc_clock.h"

const wc_cli_opt wc_cli_root_opts[] = {
    {"procfs-root", "DIR", WC_CLI_OPT_PROCFS_ROOT,
     "read /proc from DIR (default /proc; e.g. /host/proc)"},
    {"sysfs-root", "DIR", WC_CLI_OPT_SYSFS_ROOT, "read /sys from DIR (default /sys; e.g. /host/sys)"},
    WC_CLI_OPT_END,
};

const wc_cli_opt wc_cli_bmc_opts[] = {
    {"truth-timeout", "DUR", WC_CLI_OPT_TRUTH_TIMEOUT,
     "per-poll timeout for ipmitool and HTTP (default 10s)"},
    {"truth-password-file", "FILE", WC_CLI_OPT_TRUTH_PWFILE,
     "BMC password file; otherwise IPMI_PASSWORD or\n"
     "REDFISH_PASSWORD from the environment (users: IPMI_USER,\n"
     "REDFISH_USER); credentials are never taken from argv"},
    {"insecure", NULL, WC_CLI_OPT_INSECURE, "do not verify the BMC's TLS certificate (Redfish)"},
    WC_CLI_OPT_END,
};

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
