/*
 * wc_fs.c — root-relative read-only file helpers (see wc_fs.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "common/wc_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int wc_path(char *out, size_t cap, const char *root, const char *fmt, ...)
{
    int n = snprintf(out, cap, "%s/", root ? root : "");
    if (n < 0 || (size_t)n >= cap)
        return -ENAMETOOLONG;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(out + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
    if (m < 0 || (size_t)m >= cap - (size_t)n)
        return -ENAMETOOLONG;
    return 0;
}

/* O_NONBLOCK keeps a FIFO planted in a tree from blocking the open; anything
 * but a regular file (FIFO, device, socket, directory) is refused (/proc and
 * /sys attributes are regular files). */
int wc_open_regular(const char *path, wc_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        return wc_error_set(err, -e, "%s: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return wc_error_set(err, -e, "%s: fstat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        int dir = S_ISDIR(st.st_mode);
        close(fd);
        return wc_error_set(err, dir ? -EISDIR : -EINVAL, "%s: %s", path,
                            dir ? "is a directory" : "not a regular file (FIFO, device or socket)");
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

int wc_read_text(const char *path, char *buf, size_t cap, size_t *len, wc_error *err)
{
    if (cap == 0)
        return wc_error_set(err, -EINVAL, "%s: zero-size buffer", path);
    int fd = wc_open_regular(path, err);
    if (fd < 0)
        return fd;
    size_t used = 0;
    for (;;) {
        if (used == cap - 1) {
            char probe;
            ssize_t more = read(fd, &probe, 1);
            close(fd);
            buf[used] = '\0';
            if (len)
                *len = used;
            if (more > 0)
                return wc_error_set(err, -EFBIG, "%s: larger than %zu bytes", path, cap - 1);
            return 0;
        }
        ssize_t r = read(fd, buf + used, cap - 1 - used);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            buf[used] = '\0';
            return wc_error_set(err, -e, "%s: read: %s", path, strerror(e));
        }
        if (r == 0)
            break;
        used += (size_t)r;
    }
    close(fd);
    buf[used] = '\0';
    if (len)
        *len = used;
    return 0;
}

int wc_read_all(const char *path, char **out, size_t *len, wc_error *err)
{
    int fd = wc_open_regular(path, err);
    if (fd < 0)
        return fd;
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return wc_error_set(err, -ENOMEM, "%s: out of memory", path);
    }
    for (;;) {
        if (used + 1 >= cap) {
            if (cap >= WC_READ_ALL_MAX) {
                free(buf);
                close(fd);
                return wc_error_set(err, -EFBIG, "%s: larger than %d MiB", path,
                                    (int)(WC_READ_ALL_MAX >> 20));
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                close(fd);
                return wc_error_set(err, -ENOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + used, cap - 1 - used);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(buf);
            close(fd);
            return wc_error_set(err, -e, "%s: read: %s", path, strerror(e));
        }
        if (r == 0)
            break;
        used += (size_t)r;
    }
    close(fd);
    buf[used] = '\0';
    *out = buf;
    if (len)
        *len = used;
    return 0;
}

int wc_parse_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0)
        return -EINVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -EINVAL;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -EINVAL;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int wc_read_u64(const char *path, uint64_t *out, wc_error *err)
{
    char buf[64];
    size_t len = 0;
    int rc = wc_read_text(path, buf, sizeof buf, &len, err);
    if (rc)
        return rc;
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t' ||
                       buf[len - 1] == '\r'))
        len--;
    if (wc_parse_u64(buf, len, out) != 0) {
        buf[len] = '\0';
        return wc_error_set(err, -EINVAL, "%s: expected an unsigned integer, found \"%.40s\"",
                            path, buf);
    }
    return 0;
}

int wc_read_line(const char *path, char *buf, size_t cap, wc_error *err)
{
    size_t len = 0;
    int rc = wc_read_text(path, buf, cap, &len, err);
    if (rc && rc != -EFBIG)
        return rc;
    char *nl = memchr(buf, '\n', len);
    if (nl) {
        *nl = '\0';
        len = (size_t)(nl - buf);
    } else if (rc == -EFBIG) {
        return rc;
    }
    while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t' || buf[len - 1] == '\r'))
        buf[--len] = '\0';
    return 0;
}

int wc_read_secret(const char *path, char *buf, size_t cap, wc_error *err)
{
    size_t len = 0;
    int rc = wc_read_text(path, buf, cap, &len, err);
    if (rc)
        return rc == -EFBIG ? wc_error_set(err, rc, "%s: longer than %zu bytes for a secret",
                                           path, cap - 1) : rc;
    if (len && buf[len - 1] == '\n')
        buf[--len] = '\0';
    if (len && buf[len - 1] == '\r')
        buf[--len] = '\0';
    const char *why = len ? NULL : "is empty (no secret)";
    for (size_t i = 0; i < len && !why; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == '\0')
            why = "holds a NUL byte";
        else if (c == '\n')
            why = "holds more than one line";
        else if (c == ' ' || c == '\t' || c < 0x20 || c == 0x7f)
            why = "holds whitespace or a control character inside";
    }
    if (!why)
        return 0;
    memset(buf, 0, cap);
    return wc_error_set(err, -EINVAL, "%s: the secret %s: refused rather than cut (one line, "
                        "a trailing newline at most)", path, why);
}
