/*
 * exporter_report.h — what `wattcal validate` says about the exporter that
 * is actually deployed, from its own numbers stored in the run (issue 11;
 * `record --exporter`, `import --prometheus`):
 *
 *  - node vs truth: each zone's node energy (kepler_node_cpu_joules_total,
 *    deltas only: wraps through Δactive + Δidle, resets at a restart are gaps)
 *    and the platform power (kepler_platform_watts, integrated) become node
 *    sources of the accuracy analysis ("exporter#<id>:<zone>", provenance
 *    "exporter kepler <version> (<power source>)"), scored like the meter:
 *    bias, MAE, WAPE, LoA, bootstrap intervals, lag and windows
 *    (exporter_node.c);
 *  - second opinion: the exporter's per-pod, per-container and per-process
 *    energy against the reference model of the run over the same scrape
 *    intervals (pods by uid, containers by id, processes by pid + comm), the
 *    largest disagreements with block-bootstrap intervals over the
 *    intervals (exporter_ref.c);
 *  - invariants over the whole run and the gap split (exporter_check.c);
 *  - the power source (measured / not measured / unknown) and the showback
 *    table: per pod its name, namespace, joules, share of the node and an
 *    error bar (exporter_check.c says how it is derived).
 * Verdicts: PASS, FAIL, or NO VERDICT when too little was checked (the
 * invariant says how many items it checked and how many it needed).
 */
#ifndef WC_EXPORTER_REPORT_H
#define WC_EXPORTER_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"
#include "collector/store/store_exporter.h"
#include "common/wc_error.h"
#include "validator/accuracy.h"
#include "validator/exporter_data.h"
#include "validator/stats.h"

#define WC_XP_MAX 4            /* exporters of one run analysed */
#define WC_XP_MAX_ZONES 16      /* node zones + platform of one exporter (Kepler has 5 + 1) */
#define WC_XP_MAX_INV 56       /* 3 per zone + the run-wide ones */
#define WC_XP_MAX_SHOW 32      /* showback rows (largest pods) */
#define WC_XP_MAX_REF 48       /* second-opinion rows (largest disagreements; 12 per level) */
#define WC_XP_MIN_INTERVALS 3  /* fewer checked intervals: NO VERDICT */

typedef enum wc_xp_verdict { WC_XP_PASS = 0, WC_XP_FAIL, WC_XP_NO_VERDICT } wc_xp_verdict;

/* "PASS", "FAIL", "NO VERDICT". */
const char *wc_xp_verdict_name(wc_xp_verdict v);

/* One invariant of the exporter over the whole run. */
typedef struct wc_xp_invariant {
    char name[64];             /* "total = active + idle", "pod = sum(containers)", ... */
    char zone[32];             /* "" when not per zone */
    size_t checked, violations;
    double worst;              /* largest deviation seen (unit below); NAN none */
    char unit[8];              /* "J", "%", "" */
    char worst_at[160];        /* what and where the worst was */
    wc_xp_verdict verdict;
    char note[160];            /* how it is checked, or why NO VERDICT */
} wc_xp_invariant;

/* The gap split of one zone from the exporter's numbers (run totals, J). */
typedef struct wc_xp_gap {
    char zone[32];
    double total_j, active_j, idle_j, pods_j, outside_j; /* outside = active − Σ pods */
    size_t intervals;
} wc_xp_gap;

/* One pod of the showback table. */
typedef struct wc_xp_show {
    char uid[160], name[128], ns[128];
    double joules, share_pct, err_j; /* err_j: ± J (see exporter_check.c) */
} wc_xp_show;

/* One workload: exporter vs reference model over the same intervals. */
typedef struct wc_xp_ref {
    char level[16], key[160], name[128];
    double exp_j, ref_j;       /* over the intervals both cover */
    wc_ci bias_pct;            /* 100 · (Σ exporter − Σ reference) / Σ reference */
    size_t n;                  /* intervals */
} wc_xp_ref;

