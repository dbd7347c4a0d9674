/*
 * cmd_calibrate.c — `wattcal calibrate`: fits zone power against CPU
 * utilisation and ground truth against the node's zones, stores the fits in
 * the run, copies fits from another run (--apply-from) and writes the
 * estimates they give (--estimate-csv), always tagged "estimated"
 * (validator/calibration.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/wc_clock.h"
#include "validator/calibration.h"
#include "validator/text_report.h"

enum {
    OPT_DB = 1, OPT_WINDOW, OPT_TRUTH_WINDOW, OPT_NODE_ZONES, OPT_LAG, OPT_MAX_LAG,
    OPT_MAX_WINDOW, OPT_BOOTSTRAP, OPT_SEED, OPT_NO_STORE, OPT_APPLY_FROM, OPT_ESTIMATE_CSV
};

static const wc_cli_opt CALIBRATE_OPTS[] = {
    {"db", "FILE", OPT_DB, "the run to fit (write access needed to store fits)"},
    {"window", "DUR", OPT_WINDOW,
     "windows of the zone fits (default 10s; never shorter\n"
     "than the run's sample spacing)"},
    {"truth-window", "native|DUR", OPT_TRUTH_WINDOW,
     "intervals of the truth fit (default native: each\n"
     "reading over its own averaging interval)"},
    {"node-zones", "LIST", OPT_NODE_ZONES, "zones summed for the truth fit (default package,dram)"},
    {"lag", "auto|DUR", OPT_LAG, "ground-truth lag: estimated (default) or given"},
    {"max-lag", "DUR", OPT_MAX_LAG, "largest lag searched (default 30s)"},
    {"max-window", "DUR", OPT_MAX_WINDOW,
     "largest averaging window searched when the device\n"
     "states none (default 120s)"},
    {"bootstrap", "N", OPT_BOOTSTRAP, "bootstrap replicates (default 1000)"},
    {"seed", "N", OPT_SEED, "bootstrap seed (default 1)"},
    {"no-store", NULL, OPT_NO_STORE, "fit and print only (the file is opened read-only)"},
    {"apply-from", "OTHER", OPT_APPLY_FROM,
     "instead of fitting, copy the latest fits of the run\n"
     "OTHER into this run (noting where they came from), so\n"
     "validate checks them out of sample; OTHER must be\n"
     "another run (this run, a link or a copy of it, or a\n"
     "run holding this run's own fits, is refused: in-sample)"},
    {"estimate-csv", "FILE", OPT_ESTIMATE_CSV,
     "write the estimates the run's stored fits give, per\n"
     "window (--window), as CSV tagged estimated"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt *const CALIBRATE_TABLES[] = {CALIBRATE_OPTS, NULL};

static const wc_cli_spec CALIBRATE_SPEC = {
    .name = "calibrate",
    .usage = "wattcal calibrate --db FILE [options]",
    .about =
        "Fits, by GSL weighted least squares, per RAPL zone P = P_idle + k * utilisation\n"
        "(over common windows) and, per ground-truth source, truth = a * (sum of the\n"
        "node zones) + b (platform power and PSU loss; each reading over its own\n"
        "averaging interval after the estimated lag). Prints coefficients with\n"
        "standard errors, t and block-bootstrap 95 % intervals, R^2 and RMSE, and\n"
        "stores them with every residual in the run (tables calibration and\n"
        "calibration_residual). `wattcal validate` then scores the estimates they\n"
        "give, tagged ESTIMATED: estimate:wall#N = a * meter + b, and estimate:util =\n"
        "the zone fits from utilisation alone.",
    .opts = CALIBRATE_TABLES,
    .col = 26,
    .footer =
        "exit codes: 0 fitted (or applied), 2 usage or input error, 3 nothing could be\n"
        "fitted (no utilisation, no ground truth, too few points), every fit was refused\n"
        "as not identified (R^2 < 0.1, utilisation spread < 0.05, 95 % interval wider\n"
        "than the run's ceiling, P_idle negative or beyond it, a truth fit's a not\n"
        "above 0 across its interval), or the wall fit (truth_meter) was refused while\n"
        "zone fits were usable; a refused fit is never stored and gives no estimate, the\n"
        "usable ones are; --apply-from a run that holds no calibration (its own fits\n"
        "were refused) or no wall fit, and --estimate-csv with no window, also exit 3",
};

typedef struct calibrate_cli {
    const char *db, *apply_from, *estimate_csv;
    int no_store;
    char zones_buf[256];
    wc_cal_opts o;
} calibrate_cli;

static int bad(const char *opt, const char *why)
{
    fprintf(stderr, "wattcal calibrate: %s: %s\n", opt, why);
    return WC_EXIT_USAGE;
}

/* One option (wc_cli_handler) into the calibrate_cli ctx. */
static int option(void *ctx, const wc_cli_opt *opt, const char *v)
{
    calibrate_cli *c = ctx;
    double x;
    switch (opt->id) {
    case OPT_DB: c->db = v; return 0;
    case OPT_WINDOW: return wc_cli_parse_seconds(v, 0, &c->o.window_s) ? bad("--window", "expected a duration > 0") : 0;
    case OPT_TRUTH_WINDOW:
        if (!strcmp(v, "native")) {
            c->o.truth_window_s = 0;
            return 0;
        }
        return wc_cli_parse_seconds(v, 0, &c->o.truth_window_s) ? bad("--truth-window", "expected native or a duration") : 0;
    case OPT_NODE_ZONES:
        return wc_cli_parse_zone_list(v, c->zones_buf, sizeof c->zones_buf, c->o.node_zones,
                                      WC_ACC_MAX_ZONES)
                   ? bad("--node-zones", "expected zone names, e.g. package,dram")
                   : 0;
    case OPT_LAG:
        c->o.lag_fixed = strcmp(v, "auto") != 0;
        return c->o.lag_fixed && wc_cli_parse_seconds(v, 1, &c->o.lag_s) ? bad("--lag", "expected auto or a duration") : 0;
    case OPT_MAX_LAG:
        return wc_cli_parse_seconds(v, 0, &c->o.search.max_lag_s) ? bad("--max-lag", "expected a duration > 0") : 0;
    case OPT_MAX_WINDOW:
        return wc_cli_parse_seconds(v, 0, &c->o.search.max_window_s) ? bad("--max-window", "expected a duration > 0") : 0;
    case OPT_BOOTSTRAP:
        if (wc_cli_parse_whole(v, 100, 100000, &x))
            return bad("--bootstrap", "expected a whole number from 100 to 100000");
        c->o.boot.replicates = (int)x;
        return 0;
    case OPT_SEED:
        if (wc_cli_parse_whole(v, 0, 4294967295.0, &x))
            return bad("--seed", "expected a whole number from 0 to 2^32-1");
        c->o.boot.seed = (uint64_t)x;
        return 0;
    case OPT_NO_STORE: c->no_store = 1; return 0;
    case OPT_APPLY_FROM: c->apply_from = v; return 0;
    case OPT_ESTIMATE_CSV: c->estimate_csv = v; return 0;
    }
    return WC_EXIT_USAGE;
}

