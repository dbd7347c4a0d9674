/*
 * store_pod_identity.h — pod names and namespaces for pod uids (schema
 * version 5, table pod_identity; docs/schema.md): a pod is known by its uid
 * in /proc/<pid>/cgroup, its name and namespace come from the exporter's
 * labels or the kubelet's pod list (`wattcal serve --kubelet`).
 */
#ifndef WC_STORE_POD_IDENTITY_H
#define WC_STORE_POD_IDENTITY_H

#include <stddef.h>

#include "collector/store/store.h"
#include "common/wc_error.h"

/* Records uid's name and namespace, learnt from source ("exporter" or
 * "kubelet"); a later call for the same uid replaces it. Untrusted text is
 * bound as parameters. Returns 0, or -EIO with err naming the run file. */
int wc_store_put_pod_identity(wc_store *st, const char *uid, const char *name, const char *ns,
                              const char *source, wc_error *err);

/* uid's name and namespace into name/ns (cap bytes each). Returns 1 when
 * known, 0 when not (both ""), -EIO with err. */
int wc_store_get_pod_identity(wc_store *st, const char *uid, char *name, char *ns, size_t cap,
                              wc_error *err);

#endif
