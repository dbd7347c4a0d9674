/*
 * store_pod_identity.c — the pod_identity table (see store_pod_identity.h).
 */
#include "collector/store/store_pod_identity.h"

#include <sqlite3.h>

#include "collector/store/store_internal.h"

int wc_store_put_pod_identity(wc_store *st, const char *uid, const char *name, const char *ns,
                              const char *source, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st,
                              "INSERT OR REPLACE INTO pod_identity(pod_uid,name,namespace,source)"
                              " VALUES(?,?,?,?)",
                              &s, err, "writing pod_identity");
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, uid, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, name ? name : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, ns ? ns : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 4, source ? source : "", -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : wc_store_fail(st, err, "writing pod_identity");
}

int wc_store_get_pod_identity(wc_store *st, const char *uid, char *name, char *ns, size_t cap,
                              wc_error *err)
{
    sqlite3_stmt *s = NULL;
    name[0] = ns[0] = '\0';
    int rc = wc_store_prepare(st, "SELECT name, namespace FROM pod_identity WHERE pod_uid=?", &s,
                              err, "reading pod_identity");
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, uid, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        wc_store_col_text(s, 0, name, cap);
        wc_store_col_text(s, 1, ns, cap);
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return wc_store_fail(st, err, "reading pod_identity");
    return rc == SQLITE_ROW;
}
