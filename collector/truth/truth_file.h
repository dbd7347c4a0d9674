/*
 * truth_file.h — ground truth from a log written by an external wall meter,
 * PDU or SPEC PTDaemon, imported after the run (`--truth file:PATH
 * --truth-format FMT`) and aligned with the run by wall clock; plus the small
 * locale-free text parsers it shares with the importers of collector/import/
 * (CSV rows, decimal numbers, epoch and ISO 8601 timestamps).
 *
 * Formats (FMT, the --truth-format value; NULL or "" means "csv"):
 *
 *   csv[:OFFSET]   A header row naming the columns, then one row per reading,
 *                  comma-separated, fields optionally in double quotes ("" is a
 *                  quote). Lines starting with # and blank lines are ignored.
 *                  Columns (names case-insensitive, any order, others ignored):
 *                    time      ISO 8601 with a zone, e.g. 2026-11-29T16:47:17.123+01:00,
 *                              2026-11-29T15:47:17Z, 2026-11-29 10:17:17-05:30
 *                              (T or one space between date and time, fraction up
 *                              to ns, offset Z, +HH:MM, +HHMM or +HH), or Unix
 *                              epoch seconds with decimals (1764431237.123)
 *                    watts     the reading in W; an empty cell is stored as an
 *                              unavailable sample (never as 0 W)
 *                    window_s  optional: averaging window of the reading, seconds
                              (at most 86400)
 *                  An ISO time without a zone is refused unless OFFSET (Z or
 *                  ±HH:MM) says which zone the meter's clock was in.
 *
 *   ptd:OFFSET     The log SPEC PTDaemon writes with -l (also MLPerf's spl.txt):
 *                    Time,11-29-2026 16:47:17.123,Watts,245.3,Volts,230.1,Amps,1.07,PF,0.99,Mark,run-1
 *                  Supported: Time (MM-DD-YYYY HH:MM:SS[.fff]) and the first
 *                  Watts field are required; Volts/Amps/PF/Mark and any per-channel
 *                  groups after Mark (Ch1,Watts,...) are optional — the first Watts is
 *                  the analyser's total. Watts -1 (PTDaemon's "no reading") or nan
 *                  is stored as unavailable. The Mark label is kept in the sample
 *                  path ("ptd:Watts mark=run-1"). PTDaemon writes the local time of
 *                  its host without a zone, so OFFSET (Z or ±HH:MM, e.g. ptd:+01:00)
 *                  is required: a fixed offset, so a log spanning a DST change
 *                  is refused (time goes backwards) rather than shifted silently.
 *
 * In both formats blank lines and lines starting with # are skipped, a UTF-8
 * byte order mark is ignored and CRLF line ends are accepted. A 0 W reading is
 * stored as unavailable too: a running node cannot draw 0 W at the wall; so is
 * exactly 65535 W (0xFFFF, a BMC's "no reading" marker). A reading above
 * 100 kW is an implausible wall power and refused. Every line must end in a
 * newline: a last line without one (the logger was still writing, or the copy
 * was cut) is refused, never read as a shorter number.
 * Errors never skip silently: a malformed line stops the parse with -EINVAL and
 * a message "FILE:LINE:COLUMN: what is wrong" (control characters of quoted
 * cells shown as '?'); times must not go backwards.
 */
#ifndef WC_TRUTH_FILE_H
#define WC_TRUTH_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "collector/truth/truth.h"
#include "common/wc_error.h"

/* Receives one parsed sample (valid during the call only). Returns 0 to go
 * on, or a negative errno with err set to stop the parse with it. */
typedef int (*wc_truth_file_sink)(void *ctx, const wc_truth_sample *s, wc_error *err);

