/*
 * truth.h — ground-truth power sources: the node's wall power as an
 * independent meter reports it (a BMC over IPMI or Redfish, a wall meter or
 * PDU log, or a simulated BMC for the demo).
 *
 * Ground truth is slow, averaged, lagged and vendor-specific: a sample keeps
 * everything needed to compare it honestly later — when it was polled
 * (monotonic and wall), the device's own timestamp, the averaging window, the
 * path or sensor that served it, and a status. An unavailable reading is
 * recorded as unavailable with its reason, NEVER as 0 W. Each source is
 * polled on its own thread (collector/truth/truth_poller.c) so a slow BMC never
 * delays the /proc sampler.
 *
 * SPEC forms (`--truth SPEC`, repeatable) are PREFIX:REST, one prefix per
 * source: the sources register in the table of collector/truth/truth_table.c
 * (ipmi, redfish, sim, and file: logs imported after the run), which
 * wc_truth_open looks the prefix up in; this interface names none of them.
 */
#ifndef WC_TRUTH_H
#define WC_TRUTH_H

#include <stddef.h>
#include <stdint.h>

#include "collector/meter/meter.h"
#include "common/wc_error.h"

/* Quality of one ground-truth sample. */
typedef enum wc_truth_status {
    WC_TRUTH_OK = 0,
    WC_TRUTH_STALE,        /* same value and same device timestamp as the previous sample */
    WC_TRUTH_UNAVAILABLE,  /* the device answered but has no valid reading (no reading,
                              deactivated, disabled sensor, null, 65535 W...): reason in error */
    WC_TRUTH_ERROR         /* the device did not answer properly (timeout, HTTP 500, bad JSON) */
} wc_truth_status;

/* "ok", "stale", "unavailable", "error" as stored in the DB. */
const char *wc_truth_status_name(wc_truth_status s);

/* One ground-truth sample. watts/min/max/avg are NAN when not known. */
typedef struct wc_truth_sample {
    int64_t poll_mono_ns;   /* monotonic time the poll completed */
    int64_t poll_wall_ns;   /* wall clock at the same moment (labels, alignment) */
    int64_t device_ts_ns;   /* the device's own timestamp (wall, ns since epoch); 0 unknown */
    double watts;           /* the reading used as ground truth */
    double min_watts, max_watts, avg_watts; /* DCMI/Redfish statistics when reported */
    double window_s;        /* averaging window of `watts` in seconds; 0 instantaneous/unknown */
    int window_known;       /* 1 when window_s comes from the device (IntervalInMin, DCMI period) */
    double stats_window_s;  /* window of min/max/avg when the device states one; 0 unknown */
    char path[160];         /* what served it: "dcmi:instantaneous", "sdr:Pwr Consumption",
                               "sdr:sum(PSU input)", "redfish:EnvironmentMetrics.PowerWatts", ... */
    wc_truth_status status;
    char error[256];        /* reason when not ok (device text is untrusted: stored as data) */
} wc_truth_sample;

/* Settings shared by every source (from CLI flags and the environment). */
typedef struct wc_truth_config {
    int insecure;                  /* --insecure: skip TLS verification (Redfish) */
    int64_t connect_timeout_ns;    /* default 3 s */
    int64_t timeout_ns;            /* whole request / ipmitool run, default 10 s */
    int64_t poll_interval_ns;      /* default 1 s for BMCs */
    const char *password_file;     /* --truth-password-file: password for IPMI/Redfish */
    const char *truth_format;      /* --truth-format csv|ptd for file: sources */
    const char *sysfs_root;        /* for sim (reads the node's RAPL zones) */
    const char *ipmitool;          /* path of ipmitool (default "ipmitool" on PATH) */
} wc_truth_config;

/* Fills cfg with the defaults. */
void wc_truth_config_defaults(wc_truth_config *cfg);

typedef struct wc_truth_source wc_truth_source;

/* The operations every ground-truth source implements. */
typedef struct wc_truth_ops {
    const char *kind;      /* "ipmi", "redfish", "sim", "file" */
    /* Prepares the source (no network I/O that can block long). 0 or -errno. */
    int (*open)(wc_truth_source *s, wc_error *err);
    /* Takes one reading into *out (poll times set by the caller). Returns 0 when
     * the device answered (out->status says ok/unavailable), or -errno for a
     * failure (out->status = WC_TRUTH_ERROR, out->error says why). */
    int (*poll)(wc_truth_source *s, wc_truth_sample *out);
    /* Releases everything (not s itself). */
    void (*close)(wc_truth_source *s);
} wc_truth_ops;

/* A configured source. */
struct wc_truth_source {
    const wc_truth_ops *ops;
    char spec[512];              /* as given on the command line (never holds credentials) */
    wc_provenance provenance;    /* ground truth, or simulated for sim */
    wc_truth_config cfg;
    int64_t poll_interval_ns;
    char description[256];
    void *priv;
    wc_truth_sample last;        /* previous sample, for staleness */
    int have_last;
};

/* Parses a SPEC into s (ops chosen by its prefix in the table of sources,
 * truth_table.h) and calls open. Returns 0, -EINVAL with err naming the spec
 * for a malformed or unknown one (the message lists the known forms), or
 * open's error. */
int wc_truth_open(const char *spec, const wc_truth_config *cfg, wc_truth_source *s,
                  wc_error *err);

/* Polls once: stamps poll times, calls ops->poll, marks a repeated value with
 * the same device timestamp as STALE. Returns ops->poll's result. */
int wc_truth_poll(wc_truth_source *s, wc_truth_sample *out);

/* Closes the source. Safe on a zeroed struct. */
void wc_truth_close(wc_truth_source *s);

/* Reads a secret: the first line of cfg->password_file when set, else the
 * environment variable env_name. Returns 0, or -ENOENT when neither is set
 * (err says which to set), or -errno reading the file. The secret never goes
 * to argv, the DB or a message. */
int wc_truth_secret(const wc_truth_config *cfg, const char *env_name, char *buf, size_t cap,
                    wc_error *err);

#endif
