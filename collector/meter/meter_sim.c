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
 *   busy_c    = Δ(utime+stime) of the processes of class c / (Δtotal/ncpus)
 *   other     = max(0, busy CPUs − Σ_c busy_c)
 *   package_i = package_idle + package_per_cpu × (Σ_c factor_c × busy_c + other)/2 + noise
 *   dram_i    = dram_idle + dram_per_cpu × (Σ_c dram_factor_c × busy_c + other)/2 + noise
 *   psys      = Σ package + Σ dram + psys_base + noise
 * The classes come from the sampler's scan when the recorder hands it over
 * (wc_meter_sim_feed: no second pass over /proc, issue 15), else from one
 * scan of <procfs_root>/[0-9]* /stat per advance:
 * one openat+read per pid, a prefix test on the comm before any parsing, and
 * only classified processes kept, in two reused tables (previous and
 * current scan) sorted by (pid, starttime) so a reused pid is a new process.
 * A classified process absent from the previous scan started since then, so
 * all its CPU time falls in the interval. The interval's length is the
 * /proc/stat one (Δtotal ticks per CPU), so USER_HZ cancels out.
 * noise is seeded Gaussian (xorshift64* + Box-Muller), so one seed gives one
 * sequence. Counters are written atomically (temp file + rename), so a reader
 * never sees a half-written number.
 * The owner holds an exclusive flock on its tree for its life (and marks the
 * tree once it does); every new simulated node first sweeps $TMPDIR of marked
 * wattcal-sim-* trees whose lock nobody holds, so a killed run (kill -9
 * cannot clean up) leaves its 120 KB only until the next start.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "collector/meter/meter_sim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/meter/meter_rapl.h"
#include "collector/procfs/pidstat.h"
#include "collector/procfs/procstat.h"
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

/* One classified process as of a scan. */
typedef struct sim_proc {
    int32_t pid;
    uint64_t starttime;  /* ticks since boot: (pid, starttime) names a process */
    uint64_t ticks;      /* utime + stime */
    int cls;             /* wc_sim_class */
} sim_proc;

/* A reusable table of classified processes, sorted by (pid, starttime). */
typedef struct sim_table {
    sim_proc *v;
    size_t n, cap;
} sim_table;

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
    double class_busy[WC_SIM_NCLASSES]; /* busy CPUs per class, same interval */
    double other_busy;                /* busy_cpus less the classified ones, >= 0 */
    sim_table procs, scan;            /* previous scan; the one being built */
    const wc_proc_snapshot *fed;      /* wc_meter_sim_feed: the next advance's processes ... */
    int fed_cpu;                      /* ... and /proc/stat (1: fed_busy/total/ncpus hold it) */
    uint64_t fed_busy, fed_total;
    size_t fed_ncpus;
    int64_t last_mono_ns;             /* time of the previous read's advance */
    int root_made;                    /* mkdtemp succeeded: close/cleanup removes root */
    double max_zone_watts;            /* the model's largest zone power (psys, every CPU busy) */
    int lock_fd;                      /* root, flock'd while it lives (root_made) */
} sim_priv;

static const wc_meter_ops SIM_OPS;
static void release_root(sim_priv *p);

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
        /* watts per CPU-second relative to the per-CPU watts: vector units
         * draw more than scalar code, a memory-stalled core less (while the
         * DIMMs draw more) */
        .class_factor = {[WC_SIM_CLASS_CPU] = 1.0, [WC_SIM_CLASS_AVX] = 1.6,
                         [WC_SIM_CLASS_MEMBOUND] = 0.7, [WC_SIM_CLASS_BURST] = 1.0,
                         [WC_SIM_CLASS_IDLE] = 1.0},
        .class_dram_factor = {[WC_SIM_CLASS_CPU] = 1.0, [WC_SIM_CLASS_AVX] = 1.0,
                              [WC_SIM_CLASS_MEMBOUND] = 3.0, [WC_SIM_CLASS_BURST] = 1.0,
                              [WC_SIM_CLASS_IDLE] = 1.0},
    };
    return p;
}

static const char *const CLASS_NAMES[WC_SIM_NCLASSES] = {"cpu", "avx", "membound", "burst",
                                                        "idle"};

const char *wc_sim_class_name(wc_sim_class c)
{
    return (int)c >= 0 && (int)c < WC_SIM_NCLASSES ? CLASS_NAMES[c] : "?";
}

