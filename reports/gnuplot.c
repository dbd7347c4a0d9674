/*
 * gnuplot.c — gnuplot as a child process (gnuplot.h).
 */
#include "reports/gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int wc_gnuplot_available(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/bin:/bin";
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char exe[4200];
        snprintf(exe, sizeof exe, "%s/gnuplot", *d ? d : ".");
        struct stat st;
        if (!stat(exe, &st) && S_ISREG(st.st_mode) && !access(exe, X_OK))
            return 1;
    }
    return 0;
}

/* Writes all of buf to fd (a pipe). */
static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

int wc_gnuplot_run(const char *dir, const char *script, int timeout_s, wc_error *err)
{
    int in[2];
    if (pipe2(in, O_CLOEXEC))
        return wc_error_set(err, -errno, "gnuplot: pipe: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addchdir_np(&fa, dir);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "gnuplot.log",
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    char *const argv[] = {"gnuplot", NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    if (rc) {
        close(in[1]);
        return wc_error_set(err, -rc, "gnuplot: cannot run it: %s", strerror(rc));
    }
    /* a gnuplot that stops reading must not block us: SIGPIPE ignored here */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    int wrc = write_all(in[1], script, strlen(script));
    close(in[1]);
    sigaction(SIGPIPE, &old, NULL);
    int status = 0, done = 0;
    struct timespec pause = {0, 20000000};
    for (int waited_ms = 0; waited_ms < timeout_s * 1000; waited_ms += 20) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            done = 1;
            break;
        }
        nanosleep(&pause, NULL);
    }
    if (!done) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return wc_error_set(err, -ETIMEDOUT, "gnuplot: killed after %d s", timeout_s);
    }
    if (wrc)
        return wc_error_set(err, -EPIPE, "gnuplot: stopped reading its script (see gnuplot.log)");
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        return wc_error_set(err, -EIO, "gnuplot failed (exit %d; see gnuplot.log in the report directory)",
                            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
