/*
 * import_internal.h — what the importers of collector/import/ share, and
 * nothing outside this folder includes: the in-memory run an importer
 * builds (ticks, zone readings, utilisation, truth series, phases), checked
 * line by line, and the one function that writes it into a new run DB in one
 * transaction (import_run.c). Each importer (import_csv.c, import_gmt.c)
 * only parses its input into an imp_run.
 */
#ifndef WC_IMPORT_INTERNAL_H
#define WC_IMPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "collector/import/import.h"
#include "collector/meter/meter.h"
#include "collector/truth/truth.h"
#include "common/wc_clock.h"
#include "common/wc_error.h"

#define MAX_TRUTH 8
#define WC_IMPORT_MIN_WALL_NS (946684800LL * WC_NS_PER_S) /* 2000-01-01T00:00:00Z */
#define MAX_NOTED 5          /* refused samples listed one by one, then counted */
/* Room for a cell quoted in a message (40 bytes, or 40 and "..."). */
#define QUOTE_CAP 44

/* One imported ground-truth series. */
typedef struct imp_truth {
    char spec[512], desc[256];
    wc_truth_sample *s;
    size_t n, cap;
} imp_truth;

/* One labelled phase (wall times, ns). */
typedef struct imp_phase {
    char name[128], cls[16];
    int64_t start_wall_ns, end_wall_ns;
    int repetition;
} imp_phase;

/* A run being imported: the ticks' readings are nticks x nzones, row-major. */
typedef struct imp_run {
    size_t nticks, cap;
    int64_t *wall_ns;
    double *util_pct;              /* NAN when unknown */
    wc_reading *rd;
    size_t nzones;
    wc_zone zones[WC_IMPORT_MAX_COLS];
    imp_truth truth[MAX_TRUTH];
    size_t ntruth;
    imp_phase *ph;
    size_t nph, phcap;
    char host[256], cpu_model[256], meter_desc[256];
    wc_import_summary *sum;
    size_t notes_used;
} imp_run;


/* Frees everything the run holds (not r itself). */
void imp_run_free(imp_run *r);

/* Appends one line (printf format) to the import summary's notes (cut at
 * the notes' capacity). */
void imp_note(imp_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sets err to "out of memory importing"; returns -ENOMEM. */
int imp_oom(wc_error *err);

/* Appends a tick at wall_ns (every zone reading -ENODATA until filled, its
 * utilisation NAN). Returns 0 or -ENOMEM. */
int imp_add_tick(imp_run *r, int64_t wall_ns, wc_error *err);

/* The reading of zone at tick (row-major nticks x nzones). */
wc_reading *imp_reading(imp_run *r, size_t tick, size_t zone);

/* Appends an empty sample (values NAN) to a truth series; NULL on ENOMEM
 * (err set). */
wc_truth_sample *imp_add_truth_sample(imp_truth *t, wc_error *err);

/* Appends a labelled phase (wall ns). Returns 0 or -ENOMEM. */
int imp_add_phase(imp_run *r, const char *name, const char *cls, int64_t start_wall_ns,
                  int64_t end_wall_ns, wc_error *err);

/* Fills a zone description (counter or gauge) for an imported column:
 * top-level, enabled, range unknown. */
void imp_zone_init(wc_zone *z, const char *name, int socket, const char *raw_name,
                   const char *path, wc_reading_kind kind);

/* Adds a zone (before the first tick), numbering its occurrence within
 * (name, socket). Returns 0, or -EINVAL when full or after ticks. */
int imp_add_zone(imp_run *r, const wc_zone *z, wc_error *err);

/* qsort comparator of doubles, ascending. */
int imp_cmp_double(const void *a, const void *b);

/* Median spacing of the run's ticks in ns (0 with fewer than 2). */
int64_t imp_median_interval_ns(const imp_run *r);

/* Checks the run has at least 2 instants, fills the summary and writes the
 * new run DB in one transaction (nothing is left behind on failure). what
 * names the input in messages. Returns 0, -ENODATA, or a store error. */
int imp_finish_import(imp_run *r, const wc_import_target *t, const char *what,
                      wc_error *err);

#endif