#define COMM_PREFIX "wattcal-"
#define COMM_PREFIX_LEN 8
#define COMM_MAX 15 /* TASK_COMM_LEN - 1: the kernel truncates names to this */

int wc_sim_class_of_comm(const char *comm)
{
    if (!comm || strncmp(comm, COMM_PREFIX, COMM_PREFIX_LEN) != 0)
        return -1;
    const char *s = comm + COMM_PREFIX_LEN;
    size_t len = strlen(s);
    for (int c = 0; c < WC_SIM_NCLASSES; c++) {
        size_t full = strlen(CLASS_NAMES[c]);
        if (len == full ? memcmp(s, CLASS_NAMES[c], len) == 0
                        : (len < full && COMM_PREFIX_LEN + len == COMM_MAX &&
                           memcmp(s, CLASS_NAMES[c], len) == 0))
            return c;
    }
    return -1;
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
    buf[0] = '\0';
    size_t used = 0;
    wc_append(buf, cap,  &used,
              "{\"package_idle_watts\":%s,\"package_watts_per_cpu\":%s,"
              "\"dram_idle_watts\":%s,\"dram_watts_per_cpu\":%s,"
              "\"psys_base_watts\":%s,\"noise_sd_watts\":%s,"
              "\"max_energy_range_uj\":%" PRIu64 ",\"seed\":%" PRIu64,
              v[0], v[1], v[2], v[3], v[4], v[5], p->max_energy_range_uj, p->seed);
    static const char *const keys[2] = {"class_factor", "class_dram_factor"};
    for (int k = 0; k < 2; k++) {
        const double *f = k == 0 ? p->class_factor : p->class_dram_factor;
        wc_append(buf, cap, &used, ",\"%s\":{", keys[k]);
        for (int c = 0; c < WC_SIM_NCLASSES; c++) {
            char t[32];
            format_double(f[c], t, sizeof t);
            wc_append(buf, cap, &used, "%s\"%s\":%s", c ? "," : "", CLASS_NAMES[c], t);
        }
        wc_append(buf, cap, &used, "}");
    }
    wc_append(buf, cap, &used, "}");
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
    for (int c = 0; c < WC_SIM_NCLASSES; c++)
        if (!isfinite(p->class_factor[c]) || p->class_factor[c] < 0 ||
            !isfinite(p->class_dram_factor[c]) || p->class_dram_factor[c] < 0)
            return wc_error_set(err, -EINVAL,
                                "simulated node: class factors (%s) must be finite and >= 0",
                                CLASS_NAMES[c]);
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

/* Made in a tree once its owner holds the lock: only such trees are swept
 * (a tree being made, or one of an older wattcal that takes no lock, is not). */
#define SIM_OWNER_MARK ".owner-locks-me"

/* Removes the tree (best effort: a vanished file is not an error), its
 * owner's mark last: a process killed while removing a tree (its owner at
 * close, or a sweep) leaves it marked, so the next sweep finishes the job. */
static void remove_tree(const char *root)
{
    char path[1024];
    if (!root[0])
        return;
    if (wc_path(path, sizeof path, root, "class") == 0)
        (void)wc_remove_tree(path);
    if (wc_path(path, sizeof path, root, SIM_OWNER_MARK) == 0)
        (void)unlink(path);
    if (rmdir(root) != 0)
        (void)wc_remove_tree(root); /* something else in it */
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

static int proc_cmp(const void *a, const void *b)
{
    const sim_proc *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->starttime > y->starttime) - (x->starttime < y->starttime);
}

/* Appends to t, growing it geometrically (the only allocation of a scan,
 * amortised away once the table has reached the node's size). */
static int table_push(sim_table *t, const sim_proc *e)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        sim_proc *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = *e;
    return 0;
}

/* Reads <dirfd>/<name>/stat (whole or refused, never blocking on a planted
 * FIFO: wc_pidstat_read_at); 1 and *out filled when it is a classified
 * process, 0 when not (or gone, unreadable, too long, malformed: a race with
 * exit, or not a real process). */
