/*
 * truth_table.h — the table of ground-truth sources `--truth SPEC` can name:
 * for each its prefix, the constructor that reads the rest of the spec, and
 * the spec forms it accepts (for messages and help).
 *
 * The interface (truth.h, truth.c) knows no source: wc_truth_open looks the
 * spec's prefix up here. The sources register in truth_table.c:
 *   ipmi:local                      in-band ipmitool (truth_ipmi.c)
 *   ipmi:lanplus://HOST[:PORT]      out-of-band, credentials from env or file
 *   redfish:https://HOST[:PORT]     Redfish over libcurl (truth_redfish.c)
 *   sim[:PARAMS]                    simulated BMC over the node's RAPL zones (truth_sim.c)
 *   file:PATH                       a wall-meter/PDU/PTDaemon log, not polled: the
 *                                   recorder imports it after the run (truth_file.c)
 * Adding a source: its truth_<name>.c with a constructor declared below, and
 * one line in truth_table.c.
 */
#ifndef WC_TRUTH_TABLE_H
#define WC_TRUTH_TABLE_H

#include <stddef.h>

#include "collector/truth/truth.h"
#include "common/wc_error.h"

/* A source's constructor: fills s->ops/priv/description from the part of the
 * spec after "PREFIX:" ("" for a bare PREFIX). 0, or -errno with err set. */
typedef int (*wc_truth_init_fn)(wc_truth_source *s, const char *rest, wc_error *err);

/* One row of the table. */
typedef struct wc_truth_kind {
    const char *prefix;     /* "ipmi", "redfish", "sim", "file": a spec is PREFIX:REST */
    int bare_ok;            /* 1 when PREFIX alone is a whole spec ("sim") */
    wc_truth_init_fn init;  /* NULL: a source that is not polled (file: logs are imported
                               after the run), which wc_truth_open refuses */
    const char *summary;    /* its spec forms, e.g. "ipmi:local, ipmi:lanplus://HOST[:PORT]" */
    const char *help;       /* what it is, for --help (one sentence, no trailing period) */
} wc_truth_kind;

/* The row whose prefix spec starts with (PREFIX followed by ':', or PREFIX
 * alone when bare_ok), or NULL; *rest (rest may be NULL) then points past
 * "PREFIX:" into spec, or at "" for a bare PREFIX. */
const wc_truth_kind *wc_truth_kind_find(const char *spec, const char **rest);

/* The whole table, in message order; *n receives its length (n may be NULL). */
const wc_truth_kind *wc_truth_kinds(size_t *n);

/* Every row's summary joined by ", " ("ipmi:local, ..., sim, file:PATH")
 * into buf (cap bytes, truncated when short). Returns buf. */
const char *wc_truth_summaries(char *buf, size_t cap);

/* The constructors the table registers (each in its own file). */
int wc_truth_ipmi_init(wc_truth_source *s, const char *target, wc_error *err);
int wc_truth_redfish_init(wc_truth_source *s, const char *url, wc_error *err);
int wc_truth_sim_init(wc_truth_source *s, const char *args, wc_error *err);

/* For a truth spec "sim" or "sim:PARAMS": the simulated BMC's warm-up (lag +
 * window, s: no reading before it) and how long a recording must last for
 * min_n distinct readings (lag + window + min_n x period: one period of
 * margin). Returns 1 for a valid sim spec (outputs set), else 0. */
int wc_truth_sim_timing(const char *spec, int min_n, double *warmup_s, double *min_record_s);

/* For a sim truth spec, appends to the text in buf (cap bytes) how long to
 * record for min_n readings: "; the simulated BMC's first reading comes after
 * ~12 s, then one every 5 s: record at least 37 s". Other specs: unchanged. */
void wc_truth_sim_record_hint(const char *spec, int min_n, char *buf, size_t cap);

#endif
