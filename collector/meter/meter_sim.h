/*
 * meter_sim.h — a simulated node for machines with no power meter.
 *
 * Maintains a powercap-shaped tree in a temporary directory (two packages,
 * each with a dram subzone, and a psys; a small max_energy_range_uj so wraps
 * happen within a demo) whose energy_uj counters advance by a power model
 * driven by THIS machine's real /proc/stat utilisation: per package
 * idle_watts + watts_per_busy_cpu × busy CPUs (split over the packages) +
 * seeded Gaussian noise; dram and psys likewise. The RAPL reader reads the
 * tree through its normal code path. Provenance is "simulated" everywhere.
 *
 * Workload classes: CPU-time attribution cannot tell an AVX second from a
 * memory-stall second, real hardware can. So the model also scans
 * <procfs_root>/[0-9]* /stat on every advance and gives the CPU time of
 * processes whose comm names a wattcal stressor (wattcal-cpu, wattcal-avx,
 * wattcal-membound — "wattcal-memboun" as the kernel truncates it —,
 * wattcal-burst, wattcal-idle) its class's own watts per CPU-second:
 *   busy_c     = CPU-seconds of class c over the interval / interval
 *   busy_other = max(0, /proc/stat busy CPUs − Σ_c busy_c)      (factor 1.0)
 *   package_i  = idle + per_cpu × (Σ_c class_factor[c] × busy_c + busy_other) / 2
 *   dram_i     = idle + per_cpu × (Σ_c class_dram_factor[c] × busy_c + busy_other) / 2
 * With no classified process running this is the /proc/stat-only model.
 */
#ifndef WC_METER_SIM_H
#define WC_METER_SIM_H

#include <stdint.h>

#include "collector/meter/meter.h"
#include "collector/procfs/proc_scan.h"
#include "collector/procfs/procstat.h"

/* Workload classes the model tells apart (by comm, see above). */
typedef enum wc_sim_class {
    WC_SIM_CLASS_CPU,
    WC_SIM_CLASS_AVX,
    WC_SIM_CLASS_MEMBOUND,
    WC_SIM_CLASS_BURST,
    WC_SIM_CLASS_IDLE,
    WC_SIM_NCLASSES
} wc_sim_class;

/* "cpu", "avx", "membound", "burst", "idle"; "?" out of range. */
const char *wc_sim_class_name(wc_sim_class c);

/* The class a process comm names: "wattcal-<class>" exactly, or its 15-byte
 * kernel truncation ("wattcal-memboun"); -1 for any other comm. */
int wc_sim_class_of_comm(const char *comm);

/* The power model; stored with the run (wc_sim_params_json). */
typedef struct wc_sim_params {
    double package_idle_watts;       /* per package */
    double package_watts_per_cpu;    /* per fully busy CPU, shared over packages */
    double dram_idle_watts;          /* per dram subzone */
    double dram_watts_per_cpu;
    double psys_base_watts;          /* platform beyond packages+dram */
    double noise_sd_watts;           /* Gaussian noise per zone per advance */
    uint64_t max_energy_range_uj;    /* counter modulus, small so wraps occur */
    uint64_t seed;
    /* Per workload class: package (dram) watts per CPU-second of that class
     * relative to package_watts_per_cpu (dram_watts_per_cpu). Unclassified
     * CPU time always counts 1.0. Finite, >= 0. */
    double class_factor[WC_SIM_NCLASSES];
    double class_dram_factor[WC_SIM_NCLASSES];
} wc_sim_params;

/* Default parameters (documented in README): per package 20 W idle + 10 W per
 * busy CPU (busy CPUs split evenly over the 2 packages); per dram 3 W idle +
 * 0.5 W per busy CPU; psys = packages + drams + 15 W; noise sd 0.5 W; counter
 * modulus 1 000 000 000 µJ (1 kJ: idle packages wrap within 50 s, yet psys
 * wraps at most once per sample at intervals of a few seconds); seed 42;
 * class_factor cpu 1.0, avx 1.6, membound 0.7, burst 1.0, idle 1.0;
 * class_dram_factor membound 3.0, every other class 1.0. */
wc_sim_params wc_sim_default_params(void);

/* Writes params as a JSON object into buf (the factors as objects keyed by
 * class name: "class_factor":{"cpu":1,"avx":1.6,...}). The defaults take
 * about 370 bytes; 1024 holds any values. Returns buf. */
char *wc_sim_params_json(const wc_sim_params *p, char *buf, size_t cap);

/* Initialises m as the simulated node: creates the tree under a fresh
 * mkdtemp() directory $TMPDIR/wattcal-sim-XXXXXX (removed by close; locked
 * while m lives, and the trees of killed owners found there are removed
 * first), with utilisation read from
 * <procfs_root>/stat. Counters advance on every read by the model over the
 * monotonic time since the previous read; every reading of one read carries
 * the monotonic instant of that advance as its mono_ns (the counters are
 * exact at that instant). A failing /proc/stat read fails every zone of that
 * read (status = -errno), counters unchanged. The stressors' <pid>/stat files
 * are read non-blocking and whole or not at all (wc_pidstat_read_at).
 * m->plausible_watts is 1.25 × the largest zone power the model can give
 * (psys with every CPU busy at the largest class factors) + 10 noise
 * deviations: `record`'s default counter ceiling on the simulated node.
 * Returns 0 or -errno with err set. */
int wc_meter_sim_init(wc_meter *m, const char *procfs_root, const wc_sim_params *params,
                      wc_error *err);

/* The sysfs root of the simulated tree (for `probe`-like display); NULL when
 * m is not a simulated meter. */
const char *wc_meter_sim_root(const wc_meter *m);

/* Advances the counters by the model over exactly dt_ns (>= 0) without
 * reading them, using the /proc/stat utilisation and the per-process CPU time
 * since the previous advance (interval length from /proc/stat ticks);
 * read() does the same with the monotonic time since the previous read.
 * For tests and deterministic replays. Returns 0, -EINVAL (not a sim meter,
 * negative dt) or -errno from /proc/stat or the tree, with err set. */
int wc_meter_sim_advance(wc_meter *m, int64_t dt_ns, wc_error *err);

/* Hands the simulated node the sampler's scan of this tick, so its next
 * read (or advance) takes the per-process CPU time and the class of each
 * process (by snap->samples[i].comm) from snap, and the /proc/stat interval
 * from total (the aggregate cpu line) and ncpus, instead of a second pass
 * over <procfs_root> (issue 15). snap must stay valid until that read; one
 * feed serves one read; a read without a feed scans by itself; total NULL
 * keeps its own /proc/stat read. Returns 0 or -EINVAL (not a sim meter). */
int wc_meter_sim_feed(wc_meter *m, const wc_proc_snapshot *snap, const wc_cpu_times *total,
                      size_t ncpus);

/* The model's latest interval: busy CPUs of each class and of unclassified
 * work (what multiplies the factors), and the number of classified
 * processes seen by the latest scan. Returns 0 or -EINVAL (not a sim meter). */
int wc_meter_sim_class_busy(const wc_meter *m, double busy[WC_SIM_NCLASSES], double *other,
                            size_t *nclassified);

#endif
