/*
 * replay.c — the plain main a harness is linked with for `make test` (no
 * libFuzzer): runs LLVMFuzzerTestOneInput once on every file named on the
 * command line, or on every regular file of a directory named there (sorted),
 * so each corpus entry, seed or regression input, is re-checked in the normal
 * and the sanitized build. A broken contract aborts (the harness says what
 * broke); an input slower than WC_FUZZ_SLOW_MS (default 2000 ms) fails too:
 * the corpora hold the inputs that once took quadratic time.
 *
 *   build/release/fuzz/replay-NAME tests/fuzz/corpus/NAME
 *
 * Prints "replay NAME: N inputs, slowest X ms (FILE)" and exits 0, or 1 (slow
 * input, unreadable file, empty corpus).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/fuzz/fuzz.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Reads a whole file (malloc'd); NULL on error (message printed). */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

typedef struct replay_stats {
    size_t inputs;
    double slowest_ms;
    char slowest[1024];
} replay_stats;

/* Runs one file through the harness. 0, or 1 when unreadable or too slow. */
static int run_one(const char *path, double slow_ms, replay_stats *st)
{
    size_t len = 0;
    uint8_t *data = slurp(path, &len);
    if (!data)
        return 1;
    fprintf(stderr, "replay: %s\n", path); /* names the input a crash comes from */
    double t0 = now_ms();
    LLVMFuzzerTestOneInput(data, len);
    double ms = now_ms() - t0;
    free(data);
    st->inputs++;
    if (ms > st->slowest_ms) {
        st->slowest_ms = ms;
        snprintf(st->slowest, sizeof st->slowest, "%s", path);
    }
    if (ms > slow_ms) {
        fprintf(stderr, "replay: %s took %.0f ms (limit %.0f ms, WC_FUZZ_SLOW_MS)\n", path, ms,
                slow_ms);
        return 1;
    }
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every regular file of dir, sorted. */
static int run_dir(const char *dir, double slow_ms, replay_stats *st)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, by_name), bad = 0;
    if (n < 0) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    for (int i = 0; i < n; i++) {
        char path[1024];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (names[i]->d_name[0] != '.' && stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            bad |= run_one(path, slow_ms, st);
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    const char *env = getenv("WC_FUZZ_SLOW_MS");
    double slow_ms = env && *env ? atof(env) : 2000.0;
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    replay_stats st = {0};
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
            bad |= run_dir(argv[i], slow_ms, &st);
        else
            bad |= run_one(argv[i], slow_ms, &st);
    }
    if (st.inputs == 0) {
        fprintf(stderr, "%s: no input to replay\n", name);
        return 1;
    }
    printf("%s: %zu inputs, slowest %.1f ms (%s)\n", name, st.inputs, st.slowest_ms, st.slowest);
    return bad;
}
