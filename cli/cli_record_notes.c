/*
 * cli_record_notes.c — what `record` and `run` say around a recording (cli.h):
 * before it, a warning when the sampling interval differs from the exporter's
 * it is compared with (--exporter-interval: assumed); after it, the exporter's
 * interval as its scrapes showed it (validator/exporter_interval.c) with a
 * warning when that differs, and one line per --truth source, read back from the run
 * through the store's per-source summaries (wc_store_truth_summaries), so the
 * numbers are what validate will find; likewise one line per --exporter
 * (its scrapes, read back with wc_store_scrapes). A source or an exporter
 * that delivered nothing is a finding, printed even with --quiet (quiet
 * silences progress, not findings), and turns the exit code into
 * WC_EXIT_NO_TRUTH.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "collector/recorder.h"
#include "collector/store/store_exporter.h"
#include "collector/store/store_read.h"
#include "common/wc_text.h"
#include "validator/exporter_data.h"

enum { MAX_SOURCES = 32 };

/* One source's line: "ground truth SPEC: N of M polls delivered a reading
 * (ok), S stale, U unavailable, E errors[; last error: ...]", FAILED first
 * when none did. */
static void print_source(const char *cmd, const wc_truth_summary *t)
{
    long long polls = (long long)(t->ok + t->stale + t->unavailable + t->error);
    char line[900];
    if (t->ok == 0 && polls == 0 && strncmp(t->description, "NOT imported", 12) == 0)
        wc_textf(line, sizeof line, "ground truth %s FAILED: %s", t->spec, t->description);
    else
        wc_textf(line, sizeof line,
                 "ground truth %s%s: %lld of %lld %s delivered a reading (%s), %lld stale, "
                 "%lld unavailable, %lld errors%s%s",
                 t->spec, t->ok ? "" : " FAILED", (long long)t->ok, polls,
                 strcmp(t->kind, "file") ? "polls" : "log lines", t->provenance,
                 (long long)t->stale, (long long)t->unavailable, (long long)t->error,
                 t->last_error[0] ? "; last error: " : "", t->last_error);
    fprintf(stderr, "wattcal %s: ", cmd);
    wc_fputs_safe(line, stderr);
    fputc('\n', stderr);
}

/* One exporter's line: "exporter SPEC: N of M scrapes delivered samples (S
 * samples), E errors, P parse errors[; last error: ...]", FAILED first when
 * none did; printed unless quiet, always when it FAILED. 1 when it failed. */
static int exporter_line(const char *cmd, const wc_record_opts *o, wc_store *st,
                         const wc_exporter_info *e, wc_error *err)
{
    wc_scrape_meta *m = NULL;
    size_t n = 0;
    if (wc_store_scrapes(st, e->id, &m, &n, err))
        return -1;
    long long ok = 0, errors = 0, parse = 0, samples = 0;
    const char *last = "";
    for (size_t i = 0; i < n; i++) {
        int good = !strcmp(m[i].status, "ok") || !strcmp(m[i].status, "capped");
        ok += good;
        errors += !strcmp(m[i].status, "error");
        parse += !strcmp(m[i].status, "parse_error");
        samples += m[i].samples;
        if (!good && m[i].error[0])
            last = m[i].error;
    }
    int failed = ok == 0;
    if (!o->quiet || failed) {
        char line[900];
        wc_textf(line, sizeof line, "exporter %s%s: %lld of %zu scrapes delivered samples (%lld "
                 "samples), %lld errors, %lld parse errors%s%s", e->spec, failed ? " FAILED" : "",
                 ok, n, samples, errors, parse, last[0] ? "; last error: " : "", last);
        fprintf(stderr, "wattcal %s: ", cmd);
        wc_fputs_safe(line, stderr);
        fputc('\n', stderr);
    }
    free(m);
    return failed;
}

/* One line per --exporter, read back from the run; the count of exporters
 * that delivered no sample (all of them when the run cannot be read). */
static int exporter_status(const char *cmd, const wc_record_opts *o)
{
    if (!o->nexporter)
        return 0;
    wc_error err = {{0}};
    wc_store *st = wc_store_open(o->db_path, WC_STORE_READ, &err);
    wc_exporter_info e[WC_EXPORTER_MAX];
    size_t n = 0;
    int failed = 0, rc = !st || wc_store_exporters(st, e, WC_EXPORTER_MAX, &n, &err);
    for (size_t i = 0; i < n && !rc; i++) {
        int f = exporter_line(cmd, o, st, &e[i], &err);
        rc = f < 0;
        failed += f > 0;
    }
    wc_store_close(st);
    if (rc) {
        wc_cli_error(cmd, err.msg);
        fprintf(stderr, "wattcal %s: the exporter scrapes of %s could not be read back: they "
                        "count as not delivered\n", cmd, o->db_path);
        return (int)o->nexporter;
    }
    if (failed)
        fprintf(stderr,
                "wattcal %s: %d of %zu exporter%s delivered no sample: the run is complete, but "
                "the exporter's numbers cannot be checked (exit %d)\n",
                cmd, failed, n, n == 1 ? "" : "s", WC_EXIT_NO_TRUTH);
    return failed;
}

