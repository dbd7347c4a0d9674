/*
 * truth_sim.c — a SIMULATED BMC for machines without one (the demo, CI).
 *
 * It reads the node's RAPL zones through the normal RAPL reader (on the sim
 * node that is the simulated powercap tree) and publishes what a BMC would:
 *   wall_W = (Σ package + dram over the averaging window + base_W) / efficiency
 * computed over [t − lag − window, t − lag], republished only every
 * update period (in between the same value and device timestamp: stale),
 * quantised and with seeded Gaussian noise. All parameters come from the spec
 * (`sim:lag=2,window=10,period=5,eff=0.92,base=40,quant=1,noise=0.5,seed=7`)
 * and are written into the source description, which the DB stores.
 * Provenance is "simulated": never presented as ground truth.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/meter/counter.h"
#include "collector/meter/meter_rapl.h"
#include "collector/truth/truth.h"
#include "collector/truth/truth_table.h"
#include "common/wc_clock.h"
#include "common/wc_fs.h"

#define SIM_HISTORY 4096

/* The simulated BMC's behaviour. */
typedef struct sim_bmc_params {
    double lag_s, window_s, period_s, efficiency, base_watts, quant_watts, noise_watts;
    uint64_t seed;
} sim_bmc_params;

/* Cumulative node (package + dram) energy at one instant. */
typedef struct energy_point {
    int64_t mono_ns;
    double joules;
} energy_point;

typedef struct sim_bmc {
    sim_bmc_params p;
    wc_meter meter;
    int meter_open;
    wc_reading *prev, *cur;
    int have_prev;
    double cum_joules;
    energy_point hist[SIM_HISTORY];
    size_t nhist, head;
    int64_t start_mono_ns, last_update_ns;
    double published_watts;
    int64_t published_wall_ns;
    int have_published;
    uint64_t rng;
} sim_bmc;

/* One spec parameter: its name, where it goes, and its accepted range. */
typedef struct sim_param_def {
    const char *key;
    size_t offset;
    double min, max;
} sim_param_def;

#define SIM_PARAM(k, field, lo, hi) {k, offsetof(sim_bmc_params, field), lo, hi}
static const sim_param_def SIM_PARAMS[] = {
    SIM_PARAM("lag", lag_s, 0, 3600),          SIM_PARAM("window", window_s, 0.01, 86400),
    SIM_PARAM("period", period_s, 0.01, 86400), SIM_PARAM("eff", efficiency, 0.01, 1),
    SIM_PARAM("base", base_watts, 0, 100000),  SIM_PARAM("quant", quant_watts, 0, 1000),
    SIM_PARAM("noise", noise_watts, 0, 1000),
};

