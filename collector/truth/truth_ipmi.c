/*
 * truth_ipmi.c — the IPMI ground-truth source (`--truth ipmi:local`,
 * `ipmi:lanplus://HOST[:PORT][?cipher=N]`, `ipmi:lan://HOST[:PORT]`).
 *
 * Each poll runs ipmitool (cfg.ipmitool, default "ipmitool" on PATH) with
 * posix_spawnp and an argv array — never a shell — with stdout and stderr on
 * one pipe, stdin on /dev/null, in its own session, TZ=UTC and LC_ALL=C (so
 * BMC timestamps print as UTC and messages in English). The whole poll is
 * bounded by cfg.timeout_ns: past it the child is killed with SIGKILL and
 * reaped, so a hung BMC never hangs wattcal.
 *
 * Reading order: `dcmi power reading` first; when the BMC says DCMI is not
 * supported that is remembered for the life of the source and
 * `sdr elist full` is read instead (ipmi_parse.c picks the system-level
 * sensor or the sum of PSU inputs). A deactivated DCMI reading (OpenBMC)
 * also tries the SDR, and stays UNAVAILABLE when the SDR has nothing better.
 *
 * Credentials: the user from IPMI_USER; the password through ipmitool
 * `-f FILE` when --truth-password-file is set, else `-E` (ipmitool reads
 * IPMI_PASSWORD from the environment itself). The password is never put in
 * argv, never logged, and not read into wattcal's memory: at open the file
 * is only checked to be a readable regular file whose first line is not
 * blank (read one byte at a time up to its first non-blank byte, which is
 * then wiped), so a directory or an empty file fails at open naming the
 * file instead of as an ipmitool timeout at poll time. An empty
 * IPMI_PASSWORD is refused at open too.
 */
#include "collector/truth/truth.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector/truth/ipmi_parse.h"
#include "collector/truth/truth_table.h"
#include "common/wc_text.h"
#include "common/wc_clock.h"

extern char **environ;

#define IPMI_DEFAULT_PORT 623
#define IPMI_DEFAULT_CIPHER 3
#define IPMI_OUTPUT_CAP ((size_t)1 << 20)  /* bytes kept of one ipmitool run */
#define IPMI_REAP_GRACE_NS (WC_NS_PER_S)    /* wait after SIGKILL before giving up */
#define IPMI_MAX_ORPHANS 8                  /* killed children not reaped yet */
#define IPMI_MAX_ARGS 24

typedef enum ipmi_mode { IPMI_LOCAL, IPMI_LAN, IPMI_LANPLUS } ipmi_mode;

/* One IPMI source's settings and memory between polls. */
typedef struct ipmi_priv {
    ipmi_mode mode;
    char host[256];
    int port;
    int cipher;
    char user[64];
    int have_user;
    int use_password_file;        /* -f cfg.password_file, else -E */
    int dcmi_unsupported;         /* the BMC said no to DCMI: go straight to the SDR */
    char dcmi_reason[160];
    pid_t orphans[IPMI_MAX_ORPHANS];
} ipmi_priv;

/* What one poll asks ipmitool for. */
typedef struct ipmi_query {
    const char *what;                 /* "ipmitool dcmi power reading", for messages */
    const char *const *words;         /* the ipmitool command words */
    int (*parse)(const char *, size_t, wc_truth_sample *, wc_error *);
} ipmi_query;

static const char *const DCMI_WORDS[] = {"dcmi", "power", "reading", NULL};
static const char *const SDR_WORDS[] = {"sdr", "elist", "full", NULL};
static const ipmi_query DCMI_QUERY = {"ipmitool dcmi power reading", DCMI_WORDS,
                                      wc_ipmi_parse_dcmi};
static const ipmi_query SDR_QUERY = {"ipmitool sdr elist full", SDR_WORDS, wc_ipmi_parse_sdr};


/* ---------------------------------------------------------------- spec */

/* Host names and addresses only: no option-looking or shell-looking text. */
static int host_ok(const char *h)
{
    if (!*h || *h == '-')
        return 0;
    for (const char *c = h; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '-' || *c == '_' || *c == ':' || *c == '%'))
            return 0;
    return 1;
}

