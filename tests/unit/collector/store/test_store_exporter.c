/*
 * test_store_exporter.c — the exporter tables (store_exporter.h, schema
 * version 5): a round trip of exporters, scrapes, series and samples (NaN and
 * infinities stored as NULL, timestamps kept), the series id cache (one row
 * per series whatever the number of scrapes, also after a reopen and per
 * exporter), untrusted label text bound as parameters, the readers' filters,
 * and a version-4 run (no exporter tables: readers find nothing; calibration
 * brings it to version 5 with the tables).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/meter/counter.h" /* WC_DEFAULT_CEILING_WATTS */
#include "collector/store/store_exporter.h"
#include "collector/store/store_internal.h" /* white-box: counts rows on the connection */
#include "tests/unit/support/test_support.h"

static const char *path_of(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", wc_test_tmpdir(), name);
    return p;
}

static wc_store *new_run(const char *path)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_CREATE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_run_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.host, sizeof info.host, "node-1");
    cr_assert_eq(wc_store_put_run(st, &info, &err), 0, "%s", err.msg);
    return st;
}

static int64_t count(wc_store *st, const char *sql)
{
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL), SQLITE_OK, "%s", sql);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

static wc_kep_fact pod_fact(void)
{
    wc_kep_fact f;
    memset(&f, 0, sizeof f);
    f.level = WC_KEP_POD;
    f.quantity = WC_KEP_JOULES;
    f.device = WC_KEP_CPU;
    snprintf(f.zone, sizeof f.zone, "package");
    snprintf(f.key, sizeof f.key, "uid-1");
    snprintf(f.name, sizeof f.name, "web'); DROP TABLE run;--");
    snprintf(f.ns, sizeof f.ns, "prod");
    snprintf(f.state, sizeof f.state, "running");
    return f;
}

static wc_kep_fact node_fact(void)
{
    wc_kep_fact f;
    memset(&f, 0, sizeof f);
    f.level = WC_KEP_NODE;
    f.quantity = WC_KEP_ACTIVE_JOULES;
    snprintf(f.zone, sizeof f.zone, "package");
    snprintf(f.path, sizeof f.path, "/sys/class/powercap/intel-rapl:0");
    f.meter = WC_KEP_METER_MEASURED;
    return f;
}

static int64_t put_exporter(wc_store *st, const char *spec)
{
    wc_error err = {{0}};
    wc_exporter_info e;
    memset(&e, 0, sizeof e);
    snprintf(e.spec, sizeof e.spec, "%s", spec);
    snprintf(e.kind, sizeof e.kind, "kepler");
    snprintf(e.origin, sizeof e.origin, "live");
    snprintf(e.power_source, sizeof e.power_source, "unknown");
    cr_assert_eq(wc_store_put_exporter(st, &e, &err), 0, "%s", err.msg);
    cr_assert_gt(e.id, 0);
    return e.id;
}

