/*
 * exporter_table.h — the power exporters `--exporter SPEC` can name: for each
 * its prefix, its spec form and help (for messages and --help), and the
 * classifier that gives its series their meaning. Only Kepler for now:
 *   kepler:http://HOST:28282/metrics   Kepler's own /metrics (v0.10+ or legacy names)
 * Adding one: its classifier (a function like wc_kepler_classify, filling a
 * wc_kep_fact) and one row in exporter_table.c.
 *
 * The spec of every exporter is stored with the run and the command line, so
 * it must never hold credentials: wc_exporter_check_spec refuses a URL with
 * user[:password]@ and says where credentials go instead (a token file or
 * the environment, exporter_scrape.h).
 */
#ifndef WC_EXPORTER_TABLE_H
#define WC_EXPORTER_TABLE_H

#include <stddef.h>

#include "collector/exporter/expo_parse.h"
#include "collector/exporter/kepler_metrics.h"
#include "common/wc_error.h"

/* Gives a parsed sample its meaning: 1 and *out filled for a series of this
 * exporter, 0 for another's (wc_kepler_classify). */
typedef int (*wc_exporter_classify_fn)(const wc_expo_sample *s, wc_kep_fact *out);

/* One row of the table. */
typedef struct wc_exporter_kind {
    const char *prefix;          /* "kepler": a spec is PREFIX:URL */
    const char *summary;         /* its spec form, "kepler:URL" */
    const char *help;            /* one sentence for --help, no trailing period */
    wc_exporter_classify_fn classify;
} wc_exporter_kind;

/* The row whose prefix spec starts with ("PREFIX:"), or NULL; *rest (rest
 * may be NULL) then points past "PREFIX:" into spec. */
const wc_exporter_kind *wc_exporter_kind_find(const char *spec, const char **rest);

/* The whole table; *n receives its length (n may be NULL). */
const wc_exporter_kind *wc_exporter_kinds(size_t *n);

/* Every row's summary joined by ", " into buf (cap bytes). Returns buf. */
const char *wc_exporter_summaries(char *buf, size_t cap);

/* Checks a spec without touching the network: a known kind, an http:// or
 * https:// URL with a host, no credentials in it, at most 480 bytes.
 * Returns 0 or -EINVAL with err saying what is wrong and, for credentials,
 * where they go instead. */
int wc_exporter_check_spec(const char *spec, wc_error *err);

/* The provenance of an exporter's numbers, as stored and shown:
 * "exporter kepler v0.11.4 (measured)"; "exporter kepler, version unknown
 * (unknown)" before the build info was read; for wattcal's replay exporter
 * (build_info version "replay...") "replay of <revision> rows (<power
 * source>)", never a real release, and never "(measured)": a replay whose
 * paths say measured reads "(replayed; paths of a measured run)".
 * Into buf (cap bytes). Returns buf. */
const char *wc_exporter_provenance(const char *kind, const char *version, const char *revision,
                                   const char *power_source, char *buf, size_t cap);

#endif
