/*
 * runner.h — `wattcal run`: replay a scenario while the collector records.
 *
 * The recorder (collector/recorder.c) runs on its own thread; once its first
 * tick is committed, the scenario's phases run one after another, each
 * repetition starting its workloads (workloads/spawn.c) in their own process
 * groups. After each repetition the phase (name, class, monotonic and wall
 * bounds, repetition) and each workload's known answer (true CPU time from
 * wait4 rusage of its whole subtree, its process group and leaders, crashes,
 * the code path it ran) are written through a second connection to the same
 * run database. A stop request (SIGINT/SIGTERM) kills the running workloads'
 * process groups, then stops the recorder; the workers die with this process
 * anyway (parent-death signal), so nothing is left running.
 */
#ifndef WC_RUNNER_H
#define WC_RUNNER_H

#include <signal.h>

#include "collector/recorder.h"
#include "common/wc_error.h"
#include "workloads/scenario.h"

/* What one run did. */
typedef struct wc_run_result {
    wc_record_result record;
    int phases_done;            /* phase repetitions completed */
    int workloads;              /* workloads started */
    int crashed;                /* workers that crashed (recorded, not fatal) */
} wc_run_result;

/* Replays scenario sc while recording with rec (rec->duration_ns is set to
 * cover the scenario; rec->on_first_tick is used internally). Returns 0,
 * -EINTR when stopped early (everything recorded so far is kept), or the
 * recorder's / store's error with err set. */
int wc_run_scenario(const wc_scenario *sc, wc_record_opts *rec, volatile sig_atomic_t *stop,
                    wc_run_result *res, wc_error *err);

#endif
