/*
 * cmd_diff.c — `wattcal diff`: two runs (before/after an exporter upgrade,
 * or one node on each version), or one run under two reference models, with
 * the top-N workloads' energy side by side, the differences with their 95 %
 * intervals and a verdict (validator/diff.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "common/wc_clock.h"
#include "validator/diff.h"
#include "validator/exporter_diff.h"
#include "validator/text_report.h"

enum { OPT_MODEL = 1, OPT_TOP, OPT_ZONE, OPT_WINDOW, OPT_TOL, OPT_MIN_CHANGE, OPT_BOOTSTRAP, OPT_SEED };

static const wc_cli_opt DIFF_OPTS[] = {
    {"model", "M", OPT_MODEL,
     "model of both runs, or (given twice with one run) the two\n"
     "models to compare; default: each run's recorded model"},
    {"top", "N", OPT_TOP, "workloads per table (default 10, at most 50)"},
    {"zone", "Z", OPT_ZONE, "RAPL zone compared (default package)"},
    {"window", "DUR", OPT_WINDOW, "window of the mean-power series (default 60s)"},
    {"tolerance", "P%", OPT_TOL, "relative change of mean power allowed (default 10%)"},
    {"min-change-watts", "W", OPT_MIN_CHANGE,
     "noise floor: a change below W watts is never CHANGED\n"
     "(default 0.5; 0 for none)"},
    {"bootstrap", "N", OPT_BOOTSTRAP, "bootstrap replicates (default 1000)"},
    {"seed", "N", OPT_SEED, "bootstrap seed (default 1)"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt *const DIFF_TABLES[] = {DIFF_OPTS, NULL};

/* The --model choices, listed from the model table. */
static const wc_cli_choices DIFF_CHOICES[] = {{OPT_MODEL, wc_cli_list_model_names}, {0, NULL}};

static const wc_cli_spec DIFF_SPEC = {
    .name = "diff",
    .usage = "wattcal diff A.db B.db [options]\n"
             "       wattcal diff A.db --model M1 --model M2 [options]",
    .about =
        "Compares the energy the exporter attributes to the top-N pods, containers and\n"
        "process names (matched by pod uid, container id and comm, never pid) between\n"
        "two runs — before and after an exporter upgrade, or one node on each version —\n"
        "or between two reference models over the same samples (what an upgrade moves,\n"
        "before it is rolled out). Side by side: energy (J) and mean power (W) over full\n"
        "windows with 95 % block-bootstrap intervals, the difference B - A with its\n"
        "interval, and a verdict: CHANGED (beyond the tolerance and the noise floor,\n"
        "interval excludes 0), same (interval within them), inconclusive, new or gone.\n"
        "J and W cover the same full windows (J = W x their length). Namespaces are\n"
        "not recorded (no kubelet informer), so they are not compared.",
    .opts = DIFF_TABLES,
    .choices = DIFF_CHOICES,
    .col = 21,
    .footer =
        "The output ends with \"N passed, N failed\" (passed = same, failed = CHANGED;\n"
        "new and gone are reported, never failures; \", K inconclusive\" when some are).\n"
        "exit codes: 0 nothing changed beyond the tolerance, 1 something did, 2 usage or\n"
        "input error, 3 a run is shorter than one window, or NO VERDICT: nothing was\n"
        "compared (no workload in both runs) or every comparison is inconclusive (then\n"
        "the output ends \"NO VERDICT: ...\")",
};

typedef struct diff_cli {
    const char *db[2];
    const char *model[2];
    int ndb, nmodel;
    wc_diff_opts o;
} diff_cli;

static int bad(const char *opt, const char *why)
{
    fprintf(stderr, "wattcal diff: %s: %s\n", opt, why);
    return WC_EXIT_USAGE;
}

static int number(const char *v, double *out, const char *suffix)
{
    char *end = NULL;
    *out = strtod(v, &end);
    return (!end || end == v || strcmp(end, suffix) || !isfinite(*out) || *out < 0) ? -1 : 0;
}

