/*
 * support.c — the helpers of fuzz.h: contract failures, a scratch
 * directory on a memory-backed file system, and the small text formats the
 * harnesses decode their input with (file trees, options, sections).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TREE_MAX_RECORDS 64
#define TREE_MAX_DEPTH 8
#define TREE_MAX_FILE (64u << 10)

static char scratch[512];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void fuzz_remove(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(dir);
        return;
    }
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_scratch(void)
{
    if (scratch[0])
        fuzz_remove(scratch);
    scratch[0] = '\0';
}

void fuzz_broken(const char *file, int line, const char *cond, const char *fmt, ...)
{
    fprintf(stderr, "contract broken: %s:%d: (%s) ", file, line, cond);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    remove_scratch();
    abort();
}

char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

int fuzz_printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

const char *fuzz_scratch(void)
{
    if (scratch[0])
        return scratch;
    const char *base = getenv("TMPDIR");
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
        base = "/dev/shm";
    else if (!base || !*base)
        base = "/tmp";
    snprintf(scratch, sizeof scratch, "%s/wattcal-fuzz-XXXXXX", base);
    if (!mkdtemp(scratch)) {
        perror(scratch);
        abort();
    }
    atexit(remove_scratch);
    return scratch;
}

const char *fuzz_write_file(const char *dir, const char *name, const void *data, size_t size)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        perror(path);
        abort();
    }
    const char *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            perror(path);
            abort();
        }
        p += w;
        size -= (size_t)w;
    }
    close(fd);
    return path;
}

/* ---- trees ------------------------------------------------------------- */

static int path_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == ':' || c == '.' || c == '_' || c == '+' || c == '-';
}

/* Checks a relative path of [A-Za-z0-9:._+-] components, no "." and no
 * ".." but for up to dots_up leading ones; *depth gets its number of named
 * components. 1 when usable. */
static int clean_rel(const char *p, int dots_up, int *depth)
{
    int d = 0, ups = 0;
    if (!*p || *p == '/')
        return 0;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 0 || n > 64)
            return 0;
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (d > 0 || ++ups > dots_up) /* only leading "..": never above root */
                return 0;
        } else {
            if (n == 1 && p[0] == '.')
                return 0;
            for (size_t i = 0; i < n; i++)
                if (!path_char(p[i]))
                    return 0;
            d++;
        }
        p += n + (e ? 1 : 0);
        if (e && !*p)
            return 0;
    }
    *depth = d;
    return d + ups > 0 && d <= TREE_MAX_DEPTH;
}

/* mkdir -p of the directories above <root>/<rel> (rel's last component is
 * not made). 0 when one of them is a symlink: an entry made through it could
 * sit anywhere, and its own links could then point out of root. */
static int make_parents(const char *root, const char *rel)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        struct stat st;
        if (lstat(path, &st) == 0 ? !S_ISDIR(st.st_mode) : mkdir(path, 0755) != 0)
            return 0;
        *s = '/';
    }
    return 1;
}

/* One record: header (NUL-terminated, no '@') and its content. */
static int make_entry(const char *root, const char *prefix, char *hdr, const uint8_t *body,
                      size_t blen)
{
    char rel[1024], path[2048];
    size_t hl = strlen(hdr);
    char *arrow = strstr(hdr, " -> ");
    int fifo = hl > 2 && strcmp(hdr + hl - 2, " |") == 0;
    int dir = !arrow && hl > 1 && hdr[hl - 1] == '/';
    if (arrow)
        *arrow = '\0';
    else if (fifo)
        hdr[hl - 2] = '\0';
    else if (dir)
        hdr[hl - 1] = '\0';
    snprintf(rel, sizeof rel, "%s%s", prefix, hdr);
    int depth = 0;
    if (!clean_rel(rel, 0, &depth) || !make_parents(root, rel))
        return 0;
    snprintf(path, sizeof path, "%s/%s", root, rel);
    if (dir)
        return mkdir(path, 0755) == 0;
    if (fifo)
        return mkfifo(path, 0644) == 0;
    if (arrow) { /* its directory is depth - 1 real directories below root */
        int tdepth = 0;
        return clean_rel(arrow + 4, depth - 1, &tdepth) && symlink(arrow + 4, path) == 0;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
    if (fd < 0)
        return 0;
    size_t n = blen < TREE_MAX_FILE ? blen : TREE_MAX_FILE;
    int ok = n == 0 || write(fd, body, n) == (ssize_t)n;
    close(fd);
    return ok;
}

int fuzz_build_tree(const char *root, const char *prefix, const uint8_t *data, size_t size)
{
    fuzz_remove(root);
    if (mkdir(root, 0755) != 0)
        abort();
    const uint8_t *end = data + size, *p = data;
    /* the first record starts at a '@' at the start of a line */
    while (p < end && !(*p == '@' && (p == data || p[-1] == '\n')))
        p++;
    int made = 0;
    for (int rec = 0; p < end && rec < TREE_MAX_RECORDS; rec++) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        const uint8_t *hend = nl ? nl : end;
        const uint8_t *body = nl ? nl + 1 : end, *next = body;
        while (next < end && !(*next == '@' && next[-1] == '\n'))
            next++;
        char hdr[512];
        size_t hl = (size_t)(hend - p - 1);
        if (hl < sizeof hdr && !memchr(p + 1, '\0', hl)) {
            memcpy(hdr, p + 1, hl);
            hdr[hl] = '\0';
            if (hl && hdr[hl - 1] == '\r')
                hdr[hl - 1] = '\0';
            made += make_entry(root, prefix, hdr, body, (size_t)(next - body));
        }
        p = next;
    }
    return made;
}

/* ---- options and sections ------------------------------------------------ */

int fuzz_option(const uint8_t *data, size_t size, const char *key, char *out, size_t cap)
{
    out[0] = '\0';
    const uint8_t *nl = memchr(data, '\n', size);
    size_t n = nl ? (size_t)(nl - data) : size;
    if (n < 4 || memcmp(data, "#wc:", 4) != 0)
        return 0;
    size_t klen = strlen(key);
    for (size_t i = 4; i + klen < n; i++) {
        if (data[i - 1] != ' ' && data[i - 1] != ':')
            continue;
        if (memcmp(data + i, key, klen) != 0 || data[i + klen] != '=')
            continue;
        size_t v = i + klen + 1, e = v;
        while (e < n && data[e] > ' ' && data[e] != 0x7f) /* printable, no blank */
            e++;
        size_t len = e - v < cap - 1 ? e - v : cap - 1;
        memcpy(out, data + v, len);
        out[len] = '\0';
        return 1;
    }
    return 0;
}

void fuzz_sections(const uint8_t *data, size_t size,
                   void (*fn)(void *ctx, const char *name, const uint8_t *text, size_t len),
                   void *ctx)
{
    const uint8_t *end = data + size, *p = data;
    char name[128] = "";
    const uint8_t *body = NULL;
    while (p < end) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        const uint8_t *lend = nl ? nl : end;
        size_t n = (size_t)(lend - p);
        if (n > 8 && memcmp(p, "==> ", 4) == 0 && memcmp(lend - 4, " <==", 4) == 0 &&
            n - 8 < sizeof name) {
            if (body)
                fn(ctx, name, body, (size_t)(p - body));
            memcpy(name, p + 4, n - 8);
            name[n - 8] = '\0';
            body = nl ? nl + 1 : end;
        }
        p = nl ? nl + 1 : end;
    }
    if (body)
        fn(ctx, name, body, (size_t)(end - body));
}