/* Returns 0 to run, -1 after --help, or WC_EXIT_USAGE. */
static int parse(int argc, char **argv, calibrate_cli *c)
{
    int next = 0;
    c->o.boot.seed = WC_BOOT_DEFAULT_SEED;
    int rc = wc_cli_parse(&CALIBRATE_SPEC, argc, argv, option, c, &next);
    if (rc)
        return rc;
    if (next < argc)
        return bad(argv[next], "unexpected argument");
    if (!c->db)
        return bad("--db", "FILE is required");
    if (c->apply_from && c->no_store)
        return bad("--apply-from", "stores fits: it cannot be combined with --no-store");
    if (c->estimate_csv && wc_cli_one_file(c->estimate_csv, c->db))
        return bad("--estimate-csv", "the run database itself: writing it would destroy the run");
    return 0;
}

/* "[lo, hi]" of a bootstrap interval, or why there is none (too few points,
 * or too many degenerate resamples: issue 14 item 7). */
static const char *boot_ci(const wc_linfit *f, double lo, double hi, char *buf, size_t cap)
{
    if (isfinite(lo) && isfinite(hi))
        snprintf(buf, cap, "[%.4f, %.4f]", lo, hi);
    else if (f->boot_replicates)
        snprintf(buf, cap, "[no interval: %zu/%d degenerate]", f->boot_degenerate,
                 f->boot_replicates);
    else
        snprintf(buf, cap, "[no bootstrap: n < %d]", WC_BOOT_MIN_PAIRS);
    return buf;
}

