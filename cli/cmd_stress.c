/*
 * cmd_stress.c — `wattcal stress`: run one built-in stressor
 * (workloads/stressor.c) in the foreground.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "common/wc_clock.h"
#include "workloads/stressor.h"

static const char STRESS_HELP[] =
    "usage: wattcal stress --class cpu|idle [--duration DUR] [--resident-mb N]\n"
    "\n"
    "Runs one stress workload in this process until DUR elapses or SIGINT/SIGTERM:\n"
    "cpu keeps one CPU busy with a scalar loop; idle holds N MiB resident and sleeps.\n"
    "\n"
    "  --class C         cpu or idle\n"
    "  --duration DUR    how long (default 60s)\n"
    "  --resident-mb N   memory the idle stressor keeps resident (default 64)\n";

int cmd_stress(int argc, char **argv)
{
    static const struct option opts[] = {
        {"class", required_argument, NULL, 'c'},
        {"duration", required_argument, NULL, 'd'},
        {"resident-mb", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    wc_stress_class cls = WC_STRESS_CPU;
    int have_class = 0, c;
    int64_t duration_ns = 60 * WC_NS_PER_S;
    long resident_mb = 64;
    char *end = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (wc_stress_class_parse(optarg, &cls))
                goto bad;
            have_class = 1;
            break;
        case 'd':
            if (wc_parse_duration_ns(optarg, &duration_ns))
                goto bad;
            break;
        case 'r':
            resident_mb = strtol(optarg, &end, 10);
            if (!end || *end || resident_mb < 0 || resident_mb > 1 << 20)
                goto bad;
            break;
        case 'h': fputs(STRESS_HELP, stdout); return WC_EXIT_OK;
        default: fputs(STRESS_HELP, stderr); return WC_EXIT_USAGE;
        }
    }
    if (!have_class) {
        fprintf(stderr, "wattcal stress: --class cpu|idle is required\n");
        return WC_EXIT_USAGE;
    }
    wc_cli_install_stop_handlers();
    wc_error err = {{0}};
    if (wc_stress_run(cls, duration_ns, (size_t)resident_mb << 20, &wc_cli_stop, &err)) {
        wc_cli_error("stress", err.msg);
        return WC_EXIT_USAGE;
    }
    return WC_EXIT_OK;
bad:
    fprintf(stderr, "wattcal stress: invalid value '%s'\n", optarg);
    return WC_EXIT_USAGE;
}