/* Parses the log at path in the given format, handing each sample to sink in
 * file order as its line is read: memory stays bounded however long the log
 * (wc_csv's window; nothing is kept per line). Each sample: poll_wall_ns =
 * device_ts_ns = the reading's time (ns since the Unix epoch, UTC);
 * poll_mono_ns = 0 until wc_truth_file_align maps it onto a run; watts in W
 * (NAN with status UNAVAILABLE and a reason when the log has no reading);
 * window_s/window_known from a window_s column; path "csv:watts" or
 * "ptd:Watts mark=LABEL". *n (may be NULL) counts the samples handed over.
 * Returns 0; -errno reading the file (err names it); -EINVAL for an unknown
 * format or a malformed line (err: "FILE:LINE:COLUMN: ..."), after the sink
 * has had the lines before it (the caller discards them: the recorder writes
 * them in one transaction it rolls back); -ENODATA when the file holds no
 * reading; the sink's error. */
int wc_truth_file_each(const char *path, const char *format, wc_truth_file_sink sink, void *ctx,
                       size_t *n, wc_error *err);

/* wc_truth_file_each into a malloc'd array *out of *n samples (caller frees
 * with free()): for short logs and tests, as it holds every sample (~500
 * bytes each). *out is NULL and *n 0 on error. */
int wc_truth_file_parse(const char *path, const char *format, wc_truth_sample **out,
                        size_t *n, wc_error *err);

/* Checks a log before a recording starts, so a bad one is refused before
 * hours of recording, not after: for csv, a header whose power column is in
 * another unit (mW, kW, Wh...) is named (FILE:LINE:COLUMN); then the first
 * max_lines complete lines (a last line still being written is not judged)
 * go through the same parser as wc_truth_file_parse, and readings that are
 * all below 1 W (a log in kW) are refused. An empty log, or one holding only
 * its header, passes (it is judged when the run ends). *nread gets the
 * readings checked. Returns 0, -errno reading it, or -EINVAL with err
 * "FILE:LINE:COLUMN: what is wrong". */
int wc_truth_file_check_start(const char *path, const char *format, int max_lines,
                              size_t *nread, wc_error *err);

/* Checks a --truth-format value (csv, csv:OFFSET, ptd:OFFSET) without reading
 * any file, for option parsing. Returns 0 or -EINVAL with err saying what is
 * accepted (and, for a bare "ptd", that PTDaemon logs need the host's offset). */
int wc_truth_file_check_format(const char *format, wc_error *err);

/* Sets poll_mono_ns of every sample from its wall time, using one (wall, mono)
 * pair of the run (e.g. run.started_wall_ns/started_mono_ns):
 * mono = run_mono_ns + (poll_wall_ns - run_wall_ns), saturated to int64. */
void wc_truth_file_align(wc_truth_sample *s, size_t n, int64_t run_wall_ns, int64_t run_mono_ns);

/* --- shared text parsers (also used by the importers of collector/import/) --- */

/* Parses a decimal number "[+-]digits[.digits][e[+-]digits]" occupying all of
 * s (no spaces, no locale: '.' is the only decimal separator, no "nan"/"inf").
 * Returns 0; -EINVAL when s is not such a number; -ERANGE when it is one but
 * too large for a double (e.g. 1e400, or a cell of a million digits). */
int wc_parse_decimal(const char *s, double *out);

/* Wall power readings (any source read from a file: --truth file: logs, the
 * import's --truth-col and GMT AC log). */
#define WC_TRUTH_MAX_WALL_WATTS 100000.0 /* above: implausible for one node */
#define WC_TRUTH_NO_READING_WATTS 65535.0 /* 0xFFFF W: a BMC's "no reading" marker */

/* Classifies a non-negative wall power reading w (W): 0 plausible; 1 no
 * reading (0 W, or exactly 65535 W) with *why saying so, to be stored as
 * unavailable; -ERANGE implausible (not finite, or above
 * WC_TRUTH_MAX_WALL_WATTS): the caller refuses the line. */
int wc_truth_watts_class(double w, const char **why);

/* Copies s into buf (cap >= 8) for quoting in a message: bytes below 0x20 and
 * 0x7f become '?', and text longer than cap - 1 is cut and ends in "...".
 * Returns buf. */
char *wc_csv_clean(char *buf, size_t cap, const char *s);

/* Parses a Unix epoch time "digits[.digits]" in units of unit_ns (1e9 for
 * seconds, 1e6 ms, 1e3 µs, 1 ns) into ns, exactly (digits below 1 ns are
 * truncated). Returns 0; -EINVAL for a malformed or negative value; -ERANGE
 * for a well-formed one past what int64 ns hold (WC_EPOCH_RANGE_TEXT), its
 * fraction included ("9223372036.9" s). */