/* One option (wc_cli_handler) into the diff_cli ctx. */
static int option(void *ctx, const wc_cli_opt *opt, const char *v)
{
    diff_cli *c = ctx;
    double x;
    switch (opt->id) {
    case OPT_MODEL:
        if (c->nmodel == 2)
            return bad("--model", "given more than twice");
        c->model[c->nmodel++] = v;
        return 0;
    case OPT_TOP:
        if (wc_cli_parse_whole(v, 1, WC_DIFF_MAX_TOP, &x))
            return bad("--top", "expected a whole number from 1 to 50");
        c->o.top = (size_t)x;
        return 0;
    case OPT_ZONE: c->o.zone = v; return 0;
    case OPT_WINDOW:
        return wc_cli_parse_seconds(v, 0, &c->o.window_s) ? bad("--window", "expected a duration > 0, e.g. 60s") : 0;
    case OPT_TOL:
        if (number(v, &x, "%") || x <= 0 || x > 1000)
            return bad("--tolerance", "expected a percentage > 0 with its %, e.g. 10%");
        c->o.tolerance_pct = x;
        return 0;
    case OPT_MIN_CHANGE:
        if (number(v, &x, "") || x > 1e6)
            return bad("--min-change-watts", "expected watts >= 0, e.g. 0.5");
        c->o.min_change_w = x;
        c->o.min_change_set = 1;
        return 0;
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
    }
    return WC_EXIT_USAGE;
}

