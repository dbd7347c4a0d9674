/*
 * store_procs.c — the readers of processes, containers and pods
 * (store_read.h): the identities the levels pass maps workload rows through,
 * the extent of the process ids, process rows by id for the top lists, and
 * the processes by name the report groups energy by.
 */
#include <string.h>

#include "collector/store/store_iter.h"
#include "collector/store/store_read.h"

int wc_store_container_ids_open(wc_store *st, wc_store_iter **it, wc_error *err)
{
    return wc_store_iter_open(st, "SELECT container_id FROM container UNION SELECT container_id FROM"
                                  " process WHERE container_id != ''",
                              WC_ITER_TEXT, "reading containers and pods", it, err);
}

int wc_store_pod_uids_open(wc_store *st, wc_store_iter **it, wc_error *err)
{
    return wc_store_iter_open(st, "SELECT pod_uid FROM pod UNION SELECT pod_uid FROM process"
                                  " WHERE pod_uid != ''",
                              WC_ITER_TEXT, "reading containers and pods", it, err);
}

int wc_store_process_extent(wc_store *st, int64_t *max_id, int64_t *count, int64_t *min_id,
                            wc_error *err)
{
    sqlite3_stmt *s = NULL;
    *max_id = *count = *min_id = 0;
    int rc = wc_store_prepare(st, "SELECT COALESCE(MAX(id), 0), COUNT(*), COALESCE(MIN(id), 0) FROM process",
                              &s, err, "reading processes");
    if (rc)
        return rc;
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        *max_id = sqlite3_column_int64(s, 0);
        *count = sqlite3_column_int64(s, 1);
        *min_id = sqlite3_column_int64(s, 2);
    }
    sqlite3_finalize(s);
    return step == SQLITE_ROW ? 0 : wc_store_fail(st, err, "reading processes");
}

int wc_store_process_identities_open(wc_store *st, wc_store_iter **it, wc_error *err)
{
    return wc_store_iter_open(st, "SELECT id, container_id, pod_uid FROM process",
                              WC_ITER_PROCESS_IDENTITY, "reading processes", it, err);
}

int wc_store_container_pods_open(wc_store *st, wc_store_iter **it, wc_error *err)
{
    return wc_store_iter_open(st, "SELECT container_id, pod_uid FROM container",
                              WC_ITER_CONTAINER_POD, "reading containers", it, err);
}

int wc_store_identity_next(wc_store_iter *it, wc_identity_row *row, wc_error *err)
{
    int procs = it && it->kind == WC_ITER_PROCESS_IDENTITY;
    int rc = wc_store_iter_step(it, procs ? WC_ITER_PROCESS_IDENTITY : WC_ITER_CONTAINER_POD, err);
    if (rc != 1)
        return rc;
    int c = procs ? 1 : 0;
    row->process_id = procs ? sqlite3_column_int64(it->s, 0) : 0;
    row->container_id = wc_store_col_str(it->s, c);
    row->pod_uid = wc_store_col_str(it->s, c + 1);
    return 1;
}

int wc_store_get_processes(wc_store *st, const int64_t *ids, size_t n, wc_process_row *out,
                           wc_error *err)
{
    if (!n)
        return 0;
    memset(out, 0, n * sizeof *out);
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT pid, starttime, comm, container_id, pod_uid FROM process"
                                  " WHERE id = ?",
                              &s, err, "ranking processes");
    for (size_t k = 0; !rc && k < n; k++) {
        sqlite3_bind_int64(s, 1, ids[k]);
        int step = sqlite3_step(s);
        if (step == SQLITE_ROW) {
            wc_process_row *p = &out[k];
            p->found = 1;
            p->pid = sqlite3_column_int(s, 0);
            p->starttime = (uint64_t)sqlite3_column_int64(s, 1);
            wc_store_col_text(s, 2, p->comm, sizeof p->comm);
            wc_store_col_text(s, 3, p->container_id, sizeof p->container_id);
            wc_store_col_text(s, 4, p->pod_uid, sizeof p->pod_uid);
        } else if (step != SQLITE_DONE) {
            rc = wc_store_fail(st, err, "ranking processes");
        }
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    return rc;
}

int wc_store_process_names_open(wc_store *st, wc_store_iter **it, wc_error *err)
{
    return wc_store_iter_open(st, "SELECT id, comm FROM process ORDER BY comm, id",
                              WC_ITER_PROCESS_NAME, "reading the attributed energy", it, err);
}

int wc_store_process_name_next(wc_store_iter *it, wc_process_name_row *row, wc_error *err)
{
    int rc = wc_store_iter_step(it, WC_ITER_PROCESS_NAME, err);
    if (rc != 1)
        return rc;
    row->id = sqlite3_column_int64(it->s, 0);
    row->comm = wc_store_col_str(it->s, 1);
    return 1;
}
