/*
 * cli_common.c — what every command shares at run time (cli.h): the stop
 * flag SIGINT/SIGTERM/SIGHUP set, error lines safe for a terminal, and the command
 * line as stored with a run, the model names listed from the model table,
 * and whether two output paths name one file (an output clobbering another,
 * or the run database itself).
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/wc_text.h"

volatile sig_atomic_t wc_cli_stop = 0;

/* Counts the signals (a second one stops what the first left running: the
 * recorder's compaction of its file). */
static void on_stop(int sig)
{
    (void)sig;
    if (wc_cli_stop < 100)
        wc_cli_stop = wc_cli_stop + 1;
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

/* path's canonical name in out: realpath of the file, else (not there yet,
 * or a dangling link followed once) realpath of its folder + its name.
 * 0, or -1 when neither resolves. */
static int canonical(const char *path, char *out)
{
    char link[PATH_MAX], dir[PATH_MAX];
    if (realpath(path, out))
        return 0;
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n > 0) { /* a dangling link: where it points, relative to its folder */
        link[n] = '\0';
        if (link[0] != '/') {
            snprintf(dir, sizeof dir, "%s", path);
            char *slash = strrchr(dir, '/');
            snprintf(slash ? slash + 1 : dir, sizeof dir - (size_t)(slash ? slash + 1 - dir : 0),
                     "%s", link);
            snprintf(link, sizeof link, "%s", dir);
        }
        path = link;
    }
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? path + (slash - dir) + 1 : path;
    if (slash)
        *slash = '\0';
    char real[PATH_MAX];
    if (!realpath(slash ? (dir[0] ? dir : "/") : ".", real))
        return -1;
    if ((size_t)snprintf(out, PATH_MAX, "%s/%s", real, base) >= PATH_MAX)
        return -1;
    return 0;
}

/* wc_cli_one_file (cli.h), by canonical() names and by inode. */
int wc_cli_one_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && !S_ISREG(sa.st_mode))
        return 0; /* a device or a pipe: /dev/null for both is fine */
    if (ea && eb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
        return 1;
    char ca[PATH_MAX], cb[PATH_MAX];
    if (!strcmp(a, b))
        return 1;
    return !canonical(a, ca) && !canonical(b, cb) && !strcmp(ca, cb);
}