static int read_classified(int dirfd, const char *name, size_t namelen, sim_proc *out)
{
    char path[32], text[WC_PIDSTAT_BUF];
    if (namelen + sizeof "/stat" > sizeof path)
        return 0;
    memcpy(path, name, namelen);
    memcpy(path + namelen, "/stat", sizeof "/stat");
    size_t got = 0;
    if (wc_pidstat_read_at(dirfd, path, text, sizeof text, &got) != 0 || got == 0)
        return 0;
    ssize_t n = (ssize_t)got;
    /* cheap test first: comm starts right after the first '(' */
    const char *lp = memchr(text, '(', (size_t)n);
    if (!lp || (size_t)(text + n - lp) < 1 + COMM_PREFIX_LEN ||
        memcmp(lp + 1, COMM_PREFIX, COMM_PREFIX_LEN) != 0)
        return 0;
    wc_pidstat ps;
    wc_error ignored;
    if (wc_pidstat_parse(text, (size_t)n, path, &ps, &ignored) != 0)
        return 0;
    int cls = wc_sim_class_of_comm(ps.comm);
    if (cls < 0)
        return 0;
    *out = (sim_proc){.pid = ps.pid, .starttime = ps.starttime, .ticks = ps.utime + ps.stime,
                      .cls = cls};
    return 1;
}

/* Scans <procfs_root>/[0-9]* into p->scan (sorted). 0, or -errno when the
 * directory cannot be listed or the table cannot grow. */
static int scan_procs(sim_priv *p)
{
    p->scan.n = 0;
    DIR *d = opendir(p->procfs_root);
    if (!d)
        return -errno;
    int fd = dirfd(d), rc = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *s = de->d_name;
        size_t len = 0;
        while (s[len] >= '0' && s[len] <= '9')
            len++;
        if (len == 0 || s[len] != '\0')
            continue;
        if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN && de->d_type != DT_LNK)
            continue;
        sim_proc e;
        if (read_classified(fd, s, len, &e) && (rc = table_push(&p->scan, &e)) != 0)
            break;
    }
    closedir(d);
    if (rc == 0 && p->scan.n > 1)
        qsort(p->scan.v, p->scan.n, sizeof *p->scan.v, proc_cmp);
    return rc;
}

/* The sampler's scan (wc_meter_sim_feed) into p->scan (sorted), classified
 * by each sample's comm of that scan as scan_procs classifies by the stat's:
 * the same table without a second pass over the directory. 0 or -ENOMEM. */
static int scan_fed(sim_priv *p, const wc_proc_snapshot *snap)
{
    p->scan.n = 0;
    for (size_t i = 0; i < snap->count; i++) {
        const wc_proc_sample *x = &snap->samples[i];
        int cls = wc_sim_class_of_comm(x->comm);
        if (cls < 0)
            continue;
        sim_proc e = {.pid = x->id->pid, .starttime = x->id->starttime,
                      .ticks = x->utime + x->stime, .cls = cls};
        int rc = table_push(&p->scan, &e);
        if (rc)
            return rc;
    }
    if (p->scan.n > 1)
        qsort(p->scan.v, p->scan.n, sizeof *p->scan.v, proc_cmp);
    return 0;
}

/* CPU ticks each class used between the previous scan and p->scan. */
static void class_ticks(const sim_priv *p, uint64_t ticks[WC_SIM_NCLASSES])
{
    memset(ticks, 0, WC_SIM_NCLASSES * sizeof *ticks);
    for (size_t i = 0; i < p->scan.n; i++) {
        const sim_proc *e = &p->scan.v[i];
        const sim_proc *was =
            p->procs.n ? bsearch(e, p->procs.v, p->procs.n, sizeof *e, proc_cmp) : NULL;
        uint64_t before = was ? was->ticks : 0; /* new since the last scan: all its time */
        if (e->ticks > before)
            ticks[e->cls] += e->ticks - before;
    }
}

/* Updates p->busy_cpus and the class split from the /proc/stat interval
 * since the last call; an empty or backwards interval keeps the previous
 * values (an empty one also skips the process scan, so the time it would
 * have seen goes to the next interval). A process directory that cannot be
 * listed only loses the split: every CPU counts as unclassified. */