/* Everything about one exporter. */
typedef struct wc_xp_one {
    wc_exporter_info info;
    size_t nscrapes, scrapes_ok, nseries, nrestarts, nwraps;
    size_t scrapes_cancelled;  /* error scrapes the run's end cancelled: neither ok nor failed */
    int source_index[WC_XP_MAX_ZONES]; /* accuracy sources added, -1 none */
    char source_zone[WC_XP_MAX_ZONES][32];
    size_t nsources;
    char sources_note[160];    /* zones beyond WC_XP_MAX_ZONES − 1 not scored, "" */
    wc_xp_invariant inv[WC_XP_MAX_INV];
    size_t ninv;
    wc_xp_gap gap[WC_XP_MAX_ZONES];
    size_t ngap;
    char show_zone[32];
    double show_node_j, show_err_pct;
    char show_err_basis[320];  /* how the error bar was derived (and, when its class bias
                                  comes from untrustworthy phases, that warning) */
    wc_xp_show show[WC_XP_MAX_SHOW];
    size_t nshow, show_pods;   /* rows shown, pods with energy */
    wc_xp_ref ref[WC_XP_MAX_REF]; /* per level, the largest |exporter − reference| first;
                                     those within WC_XP_REF_AGREE_J, the largest workload first */
    size_t nref, ref_compared; /* rows kept; workloads compared (every level) */
    size_t ref_agree;          /* of them, within WC_XP_REF_AGREE_J of the reference */
    char ref_model[32], ref_note[200];
    double ref_lag_s;          /* the exporter's refresh lag behind the reference's ticks
                                  (estimated from the node's active energy; NAN none) */
} wc_xp_one;

/* A workload whose exporter and reference energies differ by no more than
 * this (J) agrees: 1 mJ, far above the float noise of differenced µJ
 * counters, far below anything showback would bill. */
#define WC_XP_REF_AGREE_J 1e-3

/* The exporters of a run. */
typedef struct wc_xp_report {
    size_t n;
    wc_xp_one x[WC_XP_MAX];
    wc_xp_data data[WC_XP_MAX];  /* their samples (freed by wc_xp_report_free) */
    size_t skipped;              /* exporters beyond WC_XP_MAX */
    size_t class_untrusted;      /* set before wc_xp_report_finish: phases below the idle
                                    baseline (wc_gap_below_baseline), which make the class
                                    bias in the error bar untrustworthy; 0 none */
} wc_xp_report;

/* Loads the run's exporters (none: r->n 0, not an error) and adds their node
 * sources to acc (before wc_accuracy_score; acc may be NULL: no accuracy).
 * Returns 0, -EIO/-ENOMEM with err. */
int wc_xp_report_load(wc_store *st, wc_accuracy_report *acc, wc_xp_report *r, wc_error *err);

/* After scoring: invariants, gap split, second opinion against model
 * model_id (<= 0: none), showback (node error from acc, class error from
 * class_err_pct: NAN when unknown; its basis says NOT TRUSTWORTHY when
 * r->class_untrusted phases fell below the idle baseline). Returns 0,
 * -EIO/-ENOMEM with err. */
int wc_xp_report_finish(wc_store *st, int64_t model_id, const char *model,
                        const wc_accuracy_report *acc, double class_err_pct,
                        const wc_boot_cfg *boot, wc_xp_report *r, wc_error *err);

void wc_xp_report_free(wc_xp_report *r);

/* ---- parts (one file each) ---- */

/* exporter_node.c: per scrape k the zone's summed values of (level,
 * quantity, zone) series (level "node": device cpu only; "platform": every
 * power supply's kepler_platform_watts) into val[nscrapes], present[k] 1 when
 * every such series has a finite sample at k. Returns how many series matched. */
size_t wc_xp_zone_values(const wc_xp_data *d, const char *level, const char *quantity,
                         const char *zone, double *val, unsigned char *present);

/* exporter_node.c: the zone's node energy per scrape as a cumulative (J)
 * from deltas only: cum[nscrapes], okseg[k] 1 when (k, k+1] is known.
 * *wraps, *resets count what was bridged or cut. Returns 0, -ENOENT (no such
 * series), -ENOMEM. */
int wc_xp_zone_energy(const wc_xp_data *d, const char *zone, double *cum, unsigned char *okseg,
                      size_t *wraps, size_t *resets);

/* exporter_node.c: adds the node sources of one exporter to acc. */
int wc_xp_add_sources(const wc_xp_data *d, wc_accuracy_report *acc, wc_xp_one *x,
                      wc_error *err);

/* exporter_check.c: invariants and gap split. Returns 0 or -ENOMEM. */
int wc_xp_check(const wc_xp_data *d, wc_xp_one *x);

/* exporter_report.c: an error bar (x->show_err_pct finite) built on a class
 * bias from a replay where phases (> 0) drew less than the idle baseline
 * says NOT TRUSTWORTHY at the end of its basis (validate, its JSON and the
 * report print the basis beside the bar); no error bar: unchanged. */
void wc_xp_showback_untrusted(wc_xp_one *x, size_t phases);

/* exporter_check.c: the showback table. */
int wc_xp_showback(const wc_xp_data *d, const wc_accuracy_report *acc, double class_err_pct,
                   wc_xp_one *x);

/* exporter_ref.c: the second opinion against model_id. */
int wc_xp_reference(wc_store *st, int64_t model_id, const char *model, const wc_xp_data *d,
                    const wc_boot_cfg *boot, wc_xp_one *x, wc_error *err);

#endif