/* One scrape at t seconds with the given samples; returns its id. */
static int64_t put_scrape(wc_store *st, int64_t exporter, int t, const char *status,
                          const wc_exporter_sample_in *v, size_t n)
{
    wc_error err = {{0}};
    wc_scrape_meta m;
    memset(&m, 0, sizeof m);
    m.exporter_id = exporter;
    m.req_mono_ns = t * 1000000000LL;
    m.resp_mono_ns = m.req_mono_ns + 5000000;
    m.req_wall_ns = 1700000000000000000LL + m.req_mono_ns;
    m.resp_wall_ns = m.req_wall_ns + 5000000;
    m.duration_ns = 5000000;
    m.http_status = strcmp(status, "ok") == 0 ? 200 : 0;
    m.bytes = 1234;
    m.samples = (int64_t)n;
    snprintf(m.status, sizeof m.status, "%s", status);
    if (strcmp(status, "ok") != 0)
        snprintf(m.error, sizeof m.error, "http://h/metrics: timed out");
    cr_assert_eq(wc_store_begin(st, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_scrape(st, &m, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_exporter_samples(st, exporter, m.id, v, n, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_commit(st, &err), 0, "%s", err.msg);
    return m.id;
}

/* Three scrapes (ok, error, ok) of one exporter with a pod, a node and a
 * foreign series; returns the exporter's id. */
static int64_t three_scrapes(wc_store *st)
{
    int64_t ex = put_exporter(st, "kepler:http://127.0.0.1:28282/metrics");
    static wc_kep_fact pod, node;
    pod = pod_fact();
    node = node_fact();
    wc_exporter_sample_in v[3] = {
        {"kepler_pod_cpu_joules_total", "{pod_id=\"uid-1\",x=\"a\\\"b\"}", &pod, 12.5, 0, 0},
        {"kepler_node_cpu_active_joules_total", "{zone=\"package\"}", &node, NAN, 1, 1700000000123},
        {"up", "{}", NULL, INFINITY, 0, 0},
    };
    put_scrape(st, ex, 1, "ok", v, 3);
    put_scrape(st, ex, 2, "error", NULL, 0);
    v[0].value = 13.0;
    v[1].value = 40.0;
    put_scrape(st, ex, 3, "ok", v, 2);
    return ex;
}

Test(store_exporter, round_trip_exporters_and_scrapes)
{
    wc_store *st = new_run(path_of("rt.db"));
    wc_error err = {{0}};
    int64_t ex = three_scrapes(st);
    wc_exporter_info e = {0};
    snprintf(e.node, sizeof e.node, "n1");
    snprintf(e.version, sizeof e.version, "v0.11.4");
    snprintf(e.provenance, sizeof e.provenance, "exporter kepler v0.11.4 (measured)");
    e.id = ex;
    cr_assert_eq(wc_store_update_exporter(st, &e, &err), 0, "%s", err.msg);
    wc_exporter_info got[4];
    size_t n = 0;
    cr_assert_eq(wc_store_exporters(st, got, 4, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(got[0].spec, "kepler:http://127.0.0.1:28282/metrics");
    cr_assert_str_eq(got[0].origin, "live");
    cr_assert_str_eq(got[0].version, "v0.11.4");
    cr_assert_str_eq(got[0].provenance, "exporter kepler v0.11.4 (measured)");
    wc_scrape_meta *sc = NULL;
    cr_assert_eq(wc_store_scrapes(st, ex, &sc, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(sc[0].status, "ok");
    cr_assert_eq(sc[0].http_status, 200);
    cr_assert_eq(sc[0].samples, 3);
    cr_assert_str_eq(sc[1].status, "error");
    cr_assert_eq(sc[1].http_status, 0, "no HTTP answer is NULL, read as 0");
    cr_assert_str_eq(sc[1].error, "http://h/metrics: timed out");
    cr_assert_str_eq(sc[2].error, "");
    cr_assert(sc[0].req_mono_ns < sc[1].req_mono_ns && sc[1].req_mono_ns < sc[2].req_mono_ns);
    free(sc);
    cr_assert_eq(count(st, "SELECT COUNT(*) FROM exporter_scrape WHERE error IS NULL"), 2);
    cr_assert_eq(count(st, "SELECT COUNT(*) FROM exporter_scrape WHERE http_status IS NULL"), 1);
    wc_store_close(st);
}

Test(store_exporter, round_trip_series_with_their_meaning)
{
    wc_store *st = new_run(path_of("series.db"));
    wc_error err = {{0}};
    int64_t ex = three_scrapes(st);
    wc_exporter_series_row *rows = NULL;
    size_t n = 0;
    cr_assert_eq(wc_store_exporter_series(st, ex, &rows, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 3, "one row per series, not per scrape");
    cr_assert_str_eq(rows[0].labels, "{pod_id=\"uid-1\",x=\"a\\\"b\"}");
    cr_assert_str_eq(rows[0].level, "pod");
    cr_assert_str_eq(rows[0].quantity, "joules");
    cr_assert_str_eq(rows[0].device, "cpu");
    cr_assert_str_eq(rows[0].key, "uid-1");
    cr_assert_str_eq(rows[0].name, "web'); DROP TABLE run;--");
    cr_assert_str_eq(rows[0].ns, "prod");
    cr_assert_str_eq(rows[0].state, "running");
    cr_assert_str_eq(rows[0].meter, "");
    cr_assert_str_eq(rows[1].quantity, "active_joules");
    cr_assert_str_eq(rows[1].path, "/sys/class/powercap/intel-rapl:0");
    cr_assert_str_eq(rows[1].meter, "measured");
    cr_assert_str_eq(rows[2].metric, "up");
    cr_assert_str_eq(rows[2].level, "", "not a Kepler series: stored without a meaning");
    free(rows);
    cr_assert_eq(count(st, "SELECT COUNT(*) FROM run"), 1);
    cr_assert_eq(count(st, "SELECT COUNT(*) FROM exporter_sample WHERE value IS NULL"), 2,
                 "NaN and +Inf stored as NULL");
    cr_assert_eq(count(st, "SELECT COUNT(*) FROM exporter_sample WHERE ts_ms = 1700000000123"), 2);
    wc_store_close(st);
}

/* Streams exporter ex's samples with the filters; checks the count. */
static size_t stream(wc_store *st, int64_t ex, const char *level, const char *quantity,
                     wc_exporter_sample_row *out, size_t max)
{
    wc_error err = {{0}};
    wc_store_iter *it = NULL;
    cr_assert_eq(wc_store_exporter_samples_open(st, ex, level, quantity, &it, &err), 0, "%s",
                 err.msg);
    size_t n = 0;
    wc_exporter_sample_row r;
    int rc;
    while ((rc = wc_store_exporter_sample_next(it, &r, &err)) == 1)
        if (n < max)
            out[n++] = r;
    cr_assert_eq(rc, 0, "%s", err.msg);
    const char *text = NULL;
    cr_assert_eq(wc_store_text_next(it, &text, &err), -EINVAL, "rows of another kind");
    wc_store_iter_close(it);
    return n;
}

Test(store_exporter, samples_stream_in_series_and_time_order_nan_as_null)
{
    wc_store *st = new_run(path_of("stream.db"));
    int64_t ex = put_exporter(st, "kepler:http://h/metrics");
    wc_kep_fact pod = pod_fact(), node = node_fact();
    wc_exporter_sample_in v[2] = {
        {"kepler_node_cpu_active_joules_total", "{zone=\"package\"}", &node, NAN, 1, 77},
        {"kepler_pod_cpu_joules_total", "{pod_id=\"uid-1\"}", &pod, 1.0, 0, 0},
    };
    for (int t = 3; t >= 1; t--) { /* inserted newest first: read back in time order */
        v[1].value = t;
        put_scrape(st, ex, t, "ok", v, 2);
    }
    wc_exporter_sample_row r[8];
    cr_assert_eq(stream(st, ex, NULL, NULL, r, 8), 6);
    cr_assert(r[0].series_id == r[2].series_id && r[3].series_id != r[0].series_id);
    cr_assert(isnan(r[0].value), "NaN is stored as NULL and read as NAN");
    cr_assert(r[0].has_ts && r[0].ts_ms == 77);
    cr_assert_eq(stream(st, ex, "pod", "joules", r, 8), 3);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(r[i].value, i + 1.0, "time order");
        cr_assert_eq(r[i].mono_ns, (i + 1) * 1000000000LL + 5000000, "the response time");
        cr_assert(!r[i].has_ts);
    }
    cr_assert_eq(stream(st, ex, "node", "joules", r, 8), 0);
    cr_assert_eq(stream(st, ex + 1, NULL, NULL, r, 8), 0, "another exporter has none");
    wc_store_close(st);
}

Test(store_exporter, series_cache_survives_reopen_and_keeps_exporters_apart)
{
    const char *p = path_of("cache.db");
    wc_store *st = new_run(p);
    wc_error err = {{0}};
    int64_t a = put_exporter(st, "kepler:http://a/metrics");
    int64_t b = put_exporter(st, "kepler:http://b/metrics");
    wc_kep_fact pod = pod_fact();
    wc_exporter_sample_in v[200];
    char labels[200][48];
    for (int i = 0; i < 200; i++) {
        snprintf(labels[i], sizeof labels[i], "{pod_id=\"uid-%d\"}", i);
        v[i] = (wc_exporter_sample_in){"kepler_pod_cpu_joules_total", labels[i], &pod, i, 0, 0};
    }
    for (int t = 0; t < 5; t++)
        put_scrape(st, a, t, "ok", v, 200);
    put_scrape(st, b, 0, "ok", v, 10);
    cr_assert_eq(count(st, "SELECT COUNT(*) FROM exporter_series"), 210);
    cr_assert_eq(count(st, "SELECT COUNT(*) FROM exporter_sample"), 1010);
    wc_store_close(st);
    st = wc_store_open(p, WC_STORE_WRITE, &err); /* an empty cache: found by the UNIQUE key */
    cr_assert_not_null(st, "%s", err.msg);
    put_scrape(st, a, 9, "ok", v, 200);
    cr_assert_eq(count(st, "SELECT COUNT(*) FROM exporter_series"), 210);
    cr_assert_eq(count(st, "SELECT COUNT(*) FROM exporter_sample"), 1210);
    cr_assert_eq(count(st, "SELECT COUNT(DISTINCT series_id) FROM exporter_sample s"
                           " JOIN exporter_scrape c ON c.id = s.scrape_id WHERE c.req_mono_ns = 9e9"),
                 200);
    cr_assert_eq(wc_store_finish_run(st, 1, 1, 0, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(count(st, "SELECT COUNT(*) FROM sqlite_master WHERE name='exporter_sample_series'"), 1,
                 "indexes built at the end");
    wc_store_close(st);
}

/* A version-4 run: the exporter tables dropped, user_version 4. */
static void make_v4(const char *p)
{
    wc_store *st = new_run(p);
    wc_store_close(st);
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(p, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db,
                              "DROP TABLE exporter; DROP TABLE exporter_scrape;"
                              " DROP TABLE exporter_series; DROP TABLE exporter_sample;"
                              " PRAGMA user_version=4;",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(db);
}

Test(store_exporter, version_4_run_reads_without_exporters)
{
    const char *p = path_of("v4.db");
    make_v4(p);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(p, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_exporter_info e[2];
    size_t n = 9;
    cr_assert_eq(wc_store_exporters(st, e, 2, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 0);
    wc_scrape_meta *sc = NULL;
    cr_assert_eq(wc_store_scrapes(st, 1, &sc, &n, &err), 0, "%s", err.msg);
    cr_assert(n == 0 && sc == NULL);
    wc_exporter_series_row *rows = NULL;
    cr_assert_eq(wc_store_exporter_series(st, 1, &rows, &n, &err), 0, "%s", err.msg);
    cr_assert(n == 0 && rows == NULL);
    wc_exporter_sample_row r[1];
    cr_assert_eq(stream(st, 1, "pod", NULL, r, 1), 0);
    wc_store_close(st);

    /* attribute, calibrate and import --truth-into open runs so: opened for
     * writing, a version-4 run becomes version 5 whole (the writer's
     * statements name its tables and columns), its old rows untouched */
    st = wc_store_open(p, WC_STORE_WRITE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    cr_assert_eq(count(st, "PRAGMA user_version"), 5); /* an old run keeps its table: 5, not 6 */
    cr_assert_eq(wc_store_ensure_indexes(st, &err), 0, "%s", err.msg);
    int64_t id = put_exporter(st, "kepler:http://h/metrics");
    cr_assert_eq(id, 1, "version 5 has the exporter tables");
    wc_store_close(st);
}

/* A version-4 run also lacks version 5's field-report columns (issue 14):
 * read with the built-in ceiling; calibrating makes it version 5 whole, the
 * columns added NULL (the ceiling still "not stored"). */
Test(store_exporter, version_4_run_gains_the_field_report_columns_when_calibrated)
{
    const char *p = path_of("v4-cols.db");
    make_v4(p);
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(p, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db,
                              "ALTER TABLE run DROP COLUMN ceiling_watts;"
                              " ALTER TABLE zone DROP COLUMN die_count;"
                              " ALTER TABLE zone DROP COLUMN die_mirrored;",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(p, WC_STORE_WRITE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_run_meta m;
    cr_assert_eq(wc_store_get_run(st, &m, &err), 0, "%s", err.msg);
    cr_assert(!m.ceiling_stored);
    cr_assert_eq(m.ceiling_watts, WC_DEFAULT_CEILING_WATTS);
    cr_assert_eq(wc_store_ensure_calibration(st, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_ensure_calibration(st, &err), 0, "twice: %s", err.msg);
    cr_assert_eq(count(st, "PRAGMA user_version"), 5); /* an old run keeps its table: 5, not 6 */
    cr_assert_eq(count(st, "SELECT COUNT(*) FROM pragma_table_info('run')"
                           " WHERE name = 'ceiling_watts'"), 1);
    cr_assert_eq(count(st, "SELECT COUNT(*) FROM pragma_table_info('zone')"
                           " WHERE name IN ('die_count', 'die_mirrored')"), 2);
    cr_assert_eq(wc_store_get_run(st, &m, &err), 0, "%s", err.msg);
    cr_assert(!m.ceiling_stored, "NULL: not stored");
    cr_assert_eq(m.ceiling_watts, WC_DEFAULT_CEILING_WATTS);
    wc_store_close(st);
}