/* Parses "key=value,..." into p; every key at most once, every value in range. */
static int parse_params(const char *args, sim_bmc_params *p, wc_error *err)
{
    *p = (sim_bmc_params){.lag_s = 2, .window_s = 10, .period_s = 5, .efficiency = 0.92,
                          .base_watts = 40, .quant_watts = 1, .noise_watts = 0.5, .seed = 7};
    char buf[256];
    if (args && strlen(args) >= sizeof buf)
        return wc_error_set(err, -EINVAL, "--truth sim: parameters too long");
    snprintf(buf, sizeof buf, "%s", args ? args : "");
    unsigned seen = 0;
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return wc_error_set(err, -EINVAL, "--truth sim: expected key=value, got '%.40s'", kv);
        *eq = '\0';
        const char *val = eq + 1;
        if (!strcmp(kv, "seed")) {
            uint64_t seed = 0;
            if (seen & (1u << 31) || wc_parse_u64(val, strlen(val), &seed) || seed > (1ULL << 53))
                return wc_error_set(err, -EINVAL, "--truth sim: seed must be given once, as an "
                                                  "integer from 0 to 2^53");
            seen |= 1u << 31;
            p->seed = seed;
            continue;
        }
        size_t i = 0, n = sizeof SIM_PARAMS / sizeof *SIM_PARAMS;
        while (i < n && strcmp(kv, SIM_PARAMS[i].key))
            i++;
        if (i == n)
            return wc_error_set(err, -EINVAL,
                                "--truth sim: unknown parameter '%.40s' (lag, window, period, eff, "
                                "base, quant, noise, seed)", kv);
        if (seen & (1u << i))
            return wc_error_set(err, -EINVAL, "--truth sim: %s given twice", kv);
        seen |= 1u << i;
        char *end = NULL;
        double v = strtod(val, &end);
        if (!end || end == val || *end || !isfinite(v) || v < SIM_PARAMS[i].min ||
            v > SIM_PARAMS[i].max)
            return wc_error_set(err, -EINVAL, "--truth sim: %s=%.40s is outside %g..%g", kv, val,
                                SIM_PARAMS[i].min, SIM_PARAMS[i].max);
        *(double *)((char *)p + SIM_PARAMS[i].offset) = v;
    }
    return 0;
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ULL;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Standard normal by Box-Muller over the seeded generator. */
static double gaussian(uint64_t *s)
{
    double u1 = ((double)(xorshift(s) >> 11) + 1.0) / 9007199254740993.0;
    double u2 = (double)(xorshift(s) >> 11) / 9007199254740992.0;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static int counts_for_wall(const wc_zone *z)
{
    return !strcmp(z->name, "package") || !strcmp(z->name, "dram");
}

/* Reads the zones and accumulates package + dram energy (per zone, wraps
 * handled by the collector's counter rule). */
static int sample_energy(sim_bmc *b, wc_error *err)
{
    int rc = wc_meter_read(&b->meter, b->cur, err);
    if (rc)
        return rc;
    if (b->have_prev) {
        for (size_t i = 0; i < b->meter.nzones; i++) {
            if (!counts_for_wall(&b->meter.zones[i]))
                continue;
            uint64_t d = 0;
            wc_delta_status st = wc_counter_delta(b->prev[i].value, b->cur[i].value,
                                                  b->meter.zones[i].max_energy_range_uj,
                                                  b->cur[i].mono_ns - b->prev[i].mono_ns, 0, &d);
            if (wc_delta_usable(st))
                b->cum_joules += (double)d / 1e6;
        }
    }
    memcpy(b->prev, b->cur, b->meter.nzones * sizeof *b->cur);
    b->have_prev = 1;
    energy_point *pt = &b->hist[b->head];
    pt->mono_ns = b->cur[0].mono_ns;
    pt->joules = b->cum_joules;
    b->head = (b->head + 1) % SIM_HISTORY;
    if (b->nhist < SIM_HISTORY)
        b->nhist++;
    return 0;
}

/* Cumulative energy at time t by linear interpolation in the history;
 * returns 0 when t is outside it. */
static int energy_at(const sim_bmc *b, int64_t t, double *joules)
{
    const energy_point *older = NULL;
    for (size_t k = 0; k < b->nhist; k++) {
        const energy_point *p = &b->hist[(b->head + SIM_HISTORY - b->nhist + k) % SIM_HISTORY];
        if (p->mono_ns >= t) {
            if (!older)
                return p->mono_ns == t ? (*joules = p->joules, 1) : 0;
            double f = (double)(t - older->mono_ns) / (double)(p->mono_ns - older->mono_ns);
            *joules = older->joules + f * (p->joules - older->joules);
            return 1;
        }
        older = p;
    }
    return 0;
}

static int sim_poll(wc_truth_source *s, wc_truth_sample *out)
{
    sim_bmc *b = s->priv;
    wc_error err = {{0}};
    if (sample_energy(b, &err)) {
        out->status = WC_TRUTH_ERROR;
        snprintf(out->error, sizeof out->error, "%.250s", err.msg);
        return -EIO;
    }
    int64_t now = b->hist[(b->head + SIM_HISTORY - 1) % SIM_HISTORY].mono_ns;
    int64_t period = (int64_t)(b->p.period_s * 1e9);
    if (!b->have_published || now - b->last_update_ns >= period) {
        int64_t t1 = now - (int64_t)(b->p.lag_s * 1e9);
        int64_t t0 = t1 - (int64_t)(b->p.window_s * 1e9);
        double e0, e1;
        if (!energy_at(b, t0, &e0) || !energy_at(b, t1, &e1)) {
            out->status = WC_TRUTH_UNAVAILABLE;
            snprintf(out->error, sizeof out->error,
                     "simulated BMC warming up: needs %.1f s of history", b->p.lag_s + b->p.window_s);
            return 0;
        }
        double node_watts = (e1 - e0) / ((double)(t1 - t0) / 1e9);
        double wall = (node_watts + b->p.base_watts) / b->p.efficiency +
                      b->p.noise_watts * gaussian(&b->rng);
        if (b->p.quant_watts > 0)
            wall = round(wall / b->p.quant_watts) * b->p.quant_watts;
        b->published_watts = wall;
        b->published_wall_ns = wc_wall_ns();
        b->last_update_ns = now;
        b->have_published = 1;
    }
    out->watts = b->published_watts;
    out->avg_watts = b->published_watts;
    out->window_s = b->p.window_s;
    out->window_known = 1;
    out->device_ts_ns = b->published_wall_ns;
    snprintf(out->path, sizeof out->path, "sim:wall(package+dram+base)/eff");
    out->status = WC_TRUTH_OK;
    return 0;
}

static int sim_open(wc_truth_source *s, wc_error *err)
{
    sim_bmc *b = s->priv;
    int rc = wc_meter_rapl_init(&b->meter, s->cfg.sysfs_root, err);
    if (rc)
        return rc;
    b->meter_open = 1;
    rc = wc_meter_discover(&b->meter, err);
    if (rc)
        return wc_error_prefix(err, rc, "--truth sim reads the node's RAPL zones (use it with "
                                        "--meter sim on a machine without RAPL): ");
    b->prev = calloc(b->meter.nzones, sizeof *b->prev);
    b->cur = calloc(b->meter.nzones, sizeof *b->cur);
    if (!b->prev || !b->cur)
        return wc_error_set(err, -ENOMEM, "out of memory");
    b->start_mono_ns = wc_mono_ns();
    return 0;
}

static void sim_close(wc_truth_source *s)
{
    sim_bmc *b = s->priv;
    if (!b)
        return;
    if (b->meter_open)
        wc_meter_close(&b->meter);
    free(b->prev);
    free(b->cur);
    free(b);
    s->priv = NULL;
}

static const wc_truth_ops SIM_OPS = {.kind = "sim", .open = sim_open, .poll = sim_poll,
                                     .close = sim_close};

int wc_truth_sim_init(wc_truth_source *s, const char *args, wc_error *err)
{
    sim_bmc *b = calloc(1, sizeof *b);
    if (!b)
        return wc_error_set(err, -ENOMEM, "out of memory");
    int rc = parse_params(args, &b->p, err);
    if (rc) {
        free(b);
        return rc;
    }
    b->rng = b->p.seed;
    s->ops = &SIM_OPS;
    s->priv = b;
    s->provenance = WC_PROV_SIMULATED;
    snprintf(s->description, sizeof s->description,
             "SIMULATED BMC: wall = (package+dram + %.1f W)/%.2f, window %.1f s, lag %.1f s, "
             "update every %.1f s, quantum %.2f W, noise sd %.2f W, seed %llu",
             b->p.base_watts, b->p.efficiency, b->p.window_s, b->p.lag_s, b->p.period_s,
             b->p.quant_watts, b->p.noise_watts, (unsigned long long)b->p.seed);
    return 0;
}

int wc_truth_sim_timing(const char *spec, int min_n, double *warmup_s, double *min_record_s)
{
    sim_bmc_params p;
    wc_error err = {{0}};
    if (!spec || strncmp(spec, "sim", 3) || (spec[3] != '\0' && spec[3] != ':'))
        return 0;
    if (parse_params(spec[3] ? spec + 4 : NULL, &p, &err))
        return 0;
    *warmup_s = p.lag_s + p.window_s;
    *min_record_s = *warmup_s + (min_n > 0 ? min_n : 1) * p.period_s;
    return 1;
}

void wc_truth_sim_record_hint(const char *spec, int min_n, char *buf, size_t cap)
{
    double warm_s, min_s;
    size_t used = strlen(buf);
    if (used >= cap || !wc_truth_sim_timing(spec, min_n, &warm_s, &min_s))
        return;
    snprintf(buf + used, cap - used, "; the simulated BMC's first reading comes after ~%.0f s, then"
             " one every %.0f s: record at least %.0f s for %d readings", warm_s,
             (min_s - warm_s) / (min_n > 0 ? min_n : 1), ceil(min_s), min_n);
}
