/*
 * cli_common.c — what every command shares at run time (cli.h): the stop
 * flag SIGINT/SIGTERM/SIGHUP set, error lines safe for a terminal, and the command
 * line as stored with a run, and the model names listed from the model table.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/wc_text.h"

volatile sig_atomic_t wc_cli_stop = 0;

static void on_stop(int sig)
{
    (void)sig;
    wc_cli_stop = 1;
}

void wc_cli_install_stop_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A hangup (the terminal or SSH session closed) ends the run cleanly too,
     * unless it is ignored: under nohup the run goes on. */
    struct sigaction old;
    if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction(SIGHUP, &sa, NULL);
}

void wc_cli_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "wattcal %s: ", cmd);
    wc_fputs_safe(msg, stderr);
    fputc('\n', stderr);
}

const char *wc_cli_model_names(char *buf, size_t cap)
{
    size_t used = 0, n = wc_model_count();
    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        wc_append(buf, cap, &used, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
                  wc_model_name((wc_model)i));
    return buf;
}

void wc_cli_join_argv(int argc, char **argv, char *buf, int cap)
{
    int used = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && used < cap - 1; i++) {
        int n = snprintf(buf + used, (size_t)(cap - used), "%s%s", i ? " " : "", argv[i]);
        if (n < 0)
            break;
        used += n;
    }
}