static int parse_int(const char *s, size_t n, long lo, long hi, long *out)
{
    if (n == 0 || n > 6)
        return -EINVAL;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -EINVAL;
        v = v * 10 + (s[i] - '0');
    }
    if (v < lo || v > hi)
        return -EINVAL;
    *out = v;
    return 0;
}

/* "?cipher=N" (lanplus only). */
static int parse_query(ipmi_priv *p, const char *q, const char *target, wc_error *err)
{
    long v;
    if (strncmp(q, "cipher=", 7) != 0 || parse_int(q + 7, strlen(q + 7), 0, 17, &v))
        return wc_error_set(err, -EINVAL,
                            "--truth ipmi:%s: unknown option '?%.40s' (only ?cipher=N, 0..17)",
                            target, q);
    if (p->mode != IPMI_LANPLUS)
        return wc_error_set(err, -EINVAL, "--truth ipmi:%s: ?cipher= needs lanplus://", target);
    p->cipher = (int)v;
    return 0;
}

/* "HOST[:PORT]" or "[V6ADDR][:PORT]" into p->host/p->port. */
static int parse_hostport(ipmi_priv *p, const char *hp, size_t n, const char *target,
                          wc_error *err)
{
    const char *host = hp, *port = NULL;
    size_t hn = n;
    if (n && hp[0] == '[') {
        const char *close = memchr(hp, ']', n);
        if (!close)
            return wc_error_set(err, -EINVAL, "--truth ipmi:%s: missing ']'", target);
        host = hp + 1;
        hn = (size_t)(close - host);
        if (close + 1 < hp + n) {
            if (close[1] != ':')
                return wc_error_set(err, -EINVAL, "--truth ipmi:%s: expected ':PORT' after ']'",
                                    target);
            port = close + 2;
        }
    } else {
        const char *colon = memchr(hp, ':', n);
        if (colon) {
            hn = (size_t)(colon - hp);
            port = colon + 1;
        }
    }
    if (hn == 0 || hn >= sizeof p->host)
        return wc_error_set(err, -EINVAL, "--truth ipmi:%s: missing or too long host", target);
    memcpy(p->host, host, hn);
    p->host[hn] = '\0';
    if (!host_ok(p->host))
        return wc_error_set(err, -EINVAL, "--truth ipmi:%s: invalid host name", target);
    p->port = IPMI_DEFAULT_PORT;
    if (port) {
        long v;
        if (parse_int(port, (size_t)(hp + n - port), 1, 65535, &v))
            return wc_error_set(err, -EINVAL, "--truth ipmi:%s: port must be 1..65535", target);
        p->port = (int)v;
    }
    return 0;
}

static int parse_target(ipmi_priv *p, const char *target, wc_error *err)
{
    p->cipher = IPMI_DEFAULT_CIPHER;
    if (strcmp(target, "local") == 0) {
        p->mode = IPMI_LOCAL;
        return 0;
    }
    const char *rest;
    if (strncmp(target, "lanplus://", 10) == 0) {
        p->mode = IPMI_LANPLUS;
        rest = target + 10;
    } else if (strncmp(target, "lan://", 6) == 0) {
        p->mode = IPMI_LAN;
        rest = target + 6;
    } else {
        return wc_error_set(err, -EINVAL, "--truth ipmi:%s: expected ipmi:local, "
                                          "ipmi:lanplus://HOST[:PORT] or ipmi:lan://HOST[:PORT]",
                            target);
    }
    if (strchr(rest, '@'))
        return wc_error_set(err, -EINVAL,
                            "--truth ipmi:...: credentials do not belong in the spec: set "
                            "IPMI_USER and IPMI_PASSWORD in the environment or pass "
                            "--truth-password-file FILE");
    const char *q = strchr(rest, '?');
    size_t hn = q ? (size_t)(q - rest) : strlen(rest);
    if (hn && rest[hn - 1] == '/')
        hn--;
    int rc = parse_hostport(p, rest, hn, target, err);
    return rc ? rc : q ? parse_query(p, q + 1, target, err) : 0;
}

static void describe(wc_truth_source *s, const ipmi_priv *p)
{
    const char *br = strchr(p->host, ':') ? "[" : "", *ket = *br ? "]" : "";
    if (p->mode == IPMI_LOCAL)
        wc_textf(s->description, sizeof s->description, "IPMI local (ipmitool -I open, in-band)");
    else if (p->mode == IPMI_LAN)
        wc_textf(s->description, sizeof s->description, "IPMI lan %s%s%s:%d (ipmitool)", br, p->host,
              ket, p->port);
    else
        wc_textf(s->description, sizeof s->description, "IPMI lanplus %s%s%s:%d (ipmitool, cipher %d)",
              br, p->host, ket, p->port, p->cipher);
}