static int update_busy(sim_priv *p, wc_error *err)
{
    uint64_t busy = p->fed_busy, total = p->fed_total;
    size_t ncpus = p->fed_ncpus;
    int rc = p->fed_cpu ? 0 : read_ticks(p->procfs_root, &busy, &total, &ncpus, err);
    const wc_proc_snapshot *fed = p->fed;
    p->fed = NULL; /* one feed, one advance */
    p->fed_cpu = 0;
    if (rc)
        return rc;
    if (total == p->prev_total_ticks && busy == p->prev_busy_ticks)
        return 0;
    int scanned = (fed ? scan_fed(p, fed) : scan_procs(p)) == 0;
    if (total > p->prev_total_ticks && busy >= p->prev_busy_ticks) {
        double dtotal = (double)(total - p->prev_total_ticks);
        double frac = (double)(busy - p->prev_busy_ticks) / dtotal;
        p->busy_cpus = (frac > 1.0 ? 1.0 : frac) * (double)ncpus;
        uint64_t ticks[WC_SIM_NCLASSES] = {0};
        if (scanned)
            class_ticks(p, ticks);
        /* interval length in ticks of one CPU */
        double per_cpu = ncpus ? dtotal / (double)ncpus : 0;
        double sum = 0;
        for (int c = 0; c < WC_SIM_NCLASSES; c++) {
            p->class_busy[c] = per_cpu > 0 ? (double)ticks[c] / per_cpu : 0;
            sum += p->class_busy[c];
        }
        if (sum > (double)ncpus) { /* sampling skew: never more than the machine */
            for (int c = 0; c < WC_SIM_NCLASSES; c++)
                p->class_busy[c] *= (double)ncpus / sum;
            sum = (double)ncpus;
        }
        p->other_busy = p->busy_cpus > sum ? p->busy_cpus - sum : 0;
    }
    if (scanned) { /* the scan becomes the baseline */
        sim_table t = p->procs;
        p->procs = p->scan;
        p->scan = t;
    }
    p->prev_busy_ticks = busy;
    p->prev_total_ticks = total;
    return 0;
}

