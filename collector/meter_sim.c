/*
 * meter_sim.c — the simulated node (see meter_sim.h).
 *
 * For machines without RAPL (VMs, CI, laptops without permission) wattcal
 * still needs counters that behave like hardware: monotonic µJ that wrap at
 * max_energy_range_uj, per socket, with a psys zone apart. This file keeps a
 * powercap-shaped tree under a mkdtemp() directory:
 *
 *   <tmp>/class/powercap/intel-rapl          control type (no `name`)
 *   <tmp>/class/powercap/intel-rapl:0        package-0
 *   <tmp>/class/powercap/intel-rapl:0:0      dram        (socket 0)
 *   <tmp>/class/powercap/intel-rapl:1        package-1
 *   <tmp>/class/powercap/intel-rapl:1:0      dram        (socket 1)
 *   <tmp>/class/powercap/intel-rapl:2        psys
 *
 * each zone with name, energy_uj, max_energy_range_uj and enabled, and embeds
 * an ordinary RAPL meter (meter_rapl.c) over it, so discovery and every read
 * take the normal code path. Before each read the counters advance by the
 * power model over the monotonic time since the previous read:
 *   busy CPUs = Δbusy/Δtotal ticks of <procfs_root>/stat × number of cpuN lines
 *   package_i = package_idle + package_per_cpu × busy/2 + noise
 *   dram_i    = dram_idle + dram_per_cpu × busy/2 + noise
 *   psys      = Σ package + Σ dram + psys_base + noise
 * noise is seeded Gaussian (xorshift64* + Box-Muller), so one seed gives one
 * sequence. Counters are written atomically (temp file + rename), so a reader
 * never sees a half-written number.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "collector/meter_sim.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/meter_rapl.h"
#include "collector/procstat.h"
#include "common/wc_clock.h"
#include "common/wc_fs.h"
#include "common/wc_text.h"
#include "common/wc_tmptree.h"

/* What a simulated zone stands for in the power model. */
typedef enum sim_role { SIM_PACKAGE, SIM_DRAM, SIM_PSYS } sim_role;

/* One zone of the simulated tree. */
typedef struct sim_zone_def {
    const char *entry;      /* directory under class/powercap */
    const char *name;       /* contents of its `name` file */
    sim_role role;
} sim_zone_def;

#define SIM_NZONES 5
static const sim_zone_def SIM_ZONES[SIM_NZONES] = {
    {"intel-rapl:0", "package-0", SIM_PACKAGE},
    {"intel-rapl:0:0", "dram", SIM_DRAM},
    {"intel-rapl:1", "package-1", SIM_PACKAGE},
    {"intel-rapl:1:0", "dram", SIM_DRAM},
    {"intel-rapl:2", "psys", SIM_PSYS},
};
#define SIM_NPACKAGES 2

/* Everything the simulated node keeps. */
typedef struct sim_priv {
    wc_meter rapl;                    /* RAPL meter over <root> */
    wc_sim_params params;
    char root[512];                   /* mkdtemp directory = the tree's sysfs root */
    char procfs_root[512];
    uint64_t rng;                     /* xorshift64* state, never 0 */
    uint64_t total_uj[SIM_NZONES];    /* unwrapped energy, µJ */
    double frac_uj[SIM_NZONES];       /* sub-µJ remainder carried to the next advance */
    uint64_t prev_busy_ticks, prev_total_ticks;
    double busy_cpus;                 /* from the latest /proc/stat interval */
    int64_t last_mono_ns;             /* time of the previous read's advance */
    int root_made;                    /* mkdtemp succeeded: close/cleanup removes root */
} sim_priv;

static const wc_meter_ops SIM_OPS;

/* ---- parameters ------------------------------------------------------- */