/* ---------------------------------------------------------------- open/close */

/* Is prog runnable (a path, or a name found on PATH)? */
static int program_found(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char buf[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n && n + strlen(prog) + 2 < sizeof buf) {
            memcpy(buf, path, n);
            buf[n] = '/';
            strcpy(buf + n + 1, prog);
            if (access(buf, X_OK) == 0)
                return 1;
        }
        path += n + (path[n] == ':');
    }
    return 0;
}

/* Checks --truth-password-file at open: a regular file that can be read,
 * whose first line holds something other than blanks (' ', '\t', '\r').
 * Reads byte by byte and stops at the first non-blank byte, so at most one
 * byte of the password passes through memory (wiped). 0, or -errno with err
 * naming the file. */
static int check_password_file(const char *file, wc_error *err)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        return wc_error_set(err, -e, "--truth-password-file %s: %s", file, strerror(e));
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        rc = wc_error_set(err, -e, "--truth-password-file %s: %s", file, strerror(e));
    } else if (S_ISDIR(st.st_mode)) {
        rc = wc_error_set(err, -EISDIR, "--truth-password-file %s: is a directory (expected a "
                                        "file whose first line is the password)", file);
    } else if (!S_ISREG(st.st_mode)) {
        rc = wc_error_set(err, -EINVAL, "--truth-password-file %s: not a regular file (expected "
                                        "a file whose first line is the password)", file);
    }
    int found = 0;
    size_t n = 0;
    while (rc == 0 && !found && n < 4096) {
        char c = 0;
        ssize_t r = read(fd, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        n++;
        if (r < 0) {
            int e = errno;
            rc = wc_error_set(err, -e, "--truth-password-file %s: read: %s", file, strerror(e));
        } else if (r == 0 || c == '\n') {
            break;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            found = 1;
        }
        explicit_bzero(&c, sizeof c);
    }
    close(fd);
    if (rc == 0 && !found)
        rc = wc_error_set(err, -EINVAL,
                          "--truth-password-file %s: empty first line (no password)", file);
    return rc;
}

/* User and password source for a remote BMC (the password itself is not read). */
static int open_credentials(wc_truth_source *s, ipmi_priv *p, wc_error *err)
{
    const char *user = getenv("IPMI_USER");
    if (user && *user) {
        if (strlen(user) >= sizeof p->user)
            return wc_error_set(err, -EINVAL, "IPMI_USER: too long (IPMI user names are at "
                                              "most 16 characters)");
        wc_textf(p->user, sizeof p->user, "%s", user);
        p->have_user = 1;
    }
    if (s->cfg.password_file && *s->cfg.password_file) {
        int rc = check_password_file(s->cfg.password_file, err);
        if (rc)
            return wc_error_prefix(err, rc, "--truth %s: ", s->spec);
        p->use_password_file = 1;
        return 0;
    }
    const char *pw = getenv("IPMI_PASSWORD");
    if (!pw)
        return wc_error_set(err, -ENOENT,
                            "--truth %s: no password: set IPMI_PASSWORD (and IPMI_USER) in the "
                            "environment or pass --truth-password-file FILE (never on the "
                            "command line)",
                            s->spec);
    if (!*pw)
        return wc_error_set(err, -EINVAL,
                            "--truth %s: IPMI_PASSWORD is empty (no password): set it, or pass "
                            "--truth-password-file FILE",
                            s->spec);
    return 0;
}

/* ops->open: checks that ipmitool can be found and, for a remote BMC, where
 * the user and password come from. Touches no network. 0 or -ENOENT/-EINVAL. */
