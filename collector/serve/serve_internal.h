/*
 * serve_internal.h — the state behind serve_state.h, shared by its updater
 * (serve_state.c, serve_workloads.c) and its renderer (serve_render.c).
 * Private to collector/serve/.
 */
#ifndef WC_SERVE_INTERNAL_H
#define WC_SERVE_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/exporter/exporter_scrape.h"
#include "collector/serve/serve_state.h"

#define SERVE_ZONES 8            /* node zone names kept (package, core, uncore, dram, psys) */

enum { SV_PROCESS = 0, SV_CONTAINER, SV_POD, SV_LEVELS };
enum { SV_IDLE = 0, SV_UNATTRIBUTED, SV_OVER, SV_KINDS };

/* One workload (a process, container or pod) as exposed. */
typedef struct serve_wl {
    int level;                   /* SV_* */
    char key[96];                /* process "pid/starttime"; container id; pod uid */
    char pid[16], comm[64], container_id[96], pod_id[64];
    int running;                 /* 0: state="terminated" */
    int64_t last_seen_ns;        /* monotonic */
    double total_j[SERVE_ZONES], watts[SERVE_ZONES];
} serve_wl;

/* A pod's name and namespace (exporter labels or the kubelet). */
typedef struct serve_ident {
    char uid[64], name[256], ns[128];
    const char *source;          /* "exporter" or "kubelet" */
} serve_ident;

/* One node zone as the model saw it, and its gap per level and kind. */
typedef struct serve_node {
    char zone[32];
    double counter_j, active_j, idle_j, watts, active_w, idle_w;
    double gap_j[SV_LEVELS][SV_KINDS], gap_w[SV_LEVELS][SV_KINDS];
} serve_node;

/* One meter zone (per socket), wattcal's counter rule. */
typedef struct serve_meter {
    char zone[32];
    char socket[16];
    double energy_j, watts;      /* watts NaN when the last interval was unusable */
} serve_meter;

/* One ground-truth source. */
typedef struct serve_truth {
    char spec[512], kind[16];
    const char *provenance;      /* "ground_truth" or "simulated" */
    double watts;
    int have;                    /* watts set by an ok sample */
    int64_t count[4];            /* per wc_truth_status */
} serve_truth;

/* One pod's power as the exporter reported it. */
typedef struct serve_xpod {
    char pod_id[64], zone[32];
    double watts;
} serve_xpod;

/* One exporter's last scrape, as far as serve uses it. */
typedef struct serve_exporter {
    int seen, up;
    char source[16];             /* its power source ("measured", "not measured", "unknown") */
    size_t nnode;
    char zone[SERVE_ZONES][32];
    double node_w[SERVE_ZONES];
    serve_xpod *pods;
    size_t npods;
} serve_exporter;

struct wc_serve_state {
    pthread_mutex_t mu;
    char node_name[128], version[32], model[32];
    int64_t expire_ns;
    size_t max_workloads;
    char meter_kind[32];
    const char *provenance;      /* the meter's, as a label value */
    int64_t ticks, last_mono_ns;
    int have_node;               /* a tick after the first was folded */
    double ratio;
    size_t nnode;
    serve_node node[SERVE_ZONES];
    serve_meter *meter;
    size_t nmeter;
    serve_truth *truth;
    size_t ntruth;
    serve_wl *wl;                /* sorted by (level, key) */
    size_t nwl;
    int64_t expired[SV_LEVELS], dropped[SV_LEVELS];
    serve_ident *ident;          /* sorted by uid */
    size_t nident;
    serve_exporter xp[WC_EXPORTER_MAX];
    char xspec[WC_EXPORTER_MAX][256];
    size_t nxp;
};

/* "process", "container", "pod"; "idle", "unattributed", "over". */
extern const char *const wc_serve_level_names[SV_LEVELS];
extern const char *const wc_serve_kind_names[SV_KINDS];

/* Folds the tick's workloads into s->wl (expiry, cap). -ENOMEM leaves s->wl
 * as it was. Called with the lock held. */
int wc_serve_fold_workloads(wc_serve_state *s, const wc_record_tick *t);

/* The pod identity for uid, or NULL; with the lock held. */
const serve_ident *wc_serve_find_ident(const wc_serve_state *s, const char *uid);

/* Index of the node zone named zone, or -1. */
int wc_serve_zone_index(const wc_serve_state *s, const char *zone);

#endif
