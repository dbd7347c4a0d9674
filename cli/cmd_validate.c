/*
 * cmd_validate.c — `wattcal validate`: the attribution-gap table of a run
 * (validator/gap.c) printed for people and CI, with tolerances as exit codes.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "collector/replay.h"
#include "collector/store.h"
#include "validator/gap.h"

static const char VALIDATE_HELP[] =
    "usage: wattcal validate --db FILE [options]\n"
    "\n"
    "Per RAPL zone: the attribution gap (node energy − energy attributed to\n"
    "processes, J and %) split into idle (never attributed by design) and\n"
    "unattributed (active energy no process received), energy at the container\n"
    "and pod levels, the exporter quirks seen, and the top-10 processes and\n"
    "containers by energy. Every figure names its source (measured or\n"
    "simulated meter; attributed by which model).\n"
    "\n"
    "  --db FILE                   a run written by `wattcal record`\n"
    "  --model M                   kepler-0.11, kepler-head or ideal (default: the\n"
    "                              model the run was recorded with, ideal for an\n"
    "                              imported run; another model is computed offline\n"
    "                              from the raw samples first)\n"
    "  --max-unattributed-pct P    fail (exit 1) when a zone's unattributed energy\n"
    "                              exceeds P % of its active energy\n"
    "  --max-over-pct P            fail (exit 1) when processes received more than\n"
    "                              P % of a zone's active energy beyond it\n"
    "\n"
    "exit codes: 0 within tolerances, 1 a tolerance broken, 2 usage error or\n"
    "unreadable DB, 3 the run has no measurable interval (or a tolerance was asked\n"
    "for a run without attribution, e.g. an imported one)\n";

enum { OPT_DB = 1000, OPT_MODEL, OPT_MAX_UNATTR, OPT_MAX_OVER, OPT_HELP };

static const struct option VALIDATE_OPTS[] = {
    {"db", required_argument, NULL, OPT_DB},
    {"model", required_argument, NULL, OPT_MODEL},
    {"max-unattributed-pct", required_argument, NULL, OPT_MAX_UNATTR},
    {"max-over-pct", required_argument, NULL, OPT_MAX_OVER},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

typedef struct validate_opts {
    const char *db;
    const char *model;
    double max_unattr_pct, max_over_pct; /* NaN = no tolerance */
} validate_opts;

/* Copies an untrusted string (process name) for a terminal: control and
 * non-ASCII bytes become '?' so no escape sequence reaches the screen. */
static const char *term_safe(const char *s, char *buf, size_t cap)
{
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++)
        buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    buf[i] = '\0';
    return buf;
}

static int parse_pct(const char *v, double *out)
{
    char *end = NULL;
    *out = strtod(v, &end);
    return (!end || *end || !(*out >= 0)) ? -1 : 0;
}

static int parse(int argc, char **argv, validate_opts *o)
{
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", VALIDATE_OPTS, NULL)) != -1) {
        switch (c) {
        case OPT_DB: o->db = optarg; break;
        case OPT_MODEL: o->model = optarg; break;
        case OPT_MAX_UNATTR:
            if (parse_pct(optarg, &o->max_unattr_pct))
                goto bad;
            break;
        case OPT_MAX_OVER:
            if (parse_pct(optarg, &o->max_over_pct))
                goto bad;
            break;
        case OPT_HELP: fputs(VALIDATE_HELP, stdout); return -1;
        default: fputs(VALIDATE_HELP, stderr); return WC_EXIT_USAGE;
        }
    }
    if (!o->db) {
        fprintf(stderr, "wattcal validate: --db FILE is required\n");
        return WC_EXIT_USAGE;
    }
    return 0;
bad:
    fprintf(stderr, "wattcal validate: invalid percentage '%s'\n", optarg);
    return WC_EXIT_USAGE;
}

/* The model the run was recorded with; an imported run (no attribution at
 * record time) defaults to the ideal model. */