/* Model power of every zone, watts, with noise, never negative. */
static void model_watts(sim_priv *p, double watts[SIM_NZONES])
{
    const wc_sim_params *q = &p->params;
    /* effective busy CPUs for the package and the dram model */
    double pkg_cpus = p->other_busy, dram_cpus = p->other_busy;
    for (int c = 0; c < WC_SIM_NCLASSES; c++) {
        pkg_cpus += q->class_factor[c] * p->class_busy[c];
        dram_cpus += q->class_dram_factor[c] * p->class_busy[c];
    }
    double per_package = pkg_cpus / SIM_NPACKAGES, per_dram = dram_cpus / SIM_NPACKAGES;
    double sum = 0;
    for (size_t i = 0; i < SIM_NZONES; i++) {
        double w;
        switch (SIM_ZONES[i].role) {
        case SIM_PACKAGE:
            w = q->package_idle_watts + q->package_watts_per_cpu * per_package;
            break;
        case SIM_DRAM:
            w = q->dram_idle_watts + q->dram_watts_per_cpu * per_dram;
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
    release_root(p);
    free(p->procs.v);
    free(p->scan.v);
    free(p);
    m->priv = NULL;
}

static const wc_meter_ops SIM_OPS = {
    .kind = "sim",
    .discover = sim_discover,
    .read = sim_read,
    .close = sim_close,
};

/* Name of a simulated node's tree in $TMPDIR: the prefix and mkdtemp's six. */
#define SIM_TREE_PREFIX "wattcal-sim-"
#define SIM_TREE_NAME_LEN (sizeof SIM_TREE_PREFIX - 1 + 6)
/* Removes base/name when it is a simulated tree left by a dead owner: a
 * directory of ours (never a symlink) with the owner's mark and a lock
 * nobody holds. The owner holds an exclusive flock on its tree for its whole
 * life and the kernel drops it when the owner dies, kill -9 included; pids
 * are not trusted (they are reused). */
static void sweep_one(int base_fd, const char *base, const char *name)
{
    struct stat st;
    if (strncmp(name, SIM_TREE_PREFIX, sizeof SIM_TREE_PREFIX - 1) != 0 ||
        strlen(name) != SIM_TREE_NAME_LEN ||
        fstatat(base_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != geteuid())
        return;
    int fd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    char path[1024];
    if (faccessat(fd, SIM_OWNER_MARK, F_OK, AT_SYMLINK_NOFOLLOW) == 0 &&
        flock(fd, LOCK_EX | LOCK_NB) == 0 && wc_path(path, sizeof path, base, "%s", name) == 0)
        remove_tree(path); /* best effort: what stays is swept next time */
    close(fd); /* drops the lock */
}

/* Sweeps base of the trees killed wattcal processes left behind. */
static void sweep_stale_trees(const char *base)
{
    DIR *d = opendir(base);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        sweep_one(dirfd(d), base, de->d_name);
    closedir(d);
}

/* Creates the mkdtemp root in $TMPDIR (or /tmp), holds its lock and marks
 * it (after sweeping the stale trees there). A tree is swept only with the
 * mark, so a new one is never swept before its owner holds the lock; should
 * the directory be gone anyway (link count 0), another is made. */
static int make_root(sim_priv *p, wc_error *err)
{
    const char *base = getenv("TMPDIR");
    base = base && *base ? base : "/tmp";
    sweep_stale_trees(base);
    for (int attempt = 0; attempt < 8; attempt++) {
        if (wc_path(p->root, sizeof p->root, base, SIM_TREE_PREFIX "XXXXXX"))
            return wc_error_set(err, -ENAMETOOLONG, "simulated node: TMPDIR too long");
        if (!mkdtemp(p->root)) {
            int e = errno;
            return wc_error_set(err, -e, "simulated node: mkdtemp %s: %s", p->root, strerror(e));
        }
        int fd = open(p->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            rmdir(p->root);
            return wc_error_set(err, -e, "simulated node: %s: %s", p->root, strerror(e));
        }
        while (flock(fd, LOCK_EX) != 0 && errno == EINTR) /* no flock (ENOLCK): no sweep either */
            ;
        struct stat st;
        int mark = fstat(fd, &st) == 0 && st.st_nlink > 0
                       ? openat(fd, SIM_OWNER_MARK, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)
                       : -1;
        if (mark >= 0) {
            close(mark);
            p->lock_fd = fd;
            p->root_made = 1;
            return 0;
        }
        close(fd);
    }
    return wc_error_set(err, -EAGAIN, "simulated node: %s: every new tree was swept away", base);
}

/* Removes the tree this meter made, then drops its lock. */
static void release_root(sim_priv *p)
{
    if (!p->root_made)
        return;
    remove_tree(p->root);
    close(p->lock_fd);
    p->root_made = 0;
}

/* The largest power the model gives any zone: psys with every CPU busy at
 * the largest class factors, W (noise aside). */
static double max_zone_watts(const wc_sim_params *q, size_t ncpus)
{
    double pkg_f = 1.0, dram_f = 1.0;
    for (int c = 0; c < WC_SIM_NCLASSES; c++) {
        pkg_f = q->class_factor[c] > pkg_f ? q->class_factor[c] : pkg_f;
        dram_f = q->class_dram_factor[c] > dram_f ? q->class_dram_factor[c] : dram_f;
    }
    double package = q->package_idle_watts + q->package_watts_per_cpu * (double)ncpus * pkg_f /
                                                 SIM_NPACKAGES;
    double dram = q->dram_idle_watts + q->dram_watts_per_cpu * (double)ncpus * dram_f /
                                           SIM_NPACKAGES;
    return SIM_NPACKAGES * (package + dram) + q->psys_base_watts;
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
    p->max_zone_watts = max_zone_watts(&p->params, ncpus);
    if (scan_procs(p) == 0) { /* baseline: processes running now are not new */
        sim_table t = p->procs;
        p->procs = p->scan;
        p->scan = t;
    }
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
        release_root(p);
        free(p->procs.v);
        free(p->scan.v);
        free(p);
        return rc;
    }
    m->ops = &SIM_OPS;
    m->provenance = WC_PROV_SIMULATED;
    m->priv = p;
    /* the recorder's default counter ceiling: a quarter above the model's
     * largest zone power, plus ten noise deviations */
    m->plausible_watts = 1.25 * p->max_zone_watts + 10.0 * q.noise_sd_watts;
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

int wc_meter_sim_class_busy(const wc_meter *m, double busy[WC_SIM_NCLASSES], double *other,
                            size_t *nclassified)
{
    if (!m || m->ops != &SIM_OPS || !m->priv)
        return -EINVAL;
    const sim_priv *p = m->priv;
    if (busy)
        memcpy(busy, p->class_busy, sizeof p->class_busy);
    if (other)
        *other = p->other_busy;
    if (nclassified)
        *nclassified = p->procs.n;
    return 0;
}

int wc_meter_sim_feed(wc_meter *m, const wc_proc_snapshot *snap, const wc_cpu_times *total,
                      size_t ncpus)
{
    if (!m || m->ops != &SIM_OPS || !m->priv)
        return -EINVAL;
    sim_priv *p = m->priv;
    p->fed = snap;
    p->fed_cpu = total != NULL;
    if (total) {
        p->fed_busy = wc_cpu_busy_ticks(total);
        p->fed_total = wc_cpu_total_ticks(total);
        p->fed_ncpus = ncpus;
    }
    return 0;
}
