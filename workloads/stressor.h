/*
 * stressor.h — built-in stress workloads run in-process.
 *
 * The foundation ships two classes, enough for `make demo`: `cpu`, a scalar
 * floating/integer loop that keeps one CPU busy, and `idle`, an
 * idle-but-resident agent that touches its memory once and sleeps. Scenario
 * replay (phases, AVX, membound, bursts) builds on these in later work.
 */
#ifndef WC_STRESSOR_H
#define WC_STRESSOR_H

#include <signal.h>
#include <stdint.h>

#include "common/wc_error.h"

typedef enum wc_stress_class { WC_STRESS_CPU = 0, WC_STRESS_IDLE } wc_stress_class;

/* Parses "cpu" / "idle". Returns 0 or -EINVAL. */
int wc_stress_class_parse(const char *name, wc_stress_class *out);

/* Renames the calling process (comm) to wattcal-cpu / wattcal-idle, then
 * runs one stressor in the calling thread until duration_ns (monotonic)
 * elapses or *stop is set. resident_bytes: memory held by `idle` (touched
 * page by page so it is really resident). Returns 0, or -ENOMEM with err. */
int wc_stress_run(wc_stress_class cls, int64_t duration_ns, size_t resident_bytes,
                  volatile sig_atomic_t *stop, wc_error *err);

#endif