/* Returns 0 to run, -1 after --help, or WC_EXIT_USAGE. */
static int parse(int argc, char **argv, diff_cli *c)
{
    int next = 0;
    c->o.boot.seed = WC_BOOT_DEFAULT_SEED;
    int rc = wc_cli_parse(&DIFF_SPEC, argc, argv, option, c, &next);
    if (rc)
        return rc;
    for (; next < argc; next++) {
        if (c->ndb == 2)
            return bad(argv[next], "at most two runs");
        c->db[c->ndb++] = argv[next];
    }
    if (!c->ndb)
        return bad("A.db", "a run is required");
    if (c->ndb == 1 && c->nmodel != 2)
        return bad(c->db[0], "one run needs two --model options to compare (or give a second run)");
    wc_model m0, m1;
    if (c->ndb == 1 && (!strcmp(c->model[0], c->model[1]) ||
                        (!wc_model_parse(c->model[0], &m0) && !wc_model_parse(c->model[1], &m1) &&
                         m0 == m1)))
        return bad("--model", "the same model twice: a run against itself compares nothing");
    struct stat a, b;
    if (c->ndb == 2 && !stat(c->db[0], &a) && !stat(c->db[1], &b) && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
        return bad(c->db[1], "the same run as A: to compare two models over one run, give it once"
                             " with --model twice");
    return 0;
}

static void side_info(wc_store *st, wc_model m, const char *path, wc_diff_side *s)
{
    memset(s, 0, sizeof *s);
    s->st = st;
    snprintf(s->model, sizeof s->model, "%s", wc_model_name(m));
    char safe[128];
    snprintf(s->label, sizeof s->label, "%.100s (model %s)", wc_term_safe(path, safe, sizeof safe),
             s->model);
    wc_run_meta run; /* labels only: a run row that cannot be read leaves them empty */
    if (!wc_store_get_run(st, &run, NULL) && run.present) {
        snprintf(s->host, sizeof s->host, "%.127s", run.host);
        snprintf(s->provenance, sizeof s->provenance, "%.31s", run.provenance);
    }
    if (wc_store_find_model(st, s->model, &s->model_id, NULL))
        s->model_id = 0; /* as before; wc_cli_open_model has made its rows */
}

static const char *ci_text(const wc_ci *c, char *buf, size_t cap)
{
    if (!isfinite(c->est))
        snprintf(buf, cap, "-");
    else if (!isfinite(c->lo) || !isfinite(c->hi))
        snprintf(buf, cap, "%.3f", c->est);
    else
        snprintf(buf, cap, "%.3f [%.3f,%.3f]", c->est, c->lo, c->hi);
    return buf;
}

static void print_table(const wc_diff_table *t)
{
    if (t->excluded_a || t->excluded_b)
        printf("\n%ss: Kepler NEGATIVE_SHARE rows left out of every figure below (pid reuse"
               " wrapped the share; see validate): A %" PRId64 ", B %" PRId64 "\n",
               wc_diff_level_name(t->level), t->excluded_a, t->excluded_b);
    if (!t->n) {
        printf("\n%ss: none received %s energy in either run\n", wc_diff_level_name(t->level),
               t->level == WC_DIFF_POD ? "pod-level" : "any");
        return;
    }
    printf("\n%ss (top %zu by energy; A has %zu, B has %zu with energy; matched by %s)\n",
           wc_diff_level_name(t->level), t->n, t->keys_a, t->keys_b,
           t->level == WC_DIFF_POD ? "pod uid" : t->level == WC_DIFF_CONTAINER ? "container id" : "comm");
    int w = t->level == WC_DIFF_POD ? 36 : 20; /* a pod uid whole (36), else 20 */
    printf("  %-*s %12s %-28s %12s %-28s %-30s %8s %s\n", w, "workload", "A_J", "A_W [95% CI]", "B_J",
           "B_W [95% CI]", "diff_W (B-A) [95% CI]", "diff_%", "verdict");
    for (size_t i = 0; i < t->n; i++) {
        const wc_diff_row *r = &t->rows[i];
        char k[128], a[64], b[64], d[64], p[32];
        wc_term_safe(r->key, k, (size_t)w + 1);
        if (isfinite(r->diff_pct))
            snprintf(p, sizeof p, "%+.2f", r->diff_pct);
        else
            snprintf(p, sizeof p, "-");
        printf("  %-*s %12.3f %-28s %12.3f %-28s %-30s %8s %s\n", w, k, r->a_j, ci_text(&r->a_w, a, sizeof a),
               r->b_j, ci_text(&r->b_w, b, sizeof b), ci_text(&r->diff_w, d, sizeof d), p,
               wc_diff_verdict_name(r->verdict));
    }
}

static int report(const diff_cli *c, const wc_diff_side *a, const wc_diff_side *b,
                  const wc_diff_report *r, const wc_xp_diff_report *xr, int same_data)
{
    char x[64], y[64], h1[128], h2[128];
    printf("wattcal diff: A = %s, host %s [%s meter]\n              B = %s, host %s [%s meter]\n",
           a->label, wc_term_safe(a->host, h1, sizeof h1), a->provenance, b->label,
           wc_term_safe(b->host, h2, sizeof h2), b->provenance);
    printf("%s; zone %s; mean power over full %g s windows (A %zu windows = %g s, B %zu = %g s);"
           " 95 %% CIs by block bootstrap (%d replicates, seed %llu)\n",
           r->paired ? "the same samples re-attributed under two models (paired: differences exact, CI"
                       " over the per-window differences)"
                     : "two runs (independent: CIs of each side combined)",
           r->zone, r->window_s, r->a_windows, r->a_duration_s, r->b_windows, r->b_duration_s,
           wc_boot_replicates(&c->o.boot), (unsigned long long)c->o.boot.seed);
    printf("node %s power: A %s W, B %s W; active part (attributable): A %s W, ", r->zone,
           ci_text(&r->a_node_w, x, sizeof x), ci_text(&r->b_node_w, y, sizeof y),
           ci_text(&r->a_active_w, h1, sizeof h1));
    printf("B %s W (as each model split it)\n", ci_text(&r->b_active_w, h2, sizeof h2));
    for (int l = 0; l < WC_DIFF_NLEVELS; l++)
        print_table(&r->tables[l]);
    wc_xp_diff_text(stdout, xr);
    if (same_data)
        printf("\nNOTE: B holds the same recorded data as A (a copy) under the same model: the"
               " workload rows above compare a run with itself (only edits or exporter data can"
               " differ); to compare two models over one run, give it once with --model twice\n");
    printf("\nnamespaces: not compared — wattcal does not record them (pods are known by uid from"
           " cgroup paths; no kubelet informer)\n");
    printf("verdict (tolerance ±%g %% of A's mean power, never below the %g W noise floor): %zu CHANGED,"
           " %zu same, %zu inconclusive, %zu new, %zu gone\n", r->tolerance_pct, r->min_change_w,
           r->changed, r->same, r->inconclusive, r->appeared, r->vanished);
    if (r->a_windows < WC_BOOT_MIN_PAIRS || r->b_windows < WC_BOOT_MIN_PAIRS)
        printf("note: fewer than %d full %g s windows on a side: no intervals, so no verdict but"
               " inconclusive (use a shorter --window or a longer run)\n", WC_BOOT_MIN_PAIRS,
               r->window_s);
    size_t failed = r->changed + xr->counts.changed, same = r->same + xr->counts.same;
    size_t inconclusive = r->inconclusive + xr->counts.inconclusive;
    if (inconclusive)
        printf("%zu passed, %zu failed, %zu inconclusive\n", same, failed, inconclusive);
    else
        printf("%zu passed, %zu failed\n", same, failed);
    if (failed)
        return WC_EXIT_CHECK_FAILED;
    if (!same && inconclusive) { /* nothing was decided: never reads as a pass */
        printf("NO VERDICT: every comparison is inconclusive\n");
        return WC_EXIT_NO_VERDICT;
    }
    if (!same) { /* nothing compared at all: no workload on both sides */
        size_t appeared = r->appeared + xr->counts.appeared, vanished = r->vanished + xr->counts.vanished;
        if (appeared || vanished)
            printf("NO VERDICT: no workload is in both runs (%zu new, %zu gone): nothing was"
                   " compared\n", appeared, vanished);
        else
            printf("NO VERDICT: no workload received energy in either run: nothing was compared\n");
        return WC_EXIT_NO_VERDICT;
    }
    return WC_EXIT_OK;
}

/* 1 when b holds the same recorded data as a (a byte copy, or a copy with
 * its run row edited: wc_store_run_fingerprint), 0 otherwise or unknown. */
static int copy_of(wc_store *a, wc_store *b)
{
    char fa[512] = "", fb[512] = "";
    if (wc_store_run_fingerprint(a, fa, sizeof fa, NULL) ||
        wc_store_run_fingerprint(b, fb, sizeof fb, NULL))
        return 0;
    return fa[0] && !strcmp(fa, fb);
}

int cmd_diff(int argc, char **argv)
{
    diff_cli c;
    memset(&c, 0, sizeof c);
    int rc = parse(argc, argv, &c);
    if (rc)
        return rc < 0 ? WC_EXIT_OK : rc;
    wc_error err = {{0}};
    wc_model ma, mb;
    const char *m_a = c.model[0], *m_b = c.nmodel == 2 ? c.model[1] : c.model[0];
    wc_store *sa = wc_cli_open_model(c.db[0], m_a, &ma, &err);
    wc_store *sb = NULL;
    if (sa && c.ndb == 1) {
        /* the second model of the same run (replayed first if it has no rows) */
        wc_store_close(sa);
        sa = wc_cli_open_model(c.db[0], m_b, &mb, &err);
        if (sa) {
            wc_store_close(sa);
            sa = wc_cli_open_model(c.db[0], m_a, &ma, &err);
        }
    } else if (sa) {
        sb = wc_cli_open_model(c.db[1], m_b, &mb, &err);
    }
    if (!sa || (c.ndb == 2 && !sb)) {
        wc_cli_error("diff", err.msg);
        wc_store_close(sa);
        wc_store_close(sb);
        return WC_EXIT_USAGE;
    }
    int same_data = c.ndb == 2 && ma == mb && copy_of(sa, sb);
    wc_diff_side a, b;
    side_info(sa, ma, c.db[0], &a);
    side_info(sb ? sb : sa, mb, c.db[c.ndb - 1], &b);
    wc_diff_report *r = calloc(1, sizeof *r);
    wc_xp_diff_report *xr = calloc(1, sizeof *xr); /* both runs' own exporter numbers */
    int exit_code;
    rc = r && xr ? wc_diff_compute(&a, &b, &c.o, r, &err) : -ENOMEM;
    if (!rc && c.ndb == 2)
        rc = wc_xp_diff(&a, &b, &c.o, xr, &err);
    if (rc) {
        wc_cli_error("diff", rc == -ENOMEM ? "out of memory" : err.msg);
        exit_code = rc == -ENODATA ? WC_EXIT_NO_DATA : WC_EXIT_USAGE;
    } else {
        exit_code = report(&c, &a, &b, r, xr, same_data);
    }
    free(r);
    free(xr);
    wc_store_close(sa);
    wc_store_close(sb);
    return exit_code;
}