static void print_fit(const wc_calibration *c)
{
    char t[160], n[300], b0[64], b1[64];
    const wc_linfit *f = &c->fit;
    const char *c0 = c->kind == WC_CAL_ZONE_UTIL ? "P_idle_W" : "b_W";
    const char *c1 = c->kind == WC_CAL_ZONE_UTIL ? "k_W" : "a";
    printf("%-17s %-28.28s %5zu  %-8s %10.4f ± %-8.4f %-24s (t: %.4f..%.4f)\n"
           "%-17s %-28s %5s  %-8s %10.4f ± %-8.4f %-24s (t: %.4f..%.4f)  R² %.4f  RMSE %.3f W\n",
           wc_cal_kind_name(c->kind), wc_term_safe(c->target, t, sizeof t), f->n, c0, f->c0, f->se0,
           boot_ci(f, f->b0_lo, f->b0_hi, b0, sizeof b0), f->t0_lo, f->t0_hi, "", "", "", c1, f->c1, f->se1,
           boot_ci(f, f->b1_lo, f->b1_hi, b1, sizeof b1), f->t1_lo, f->t1_hi, f->r2, f->rmse);
    printf("  %s\n", wc_term_safe(c->note, n, sizeof n));
    if (c->unusable)
        printf("  REFUSED (not stored, no estimate): %s\n", wc_term_safe(c->why, n, sizeof n));
}

/* The exit code of a fit: 3 when every fit was refused, or when a wall
 * (truth_meter) fit was refused and none identified — the fit validate's
 * node checks read (estimate:wall#N), so a script following the runbook
 * stops there; else 0. Says so when only the wall fit failed. */
static int fit_outcome(const wc_calibration *fits, size_t n)
{
    size_t refused = 0, wall_refused = 0, wall_ok = 0;
    for (size_t i = 0; i < n; i++) {
        refused += fits[i].unusable != 0;
        if (fits[i].kind == WC_CAL_TRUTH_METER) {
            wall_refused += fits[i].unusable != 0;
            wall_ok += !fits[i].unusable;
        }
    }
    if (refused == n)
        return WC_EXIT_NO_DATA;
    if (wall_refused && !wall_ok) {
        printf("exit 3: no wall fit was identified (the zone fits are usable): validate's node checks"
               " will read the raw meter, which misses PSU loss and platform power\n");
        return WC_EXIT_NO_DATA;
    }
    return WC_EXIT_OK;
}

/* Stores the usable fits; returns fit_outcome's exit code (the refusals
 * are printed either way). */
static int store_fits(wc_store *st, wc_calibration *fits, size_t n)
{
    wc_error err = {{0}};
    size_t refused = 0;
    for (size_t i = 0; i < n; i++) {
        if (fits[i].unusable) {
            refused++;
            continue;
        }
        if (wc_calibration_store(st, &fits[i], &err)) {
            wc_cli_error("calibrate", err.msg);
            return WC_EXIT_USAGE;
        }
        printf("stored as calibration #%lld (%s %s)\n", (long long)fits[i].id,
               wc_cal_kind_name(fits[i].kind), fits[i].target);
    }
    if (refused)
        printf("%zu fit(s) REFUSED as not identified (see above): not stored; record longer under a"
               " load that varies (e.g. `wattcal run quick`) and calibrate again\n", refused);
    return fit_outcome(fits, n);
}

