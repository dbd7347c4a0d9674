/*
 * scenario.h — scenario files: a named, seeded sequence of phases, each
 * running a set of stress workloads for a duration (docs/scenarios.md).
 *
 * A scenario is a human-editable YAML document (parsed with libyaml):
 *
 *   name: quick
 *   seed: 1
 *   phases:
 *     - name: idle-baseline
 *       duration: 10s
 *     - name: cpu
 *       duration: 10s
 *       workloads:
 *         - {class: cpu, workers: 1}
 *
 * Workload fields use the names and ranges of `wattcal stress`. Parsing is
 * strict: unknown or duplicate keys, wrong types, unknown classes and
 * out-of-range values are rejected with a message naming the origin, the line
 * and the field, e.g.
 *   scenario.yaml:7: phases[1].workloads[0].duty: 150 is outside 1..100
 * Built-in scenarios (quick, runbook, steps, burst) are embedded strings.
 */
#ifndef WC_SCENARIO_H
#define WC_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"
#include "workloads/spawn.h"
#include "workloads/stressor.h"

#define WC_SCENARIO_NAME_MAX 64   /* names: 1..63 bytes, no control characters */
#define WC_SCENARIO_LABEL_MAX 32  /* phase class labels: 1..31 bytes */
#define WC_SCENARIO_MAX_PHASES 4096
#define WC_SCENARIO_MAX_WORKLOADS 64   /* per phase */
#define WC_SCENARIO_MAX_REPETITIONS 100000
#define WC_SCENARIO_MAX_BYTES ((size_t)1 << 20) /* largest scenario file */
/* workers: "all" — one worker per online CPU, resolved when the phase runs. */
#define WC_SCENARIO_WORKERS_ALL 0

/* One workload of a phase (a `wattcal stress` invocation). */
typedef struct wc_scenario_workload {
    wc_stress_class cls;   /* class: cpu|avx|membound|idle|burst (required) */
    int workers;           /* 1..WC_WORKLOAD_MAX_WORKERS, or WC_SCENARIO_WORKERS_ALL
                              ("all"); default 1 */
    int duty_pct;          /* 1..100, default 100 (not for idle/burst) */
    long resident_mb;      /* idle/membound: 0..1048576 MiB; -1 = not given (the
                              class default: idle 64, membound 256) */
    int count;             /* burst: children per worker, 1..1000000, default 200 */
    int64_t child_cpu_ns;  /* burst: CPU each child burns, >= 0, default 50 ms */
    int batch;             /* burst: children at once, 1..WC_BURST_MAX_BATCH, default 1 */
    wc_workload_backend backend; /* backend: wattcal|stress-ng, default wattcal */
    int line;              /* line of the workload in its source (1-based) */
} wc_scenario_workload;

typedef struct wc_scenario_phase {
    char name[WC_SCENARIO_NAME_MAX];   /* required */
    char label[WC_SCENARIO_LABEL_MAX]; /* `class:`; default derived: "idle" with no
                                          workloads, the class when every workload
                                          has the same one, "mixed" otherwise */
    int64_t duration_ns;               /* required, > 0: length of one repetition */
    int repetitions;                   /* 1..WC_SCENARIO_MAX_REPETITIONS, default 1 */
    int n_workloads;                   /* 0 = an idle phase (nothing started) */
    wc_scenario_workload *workloads;
    int line;
} wc_scenario_phase;

typedef struct wc_scenario {
    char name[WC_SCENARIO_NAME_MAX]; /* required */
    uint64_t seed;                   /* default 1 */
    int n_phases;                    /* >= 1 */
    wc_scenario_phase *phases;
    char origin[256];                /* file path, or "builtin:<name>" */
} wc_scenario;

/* Parses the YAML text [text, text+len) into *out (zeroed first; free with
 * wc_scenario_free). origin names the text in messages (a path, or
 * "builtin:quick"). Returns 0, or -EINVAL with err as
 * "<origin>:<line>: <field>: <what>" (out is then empty; freeing it is
 * harmless). */
int wc_scenario_parse(const char *text, size_t len, const char *origin, wc_scenario *out,
                      wc_error *err);

/* Loads a built-in scenario by name (wc_scenario_builtin_names) or, when
 * name_or_path is not one, the YAML file at that path (write "./quick" for a
 * file that shares a built-in's name). Returns 0; -EINVAL as
 * wc_scenario_parse; -errno when the file cannot be read (err names it and
 * lists the built-ins); -EFBIG above WC_SCENARIO_MAX_BYTES. */
int wc_scenario_load(const char *name_or_path, wc_scenario *out, wc_error *err);

/* Releases what a parse/load allocated and zeroes *s. NULL-safe. */
void wc_scenario_free(wc_scenario *s);

/* NULL-terminated list of the built-in names: quick, runbook, steps, burst. */
const char *const *wc_scenario_builtin_names(void);

/* The YAML text of a built-in, or NULL for an unknown name. */
const char *wc_scenario_builtin_text(const char *name);

/* Total run time: sum over phases of duration_ns x repetitions (parse
 * guarantees it fits in int64). 0 for NULL. */
int64_t wc_scenario_total_ns(const wc_scenario *s);

/* Fills every field of spec from the workload, for one repetition of
 * duration_ns. WC_SCENARIO_WORKERS_ALL becomes ncpus
 * clamped to 1..WC_WORKLOAD_MAX_WORKERS; resident_mb -1 becomes
 * resident_bytes 0 (the class default); backend is copied. exe is NULL. */
void wc_scenario_workload_spec(const wc_scenario_workload *w, int64_t duration_ns, int ncpus,
                               wc_workload_spec *spec);

#endif
