/*
 * cli.h — the subcommands of the wattcal CLI, one file each (cmd_*.c), and
 * the few helpers they share (cli_common.c, cli_options.c, cli_models.c).
 * Each command declares its options in tables that cli_parse.h parses and
 * prints --help from. main.c only dispatches. Exit codes are common to all
 * commands: 0 success, 1 a check failed (validate tolerance), 2 usage or
 * environment error (no meter, unreadable DB), 3 nothing measurable.
 */
#ifndef WC_CLI_H
#define WC_CLI_H

#include <signal.h>

#include "cli/cli_parse.h"
#include "collector/model/attribution.h"
#include "collector/store/store.h"
#include "common/wc_error.h"

/* WC_EXIT_NO_DATA also ends a record/run stopped by a signal before its planned
 * length (--duration, the scenario); WC_EXIT_NO_VERDICT (the same code: nothing
 * could be decided) is validate's gate when a tolerance could not be evaluated
 * or read too few pairs and none failed; WC_EXIT_NO_TRUTH: a recording asked
 * for ground truth (--truth) and a source delivered no reading, or for an
 * exporter (--exporter) and it delivered no sample. */
enum { WC_EXIT_OK = 0, WC_EXIT_CHECK_FAILED = 1, WC_EXIT_USAGE = 2, WC_EXIT_NO_DATA = 3,
       WC_EXIT_NO_VERDICT = 3, WC_EXIT_NO_TRUTH = 4 };

/* Each command takes argv with argv[0] = the command name; returns an exit code. */
int cmd_record(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_attribute(int argc, char **argv);
int cmd_stress(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_serve(int argc, char **argv);

/* The number of SIGINT/SIGTERM/SIGHUP received (capped at 100) once
 * wc_cli_install_stop_handlers has run: non-zero stops a command; a later
 * one stops the recorder's compaction of its file. */
extern volatile sig_atomic_t wc_cli_stop;

/* Installs SIGINT/SIGTERM/SIGHUP handlers (no SA_RESTART, so sleeps wake up)
 * that set wc_cli_stop; a SIGHUP already ignored (nohup) stays ignored. */
void wc_cli_install_stop_handlers(void);

/* Prints "wattcal CMD: MSG" to stderr with control characters in MSG (which
 * may quote file content, BMC text or process names) shown as '?'. */
void wc_cli_error(const char *cmd, const char *msg);

struct wc_record_opts;
/* Parses `wattcal record` options into o (defaults already set); shared by
 * `record` and `run`. Returns 0, -1 after --help, or WC_EXIT_USAGE. */
int wc_cli_parse_record_opts(int argc, char **argv, struct wc_record_opts *o);

/* record's option tables (NULL-terminated), their choice lists and the
 * handler that applies one of them to a struct wc_record_opts ctx: `serve`
 * takes every record option (cmd_record.c). */
extern const wc_cli_opt *const *const wc_cli_record_tables;
extern const wc_cli_choices *const wc_cli_record_choices;
int wc_cli_record_option(void *ctx, const wc_cli_opt *opt, const char *arg);

struct wc_record_result;
/* "; exporter scrapes N ok, N failed[, N cancelled by the run's end][, N dropped ...]" for the summary line
 * of `record` and `run` into buf (cap bytes); "" without --exporter. */
void wc_cli_exporter_counts(const struct wc_record_opts *o, const struct wc_record_result *res,
                            char *buf, size_t cap);

/* After a recording into o->db_path: one line per --truth source on stderr
 * (N of M polls delivered a reading, stale, unavailable, errors, the last
 * error) and per --exporter (N of M scrapes delivered samples, errors, the
 * last error) read back from the run; with o->quiet only those that
 * delivered none. Returns how many truth sources and exporters delivered
 * nothing (0 without --truth and --exporter). */
int wc_cli_truth_status(const char *cmd, const struct wc_record_opts *o);

/* 0 when the run database st (named db) holds its run row, else
 * WC_EXIT_USAGE with a line saying it is no complete run (attribute,
 * calibrate). */
int wc_cli_require_run(const char *cmd, const char *db, wc_store *st);

/* Before a recording with --exporter: when --interval differs from the
 * exporter's interval (--exporter-interval, default Kepler's 5 s), a warning
 * saying what that changes (burst coverage, the first-interval quirk, which
 * numbers stay comparable). Returns 1 when it warned, else 0. */
int wc_cli_interval_warning(const char *cmd, const struct wc_record_opts *o);

/* After a recording with --exporter: each exporter's interval as its scrapes
 * showed it (validator/exporter_data.h: wc_xp_refresh_interval; said unless
 * o->quiet), and a warning when --interval differs from it by more than
 * 10 %. Returns how many exporters warned. */
int wc_cli_exporter_interval_note(const char *cmd, const struct wc_record_opts *o);

/* Opens the run at path for analysis under model_name (NULL: the model it was
 * recorded with, ideal for an imported run) and stores that model in *model.
 * Read-only, unless the model's rows must first be computed from the raw
 * samples (then read-write, replayed). Returns NULL with err on failure. */
wc_store *wc_cli_open_model(const char *path, const char *model_name, wc_model *model,
                            wc_error *err);

/* Options `record` and `probe` share, declared once (cli_options.c): where
 * /proc and /sys are (wc_cli_root_opts), and how BMCs are reached
 * (wc_cli_bmc_opts). Each command applies them itself (its checks and
 * messages differ). Command-specific ids stay below WC_CLI_OPT_PROCFS_ROOT. */
enum {
    WC_CLI_OPT_PROCFS_ROOT = 2000, WC_CLI_OPT_SYSFS_ROOT, WC_CLI_OPT_TRUTH_TIMEOUT,
    WC_CLI_OPT_TRUTH_PWFILE, WC_CLI_OPT_INSECURE
};
extern const wc_cli_opt wc_cli_root_opts[];
extern const wc_cli_opt wc_cli_bmc_opts[];

/* A duration option ("10s", "500ms", a bare number of seconds) in seconds;
 * 0 is refused unless zero_ok. Returns 0 or -1. */
int wc_cli_parse_seconds(const char *text, int zero_ok, double *out);

/* A whole number within [lo, hi]. Returns 0 or -1. */
int wc_cli_parse_whole(const char *text, double lo, double hi, double *out);

/* "package,dram" into names[0..] (pointers into buf, cap bytes), NULL-
 * terminated; at most max names (names has max + 1 slots), none empty.
 * Returns 0 or -1. */
int wc_cli_parse_zone_list(const char *text, char *buf, size_t cap, const char **names,
                           size_t max);

/* The names of the attribution models from the model table, "kepler-0.11,
 * kepler-main, ideal or kepler-0.10", into buf (cap bytes; cut when short).
 * Returns buf. */
const char *wc_cli_model_names(char *buf, size_t cap);

/* 1 when two output paths (or an output and the run database) name one
 * file that writing one would clobber: one canonical name (the same path,
 * a link, another spelling such as a/../f or ./f, a file not there yet, a
 * dangling link to it) that is not a device such as /dev/null, or two names
 * of one existing regular file; 0 otherwise. */
int wc_cli_one_file(const char *a, const char *b);

/* Joins argv into buf with spaces (for the run's stored command line). */
void wc_cli_join_argv(int argc, char **argv, char *buf, int cap);

#endif