int wc_parse_epoch_ns(const char *s, int64_t unit_ns, int64_t *out_ns);

/* Why an epoch time is refused with -ERANGE; the wall-log parser and `import
 * --csv` both say it after "'CELL' is out of range: ". */
#define WC_EPOCH_RANGE_TEXT \
    "after 2262-04-11T23:47:16Z, the last instant 64-bit nanoseconds since 1970 hold"


/* Parses a UTC offset "Z", "+HH:MM", "-HH:MM", "+HHMM" or "+HH" into seconds
 * east of UTC. Returns 0 or -EINVAL. */
int wc_parse_utc_offset(const char *s, int *offset_s);

/* Parses an ISO 8601 date-time "YYYY-MM-DD[T| ]HH:MM:SS[.fraction][zone]" into
 * ns since the Unix epoch (UTC), without locale or TZ: days from the civil date
 * plus seconds, minus the offset. A time without a zone uses
 * *default_offset_s, or is refused when default_offset_s is NULL. Returns 0 or
 * -EINVAL with err saying why (field out of range, missing zone, trailing text). */
int wc_parse_iso8601_ns(const char *s, const int *default_offset_s, int64_t *out_ns,
                        wc_error *err);

/* (wc_days_from_civil lives in common/wc_clock.h.) */

#define WC_CSV_MAX_FIELDS 256
/* Longest line a wc_csv reads (bytes, newline excluded); a longer one is
 * refused ("FILE:LINE: line longer than 4 MiB"). */
#define WC_CSV_MAX_LINE ((size_t)4 << 20)

/* A delimited text file walked one logical row at a time in bounded memory:
 * a window of the file (64 KiB, grown to the longest line seen, at most
 * WC_CSV_MAX_LINE) is read as rows are consumed, so a log of any length
 * streams through. */
typedef struct wc_csv {
    char path[512];
    int fd;                         /* the open file (valid while buf is non-NULL) */
    char *buf;                      /* the window; the current row is split in place */
    size_t cap, len, pos;           /* window size, bytes in it, next unread byte */
    int eof;                        /* the file has been read to its end */
    char delim;                     /* ',' for CSV; ' ' splits on runs of blanks */
    int comments;                   /* 1: lines whose first non-blank is '#' are skipped */
    int require_newline;            /* 1: a row without a terminating newline (the
                                       last line of a file still being written, or
                                       cut short by a copy) is refused; set after
                                       wc_csv_open (which leaves it 0) */
    int line;                       /* 1-based line number of the current row */
    char *fields[WC_CSV_MAX_FIELDS];/* the current row's cells (unquoted, trimmed), valid
                                       until the next wc_csv_next */
    size_t nfields;
} wc_csv;

/* Opens the file at path (a regular file: wc_open_regular, so a FIFO is
 * refused, never waited on). delim ',' (or ';', '\t') for CSV, ' ' for
 * whitespace-separated logs. Returns 0 or -errno with err naming the file. */
int wc_csv_open(wc_csv *c, const char *path, char delim, wc_error *err);

/* Advances to the next row that is neither blank nor a # comment and splits it
 * into c->fields. Returns 1 with a row, 0 at the end, -EINVAL for a malformed
 * row (unterminated quote, more than WC_CSV_MAX_FIELDS cells, a NUL byte, a
 * line longer than WC_CSV_MAX_LINE; with require_newline, a last row without
 * its newline: "FILE:LINE:COLUMN: truncated last line (no newline at end of
 * file)", COLUMN the cell it cuts) with err "FILE:LINE: ...", -errno when
 * the file cannot be read. */
int wc_csv_next(wc_csv *c, wc_error *err);

/* Index of the cell equal to name in the current row (the header), -1 when
 * absent. case_insensitive: ASCII case folded. */
int wc_csv_find(const wc_csv *c, const char *name, int case_insensitive);

/* Closes the file and frees the window. Safe on a zeroed struct and twice. */
void wc_csv_close(wc_csv *c);

#endif