static int ipmi_open(wc_truth_source *s, wc_error *err)
{
    ipmi_priv *p = s->priv;
    const char *tool = s->cfg.ipmitool && *s->cfg.ipmitool ? s->cfg.ipmitool : "ipmitool";
    if (!program_found(tool)) {
        free(p);
        s->priv = NULL;
        return wc_error_set(err, -ENOENT,
                            "--truth %s: %s not found%s: install ipmitool (apt-get install "
                            "ipmitool)",
                            s->spec, tool, strchr(tool, '/') ? "" : " on PATH");
    }
    int rc = p->mode == IPMI_LOCAL ? 0 : open_credentials(s, p, err);
    if (rc) { /* wc_truth_open does not close a source that failed to open */
        free(p);
        s->priv = NULL;
    }
    return rc;
}

/* Reaps killed children that had not exited yet (non-blocking). */
static void reap_orphans(ipmi_priv *p)
{
    for (int i = 0; i < IPMI_MAX_ORPHANS; i++) {
        if (p->orphans[i] <= 0)
            continue;
        pid_t r = waitpid(p->orphans[i], NULL, WNOHANG);
        if (r == p->orphans[i] || (r < 0 && errno == ECHILD))
            p->orphans[i] = 0;
    }
}

/* ops->close: last non-blocking reap of killed children, frees the state. */
static void ipmi_close(wc_truth_source *s)
{
    ipmi_priv *p = s->priv;
    if (p)
        reap_orphans(p);
    free(p);
    s->priv = NULL;
}

/* ---------------------------------------------------------------- running ipmitool */

/* argv for one query; pointers into p/cfg (no copies, no password). */
static size_t build_argv(const wc_truth_source *s, const ipmi_priv *p, const ipmi_query *q,
                         char *port, size_t port_cap, char *cipher, size_t cipher_cap,
                         const char **argv)
{
    size_t n = 0;
    argv[n++] = s->cfg.ipmitool && *s->cfg.ipmitool ? s->cfg.ipmitool : "ipmitool";
    argv[n++] = "-I";
    argv[n++] = p->mode == IPMI_LOCAL ? "open" : p->mode == IPMI_LAN ? "lan" : "lanplus";
    if (p->mode != IPMI_LOCAL) {
        wc_textf(port, port_cap, "%d", p->port);
        argv[n++] = "-H";
        argv[n++] = p->host;
        argv[n++] = "-p";
        argv[n++] = port;
        if (p->have_user) {
            argv[n++] = "-U";
            argv[n++] = p->user;
        }
        if (p->use_password_file) {
            argv[n++] = "-f";
            argv[n++] = s->cfg.password_file;
        } else {
            argv[n++] = "-E";
        }
        if (p->mode == IPMI_LANPLUS) {
            wc_textf(cipher, cipher_cap, "%d", p->cipher);
            argv[n++] = "-C";
            argv[n++] = cipher;
        }
    }
    for (const char *const *w = q->words; *w && n + 1 < IPMI_MAX_ARGS; w++)
        argv[n++] = *w;
    argv[n] = NULL;
    return n;
}

/* The environment for ipmitool: ours with TZ=UTC and LC_ALL=C. Caller frees
 * the array (not the strings). NULL when out of memory. */
static char **child_env(void)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = malloc((n + 3) * sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "TZ=", 3) != 0 && strncmp(environ[i], "LC_ALL=", 7) != 0)
            env[k++] = environ[i];
    env[k++] = (char *)"TZ=UTC";
    env[k++] = (char *)"LC_ALL=C";
    env[k] = NULL;
    return env;
}

/* Starts ipmitool with stdout+stderr on *out_fd. Returns 0 or -errno. */
static int spawn_child(const char *const *argv, pid_t *pid, int *out_fd)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -errno;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    sigset_t none, dflt;
    sigemptyset(&none);
    sigfillset(&dflt);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &dflt);
    /* Own session: no controlling terminal to prompt on, one group to kill. */
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    char **env = child_env();
    int rc = env ? posix_spawnp(pid, argv[0], &fa, &attr, (char *const *)argv, env) : ENOMEM;
    free(env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(fds[1]);
    if (rc) {
        close(fds[0]);
        return -rc;
    }
    *out_fd = fds[0];
    return 0;
}

/* Growable capture buffer; bytes past IPMI_OUTPUT_CAP are dropped. */
typedef struct capture {
    char *buf;
    size_t len, cap;
} capture;

