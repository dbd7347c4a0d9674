/*
 * store_run.c — reading the run row and finding a model's id (see store.h):
 * the first thing every reader of a run needs (validate's header, the
 * report's provenance, diff's labels, calibrate's --apply-from note, the
 * counter ceiling the run was recorded with).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collector/meter/counter.h"
#include "collector/store/store_internal.h"

static const char RUN_SQL[] =
    "SELECT host, kernel, cpu_model, sockets, ncpus, wattcal_version, model, interval_ns,"
    " meter_kind, provenance, meter_description, sim_params_json, procfs_root, sysfs_root,"
    " command_line, started_wall_ns, started_mono_ns, COALESCE(ended_wall_ns, 0),"
    " COALESCE(ended_mono_ns, 0), COALESCE(ticks, 0), COALESCE(clean_stop, 0)"
    " FROM run LIMIT 1";

static void fill_texts(sqlite3_stmt *s, wc_run_meta *m)
{
    wc_store_col_text(s, 0, m->host, sizeof m->host);
    wc_store_col_text(s, 1, m->kernel, sizeof m->kernel);
    wc_store_col_text(s, 2, m->cpu_model, sizeof m->cpu_model);
    wc_store_col_text(s, 5, m->wattcal_version, sizeof m->wattcal_version);
    wc_store_col_text(s, 6, m->model, sizeof m->model);
    wc_store_col_text(s, 8, m->meter_kind, sizeof m->meter_kind);
    wc_store_col_text(s, 9, m->provenance, sizeof m->provenance);
    wc_store_col_text(s, 10, m->meter_description, sizeof m->meter_description);
    wc_store_col_text(s, 11, m->sim_params_json, sizeof m->sim_params_json);
    wc_store_col_text(s, 12, m->procfs_root, sizeof m->procfs_root);
    wc_store_col_text(s, 13, m->sysfs_root, sizeof m->sysfs_root);
    wc_store_col_text(s, 14, m->command_line, sizeof m->command_line);
}

/* The run's stored counter ceiling; a run without one (schema < 5, an
 * import) gets the built-in default with ceiling_stored 0. */
static int read_ceiling(wc_store *st, wc_run_meta *m, wc_error *err)
{
    m->ceiling_watts = WC_DEFAULT_CEILING_WATTS;
    m->ceiling_stored = 0;
    int has = wc_store_has_column(st, "run", "ceiling_watts");
    if (has < 0)
        return wc_store_fail(st, err, "reading run");
    if (!has)
        return 0;
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT ceiling_watts FROM run LIMIT 1", &s, err,
                              "reading run");
    if (rc)
        return rc;
    int step = sqlite3_step(s);
    double w = step == SQLITE_ROW ? wc_store_col_real(s, 0) : NAN;
    sqlite3_finalize(s);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return wc_store_fail(st, err, "reading run");
    if (w > 0 && isfinite(w)) {
        m->ceiling_watts = w;
        m->ceiling_stored = 1;
    }
    return 0;
}

int wc_store_get_run(wc_store *st, wc_run_meta *m, wc_error *err)
{
    memset(m, 0, sizeof *m);
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, RUN_SQL, &s, err, "reading run");
    if (rc)
        return rc;
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        m->present = 1;
        fill_texts(s, m);
        m->sockets = sqlite3_column_int(s, 3);
        m->ncpus = sqlite3_column_int(s, 4);
        m->interval_ns = sqlite3_column_int64(s, 7);
        m->started_wall_ns = sqlite3_column_int64(s, 15);
        m->started_mono_ns = sqlite3_column_int64(s, 16);
        m->ended_wall_ns = sqlite3_column_int64(s, 17);
        m->ended_mono_ns = sqlite3_column_int64(s, 18);
        m->ticks = sqlite3_column_int64(s, 19);
        m->clean_stop = sqlite3_column_int(s, 20);
    }
    sqlite3_finalize(s);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return wc_store_fail(st, err, "reading run");
    return step == SQLITE_ROW ? read_ceiling(st, m, err) : 0;
}

/* The id of the model row named exactly model_name; 0, -ENOENT or -EIO. */
static int find_model_named(wc_store *st, const char *model_name, int64_t *model_id,
                            wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT id FROM model WHERE name = ?", &s, err,
                              "reading model");
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, model_name, -1, SQLITE_TRANSIENT);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW)
        *model_id = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    if (step == SQLITE_ROW)
        return 0;
    if (step != SQLITE_DONE)
        return wc_store_fail(st, err, "reading model");
    return wc_error_set(err, -ENOENT, "%s: no attribution rows of model %s", st->path,
                        model_name);
}

int wc_store_find_model(wc_store *st, const char *model_name, int64_t *model_id,
                        wc_error *err)
{
    int rc = find_model_named(st, model_name, model_id, err);
    wc_model m;
    const char *old = rc == -ENOENT && wc_model_parse(model_name, &m) == 0
                          ? wc_model_old_name(m) : NULL;
    if (old && find_model_named(st, old, model_id, NULL) == 0)
        return 0; /* a run of an older version: the model's rows under its old name */
    return rc;
}

int wc_store_run_fingerprint(wc_store *st, char *buf, size_t cap, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT (SELECT mono_ns || '/' || COALESCE(wall_ns, '') FROM tick"
                                  " ORDER BY id LIMIT 1), (SELECT value FROM zone_sample"
                                  " ORDER BY rowid LIMIT 1), (SELECT watts FROM truth_sample"
                                  " ORDER BY rowid LIMIT 1), (SELECT COUNT(*) FROM zone)",
                              &s, err, "reading the run's first samples");
    if (rc)
        return rc;
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 0);
        snprintf(buf, cap, "tick0 %s zone0 %lld truth0 %.17g zones %lld", t ? (const char *)t : "-",
                 (long long)sqlite3_column_int64(s, 1), sqlite3_column_double(s, 2),
                 (long long)sqlite3_column_int64(s, 3));
    }
    rc = step == SQLITE_ROW ? 0 : wc_store_fail(st, err, "reading the run's first samples");
    sqlite3_finalize(s);
    return rc;
}