static int recorded_model(wc_store *st, wc_model *m)
{
    sqlite3_stmt *s = NULL;
    int rc = -EINVAL;
    if (sqlite3_prepare_v2(wc_store_db(st), "SELECT model FROM run", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(s, 0);
        rc = (name && *name) ? wc_model_parse(name, m) : (*m = WC_MODEL_IDEAL, 0);
    }
    sqlite3_finalize(s);
    return rc;
}

/* A percentage for a table cell; "-" when undefined (a zero whole). */
static const char *pct_cell(double pct, char *buf, size_t cap)
{
    if (isnan(pct))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.2f", pct);
    return buf;
}

static void print_zone_table(const wc_gap_report *r)
{
    printf("\nAttribution gap per zone (joules; gap = node − Σ processes = idle + unattributed − over)\n");
    printf("%-8s %12s %12s %12s %12s %12s %12s %12s %8s %8s %9s\n", "zone", "meter_J",
           "node_J", "idle_J", "active_J", "processes_J", "unattrib_J", "gap_J", "gap_%",
           "idle_%", "unattr_%");
    for (size_t i = 0; i < r->nzones; i++) {
        const wc_gap_zone *z = &r->zones[i];
        double gap = z->node_joules - z->process_joules;
        char g[32], id[32], un[32];
        printf("%-8s %12.3f %12.3f %12.3f %12.3f %12.3f %12.3f %12.3f %8s %8s %9s\n", z->zone,
               z->meter_joules, z->node_joules, z->idle_joules, z->active_joules,
               z->process_joules, z->unattributed_joules, gap,
               pct_cell(wc_gap_pct(gap, z->node_joules), g, sizeof g),
               pct_cell(wc_gap_pct(z->idle_joules, z->node_joules), id, sizeof id),
               pct_cell(wc_gap_pct(z->unattributed_joules, z->active_joules), un, sizeof un));
    }
    printf("\nLevels (joules attributed; containers and pods as the model computes them)\n");
    printf("%-8s %12s %12s %12s %12s %14s\n", "zone", "processes_J", "containers_J", "pods_J",
           "over_J", "intervals");
    for (size_t i = 0; i < r->nzones; i++) {
        const wc_gap_zone *z = &r->zones[i];
        printf("%-8s %12.3f %12.3f %12.3f %12.3f %14lld\n", z->zone, z->process_joules,
               z->container_joules, z->pod_joules, z->over_joules, (long long)z->intervals);
    }
}

static void print_quirks(const wc_gap_report *r)
{
    printf("\nIntervals flagged per zone: skipped = active energy or ΣΔcpu was 0 (no workload got energy);\n"
           "reset = workload totals fell to 0; wrap = a counter decrease taken as one wrap (Kepler:\n"
           "per socket or its aggregated counter); unmeas = no usable energy (model); meter_unmeas =\n"
           "raw-counter intervals wattcal could not measure (reset, unknown range, missing zone);\n"
           "refresh_fail = Kepler discarded the refresh (a zone or /proc/stat read failed);\n"
           "ratio_bad = usage ratio outside [0,1] (a /proc/stat counter went backwards)\n");
    printf("%-8s %8s %8s %8s %8s %13s %10s %15s\n", "zone", "skipped", "reset", "wrap", "unmeas",
           "refresh_fail", "ratio_bad", "meter_unmeas");
    for (size_t i = 0; i < r->nzones; i++) {
        const wc_gap_zone *z = &r->zones[i];
        printf("%-8s %8lld %8lld %8lld %8lld %13lld %10lld %15lld\n", z->zone,
               (long long)z->skipped, (long long)z->totals_reset, (long long)z->wraps,
               (long long)z->unmeasurable, (long long)z->refresh_failed,
               (long long)z->ratio_out_of_range, (long long)z->meter_unmeasurable);
    }
    printf("process-intervals charged with a lifetime first Δ: %lld; with a negative share (pid reuse): %lld\n",
           (long long)r->lifetime_delta_rows, (long long)r->negative_share_rows);
}

static double zone_active(const wc_gap_report *r, const char *zone)
{
    for (size_t i = 0; i < r->nzones; i++)
        if (!strcmp(r->zones[i].zone, zone))
            return r->zones[i].node_joules;
    return 0;
}

static void print_top(const wc_gap_report *r)
{
    double node = zone_active(r, r->rank_zone);
    char name[64];
    printf("\nTop processes by %s energy (attributed, model %s; share of node %s energy;\n"
           "model_cpu_s = CPU seconds the model charged, Kepler's lifetime first delta included)\n",
           r->rank_zone, r->model, r->rank_zone);
    if (!r->ntop_processes) {
        printf("  (no process received energy%s)\n",
               !strcmp(r->meter_kind, "import") ? ": an imported run has no /proc data" : "");
        goto containers;
    }
    printf("%8s %12s %-16s %-14s %-12s %12s %11s %8s\n", "pid", "starttime", "comm",
           "container", "pod", "joules", "model_cpu_s", "share_%");
    for (size_t i = 0; i < r->ntop_processes; i++) {
        const wc_gap_top *t = &r->top_processes[i];
        printf("%8d %12llu %-16s %-14.12s %-12.8s %12.3f %11.2f %8.2f\n", t->pid,
               (unsigned long long)t->starttime, term_safe(t->name, name, 17),
               t->container_id[0] ? t->container_id : "-", t->pod_uid[0] ? t->pod_uid : "-",
               t->joules, t->cpu_seconds, wc_gap_pct(t->joules, node));
    }
containers:
    printf("\nTop containers by %s energy (attributed, model %s)\n", r->rank_zone, r->model);
    if (!r->ntop_containers)
        printf("  (no container processes were seen on this node)\n");
    for (size_t i = 0; i < r->ntop_containers; i++) {
        const wc_gap_top *t = &r->top_containers[i];
        printf("  %-14.12s pod %-36s %12.3f J %10.2f cpu_s %8.2f %%\n", t->container_id,
               t->pod_uid[0] ? t->pod_uid : "-", t->joules, t->cpu_seconds,
               wc_gap_pct(t->joules, node));
    }
}

static void print_truth(const wc_gap_report *r)
{
    if (!r->ntruth)
        return;
    char a[256], b[256];
    printf("\nGround truth recorded (compared with the node in `validate` statistics later; here: what"
           " each source delivered)\n");
    for (size_t i = 0; i < r->ntruth; i++) {
        const wc_gap_truth *t = &r->truth[i];
        printf("  %s [%s] ok %lld, stale %lld, unavailable %lld, error %lld", term_safe(t->spec, a, sizeof a),
               !strcmp(t->provenance, "simulated") ? "SIMULATED" : t->provenance, (long long)t->ok,
               (long long)t->stale, (long long)t->unavailable, (long long)t->error);
        if (!isnan(t->mean_watts))
            printf("; mean of ok samples %.1f W", t->mean_watts);
        printf("\n    %s\n", term_safe(t->description, b, sizeof b));
        if (t->last_error[0])
            printf("    last problem: %s\n", term_safe(t->last_error, a, sizeof a));
    }
}

/* A number for a table cell; "-" when unknown. */
static const char *num_cell(double v, char *buf, size_t cap)
{
    if (isnan(v))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.2f", v);
    return buf;
}

static void print_phases(const wc_gap_report *r)
{
    if (!r->nphases)
        return;
    printf("\nPhases (isolation known answers): mean node power (%s meter, package + dram), mean"
           " ground truth,\nand the marginal power over the idle baseline (the phases labelled"
           " idle)\n", r->provenance);
    printf("%-18s %4s %-9s %8s %10s %11s %11s %12s\n", "phase", "rep", "class", "secs", "node_W",
           "marginal_W", "truth_W", "marg_truth_W");
    char name[64], a[32], b[32], c[32], d[32];
    for (size_t i = 0; i < r->nphases; i++) {
        const wc_gap_phase *p = &r->phases[i];
        printf("%-18s %4d %-9s %8.1f %10s %11s %11s %12s\n", term_safe(p->name, name, 19),
               p->repetition, p->cls, p->duration_s, num_cell(p->node_watts, a, sizeof a),
               num_cell(p->marginal_watts, b, sizeof b), num_cell(p->truth_watts, c, sizeof c),
               num_cell(p->marginal_truth_watts, d, sizeof d));
    }
}

static void print_workloads(const wc_gap_report *r)
{
    if (!r->nworkloads)
        return;
    printf("\nReplayed workloads (known answers): true CPU from wait4 rusage of the whole subtree;"
           "\nseen = CPU /proc sampling saw of its processes; coverage = seen / true; lost_J ="
           " ESTIMATED energy polling\nlost: (true - seen) CPU-s x the model's active package J"
           " per busy CPU-s in that phase\n");
    printf("%-18s %4s %-9s %7s %10s %10s %9s %10s %8s\n", "phase", "rep", "class", "workers",
           "true_cpu_s", "seen_cpu_s", "coverage", "lost_J", "crashed");
    char name[64], cov[32], lost[32];
    for (size_t i = 0; i < r->nworkloads; i++) {
        const wc_gap_workload *w = &r->workloads[i];
        printf("%-18s %4d %-9s %7d %10.2f %10.2f %9s %10s %8d\n", term_safe(w->phase, name, 19),
               w->repetition, w->cls, w->workers, w->true_cpu_s, w->seen_cpu_s,
               pct_cell(100.0 * w->coverage, cov, sizeof cov),
               num_cell(w->lost_joules, lost, sizeof lost), w->crashed);
    }
    printf("(coverage in %%: short-lived processes that start and end between two samples are"
           " invisible to /proc polling)\n");
}

static int check_tolerances(const validate_opts *o, const wc_gap_report *r)
{
    int failed = 0;
    for (size_t i = 0; i < r->nzones; i++) {
        const wc_gap_zone *z = &r->zones[i];
        double un = wc_gap_pct(z->unattributed_joules, z->active_joules);
        double ov = wc_gap_pct(z->over_joules, z->active_joules);
        if (!isnan(o->max_unattr_pct) && !isnan(un) && un > o->max_unattr_pct) {
            printf("FAIL %s: unattributed %.2f %% of active energy > tolerance %.2f %%\n",
                   z->zone, un, o->max_unattr_pct);
            failed = 1;
        }
        if (!isnan(o->max_over_pct) && !isnan(ov) && ov > o->max_over_pct) {
            printf("FAIL %s: over-attributed %.2f %% of active energy > tolerance %.2f %%\n",
                   z->zone, ov, o->max_over_pct);
            failed = 1;
        }
    }
    return failed;
}

/* Something was measured: energy in the model's node series or, for runs
 * without /proc data (imported), in the raw meter series. */
static int measurable(const wc_gap_report *r)
{
    for (size_t i = 0; i < r->nzones; i++)
        if (r->zones[i].node_joules > 0 || r->zones[i].meter_joules > 0)
            return 1;
    return 0;
}

/* Makes sure *st holds rows for the requested model. The run is opened
 * read-only; only when the model must first be computed from the raw samples
 * is it reopened read-write for the replay. */
/* Whether the model attributed any active energy (imported runs have none). */
static int has_attribution(const wc_gap_report *r)
{
    for (size_t i = 0; i < r->nzones; i++)
        if (r->zones[i].active_joules > 0)
            return 1;
    return 0;
}

static int ensure_model(wc_store **st, const validate_opts *o, wc_model *model, wc_error *err)
{
    int rc = o->model ? wc_model_parse(o->model, model) : recorded_model(*st, model);
    if (rc)
        return wc_error_set(err, -EINVAL, "%s: unknown model '%s'", o->db,
                            o->model ? o->model : "(none recorded)");
    rc = wc_replay_has_model(*st, *model, err);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    wc_store_close(*st);
    *st = wc_store_open(o->db, WC_STORE_WRITE, err);
    if (!*st)
        return wc_error_prefix(err, -EIO,
                               "model %s must be computed from the raw samples first, which "
                               "needs write access (copy the file, or run `wattcal attribute`): ",
                               wc_model_name(*model));
    int64_t ticks = 0;
    rc = wc_store_ensure_indexes(*st, err);
    return rc ? rc : wc_replay(*st, *model, &ticks, err);
}

int cmd_validate(int argc, char **argv)
{
    validate_opts o = {.db = NULL, .model = NULL, .max_unattr_pct = NAN, .max_over_pct = NAN};
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? WC_EXIT_OK : rc;
    wc_error err = {{0}};
    wc_store *st = wc_store_open(o.db, WC_STORE_READ, &err);
    if (!st) {
        wc_cli_error("validate", err.msg);
        return WC_EXIT_USAGE;
    }
    wc_model model;
    wc_gap_report *rep = calloc(1, sizeof *rep);
    rc = rep ? 0 : -ENOMEM;
    if (!rc)
        rc = ensure_model(&st, &o, &model, &err);
    if (!rc)
        rc = wc_gap_compute(st, model, rep, &err);
    int exit_code = WC_EXIT_OK;
    if (rc) {
        wc_cli_error("validate", rc == -ENOMEM ? "out of memory" : err.msg);
        exit_code = WC_EXIT_USAGE;
    } else {
        char desc[256];
        printf("wattcal validate: %s — host %s — %lld ticks over %.1f s — model %s\n", o.db,
               term_safe(rep->host, desc, sizeof desc), (long long)rep->ticks, rep->duration_s,
               rep->model);
        printf("node meter: %s — %s\n",
               !strcmp(rep->provenance, "simulated") ? "SIMULATED (no hardware measured)"
                                                     : rep->provenance,
               term_safe(rep->meter_description, desc, sizeof desc));
        if (!strcmp(rep->meter_kind, "import"))
            printf("note: imported run: meter and ground-truth series only, no /proc data, so no"
                   " attribution (node/process columns stay 0)\n");
        else if (!rep->clean_stop)
            printf("note: the recording did not end cleanly (killed or failed): %lld committed"
                   " ticks are analysed\n", (long long)rep->ticks);
        printf("meter_J: %s energy from raw counters; node/idle/active: as model %s split it;"
               " processes/containers/pods: attributed by model %s\n",
               rep->provenance, rep->model, rep->model);
        print_zone_table(rep);
        print_quirks(rep);
        print_top(rep);
        print_truth(rep);
        print_phases(rep);
        print_workloads(rep);
        int wants_gate = !isnan(o.max_unattr_pct) || !isnan(o.max_over_pct);
        if (!measurable(rep)) {
            printf("\nno measurable interval: nothing to validate\n");
            exit_code = WC_EXIT_NO_DATA;
        } else if (wants_gate && !has_attribution(rep)) {
            printf("\nno attribution in this run (no /proc data): the tolerances cannot be checked\n");
            exit_code = WC_EXIT_NO_DATA;
        } else if (check_tolerances(&o, rep)) {
            exit_code = WC_EXIT_CHECK_FAILED;
        } else if (wants_gate) {
            printf("PASS: every zone within the tolerances (model %s)\n", rep->model);
        }
    }
    free(rep);
    wc_store_close(st);
    return exit_code;
}