static void capture_add(capture *c, const char *data, size_t n)
{
    if (c->len + n + 1 > c->cap && c->cap < IPMI_OUTPUT_CAP + 1) {
        size_t want = c->cap ? c->cap * 2 : 8192;
        while (want < c->len + n + 1 && want < IPMI_OUTPUT_CAP + 1)
            want *= 2;
        if (want > IPMI_OUTPUT_CAP + 1)
            want = IPMI_OUTPUT_CAP + 1;
        char *nb = realloc(c->buf, want);
        if (!nb)
            return;
        c->buf = nb;
        c->cap = want;
    }
    size_t room = c->cap > c->len + 1 ? c->cap - c->len - 1 : 0;
    size_t take = n < room ? n : room;
    if (take) {
        memcpy(c->buf + c->len, data, take);
        c->len += take;
        c->buf[c->len] = '\0';
    }
}

static int ms_until(int64_t deadline_ns)
{
    int64_t left = deadline_ns - wc_mono_ns();
    if (left <= 0)
        return 0;
    int64_t ms = (left + 999999) / 1000000;
    return ms > 60000 ? 60000 : (int)ms;
}

/* Reads fd to EOF or the deadline. Returns 0 at EOF, -ETIMEDOUT, or -errno. */
static int read_until(int fd, int64_t deadline_ns, capture *c)
{
    char chunk[4096];
    for (;;) {
        int ms = ms_until(deadline_ns);
        if (ms == 0)
            return -ETIMEDOUT;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int r = poll(&pfd, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            continue; /* re-check the deadline */
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return 0;
        capture_add(c, chunk, (size_t)n);
    }
}

/* Waits (polling, not blocking) for pid until the deadline. Returns 0 with
 * *wstatus, or -ETIMEDOUT. ECHILD (someone else reaped it) counts as exit 0. */
static int wait_until(pid_t pid, int64_t deadline_ns, int *wstatus)
{
    for (;;) {
        pid_t r = waitpid(pid, wstatus, WNOHANG);
        if (r == pid)
            return 0;
        if (r < 0 && errno == ECHILD) {
            *wstatus = 0;
            return 0;
        }
        if (r < 0 && errno != EINTR)
            return -errno;
        if (wc_mono_ns() >= deadline_ns)
            return -ETIMEDOUT;
        struct timespec ts = {0, 2 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* SIGKILLs the child's session and reaps it; remembers it when it will not die. */
static void kill_child(ipmi_priv *p, pid_t pid)
{
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    int st;
    if (wait_until(pid, wc_mono_ns() + IPMI_REAP_GRACE_NS, &st) == 0)
        return;
    for (int i = 0; i < IPMI_MAX_ORPHANS; i++)
        if (p->orphans[i] <= 0) {
            p->orphans[i] = pid;
            return;
        }
}

/* Runs one ipmitool query. Returns 0 with the output in *c and the exit
 * status in *wstatus, -ETIMEDOUT (child killed, partial output in *c), or
 * -errno when it could not be started (message in err). */
static int run_ipmitool(wc_truth_source *s, const ipmi_query *q, int64_t deadline_ns,
                        capture *c, int *wstatus, wc_error *err)
{
    ipmi_priv *p = s->priv;
    const char *argv[IPMI_MAX_ARGS];
    char port[16], cipher[8];
    build_argv(s, p, q, port, sizeof port, cipher, sizeof cipher, argv);
    pid_t pid = -1;
    int fd = -1;
    int rc = spawn_child(argv, &pid, &fd);
    if (rc)
        return wc_error_set(err, rc, "%s: cannot run %s: %s", q->what, argv[0], strerror(-rc));
    rc = read_until(fd, deadline_ns, c);
    close(fd);
    if (rc == 0)
        rc = wait_until(pid, deadline_ns, wstatus);
    if (rc) {
        kill_child(p, pid);
        if (rc != -ETIMEDOUT)
            wc_error_set(err, rc, "%s: reading its output: %s", q->what, strerror(-rc));
        return rc;
    }
    return 0;
}

/* ---------------------------------------------------------------- poll */

static void sample_error(wc_truth_sample *out, const char *msg)
{
    out->status = WC_TRUTH_ERROR;
    out->watts = NAN;
    wc_textf(out->error, sizeof out->error, "%s", msg);
}

/* Runs query q and parses its output into *out. Returns the parser's result
 * (0, -ENODATA, -EACCES...), -ETIMEDOUT, or -EIO when ipmitool could not run
 * or failed without parsable output. */
static int query(wc_truth_source *s, const ipmi_query *q, int64_t deadline_ns,
                 wc_truth_sample *out)
{
    capture c = {0};
    int wstatus = 0;
    wc_error err = {{0}};
    int rc = run_ipmitool(s, q, deadline_ns, &c, &wstatus, &err);
    if (rc == -ETIMEDOUT) {
        char first[120];
        size_t got = wc_ipmi_first_line(c.buf, c.len, first, sizeof first);
        wc_error_set(&err, rc, "%s: no answer within %.1f s: killed (BMC hung or unreachable)%s%s",
                     q->what, (double)s->cfg.timeout_ns / WC_NS_PER_S, got ? "; it said: " : "",
                     got ? first : "");
    } else if (rc == 0) {
        rc = q->parse(c.buf, c.len, out, &err);
        if (rc && rc != -ENODATA && rc != -EACCES && (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus)))
            rc = -EIO;
        if (rc && rc != -ENODATA && WIFEXITED(wstatus) && WEXITSTATUS(wstatus))
            wc_error_prefix(&err, rc, "ipmitool exited %d: ", WEXITSTATUS(wstatus));
    } else {
        rc = -EIO;
    }
    free(c.buf);
    if (rc && rc != -ENODATA)
        sample_error(out, err.msg);
    else if (rc == -ENODATA)
        wc_textf(out->error, sizeof out->error, "%s", err.msg);
    return rc;
}

/* SDR after DCMI said no (or had no reading). */
static int poll_sdr(wc_truth_source *s, int64_t deadline_ns, wc_truth_sample *out,
                    const char *why_not_dcmi)
{
    int rc = query(s, &SDR_QUERY, deadline_ns, out);
    if (rc != -ENODATA)
        return rc;
    char sdr_msg[200];
    wc_textf(sdr_msg, sizeof sdr_msg, "%s", out->error);
    out->status = WC_TRUTH_UNAVAILABLE;
    wc_textf(out->error, sizeof out->error, "no DCMI power reading (%s) and %s", why_not_dcmi,
          sdr_msg);
    return 0;
}

/* ops->poll: DCMI (unless known unsupported), else or after a deactivated
 * reading the SDR, all within one cfg.timeout_ns budget. See truth.h for the
 * contract; -ETIMEDOUT when ipmitool had to be killed, -EIO when it failed
 * without parsable output, -EACCES when the BMC refused the login. */
static int ipmi_poll(wc_truth_source *s, wc_truth_sample *out)
{
    ipmi_priv *p = s->priv;
    int64_t budget = s->cfg.timeout_ns > 0 ? s->cfg.timeout_ns : 10 * WC_NS_PER_S;
    int64_t deadline = wc_mono_ns() + budget;
    reap_orphans(p);
    if (p->dcmi_unsupported)
        return poll_sdr(s, deadline, out, p->dcmi_reason);
    int rc = query(s, &DCMI_QUERY, deadline, out);
    if (rc == -ENODATA) {
        p->dcmi_unsupported = 1;
        wc_textf(p->dcmi_reason, sizeof p->dcmi_reason, "%s", out->error);
        return poll_sdr(s, deadline, out, p->dcmi_reason);
    }
    if (rc || out->status == WC_TRUTH_OK)
        return rc;
    /* DCMI answered without a usable reading (deactivated): try the SDR. */
    wc_truth_sample dcmi = *out;
    wc_truth_sample sdr = *out;
    if (query(s, &SDR_QUERY, deadline, &sdr) == 0 && sdr.status == WC_TRUTH_OK) {
        *out = sdr;
        return 0;
    }
    *out = dcmi;
    return 0;
}

static const wc_truth_ops IPMI_OPS = {
    .kind = "ipmi",
    .open = ipmi_open,
    .poll = ipmi_poll,
    .close = ipmi_close,
};

int wc_truth_ipmi_init(wc_truth_source *s, const char *target, wc_error *err)
{
    ipmi_priv *p = calloc(1, sizeof *p);
    if (!p)
        return wc_error_set(err, -ENOMEM, "--truth ipmi:%s: out of memory", target);
    int rc = parse_target(p, target, err);
    if (rc) {
        free(p);
        return rc;
    }
    s->ops = &IPMI_OPS;
    s->priv = p;
    describe(s, p);
    return 0;
}
