/*
 * runner.c — scenario replay beside a recording (see runner.h).
 */
#include "workloads/runner.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector/store/store.h"
#include "common/wc_clock.h"
#include "common/wc_text.h"
#include "workloads/avx.h"
#include "workloads/spawn.h"

/* State shared between the recorder thread and the scenario. */
typedef struct run_ctx {
    wc_record_opts *rec;
    volatile sig_atomic_t rec_stop;
    wc_record_result rec_res;
    wc_error rec_err;
    int rec_rc;
    int started, finished;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    const wc_scenario *sc;
    _Atomic int phase, rep;      /* the phase running (index, repetition), for progress */
} run_ctx;

/* The recorder's progress line: "NAME (P/N)" or "NAME #K (P/N)" (record
 * thread; the scenario thread moves phase and rep). */
static void phase_label(void *arg, char *buf, size_t cap)
{
    run_ctx *c = arg;
    int p = c->phase, k = c->rep;
    if (!c->sc || p < 0 || p >= c->sc->n_phases) {
        buf[0] = '\0';
        return;
    }
    const wc_scenario_phase *ph = &c->sc->phases[p];
    if (ph->repetitions > 1)
        snprintf(buf, cap, "%s #%d (%d/%d)", ph->name, k, p + 1, c->sc->n_phases);
    else
        snprintf(buf, cap, "%s (%d/%d)", ph->name, p + 1, c->sc->n_phases);
}

static void on_first_tick(void *arg)
{
    run_ctx *c = arg;
    pthread_mutex_lock(&c->lock);
    c->started = 1;
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
}

static void *record_thread(void *arg)
{
    run_ctx *c = arg;
    c->rec_rc = wc_record(c->rec, &c->rec_stop, &c->rec_res, &c->rec_err);
    pthread_mutex_lock(&c->lock);
    c->finished = 1;
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Waits until the recorder committed its first tick (1) or ended (0). */
static int wait_started(run_ctx *c)
{
    pthread_mutex_lock(&c->lock);
    while (!c->started && !c->finished)
        pthread_cond_wait(&c->changed, &c->lock);
    int ok = c->started && !c->finished;
    pthread_mutex_unlock(&c->lock);
    return ok;
}

/* Sleeps until the monotonic deadline, waking early on stop or on the
 * recorder ending. Returns 1 when interrupted. */
static int sleep_until(run_ctx *c, int64_t deadline_ns, volatile sig_atomic_t *stop)
{
    while (!*stop && !c->finished) {
        int64_t left = deadline_ns - wc_mono_ns();
        if (left <= 0)
            return 0;
        int64_t step = left < 100000000 ? left : 100000000;
        struct timespec ts = {.tv_sec = step / WC_NS_PER_S, .tv_nsec = step % WC_NS_PER_S};
        nanosleep(&ts, NULL);
    }
    return 1;
}

/* "pid:starttime,..." of a workload's leaders. */
static void leaders_text(const wc_workload *h, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < h->n; i++)
        wc_append(buf, cap, &used, "%s%d:%llu", i ? "," : "", (int)h->pid[i],
                  (unsigned long long)h->starttime[i]);
}

/* Runs one repetition of a phase: starts its workloads, waits for them (they
 * stop at the phase's end by themselves), writes the phase and the known
 * answers. Returns 0, -EINTR on stop, or -errno. */
