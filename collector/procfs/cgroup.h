/*
 * cgroup.h — container, pod and runtime identification from /proc/<pid>/cgroup.
 *
 * Table-driven matching of each line's path (text after the SECOND ':' — the
 * path itself may contain ':'), cgroup v1 and v2, relative "/../.." paths
 * (cgroup namespaces). Among all matches the innermost (deepest) id wins, as
 * in Kepler's internal/resource/container.go (kepler-model.md §3.3); runtimes:
 * docker (systemd scope and cgroupfs), containerd (cri-containerd scope and
 * "slice:cri-containerd:<id>"), cri-o (crio-<id>.scope; crio-conmon-<id> is
 * the runtime monitor, not a container), podman (libpod-<id>.scope[/container];
 * libpod-conmon-<id> is its monitor), kubepods cgroupfs with and without a QoS
 * dir. Pod UIDs in systemd slice names use '_' for '-' and are converted back;
 * a static pod's UID is its 32-hex config hash (pixie-io/pixie#399), kept as is.
 */
#ifndef WC_CGROUP_H
#define WC_CGROUP_H

#include <stddef.h>

#include "common/wc_error.h"

/* What a cgroup file says about a process. Empty strings mean "none". */
typedef struct wc_cgroup_info {
    char runtime[16];       /* "docker","containerd","crio","podman", or "" when unknown: also for
                             * kubepods cgroupfs leaves without a runtime prefix
                             * (/kubepods/[qos/]pod<uid>/<64hex>), whose ids are still filled */
    char container_id[65];  /* 64 lowercase hex, or "" when not a container */
    char pod_uid[37];       /* 8-4-4-4-12 with '-'; or, for a static or mirror pod, the 32
                             * lowercase hex of the kubelet's config hash (its slice has no
                             * dashes to restore); or "" */
    char qos[16];           /* "guaranteed" (kubepods path without a QoS dir/slice), "burstable",
                             * "besteffort"; "" when there is no pod */
    int is_runtime_monitor; /* 1 for conmon (crio-conmon-/libpod-conmon-): container_id names the container it monitors */
    char path[512];         /* the path of the line the match came from; without a container, the
                             * line naming a pod, else the first v2/unified ("0::") path, else the
                             * first line's path (truncated to fit) */
} wc_cgroup_info;

/* The ids of a wc_cgroup_info without its path: what a process keeps for its
 * whole life (proc_scan.h; the path is interned there). Same fields, same
 * meaning. */
typedef struct wc_cgroup_ids {
    char runtime[16];
    char container_id[65];
    char pod_uid[37];
    char qos[16];
    int is_runtime_monitor;
} wc_cgroup_ids;

/* Copies the ids of in (everything but the path) into out. */
void wc_cgroup_ids_of(const wc_cgroup_info *in, wc_cgroup_ids *out);

/* Parses the text of a /proc/<pid>/cgroup file ([text, text+len), need not
 * be NUL-terminated; empty lines skipped). The pod UID and QoS are taken from
 * the kubepods components above the winning id (or, with no container, from
 * the first line naming a pod). Returns 0 (a host process simply yields
 * empty ids); -EINVAL with err naming `origin` and the line for a line
 * without two ':' separators (out is then all empty). */
int wc_cgroup_parse(const char *text, size_t len, const char *origin,
                    wc_cgroup_info *out, wc_error *err);

#endif