int wc_cli_truth_status(const char *cmd, const wc_record_opts *o)
{
    int xfailed = exporter_status(cmd, o);
    if (!o->ntruth)
        return xfailed;
    wc_error err = {{0}};
    wc_store *st = wc_store_open(o->db_path, WC_STORE_READ, &err);
    wc_truth_summary sum[MAX_SOURCES];
    size_t n = 0;
    if (!st || wc_store_truth_summaries(st, sum, MAX_SOURCES, &n, &err)) {
        wc_store_close(st);
        wc_cli_error(cmd, err.msg);
        fprintf(stderr, "wattcal %s: the ground truth of %s could not be read back: "
                        "it counts as not delivered\n", cmd, o->db_path);
        return (int)o->ntruth + xfailed;
    }
    wc_store_close(st);
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        failed += sum[i].ok == 0;
        if (!o->quiet || sum[i].ok == 0)
            print_source(cmd, &sum[i]);
    }
    if (failed)
        fprintf(stderr,
                "wattcal %s: %d of %zu ground-truth source%s delivered no reading: the run is "
                "complete, but nothing can be checked against %s (exit %d)\n",
                cmd, failed, n, n == 1 ? "" : "s", failed == 1 ? "it" : "them", WC_EXIT_NO_TRUTH);
    return failed + xfailed;
}

int wc_cli_interval_warning(const char *cmd, const wc_record_opts *o)
{
    if (!o->nexporter || o->interval_ns == o->exporter.interval_ns)
        return 0;
    double mine = (double)o->interval_ns / 1e9, theirs = (double)o->exporter.interval_ns / 1e9;
    fprintf(stderr,
            "wattcal %s: warning: --interval %gs differs from the exporter's %gs (its scrape "
            "interval, --exporter-interval, assumed until its scrapes show its own: checked after "
            "the recording; Kepler's default monitor.interval is 5s). The "
            "reference model then splits energy every %gs, the exporter every %gs: processes "
            "living less than an interval are seen by %s and missed by %s (burst coverage "
            "differs), and a new process's first interval (Kepler counts its whole lifetime CPU "
            "there) spans different times, so per-interval and per-process numbers are not "
            "comparable; run totals are. Give --interval %gs to compare interval by interval.\n",
            cmd, mine, theirs, mine, theirs, mine < theirs ? "wattcal" : "the exporter",
            mine < theirs ? "the exporter" : "wattcal", theirs);
    return 1;
}

/* What one exporter's scrapes showed of its interval, and a warning when
 * --interval differs from it by more than 10 %. Returns 1 when it warned. */
static int learnt_note(const char *cmd, const wc_record_opts *o, const wc_exporter_info *e,
                       const wc_xp_refresh *r)
{
    double mine = (double)o->interval_ns / 1e9;
    char line[700];
    if (!isfinite(r->interval_s))
        wc_textf(line, sizeof line, "exporter %s: its interval could not be learnt from its scrapes "
                 "(%zu node counter change(s) over %zu scrape pairs, %d needed): the comparison used "
                 "--exporter-interval %gs", e->spec, r->changes, r->compared, WC_XP_REFRESH_MIN,
                 (double)o->exporter.interval_ns / 1e9);
    else if (r->every_scrape)
        wc_textf(line, sizeof line, "exporter %s: its node counters changed at every scrape (every "
                 "%.3gs): its own interval is %.3gs or shorter (learnt from its scrapes; scrape "
                 "faster to learn it)", e->spec, r->scrape_s, r->scrape_s);
    else
        wc_textf(line, sizeof line, "exporter %s: its node counters changed every %.3gs (median over "
                 "%zu changes at scrapes %.3gs apart: its interval, learnt from its scrapes)", e->spec,
                 r->interval_s, r->changes, r->scrape_s);
    if (!o->quiet) {
        fprintf(stderr, "wattcal %s: ", cmd);
        wc_fputs_safe(line, stderr);
        fputc('\n', stderr);
    }
    if (!isfinite(r->interval_s) || r->every_scrape || fabs(mine - r->interval_s) <= 0.1 * r->interval_s)
        return 0;
    fprintf(stderr, "wattcal %s: warning: --interval %gs differs from the %.3gs learnt from exporter "
                    "#%lld's scrapes: per-interval and per-process numbers are not comparable, run "
                    "totals are; give --interval %.3gs to compare interval by interval\n",
            cmd, mine, r->interval_s, (long long)e->id, r->interval_s);
    return 1;
}

int wc_cli_exporter_interval_note(const char *cmd, const wc_record_opts *o)
{
    if (!o->nexporter || !o->db_path)
        return 0;
    wc_error err = {{0}};
    wc_store *st = wc_store_open(o->db_path, WC_STORE_READ, &err);
    wc_exporter_info info[MAX_SOURCES];
    size_t n = 0;
    int rc = st ? wc_store_exporters(st, info, MAX_SOURCES, &n, &err) : -EIO;
    int warned = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        wc_xp_data d;
        wc_xp_refresh r;
        rc = wc_xp_load(st, &info[i], &d, &err);
        if (!rc && wc_xp_refresh_interval(&d, &r))
            rc = wc_error_set(&err, -ENOMEM, "out of memory learning the exporter's interval");
        if (!rc)
            warned += learnt_note(cmd, o, &info[i], &r);
        wc_xp_free(&d); /* wc_xp_load leaves d empty when it fails */
    }
    wc_store_close(st);
    if (rc) {
        wc_cli_error(cmd, err.msg);
        fprintf(stderr, "wattcal %s: the exporter's interval could not be learnt from %s\n", cmd,
                o->db_path);
    }
    return warned;
}