static int do_fit(calibrate_cli *c, wc_store *st)
{
    wc_calibration *fits = calloc(WC_CAL_MAX, sizeof *fits);
    char notes[4096] = "";
    size_t n = 0;
    wc_error err = {{0}};
    if (!fits) {
        wc_cli_error("calibrate", "out of memory");
        return WC_EXIT_USAGE;
    }
    int rc = wc_calibrate(st, &c->o, fits, WC_CAL_MAX, &n, notes, sizeof notes, &err);
    if (notes[0])
        printf("notes:\n");
    for (char *save = NULL, *line = strtok_r(notes, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char safe[512];
        printf("  %s\n", wc_term_safe(line, safe, sizeof safe));
    }
    int exit_code = WC_EXIT_OK;
    if (rc == -ENODATA) {
        printf("nothing could be fitted (see the notes above)\n");
        exit_code = WC_EXIT_NO_DATA;
    } else if (rc) {
        wc_cli_error("calibrate", err.msg);
        exit_code = WC_EXIT_USAGE;
    }
    if (!rc) {
        printf("\nFits: coefficient ± standard error [block-bootstrap 95 %% CI] (t-based 95 %% CI);"
               " estimates from them are ESTIMATED.\nzone_utilisation: P_zone = P_idle + k * u, u = the"
               " node's CPU utilisation as a busy fraction 0..1; truth_meter: truth = a * meter + b\n");
        printf("%-17s %-28s %5s  %-8s %10s\n", "kind", "target", "n", "coeff", "value");
        for (size_t i = 0; i < n; i++)
            print_fit(&fits[i]);
    }
    if (!rc && !c->no_store)
        exit_code = store_fits(st, fits, n);
    if (!rc && c->no_store && n)
        exit_code = fit_outcome(fits, n); /* as when storing */
    if (!rc && c->no_store)
        printf("(--no-store: nothing written)\n");
    else if (!rc && exit_code == WC_EXIT_OK)
        printf("`wattcal validate --db %s` now scores the estimates these fits give (in-sample: fitted"
               " on this run's own truth; copy them to another run with --apply-from for an"
               " out-of-sample check)\n", c->db);
    for (size_t i = 0; i < n; i++)
        wc_calibration_free(&fits[i]);
    free(fits);
    return exit_code;
}

/* The CSV rows of the estimate sources first.. of rep, per window of w
 * seconds; returns the windows written (a line per source on stdout). */
static size_t estimate_rows(const calibrate_cli *c, FILE *f, const wc_accuracy_report *rep,
                            size_t first, double w)
{
    size_t total = 0;
    for (size_t s = first; s < rep->nsources; s++) {
        wc_pairs p;
        if (wc_align_series_windows(&rep->sources[s].series, NULL, rep->tb.mono_ns[0],
                                    (int64_t)llround(w * 1e9), INT64_MIN, INT64_MAX, &p))
            break;
        for (size_t k = 0; k < p.n; k++)
            fprintf(f, "%.3f,%.3f,%s,%.3f,estimated\n",
                    (double)(p.a_ns[k] - rep->tb.mono_ns[0]) / 1e9,
                    (double)(p.b_ns[k] - rep->tb.mono_ns[0]) / 1e9, rep->sources[s].name,
                    p.source_w[k]);
        printf("%s: %zu windows of %g s written to %s (ESTIMATED)\n", rep->sources[s].name, p.n, w,
               c->estimate_csv);
        total += p.n;
        wc_pairs_free(&p);
    }
    return total;
}

/* The estimates of the stored fits, per window, as CSV. No window at all
 * (a run shorter than one window, or no tick the fits can read): exit 3. */
static int write_estimates(const calibrate_cli *c, wc_store *st)
{
    wc_error err = {{0}};
    wc_calibration fits[WC_CAL_MAX];
    size_t nfits = 0;
    wc_accuracy_report *rep = calloc(1, sizeof *rep);
    wc_acc_opts ao;
    memset(&ao, 0, sizeof ao);
    for (size_t i = 0; i < WC_ACC_MAX_ZONES && c->o.node_zones[i]; i++)
        ao.node_zones[i] = c->o.node_zones[i];
    int rc = rep ? wc_calibration_load(st, fits, WC_CAL_MAX, &nfits, NULL, &err) : -ENOMEM;
    if (!rc)
        rc = wc_accuracy_load(st, &ao, rep, &err);
    if (rc) {
        wc_cli_error("calibrate", rc == -ENOMEM ? "out of memory" : err.msg);
        free(rep);
        return WC_EXIT_USAGE;
    }
    size_t first = rep->nsources;
    int added = wc_calibration_add_estimates(st, fits, nfits, rep, &err);
    int exit_code = WC_EXIT_OK;
    FILE *f = added > 0 ? fopen(c->estimate_csv, "w") : NULL;
    if (added <= 0) {
        fprintf(stderr, "wattcal calibrate: --estimate-csv: the run holds no fit that gives an estimate"
                        " (run `wattcal calibrate --db %s` or --apply-from first)\n", c->db);
        exit_code = WC_EXIT_NO_DATA;
    } else if (!f) {
        fprintf(stderr, "wattcal calibrate: --estimate-csv %s: %s\n", c->estimate_csv, strerror(errno));
        exit_code = WC_EXIT_USAGE;
    }
    double w = c->o.window_s > 0 ? c->o.window_s : 10;
    if (f) {
        fprintf(f, "# wattcal calibrate --estimate-csv: ESTIMATED power from stored calibrations of %s\n"
                   "start_s,end_s,source,watts,provenance\n", c->db);
        if (!estimate_rows(c, f, rep, first, w)) {
            fprintf(stderr, "wattcal calibrate: --estimate-csv %s: no window of %g s holds an estimate"
                            " (the run is shorter than one window, or no tick carries what the fits"
                            " read): only the header was written; try a shorter --window\n",
                    c->estimate_csv, w);
            exit_code = WC_EXIT_NO_DATA;
        }
        if (fclose(f)) {
            fprintf(stderr, "wattcal calibrate: --estimate-csv %s: write failed\n", c->estimate_csv);
            exit_code = WC_EXIT_USAGE;
        }
    }
    wc_accuracy_free(rep);
    free(rep);
    return exit_code;
}

/* After --apply-from: 3 when the run now holds no wall (truth_meter) fit
 * (the source had only zone fits), saying what validate then reads. */
static int wall_copied(const calibrate_cli *c, wc_store *st)
{
    wc_calibration *fits = calloc(WC_CAL_MAX, sizeof *fits);
    size_t n = 0, wall = 0;
    wc_error err = {{0}};
    int rc = fits ? wc_calibration_load(st, fits, WC_CAL_MAX, &n, NULL, &err) : -ENOMEM;
    for (size_t i = 0; !rc && i < n; i++)
        wall += fits[i].kind == WC_CAL_TRUTH_METER;
    for (size_t i = 0; fits && i < n; i++)
        wc_calibration_free(&fits[i]);
    free(fits);
    if (rc) {
        wc_cli_error("calibrate", rc == -ENOMEM ? "out of memory" : err.msg);
        return WC_EXIT_USAGE;
    }
    if (wall)
        return WC_EXIT_OK;
    printf("exit 3: %s holds no wall fit (only zone fits were copied): validate's node checks will"
           " read the raw meter of %s, which misses PSU loss and platform power\n", c->apply_from,
           c->db);
    return WC_EXIT_NO_DATA;
}

int cmd_calibrate(int argc, char **argv)
{
    calibrate_cli c;
    memset(&c, 0, sizeof c);
    int rc = parse(argc, argv, &c);
    if (rc)
        return rc < 0 ? WC_EXIT_OK : rc;
    wc_error err = {{0}};
    int writes = !c.no_store && (c.apply_from || !c.estimate_csv);
    wc_store *st = wc_store_open(c.db, writes ? WC_STORE_WRITE : WC_STORE_READ, &err);
    if (!st) {
        wc_cli_error("calibrate", err.msg);
        if (writes && access(c.db, F_OK) == 0 && access(c.db, W_OK) != 0) /* only then */
            fprintf(stderr, "wattcal calibrate: storing fits needs write access (or use --no-store)\n");
        return WC_EXIT_USAGE;
    }
    int exit_code = wc_cli_require_run("calibrate", c.db, st);
    if (exit_code) {
        wc_store_close(st);
        return exit_code;
    }
    if (c.apply_from) {
        int n = wc_calibration_apply_from(st, c.apply_from, &err);
        if (n < 0) {
            wc_cli_error("calibrate", err.msg);
            /* a source run whose every fit was refused holds nothing to copy: the
             * same "no data" outcome as that calibrate's own exit 3 */
            exit_code = n == -ENOENT ? WC_EXIT_NO_DATA : WC_EXIT_USAGE;
        } else {
            printf("copied %d fit(s) from %s into %s: validate scores their estimates out of sample\n",
                   n, c.apply_from, c.db);
            exit_code = wall_copied(&c, st);
        }
    } else if (!c.estimate_csv || c.no_store) {
        exit_code = do_fit(&c, st);
    }
    if (exit_code == WC_EXIT_OK && c.estimate_csv)
        exit_code = write_estimates(&c, st);
    wc_store_close(st);
    return exit_code;
}