wc_sim_params wc_sim_default_params(void)
{
    wc_sim_params p = {
        .package_idle_watts = 20.0,
        .package_watts_per_cpu = 10.0,
        .dram_idle_watts = 3.0,
        .dram_watts_per_cpu = 0.5,
        .psys_base_watts = 15.0,
        .noise_sd_watts = 0.5,
        /* 1 kJ: an idle package (20 W) wraps within 50 s, while the busiest
         * zone (psys, 61 W idle) still wraps at most once per sample at
         * intervals of several seconds — one wrap is all a counter can show. */
        .max_energy_range_uj = 1000000000ull,
        .seed = 42,
    };
    return p;
}

/* Shortest %g text of v that reads back as v ("null" when not finite). */
static void format_double(double v, char *out, size_t cap)
{
    if (!isfinite(v)) {
        snprintf(out, cap, "null");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) { /* 15 digits: "20", "0.1"; 17 always exact */
        snprintf(out, cap, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

char *wc_sim_params_json(const wc_sim_params *p, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return buf;
    char v[6][32];
    format_double(p->package_idle_watts, v[0], sizeof v[0]);
    format_double(p->package_watts_per_cpu, v[1], sizeof v[1]);
    format_double(p->dram_idle_watts, v[2], sizeof v[2]);
    format_double(p->dram_watts_per_cpu, v[3], sizeof v[3]);
    format_double(p->psys_base_watts, v[4], sizeof v[4]);
    format_double(p->noise_sd_watts, v[5], sizeof v[5]);
    int n = snprintf(buf, cap,
                     "{\"package_idle_watts\":%s,\"package_watts_per_cpu\":%s,"
                     "\"dram_idle_watts\":%s,\"dram_watts_per_cpu\":%s,"
                     "\"psys_base_watts\":%s,\"noise_sd_watts\":%s,"
                     "\"max_energy_range_uj\":%" PRIu64 ",\"seed\":%" PRIu64 "}",
                     v[0], v[1], v[2], v[3], v[4], v[5], p->max_energy_range_uj, p->seed);
    if (n < 0)
        buf[0] = '\0';
    return buf;
}

/* 0, or -EINVAL with err naming the bad parameter. */
static int check_params(const wc_sim_params *p, wc_error *err)
{
    const double w[] = {p->package_idle_watts, p->package_watts_per_cpu, p->dram_idle_watts,
                        p->dram_watts_per_cpu, p->psys_base_watts, p->noise_sd_watts};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (!isfinite(w[i]) || w[i] < 0)
            return wc_error_set(err, -EINVAL,
                                "simulated node: power parameters must be finite watts >= 0");
    if (p->max_energy_range_uj == 0)
        return wc_error_set(err, -EINVAL,
                            "simulated node: max_energy_range_uj must be > 0 (the counter modulus)");
    return 0;
}

/* ---- seeded noise ------------------------------------------------------ */

/* splitmix64: spreads a user seed (0, 1, 2...) into a good xorshift state. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* xorshift64* (Vigna 2014). */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in (0, 1]. */
static double rng_unit(uint64_t *s)
{
    return (double)((rng_next(s) >> 11) + 1) * 0x1.0p-53;
}

/* Standard normal sample (Box-Muller, cosine branch only). */
static double rng_gauss(uint64_t *s)
{
    double u1 = rng_unit(s), u2 = rng_unit(s);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* ---- the tree ---------------------------------------------------------- */

/* Writes text to <dir>/<file> through <dir>/.<file>.tmp + rename. */
static int write_atomic(const char *dir, const char *file, const char *text, wc_error *err)
{
    char tmp[1024], dst[1024];
    if (wc_path(tmp, sizeof tmp, dir, ".%s.tmp", file) != 0 ||
        wc_path(dst, sizeof dst, dir, "%s", file) != 0)
        return wc_error_set(err, -ENAMETOOLONG, "%s/%s: path too long", dir, file);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return wc_error_set(err, -errno, "%s: %s", tmp, strerror(errno));
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return wc_error_set(err, -e, "%s: write: %s", tmp, strerror(e));
        }
        done += (size_t)w;
    }
    if (close(fd) != 0 || rename(tmp, dst) != 0) {
        int e = errno;
        unlink(tmp);
        return wc_error_set(err, -e, "%s: %s", dst, strerror(e));
    }
    return 0;
}

/* Creates <root>/<rel> (mode 0755). */
static int make_dir(const char *root, const char *rel, char *out, size_t cap, wc_error *err)
{
    if (wc_path(out, cap, root, "%s", rel) != 0)
        return wc_error_set(err, -ENAMETOOLONG, "%s/%s: path too long", root, rel);
    if (mkdir(out, 0755) != 0)
        return wc_error_set(err, -errno, "%s: mkdir: %s", out, strerror(errno));
    return 0;
}

/* Writes zone i's counter, total mod max_energy_range_uj. */
static int write_energy(const sim_priv *p, size_t i, wc_error *err)
{
    char dir[1024], text[32];
    if (wc_path(dir, sizeof dir, p->root, "class/powercap/%s", SIM_ZONES[i].entry) != 0)
        return wc_error_set(err, -ENAMETOOLONG, "%s: path too long", p->root);
    snprintf(text, sizeof text, "%" PRIu64 "\n", p->total_uj[i] % p->params.max_energy_range_uj);
    return write_atomic(dir, "energy_uj", text, err);
}

/* Creates one zone directory with its four files. */
static int make_zone(const sim_priv *p, size_t i, wc_error *err)
{
    char dir[1024], rel[128], text[64];
    snprintf(rel, sizeof rel, "class/powercap/%s", SIM_ZONES[i].entry);
    int rc = make_dir(p->root, rel, dir, sizeof dir, err);
    if (rc)
        return rc;
    snprintf(text, sizeof text, "%s\n", SIM_ZONES[i].name);
    if ((rc = write_atomic(dir, "name", text, err)) != 0)
        return rc;
    snprintf(text, sizeof text, "%" PRIu64 "\n", p->params.max_energy_range_uj);
    if ((rc = write_atomic(dir, "max_energy_range_uj", text, err)) != 0)
        return rc;
    if ((rc = write_atomic(dir, "enabled", "1\n", err)) != 0)
        return rc;
    return write_energy(p, i, err);
}

/* Creates the whole tree below p->root (which exists). */
static int make_tree(const sim_priv *p, wc_error *err)
{
    char dir[1024];
    int rc = make_dir(p->root, "class", dir, sizeof dir, err);
    if (rc == 0)
        rc = make_dir(p->root, "class/powercap", dir, sizeof dir, err);
    if (rc == 0)
        rc = make_dir(p->root, "class/powercap/intel-rapl", dir, sizeof dir, err);
    if (rc == 0) /* the control type: `enabled`, no `name` */
        rc = write_atomic(dir, "enabled", "1\n", err);
    for (size_t i = 0; rc == 0 && i < SIM_NZONES; i++)
        rc = make_zone(p, i, err);
    return rc;
}

/* Removes the tree (best effort: a vanished file is not an error). */
static void remove_tree(const char *root)
{
    if (root[0])
        (void)wc_remove_tree(root);
}

/* ---- the model --------------------------------------------------------- */

/* Reads <procfs_root>/stat: busy and total ticks of the aggregate line and
 * the number of cpuN lines. */
static int read_ticks(const char *procfs_root, uint64_t *busy, uint64_t *total, size_t *ncpus,
                      wc_error *err)
{
    wc_procstat ps;
    int rc = wc_procstat_read(procfs_root, &ps, err);
    if (rc)
        return rc;
    *busy = wc_cpu_busy_ticks(&ps.total);
    *total = wc_cpu_total_ticks(&ps.total);
    *ncpus = ps.ncpus;
    wc_procstat_free(&ps);
    return 0;
}

/* Updates p->busy_cpus from the /proc/stat interval since the last call; an
 * empty or backwards interval keeps the previous value. */
static int update_busy(sim_priv *p, wc_error *err)
{
    uint64_t busy, total;
    size_t ncpus;
    int rc = read_ticks(p->procfs_root, &busy, &total, &ncpus, err);
    if (rc)
        return rc;
    if (total > p->prev_total_ticks && busy >= p->prev_busy_ticks) {
        double frac = (double)(busy - p->prev_busy_ticks) / (double)(total - p->prev_total_ticks);
        p->busy_cpus = (frac > 1.0 ? 1.0 : frac) * (double)ncpus;
    }
    p->prev_busy_ticks = busy;
    p->prev_total_ticks = total;
    return 0;
}

/* Model power of every zone, watts, with noise, never negative. */
static void model_watts(sim_priv *p, double watts[SIM_NZONES])
{
    const wc_sim_params *q = &p->params;
    double per_package = p->busy_cpus / SIM_NPACKAGES;
    double sum = 0;
    for (size_t i = 0; i < SIM_NZONES; i++) {
        double w;
        switch (SIM_ZONES[i].role) {
        case SIM_PACKAGE:
            w = q->package_idle_watts + q->package_watts_per_cpu * per_package;
            break;
        case SIM_DRAM:
            w = q->dram_idle_watts + q->dram_watts_per_cpu * per_package;
            break;
        default: /* psys: after the packages and drams (last in SIM_ZONES) */
            w = sum + q->psys_base_watts;
            break;
        }
        if (q->noise_sd_watts > 0)
            w += q->noise_sd_watts * rng_gauss(&p->rng);
        watts[i] = w > 0 ? w : 0;
        if (SIM_ZONES[i].role != SIM_PSYS)
            sum += watts[i];
    }
}

/* Advances every counter by the model over dt_ns and rewrites the tree. */
static int advance(sim_priv *p, int64_t dt_ns, wc_error *err)
{
    int rc = update_busy(p, err);
    if (rc)
        return rc;
    double watts[SIM_NZONES];
    model_watts(p, watts);
    for (size_t i = 0; i < SIM_NZONES; i++) {
        double add_uj = watts[i] * (double)dt_ns / 1e3 + p->frac_uj[i];
        double whole = floor(add_uj);
        p->frac_uj[i] = add_uj - whole;
        p->total_uj[i] += (uint64_t)whole;
        if ((rc = write_energy(p, i, err)) != 0)
            return rc;
    }
    return 0;
}

/* ---- ops --------------------------------------------------------------- */


static int sim_discover(wc_meter *m, wc_error *err)
{
    sim_priv *p = m->priv;
    free(m->zones);
    m->zones = NULL;
    m->nzones = 0;
    int rc = wc_meter_discover(&p->rapl, err);
    if (rc)
        return rc;
    m->zones = malloc(p->rapl.nzones * sizeof *m->zones);
    if (!m->zones)
        return wc_error_set(err, -ENOMEM, "simulated node: out of memory");
    memcpy(m->zones, p->rapl.zones, p->rapl.nzones * sizeof *m->zones);
    m->nzones = p->rapl.nzones;
    size_t used = 0;
    m->description[0] = '\0';
    wc_append(m->description, sizeof m->description, &used,
           "simulated node (model over %s/stat, seed %" PRIu64 "): %s", p->procfs_root,
           p->params.seed, p->rapl.description);
    return 0;
}

static int sim_read(wc_meter *m, wc_reading *out, wc_error *err)
{
    sim_priv *p = m->priv;
    int64_t now = wc_mono_ns();
    int rc = advance(p, now - p->last_mono_ns, err);
    p->last_mono_ns = now;
    if (rc) {
        for (size_t i = 0; i < m->nzones; i++)
            out[i] = (wc_reading){.mono_ns = now, .value = 0, .status = rc};
        return rc;
    }
    rc = wc_meter_read(&p->rapl, out, err);
    /* The counters hold the model's energy up to `now` exactly; stamping the
     * readings with it (not with the file-read instants, which trail the
     * writes by the I/O time) keeps ΔE/Δt equal to the model power. */
    for (size_t i = 0; i < m->nzones; i++)
        out[i].mono_ns = now;
    return rc;
}

static void sim_close(wc_meter *m)
{
    sim_priv *p = m->priv;
    free(m->zones);
    m->zones = NULL;
    m->nzones = 0;
    if (!p)
        return;
    wc_meter_close(&p->rapl);
    if (p->root_made)
        remove_tree(p->root);
    free(p);
    m->priv = NULL;
}

static const wc_meter_ops SIM_OPS = {
    .kind = "sim",
    .discover = sim_discover,
    .read = sim_read,
    .close = sim_close,
};

/* Creates the mkdtemp root in $TMPDIR (or /tmp). */
static int make_root(sim_priv *p, wc_error *err)
{
    const char *base = getenv("TMPDIR");
    if (wc_path(p->root, sizeof p->root, base && *base ? base : "/tmp", "wattcal-sim-XXXXXX"))
        return wc_error_set(err, -ENAMETOOLONG, "simulated node: TMPDIR too long");
    if (!mkdtemp(p->root)) {
        int e = errno;
        return wc_error_set(err, -e, "simulated node: mkdtemp %s: %s", p->root, strerror(e));
    }
    p->root_made = 1;
    return 0;
}

/* Seeds the noise and the counters' starting values, takes the /proc/stat
 * baseline and builds the tree. */
static int sim_setup(sim_priv *p, wc_error *err)
{
    p->rng = splitmix64(p->params.seed);
    if (p->rng == 0)
        p->rng = 0x2545F4914F6CDD1Dull;
    for (size_t i = 0; i < SIM_NZONES; i++)
        p->total_uj[i] = rng_next(&p->rng) % p->params.max_energy_range_uj;
    size_t ncpus;
    int rc = read_ticks(p->procfs_root, &p->prev_busy_ticks, &p->prev_total_ticks, &ncpus, err);
    if (rc)
        return rc;
    if ((rc = make_root(p, err)) != 0)
        return rc;
    if ((rc = make_tree(p, err)) != 0)
        return rc;
    p->last_mono_ns = wc_mono_ns();
    return wc_meter_rapl_init(&p->rapl, p->root, err);
}

int wc_meter_sim_init(wc_meter *m, const char *procfs_root, const wc_sim_params *params,
                      wc_error *err)
{
    memset(m, 0, sizeof *m);
    wc_sim_params q = params ? *params : wc_sim_default_params();
    int rc = check_params(&q, err);
    if (rc)
        return rc;
    sim_priv *p = calloc(1, sizeof *p);
    if (!p)
        return wc_error_set(err, -ENOMEM, "simulated node: out of memory");
    p->params = q;
    const char *proc = procfs_root ? procfs_root : "/proc";
    if (strlen(proc) >= sizeof p->procfs_root) {
        free(p);
        return wc_error_set(err, -ENAMETOOLONG, "simulated node: procfs root too long");
    }
    memcpy(p->procfs_root, proc, strlen(proc) + 1);
    rc = sim_setup(p, err);
    if (rc) {
        if (p->root_made)
            remove_tree(p->root);
        free(p);
        return rc;
    }
    m->ops = &SIM_OPS;
    m->provenance = WC_PROV_SIMULATED;
    m->priv = p;
    size_t used = 0;
    wc_append(m->description, sizeof m->description, &used,
           "simulated node at %s (not yet discovered)", p->root);
    return 0;
}

const char *wc_meter_sim_root(const wc_meter *m)
{
    if (!m || m->ops != &SIM_OPS || !m->priv)
        return NULL;
    return ((const sim_priv *)m->priv)->root;
}

int wc_meter_sim_advance(wc_meter *m, int64_t dt_ns, wc_error *err)
{
    if (!m || m->ops != &SIM_OPS || !m->priv)
        return wc_error_set(err, -EINVAL, "wc_meter_sim_advance: not a simulated meter");
    if (dt_ns < 0)
        return wc_error_set(err, -EINVAL, "wc_meter_sim_advance: negative interval %" PRId64
                            " ns", dt_ns);
    return advance(m->priv, dt_ns, err);
}
