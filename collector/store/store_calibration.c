/*
 * store_calibration.c — the calibration and calibration_residual tables
 * (store_results.h): a fit and its points written in one transaction, and
 * the latest fit of each kind and target read back. The fitting itself lives
 * in validator/calibration.c, which turns its fits into these rows (the
 * counter zones it fits against utilisation are wc_store_zone_names_open).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "collector/store/store_internal.h"
#include "collector/store/store_results.h"
#include "common/wc_clock.h"

static const char INSERT_FIT[] =
    "INSERT INTO calibration(created_wall_ns, kind, target, input, window_s,"
    " lag_s, n, dof, c0, c0_se, c1, c1_se, cov01, c0_lo, c0_hi, c1_lo, c1_hi,"
    " r2, rmse, fitted_on, provenance, note, fitted_run) VALUES"
    " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'estimated',?,?)";

#define SELECT_FITS_OF(run_col)                                                              \
    "SELECT id, kind, target, input, window_s, lag_s, n, dof, c0, c0_se, c1,"                  \
    " c1_se, cov01, c0_lo, c0_hi, c1_lo, c1_hi, r2, rmse, fitted_on, note, " run_col            \
    " FROM calibration WHERE id IN (SELECT MAX(id) FROM calibration GROUP BY"                  \
    " kind, target) ORDER BY id"
static const char SELECT_FITS[] = SELECT_FITS_OF("fitted_run");
/* a run calibrated before fitted_run (schema 4, an early 5), read as it is */
static const char SELECT_FITS_NO_RUN[] = SELECT_FITS_OF("''");

static int insert_points(wc_store *st, int64_t fit_id, double c0, double c1,
                         const wc_store_cal_points *p, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "INSERT INTO calibration_residual VALUES (?,?,?,?,?,?,?,?)", &s,
                              err, "storing residuals");
    for (size_t i = 0; i < p->n && !rc; i++) {
        double fitted = c0 + c1 * p->x[i];
        sqlite3_bind_int64(s, 1, fit_id);
        sqlite3_bind_int64(s, 2, p->a_ns[i]);
        sqlite3_bind_int64(s, 3, p->b_ns[i]);
        wc_store_bind_real(s, 4, p->x[i]);
        wc_store_bind_real(s, 5, p->y[i]);
        wc_store_bind_real(s, 6, fitted);
        wc_store_bind_real(s, 7, p->y[i] - fitted);
        wc_store_bind_real(s, 8, p->w[i]);
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = wc_store_fail(st, err, "storing residuals");
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    return rc;
}

static int insert_fit(wc_store *st, wc_store_cal_row *r, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, INSERT_FIT, &s, err, "storing the calibration");
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, wc_wall_ns());
    sqlite3_bind_text(s, 2, r->kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, r->target, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, r->input, -1, SQLITE_STATIC);
    wc_store_bind_real(s, 5, r->window_s);
    wc_store_bind_real(s, 6, r->lag_s);
    sqlite3_bind_int64(s, 7, r->n);
    sqlite3_bind_int(s, 8, r->dof);
    double v[] = {r->c0, r->c0_se, r->c1, r->c1_se, r->cov01, r->c0_lo, r->c0_hi, r->c1_lo,
                  r->c1_hi, r->r2, r->rmse};
    for (int i = 0; i < 11; i++)
        wc_store_bind_real(s, 9 + i, v[i]);
    sqlite3_bind_text(s, 20, r->fitted_on, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 21, r->note, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 22, r->fitted_run, -1, SQLITE_STATIC);
    rc = sqlite3_step(s) == SQLITE_DONE ? 0 : wc_store_fail(st, err, "storing the calibration");
    sqlite3_finalize(s);
    if (!rc)
        r->id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

int wc_store_put_calibration(wc_store *st, wc_store_cal_row *row,
                             const wc_store_cal_points *pts, wc_error *err)
{
    int rc = wc_store_ensure_calibration(st, err);
    if (rc)
        return rc;
    if (sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return wc_store_fail(st, err, "storing the calibration");
    rc = insert_fit(st, row, err);
    if (!rc)
        rc = insert_points(st, row->id, row->c0, row->c1, pts, err);
    if (!rc && sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = wc_store_fail(st, err, "storing the calibration");
    if (rc)
        wc_store_rollback(st);
    return rc;
}

/* Coefficients must be finite numbers: anything else is not a fit (it would
 * silently turn the estimate, and the gate reading it, into NaN). */
static int usable(sqlite3_stmt *s)
{
    int ok = 1;
    for (int col = 8; col <= 10; col += 2) {
        int type = sqlite3_column_type(s, col);
        ok &= (type == SQLITE_FLOAT || type == SQLITE_INTEGER) &&
              isfinite(sqlite3_column_double(s, col));
    }
    return ok;
}

static void read_fit(sqlite3_stmt *s, wc_store_cal_row *r)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(s, 0);
    wc_store_col_text(s, 1, r->kind, sizeof r->kind);
    wc_store_col_text(s, 2, r->target, sizeof r->target);
    wc_store_col_text(s, 3, r->input, sizeof r->input);
    r->window_s = wc_store_col_real(s, 4);
    r->lag_s = wc_store_col_real(s, 5);
    r->n = sqlite3_column_int64(s, 6);
    r->dof = sqlite3_column_int(s, 7);
    double *dst[] = {&r->c0, &r->c0_se, &r->c1, &r->c1_se, &r->cov01, &r->c0_lo, &r->c0_hi,
                     &r->c1_lo, &r->c1_hi, &r->r2, &r->rmse};
    for (int i = 0; i < 11; i++)
        *dst[i] = wc_store_col_real(s, 8 + i);
    wc_store_col_text(s, 19, r->fitted_on, sizeof r->fitted_on);
    wc_store_col_text(s, 20, r->note, sizeof r->note);
    wc_store_col_text(s, 21, r->fitted_run, sizeof r->fitted_run);
}

int wc_store_load_calibrations(wc_store *st, wc_store_cal_row *out, size_t max, size_t *n,
                               size_t *ignored, wc_error *err)
{
    *n = 0;
    if (ignored)
        *ignored = 0;
    int rc = wc_store_has_object(st, "calibration");
    if (rc < 0)
        return wc_store_fail(st, err, "reading calibrations");
    if (rc == 0)
        return 0;
    int has_run = wc_store_has_column(st, "calibration", "fitted_run");
    if (has_run < 0)
        return wc_store_fail(st, err, "reading calibrations");
    sqlite3_stmt *s = NULL;
    rc = wc_store_prepare(st, has_run ? SELECT_FITS : SELECT_FITS_NO_RUN, &s, err,
                          "reading calibrations");
    if (rc)
        return rc;
    int step = SQLITE_DONE;
    while (*n < max && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (!usable(s)) {
            if (ignored)
                (*ignored)++;
            continue;
        }
        read_fit(s, &out[(*n)++]);
    }
    rc = step == SQLITE_ROW || step == SQLITE_DONE ? 0 : wc_store_fail(st, err, "reading calibrations");
    sqlite3_finalize(s);
    return rc;
}
