/*
 * fuzz.h — what the libFuzzer harnesses of tests/fuzz/ share (support.c).
 *
 * Each tests/fuzz/fuzz_<name>.c defines LLVMFuzzerTestOneInput for one parser
 * entry point and checks the parser's contract on every input (bounds of what
 * it returns, round trips where they exist), not only that it does not crash.
 * The same file is linked two ways (the Makefile): with libFuzzer by `make
 * fuzz` (clang, -fsanitize=fuzzer,address,undefined), and with replay.c as
 * main by `make test`, which replays tests/fuzz/corpus/<name>/ through it.
 * A broken contract prints what broke and aborts (a crash for libFuzzer, a
 * failure for the replay). See tests/fuzz/README.md.
 */
#ifndef WC_FUZZ_H
#define WC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The harness's entry point (libFuzzer's name). Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Checks a contract: when cond is false, prints "contract broken:
 * FILE:LINE: <printf message>" to stderr and aborts. */
#define FUZZ_CHECK(cond, ...)                                                   \
    do {                                                                        \
        if (!(cond))                                                            \
            fuzz_broken(__FILE__, __LINE__, #cond, __VA_ARGS__);                \
    } while (0)

/* The failure of FUZZ_CHECK (never returns). */
void fuzz_broken(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

/* A malloc'd NUL-terminated copy of the input (aborts when out of memory). */
char *fuzz_cstr(const uint8_t *data, size_t size);

/* 1 when s has no byte below 0x20 and no 0x7f (what the parsers promise of
 * the messages and names they copy from untrusted text). */
int fuzz_printable(const char *s);

/* A private scratch directory for this process, on a memory-backed file
 * system when there is one (/dev/shm, else $TMPDIR or /tmp), made on first
 * use and removed at exit. Static buffer. */
const char *fuzz_scratch(void);

/* Writes size bytes to <dir>/<name> (created or truncated). Aborts on error:
 * the harness's own I/O must not fail. Returns the path (static buffer,
 * valid until the next call). */
const char *fuzz_write_file(const char *dir, const char *name, const void *data, size_t size);

/* Removes <dir> and everything below it (no symlink followed); a missing
 * dir is fine. */
void fuzz_remove(const char *dir);

/* Builds a small file tree at root (made fresh, emptied first) from the
 * input's records, each a header line then, for a file, its content up to
 * the next header:
 *   @REL/PATH           a regular file holding the lines that follow
 *   @REL/PATH/          a directory
 *   @REL/PATH -> TARGET a symlink (TARGET relative, never leaving root)
 *   @REL/PATH |         a FIFO (a reader that blocks on it hangs)
 * prefix (may be "") is put before every REL/PATH ("class/powercap/").
 * Paths are made of [A-Za-z0-9:._+-] components, at most 8 deep; anything
 * else, and records past 64, are skipped. Text before the first record is
 * ignored. Returns the number of entries made. */
int fuzz_build_tree(const char *root, const char *prefix, const uint8_t *data, size_t size);

/* The value of "#wc: ... KEY=VALUE ..." on the input's first line (up to a
 * blank or control byte), copied into out (cap bytes); 0 when absent (out
 * ""), 1 when found. Harnesses read
 * their options there: the parsers skip '#' lines as comments or fail on
 * them the same way with or without the options. */
int fuzz_option(const uint8_t *data, size_t size, const char *key, char *out, size_t cap);

/* Splits the input into named sections introduced by lines "==> NAME <=="
 * (as `tail` prints several files). For each section calls
 * fn(ctx, name, text, len) in input order; text before the first header is
 * ignored. */
void fuzz_sections(const uint8_t *data, size_t size,
                   void (*fn)(void *ctx, const char *name, const uint8_t *text, size_t len),
                   void *ctx);

#endif
