/*
 * wc_fs.h — read-only file access below a configurable root.
 *
 * Only regular files are read: a FIFO, device or socket where a file should be
 * is an error (-EINVAL), never a hang or an endless read.
 * Every procfs/sysfs read in wattcal goes through these helpers with a root
 * (--procfs-root, default /proc; --sysfs-root, default /sys), as Kepler's
 * host.procfs/host.sysfs, so tests run on fixture trees and a container can
 * read the host's mounts. Files are only ever opened O_RDONLY.
 */
#ifndef WC_FS_H
#define WC_FS_H

#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"

/* Builds "<root>/<printf(fmt,...)>" into out (cap bytes). Returns 0, or
 * -ENAMETOOLONG when it does not fit. */
int wc_path(char *out, size_t cap, const char *root, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Opens path read-only for reading to the end (O_CLOEXEC): non-blocking
 * while opening, so a FIFO planted in a tree cannot hang the open, then
 * refused unless it is a regular file (a FIFO, device or socket: -EINVAL; a
 * directory: -EISDIR), so a read can neither hang nor run forever. Returns
 * the descriptor (blocking again) or -errno with err naming the file. Every
 * helper below opens through it. */
int wc_open_regular(const char *path, wc_error *err);

/* Reads at most cap-1 bytes of the file at path into buf, NUL-terminates it and
 * stores the byte count in *len (may be NULL). Returns 0 or -errno (-ENOENT,
 * -EACCES, ...) with err naming the file. -EFBIG when the file is larger than
 * cap-1 bytes (buf then holds the first cap-1 bytes). */
int wc_read_text(const char *path, char *buf, size_t cap, size_t *len, wc_error *err);

/* Largest file wc_read_all accepts (bytes). */
#define WC_READ_ALL_MAX ((size_t)1 << 30)

/* Reads the whole file into a malloc'd NUL-terminated buffer (*out, caller
 * frees) and its size into *len. Returns 0 or -errno with err naming the file;
 * -EFBIG above WC_READ_ALL_MAX. */
int wc_read_all(const char *path, char **out, size_t *len, wc_error *err);

/* Reads a file holding one unsigned decimal integer (e.g. energy_uj) with
 * optional trailing whitespace. Returns 0, -errno from open/read, or -EINVAL
 * when the content is not a number (err names the file and the text). */
int wc_read_u64(const char *path, uint64_t *out, wc_error *err);

/* Reads the first line of a file, trailing newline/whitespace removed
 * (e.g. a powercap `name`). Same returns as wc_read_text. */
int wc_read_line(const char *path, char *buf, size_t cap, wc_error *err);

/* Reads a secret (a bearer token, a password) from a file: its one line,
 * one trailing "\n" or "\r\n" removed and nothing else. A secret holding a
 * NUL byte, whitespace or another control character, a second line, or
 * nothing is refused (-EINVAL, err naming the file, never the secret), not
 * cut. Same other returns as wc_read_text (-EFBIG above cap-1 bytes). */
int wc_read_secret(const char *path, char *buf, size_t cap, wc_error *err);

/* Parses an unsigned decimal integer from [s, s+n) ("123", no sign). Returns 0
 * or -EINVAL (empty, non-digit, overflow). */
int wc_parse_u64(const char *s, size_t n, uint64_t *out);

#endif