static int run_phase(run_ctx *c, wc_store *st, const wc_scenario_phase *ph, int rep,
                     volatile sig_atomic_t *stop, wc_run_result *res, wc_error *err)
{
    wc_workload *h[WC_SCENARIO_MAX_WORKLOADS] = {0};
    int n = 0, rc = 0;
    long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t start_mono = wc_mono_ns(), start_wall = wc_wall_ns();
    for (; n < ph->n_workloads && !rc; n++) {
        wc_workload_spec spec;
        wc_scenario_workload_spec(&ph->workloads[n], ph->duration_ns, (int)(ncpus > 0 ? ncpus : 1),
                                  &spec);
        h[n] = wc_workload_start(&spec, err);
        if (!h[n])
            rc = -EIO;
    }
    if (rc)
        n--;
    res->workloads += n;
    int interrupted = rc ? 0 : sleep_until(c, start_mono + ph->duration_ns, stop);
    for (int i = 0; i < n; i++) {
        if (interrupted || rc)
            wc_workload_kill(h[i], WC_NS_PER_S);
        else if (wc_workload_wait(h[i], stop) != 0)
            wc_workload_kill(h[i], WC_NS_PER_S);
    }
    int64_t end_mono = wc_mono_ns(), end_wall = wc_wall_ns();
    int wrc = wc_store_put_phase(st, ph->name, ph->label, start_mono, end_mono, start_wall,
                                 end_wall, rep, err);
    int64_t phase_id = wrc ? 0 : wc_store_last_insert_id(st);
    for (int i = 0; i < n && !wrc; i++) {
        char leaders[2048];
        leaders_text(h[i], leaders, sizeof leaders);
        const wc_scenario_workload *w = &ph->workloads[i];
        wrc = wc_store_put_workload(st, phase_id, wc_stress_class_name(w->cls), h[i]->n, w->duty_pct,
                                    h[i]->pgid, leaders, h[i]->user_ns, h[i]->sys_ns,
                                    h[i]->crashed, h[i]->crash_signal, h[i]->failed,
                                    w->cls == WC_STRESS_AVX ? wc_avx_variant_name(wc_avx_detect()) : "", err);
        res->crashed += h[i]->crashed;
    }
    for (int i = 0; i < n; i++)
        wc_workload_free(h[i]);
    if (rc || wrc)
        return rc ? rc : wrc;
    return interrupted ? -EINTR : 0;
}

static int run_phases(run_ctx *c, const wc_scenario *sc, volatile sig_atomic_t *stop,
                      wc_run_result *res, wc_error *err)
{
    wc_store *st = wc_store_open(c->rec->db_path, WC_STORE_WRITE, err);
    if (!st)
        return -EIO;
    int rc = 0;
    for (int p = 0; p < sc->n_phases && !rc; p++)
        for (int k = 1; k <= sc->phases[p].repetitions && !rc; k++) {
            c->phase = p;
            c->rep = k;
            rc = run_phase(c, st, &sc->phases[p], k, stop, res, err);
            if (!rc)
                res->phases_done++;
        }
    wc_store_close(st);
    return rc;
}

int wc_run_scenario(const wc_scenario *sc, wc_record_opts *rec, volatile sig_atomic_t *stop,
                    wc_run_result *res, wc_error *err)
{
    memset(res, 0, sizeof *res);
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.rec = rec;
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.changed, NULL);
    /* Record a little past the scenario; the scenario's end stops it anyway. */
    rec->duration_ns = wc_scenario_total_ns(sc) + 3600 * WC_NS_PER_S;
    rec->on_first_tick = on_first_tick;
    rec->ctx = &c;
    rec->planned_ns = wc_scenario_total_ns(sc);
    rec->phase_label = phase_label;
    c.sc = sc;
    c.phase = -1;
    pthread_t th;
    int rc = pthread_create(&th, NULL, record_thread, &c);
    if (rc)
        return wc_error_set(err, -rc, "cannot start the recorder thread: %s", strerror(rc));
    rc = wait_started(&c) ? run_phases(&c, sc, stop, res, err) : 0;
    c.rec_stop = 1;
    pthread_join(th, NULL);
    res->record = c.rec_res;
    if (c.rec_rc) { /* the recorder's failure explains everything else */
        if (err)
            *err = c.rec_err;
        rc = c.rec_rc;
    }
    pthread_cond_destroy(&c.changed);
    pthread_mutex_destroy(&c.lock);
    return rc;
}
