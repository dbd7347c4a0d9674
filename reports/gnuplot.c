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
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int wc_gnuplot_find(char *out, size_t cap)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        if (d[0] != '/')
            continue; /* "" and relative entries name the working directory */
        char exe[4200];
        snprintf(exe, sizeof exe, "%s/gnuplot", d);
        struct stat st;
        if (!stat(exe, &st) && S_ISREG(st.st_mode) && !access(exe, X_OK)) {
            if ((size_t)snprintf(out, cap, "%s", exe) >= cap)
                continue;
            return 1;
        }
    }
    return 0;
}

int wc_gnuplot_available(void)
{
    char exe[4200];
    return wc_gnuplot_find(exe, sizeof exe);
}

/* The script in an anonymous memory file, positioned at its start. */
static int script_fd(const char *script, wc_error *err)
{
    int fd = memfd_create("wattcal-gnuplot-script", MFD_CLOEXEC);
    if (fd < 0)
        return wc_error_set(err, -errno, "gnuplot: memfd_create: %s", strerror(errno));
    size_t len = strlen(script), off = 0;
    while (off < len) {
        ssize_t n = write(fd, script + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            return wc_error_set(err, -e, "gnuplot: writing its script: %s", strerror(e));
        }
        off += (size_t)n;
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        int e = errno;
        close(fd);
        return wc_error_set(err, -e, "gnuplot: lseek: %s", strerror(e));
    }
    return fd;
}

int wc_gnuplot_run(const char *workdir, const char *script, int timeout_s, int log_fd, wc_error *err)
{
    char exe[4200];
    if (!wc_gnuplot_find(exe, sizeof exe))
        return wc_error_set(err, -ENOENT, "gnuplot: not found on PATH");
    int in = script_fd(script, err);
    if (in < 0)
        return in;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    if (log_fd >= 0)
        posix_spawn_file_actions_adddup2(&fa, log_fd, STDERR_FILENO);
    else
        posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addchdir_np(&fa, workdir);
    /* its own process group, so the deadline kills whatever it started */
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    char *const argv[] = {"gnuplot", NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, exe, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(in);
    if (rc)
        return wc_error_set(err, -rc, "gnuplot: cannot run %s: %s", exe, strerror(rc));
    int status = 0, done = 0;
    struct timespec pause = {0, 20000000};
    for (long waited_ms = 0; waited_ms < (long)timeout_s * 1000; waited_ms += 20) {
        /* WNOWAIT: gnuplot stays a zombie, so its pid (the group's id) cannot
         * be reused before the group is killed below */
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (!waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == pid) {
            done = 1;
            break;
        }
        nanosleep(&pause, NULL);
    }
    kill(-pid, SIGKILL); /* the group: gnuplot if it is still running, and what it left */
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!done)
        return wc_error_set(err, -ETIMEDOUT, "gnuplot: killed after %d s", timeout_s);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        return wc_error_set(err, -EIO, "gnuplot failed (exit %d; see gnuplot.log in the report directory)",
                            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
