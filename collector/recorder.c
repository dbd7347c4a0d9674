/*
 * recorder.c — the record loop (see recorder.h). It glues the parts of the
 * collector together: meter (opened through meter_table), /proc/stat
 * (procstat), processes (proc_scan), attribution model (attribution) and
 * the SQLite store (store). It owns no parsing or arithmetic of its own.
 */
#include "collector/recorder.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "collector/meter/counter.h"
#include "collector/meter/meter_sim.h"
#include "collector/meter/meter_table.h"
#include "collector/procfs/proc_scan.h"
#include "collector/procfs/procstat.h"
#include "collector/recorder_cgroup.h"
#include "collector/recorder_exporter.h"
#include "collector/store/store.h"
#include "collector/truth/truth_file.h"
#include "collector/truth/truth_poller.h"
#include "collector/truth/truth_table.h"
#include "common/wc_clock.h"
#include "common/wc_fs.h"
#include "common/wc_text.h"

void wc_record_defaults(wc_record_opts *o)
{
    memset(o, 0, sizeof *o);
    o->interval_ns = WC_NS_PER_S;
    o->model = WC_MODEL_KEPLER_011;
    o->procfs_root = "/proc";
    o->sysfs_root = "/sys";
    o->sim = wc_sim_default_params();
    o->ceiling_watts = 0; /* the meter's own (simulated node) or WC_DEFAULT_CEILING_WATTS */
    wc_truth_config_defaults(&o->truth);
    wc_exporter_config_defaults(&o->exporter);
}

/* Everything one recording holds open. */
typedef struct recording {
    const wc_record_opts *opts;
    wc_meter meter;
    int meter_open;
    wc_store *store;
    wc_proc_scanner *scanner;
    wc_attrib *attrib;
    int64_t model_id, first_zone_id;
    wc_reading *readings, *prev_readings;
    int have_prev;
    wc_attr_zone_in *zone_in;
    wc_attr_proc_in *proc_in;
    int64_t *proc_ids;
    size_t proc_cap;
    wc_proc_snapshot snap;
    wc_procstat stat;
    wc_record_result *res;
    int64_t start_mono, start_wall; /* the run's clocks at its start (run row) */
    int warned_meter, warned_cpu, warned_scan; /* first error of each kind printed */
    double ceiling;              /* counter ceiling per zone in force, W (stored with the run) */
    unsigned zones_version;      /* meter.layout_version the zone rows were written at */
    wc_truth_source *truth;      /* polled ground-truth sources */
    int64_t *truth_ids;          /* their truth_source row ids */
    int64_t *truth_ok, *truth_polls; /* per source: readings ok, polls (progress line) */
    size_t ntruth;
    wc_truth_poller *poller;
    wc_truth_queued *truth_q;    /* the samples drained this tick (for on_tick) */
    size_t ntruth_q;
    wc_rec_exporters *exporters; /* --exporter: scraped on their own threads */
    wc_rec_cgroups *cgroups;     /* pods' and containers' cpu.stat / cpuacct.usage */
    int warned_cgroup;
} recording;

/* Prints the first error of a kind to stderr (even with --quiet: an operator
 * must see which file failed); later ones are only counted. */
static void warn_once(int *warned, const wc_error *e)
{
    if (*warned || !e->msg[0])
        return;
    *warned = 1;
    fputs("\nwattcal record: warning: ", stderr);
    wc_fputs_safe(e->msg, stderr);
    fputs(" (further errors of this kind are counted, not printed; the run goes on)\n", stderr);
}

/* Opens and discovers the meter --meter names (the default: hardware)
 * through the meter table. */
static int open_meter(recording *r, wc_error *err)
{
    const wc_record_opts *o = r->opts;
    const wc_meter_kind *kind = wc_meter_find(o->meter ? o->meter : WC_METER_DEFAULT);
    if (!kind) {
        char names[128];
        return wc_error_set(err, -EINVAL, "--meter %s: unknown meter (%s)", o->meter,
                            wc_meter_names(names, sizeof names));
    }
    wc_meter_env env = {.sysfs_root = o->sysfs_root, .procfs_root = o->procfs_root,
                        .sim = &o->sim};
    int rc = kind->init(&r->meter, &env, err);
    if (rc)
        return rc;
    r->meter_open = 1;
    wc_error why = {{0}};
    rc = wc_meter_discover(&r->meter, &why);
    if (rc == -ENODEV)
        return wc_error_set(err, -ENODEV,
                            "no hardware power meter on this node: %s. wattcal never falls back "
                            "silently: run `wattcal record --meter sim` to record a SIMULATED "
                            "node instead, or point --sysfs-root at the host's /sys",
                            why.msg);
    if (rc && err)
        *err = why;
    return rc;
}

static void read_first_line_matching(const char *path, const char *key, char *out, size_t cap)
{
    char *text = NULL;
    size_t len = 0;
    out[0] = '\0';
    if (wc_read_all(path, &text, &len, NULL) != 0)
        return;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (strncmp(line, key, strlen(key)) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                snprintf(out, cap, "%s", colon);
            }
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
}

/* Distinct sockets with a package zone (per-die zones of one socket count
 * once, issue 14 item 1). */
static int count_sockets(const wc_meter *m)
{
    int n = 0;
    for (size_t i = 0; i < m->nzones; i++) {
        int first = strcmp(m->zones[i].name, "package") == 0;
        for (size_t j = 0; first && j < i; j++)
            first = !(strcmp(m->zones[j].name, "package") == 0 &&
                      m->zones[j].socket == m->zones[i].socket);
        n += first;
    }
    return n;
}

/* The counter ceiling per zone: --ceiling-watts, else the meter's own
 * (the simulated node's), else WC_DEFAULT_CEILING_WATTS. Warns at start when
 * an interval at that ceiling could use a zone's whole range, so a wrap
 * could hide inside it (issue 14 item 3; such intervals are flagged). */
static void pick_ceiling(recording *r)
{
    const wc_record_opts *o = r->opts;
    r->ceiling = o->ceiling_watts > 0     ? o->ceiling_watts
                 : r->meter.plausible_watts > 0 ? r->meter.plausible_watts
                                               : WC_DEFAULT_CEILING_WATTS;
    size_t n = 0, first = 0;
    for (size_t i = 0; i < r->meter.nzones; i++)
        if (wc_counter_interval_too_long(r->meter.zones[i].max_energy_range_uj, o->interval_ns,
                                         r->ceiling) && !n++)
            first = i;
    if (!n)
        return;
    const wc_zone *z = &r->meter.zones[first];
    fprintf(stderr, "wattcal record: warning: --interval %.3f s at the %.0f W ceiling can use %zu "
            "zone(s)' whole counter range (first: %s, max_energy_range_uj %llu = %.0f J): a wrap "
            "could hide inside one interval; such intervals are flagged ambiguous and never "
            "counted as measured (shorten --interval or set --ceiling-watts to this node's real "
            "maximum per zone)\n", (double)o->interval_ns / 1e9, r->ceiling, n, z->raw_name,
            (unsigned long long)z->max_energy_range_uj, (double)z->max_energy_range_uj / 1e6);
}

/* A file: log is imported after the run: check now that it can be, and
 * what it already holds (header, units, first lines: wc_truth_file_check_start),
 * before hours of recording. */
static int check_truth_file(const char *path, const char *format, wc_error *err)
{
    struct stat st;
    size_t nread = 0;
    if (!*path)
        return wc_error_set(err, -EINVAL, "--truth file: needs a path (file:PATH)");
    if (stat(path, &st) != 0)
        return wc_error_set(err, -errno, "--truth file:%s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode) || access(path, R_OK) != 0)
        return wc_error_set(err, -EINVAL, "--truth file:%s: not a readable regular file", path);
    int rc = wc_truth_file_check_start(path, format ? format : "csv", 200, &nread, err);
    return rc ? wc_error_prefix(err, rc, "--truth file: checked before recording: ") : 0;
}

/* Opens every polled ground-truth source (file: logs are imported at the
 * end). The simulated BMC reads the node's zones: the simulated tree when the
 * meter is simulated. */
static int open_truth(recording *r, wc_error *err)
{
    const wc_record_opts *o = r->opts;
    r->truth = calloc(o->ntruth ? o->ntruth : 1, sizeof *r->truth);
    r->truth_ids = calloc(o->ntruth ? o->ntruth : 1, sizeof *r->truth_ids);
    r->truth_ok = calloc(o->ntruth ? o->ntruth : 1, sizeof *r->truth_ok);
    r->truth_polls = calloc(o->ntruth ? o->ntruth : 1, sizeof *r->truth_polls);
    if (!r->truth || !r->truth_ids || !r->truth_ok || !r->truth_polls)
        return wc_error_set(err, -ENOMEM, "out of memory");
    wc_truth_config cfg = o->truth;
    const char *sim_root = wc_meter_sim_root(&r->meter);
    cfg.sysfs_root = sim_root ? sim_root : o->sysfs_root;
    for (size_t i = 0; i < o->ntruth; i++) {
        if (strncmp(o->truth_specs[i], "file:", 5) == 0) {
            if (!o->db_path)
                return wc_error_set(err, -EINVAL, "--truth %s: a file: log is imported into "
                                    "the run database after the run: it needs --db",
                                    o->truth_specs[i]);
            int rc = check_truth_file(o->truth_specs[i] + 5, o->truth.truth_format, err);
            if (rc)
                return rc;
            continue;
        }
        int rc = wc_truth_open(o->truth_specs[i], &cfg, &r->truth[r->ntruth], err);
        r->ntruth++; /* counted even on failure so teardown closes it */
        if (rc)
            return rc;
    }
    return 0;
}

static int register_truth(recording *r, wc_error *err)
{
    for (size_t i = 0; i < r->ntruth && r->store; i++) {
        wc_truth_source *t = &r->truth[i];
        int rc = wc_store_put_truth_source(r->store, t->spec, t->ops->kind, t->provenance,
                                           t->description, &r->truth_ids[i], err);
        if (rc)
            return rc;
    }
    if (r->ntruth == 0)
        return 0;
    r->poller = wc_truth_poller_start(r->truth, r->ntruth, err);
    return r->poller ? 0 : -EIO;
}

/* Writes the ground-truth samples gathered since the last call (inside the
 * tick's transaction; none without a store) and keeps them for on_tick until
 * the next call. */
static int write_truth(recording *r, wc_error *err)
{
    free(r->truth_q);
    r->truth_q = NULL;
    size_t n = r->ntruth_q = wc_truth_poller_drain(r->poller, &r->truth_q);
    const wc_truth_queued *q = r->truth_q;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (r->store)
            rc = wc_store_put_truth_sample(r->store, r->truth_ids[q[i].source], &q[i].sample,
                                           err);
        r->res->truth_samples++;
        r->res->truth_errors += q[i].sample.status == WC_TRUTH_ERROR ||
                                q[i].sample.status == WC_TRUTH_UNAVAILABLE;
        r->truth_polls[q[i].source]++;
        r->truth_ok[q[i].source] += q[i].sample.status == WC_TRUTH_OK;
    }
    return rc;
}

/* Where the samples of a file: log go as they are parsed (one at a time:
 * a log of any length takes bounded memory). */
typedef struct file_sink {
    wc_store *store;
    int64_t source_id, start_wall, start_mono;
} file_sink;

static int put_file_sample(void *ctx, const wc_truth_sample *s, wc_error *err)
{
    const file_sink *fs = ctx;
    wc_truth_sample t = *s;
    wc_truth_file_align(&t, 1, fs->start_wall, fs->start_mono);
    return wc_store_put_truth_sample(fs->store, fs->source_id, &t, err);
}

/* Imports one wall-meter log (file:PATH) after the run, mapping its wall
 * clock onto the run's monotonic clock through the run's start, streamed
 * into one transaction (rolled back when a line is bad). */
static int import_truth_file(recording *r, const char *spec, int64_t start_wall,
                             int64_t start_mono, wc_error *err)
{
    const char *path = spec + 5;
    const char *format = r->opts->truth.truth_format ? r->opts->truth.truth_format : "csv";
    char desc[256];
    snprintf(desc, sizeof desc, "%s log %.200s, aligned by wall clock", format, path);
    file_sink fs = {.store = r->store, .start_wall = start_wall, .start_mono = start_mono};
    size_t n = 0;
    int rc = wc_store_begin(r->store, err);
    if (rc)
        return rc;
    rc = wc_store_put_truth_source(r->store, spec, "file", WC_PROV_GROUND_TRUTH, desc,
                                   &fs.source_id, err);
    if (!rc)
        rc = wc_truth_file_each(path, format, put_file_sample, &fs, &n, err);
    if (!rc)
        rc = wc_store_commit(r->store, err);
    else
        wc_store_rollback(r->store);
    if (!rc)
        r->res->truth_samples += (int64_t)n;
    return rc;
}

static int write_run_info(recording *r, int64_t start_mono, wc_error *err)
{
    const wc_record_opts *o = r->opts;
    wc_run_info info;
    memset(&info, 0, sizeof info);
    gethostname(info.host, sizeof info.host - 1);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(info.kernel, sizeof info.kernel, "%s %s %s", u.sysname, u.release, u.machine);
    char path[512];
    wc_path(path, sizeof path, o->procfs_root, "cpuinfo");
    read_first_line_matching(path, "model name", info.cpu_model, sizeof info.cpu_model);
    info.sockets = count_sockets(&r->meter);
    info.ncpus = (int)r->stat.ncpus;
    info.interval_ns = o->interval_ns;
    info.started_wall_ns = r->start_wall = wc_wall_ns();
    info.started_mono_ns = start_mono;
    snprintf(info.model, sizeof info.model, "%s", wc_model_name(o->model));
    snprintf(info.meter_kind, sizeof info.meter_kind, "%s", r->meter.ops->kind);
    info.provenance = r->res->meter_provenance = r->meter.provenance;
    snprintf(info.meter_description, sizeof info.meter_description, "%s", r->meter.description);
    if (r->meter.provenance == WC_PROV_SIMULATED)
        wc_sim_params_json(&o->sim, info.sim_params_json, sizeof info.sim_params_json);
    snprintf(info.procfs_root, sizeof info.procfs_root, "%s", o->procfs_root);
    snprintf(info.sysfs_root, sizeof info.sysfs_root, "%s", o->sysfs_root);
    snprintf(info.command_line, sizeof info.command_line, "%s",
             o->command_line ? o->command_line : "");
    info.ceiling_watts = r->ceiling;
    if (!r->store) { /* nothing stored: start the pollers and scrapers only */
        int rc = register_truth(r, err);
        return rc ? rc : wc_rec_exporters_register(r->exporters, NULL, err);
    }
    int rc = wc_store_put_run(r->store, &info, err);
    if (!rc)
        rc = wc_store_put_zones(r->store, &r->meter, &r->first_zone_id, err);
    if (!rc)
        rc = wc_store_model_id(r->store, wc_model_name(o->model), &r->model_id, err);
    if (!rc)
        rc = register_truth(r, err);
    if (!rc)
        rc = wc_rec_exporters_register(r->exporters, r->store, err);
    return rc;
}

/* Arrays of RECORD_MMAP_BYTES or more (the per-process tables of the
 * scanner, the model and the store, grown when processes are born) get
 * their own mappings: growing one is an mremap, not a copy that leaves a
 * resident hole in the heap, and pages never written stay unresident. A
 * fixed threshold also stops glibc raising it after the first such free
 * (which put later tables back in the heap). Two arenas at most: the truth
 * and exporter threads share one instead of 64 MiB each. Issue 15: record
 * within 16 MiB at 5,000 processes. mallopt returns 1 on success; a refusal
 * only costs memory. */
#define RECORD_MMAP_BYTES (64 * 1024)
static void tame_malloc(void)
{
    (void)mallopt(M_MMAP_THRESHOLD, RECORD_MMAP_BYTES);
    (void)mallopt(M_ARENA_MAX, 2);
}

static int setup(recording *r, wc_error *err)
{
    const wc_record_opts *o = r->opts;
    if (o->interval_ns <= 0)
        return wc_error_set(err, -EINVAL, "--interval must be positive");
    tame_malloc();
    int rc = open_meter(r, err);
    if (rc)
        return rc;
    pick_ceiling(r);
    rc = wc_procstat_read(o->procfs_root, &r->stat, err);
    if (rc)
        return rc;
    r->scanner = wc_proc_scanner_new(o->procfs_root, err);
    if (!r->scanner)
        return -EIO;
    r->attrib = wc_attrib_new(o->model);
    if (r->attrib && o->kepler)
        wc_kepler_config_apply(o->kepler, r->attrib);
    wc_attrib_set_ceiling(r->attrib, r->ceiling);
    size_t nz = r->meter.nzones;
    r->readings = calloc(nz ? nz : 1, sizeof *r->readings);
    r->prev_readings = calloc(nz ? nz : 1, sizeof *r->prev_readings);
    r->zone_in = calloc(nz ? nz : 1, sizeof *r->zone_in);
    r->cgroups = wc_rec_cgroups_new(o->sysfs_root);
    if (!r->attrib || !r->readings || !r->prev_readings || !r->zone_in || !r->cgroups)
        return wc_error_set(err, -ENOMEM, "out of memory");
    /* Every --truth and --exporter is checked before the DB file is created. */
    rc = open_truth(r, err);
    if (!rc)
        rc = wc_rec_exporters_open(o->exporter_specs, o->nexporter, &o->exporter,
                                   &r->exporters, err);
    if (rc)
        return rc;
    if (!o->db_path)
        return 0; /* nothing stored (serve without --db) */
    r->store = wc_store_open(o->db_path, WC_STORE_CREATE, err);
    if (!r->store)
        return -EIO;
    /* a recorder only appends: a small page cache (store.h) */
    return wc_store_set_cache_kib(r->store, WC_STORE_WRITER_CACHE_KIB, err);
}

static void teardown(recording *r)
{
    wc_rec_exporters_free(r->exporters);
    wc_rec_cgroups_free(r->cgroups);
    wc_truth_poller_free(r->poller);
    free(r->truth_q);
    for (size_t i = 0; i < r->ntruth; i++)
        wc_truth_close(&r->truth[i]);
    free(r->truth);
    free(r->truth_ids);
    free(r->truth_ok);
    free(r->truth_polls);
    wc_store_close(r->store);
    wc_attrib_free(r->attrib);
    wc_proc_scanner_free(r->scanner);
    wc_proc_snapshot_free(&r->snap);
    wc_procstat_free(&r->stat);
    if (r->meter_open)
        wc_meter_close(&r->meter);
    free(r->readings);
    free(r->prev_readings);
    free(r->zone_in);
    free(r->proc_in);
    free(r->proc_ids);
}

/* Frees what only the ticks use (the scanner and its identities, the
 * snapshot, the model's tables, the tick arrays) once the loop is over, so
 * that the index sort of finishing the run reuses that memory instead of
 * adding to the peak (issue 15: record's RSS). teardown then frees NULLs. */
static void release_tick_state(recording *r)
{
    wc_attrib_free(r->attrib);
    r->attrib = NULL;
    wc_proc_scanner_free(r->scanner);
    r->scanner = NULL;
    wc_proc_snapshot_free(&r->snap);
    free(r->proc_in);
    free(r->proc_ids);
    r->proc_in = NULL;
    r->proc_ids = NULL;
    r->proc_cap = 0;
}

static int grow_proc_arrays(recording *r, size_t n, wc_error *err)
{
    if (n <= r->proc_cap)
        return 0;
    size_t cap = n * 2;
    wc_attr_proc_in *pi = realloc(r->proc_in, cap * sizeof *pi);
    if (!pi)
        return wc_error_set(err, -ENOMEM, "out of memory");
    r->proc_in = pi;
    int64_t *ids = realloc(r->proc_ids, cap * sizeof *ids);
    if (!ids)
        return wc_error_set(err, -ENOMEM, "out of memory");
    r->proc_ids = ids;
    r->proc_cap = cap;
    return 0;
}

/* Builds the attribution input from what this tick read. */
static int build_attr_input(recording *r, int64_t mono, int64_t boot, int cpu_ok,
                            wc_attr_tick_in *in, wc_error *err)
{
    int rc = grow_proc_arrays(r, r->snap.count + 1, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < r->meter.nzones; i++) {
        r->zone_in[i].name = r->meter.zones[i].name;
        r->zone_in[i].energy_uj = r->readings[i].value;
        r->zone_in[i].max_energy_range_uj = r->meter.zones[i].max_energy_range_uj;
        r->zone_in[i].ok = r->readings[i].status == 0;
        r->zone_in[i].vanished = r->readings[i].status == -ENOENT;
    }
    for (size_t i = 0; i < r->snap.count; i++) {
        const wc_proc_sample *s = &r->snap.samples[i];
        wc_attr_proc_in *p = &r->proc_in[i];
        p->pid = s->id->pid;
        p->starttime = s->id->starttime;
        p->cpu_ticks = s->utime + s->stime;
        p->container_id = s->id->cgroup.is_runtime_monitor ? "" : s->id->cgroup.container_id;
        p->pod_uid = s->id->cgroup.pod_uid;
        p->vm_id = s->id->vm.id;
        p->vm_since = s->id->vm.since;
        r->proc_ids[i] = s->id->store_id;
    }
    memset(in, 0, sizeof *in);
    in->mono_ns = mono;
    in->boot_ns = boot;
    in->cpu = r->stat.total;
    in->cpu_ok = cpu_ok;
    in->zones = r->zone_in;
    in->nzones = r->meter.nzones;
    in->procs = r->proc_in;
    in->nprocs = r->snap.count;
    return 0;
}

/* Node watts over the interval (packages + dram, our counter rule) for the
 * progress line; NaN when unmeasurable. */
static double node_watts(recording *r, int64_t dt_ns)
{
    if (!r->have_prev || dt_ns <= 0)
        return -1;
    uint64_t sum = 0;
    for (size_t i = 0; i < r->meter.nzones; i++) {
        const wc_zone *z = &r->meter.zones[i];
        if (strcmp(z->name, "package") != 0 && strcmp(z->name, "dram") != 0)
            continue;
        if (r->readings[i].status || r->prev_readings[i].status)
            return -1;
        uint64_t d = 0;
        wc_delta_status ds = wc_counter_delta_checked(r->prev_readings[i].value,
                                                      r->readings[i].value,
                                                      z->max_energy_range_uj, dt_ns, r->ceiling,
                                                      &d);
        if (!wc_delta_usable(ds))
            return -1;
        sum += d;
    }
    return (double)sum / 1e6 / ((double)dt_ns / 1e9);
}

/* "  truth SPEC ok N/M[ FAILING]" per polled source (file: logs come at the
 * end) into buf; a simulated BMC before its first reading is due (its
 * documented warm-up, lag + window, plus a second) is "warming up", not
 * FAILING. */
static void truth_progress(const recording *r, int64_t elapsed_ns, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->ntruth; i++) {
        double warm_s = 0, min_s;
        int warming = r->truth_ok[i] == 0 &&
                      wc_truth_sim_timing(r->truth[i].spec, 1, &warm_s, &min_s) &&
                      elapsed_ns / 1e9 < warm_s + 1;
        if (warming)
            wc_append(buf, cap, &used, "  truth %.24s warming up (first reading after ~%.0f s)",
                      r->truth[i].spec, warm_s);
        else
            wc_append(buf, cap, &used, "  truth %.24s ok %lld/%lld%s", r->truth[i].spec,
                      (long long)r->truth_ok[i], (long long)r->truth_polls[i],
                      r->truth_polls[i] >= 3 && r->truth_ok[i] == 0 ? " FAILING" : "");
    }
}

/* "12.0/60 s, ETA 48 s" against the planned length, or "12.0 s" without one. */
static void time_progress(const recording *r, int64_t elapsed_ns, char *buf, size_t cap)
{
    int64_t total = r->opts->planned_ns ? r->opts->planned_ns : r->opts->duration_ns;
    if (total <= 0) {
        snprintf(buf, cap, "%.1f s", elapsed_ns / 1e9);
        return;
    }
    double left = (double)(total - elapsed_ns) / 1e9;
    snprintf(buf, cap, "%.1f/%.0f s, ETA %.0f s", elapsed_ns / 1e9, total / 1e9,
             left > 0 ? left : 0);
}

static void progress(recording *r, int64_t elapsed_ns, int64_t dt_ns)
{
    if (r->opts->quiet || !isatty(STDERR_FILENO))
        return;
    double w = node_watts(r, dt_ns);
    char wbuf[64], tbuf[64], phase[96] = "", truth[512];
    if (w < 0)
        snprintf(wbuf, sizeof wbuf, "node -- W");
    else
        snprintf(wbuf, sizeof wbuf, "node %.1f W (%s)", w,
                 wc_provenance_name(r->meter.provenance));
    time_progress(r, elapsed_ns, tbuf, sizeof tbuf);
    if (r->opts->phase_label) {
        char label[80] = "";
        r->opts->phase_label(r->opts->ctx, label, sizeof label);
        if (label[0])
            snprintf(phase, sizeof phase, "phase %s  ", label);
    }
    truth_progress(r, elapsed_ns, truth, sizeof truth);
    fprintf(stderr, "\r\033[Kwattcal record: %s%s  %s  %zu processes", phase, tbuf, wbuf,
            r->snap.count);
    wc_fputs_safe(truth, stderr);
    fflush(stderr);
}

/* The tick's zone readings; the zone rows again when a zone that vanished
 * came back with another path or range (cases/B25). */
static int write_zone_samples(recording *r, int64_t tick_id, wc_error *err)
{
    int rc = wc_store_put_zone_samples(r->store, tick_id, r->first_zone_id, r->readings,
                                       r->meter.nzones, err);
    if (!rc && r->meter.layout_version != r->zones_version)
        rc = wc_store_update_zones(r->store, &r->meter, r->first_zone_id, err);
    return rc;
}

/* The tick's reads of every live pod and container cgroup (the first failed
 * read is printed once; failures are stored with their status). Without a
 * run database (`serve` with no --db) nothing is read. */
static int write_cgroups(recording *r, int64_t tick_id, wc_error *err)
{
    if (!r->store)
        return 0;
    wc_error why = {{0}};
    int64_t errors = 0;
    int rc = wc_rec_cgroups_tick(r->cgroups, r->store, tick_id, &r->snap, &errors, &why, err);
    if (!rc && errors)
        warn_once(&r->warned_cgroup, &why);
    return rc;
}

/* What a tick writes beside its own samples: the cgroups' CPU, the ground
 * truth and the exporter scrapes gathered since the last tick. */
static int write_beside(recording *r, int64_t tick_id, wc_error *err)
{
    int rc = write_cgroups(r, tick_id, err);
    if (!rc)
        rc = write_truth(r, err);
    if (!rc)
        rc = wc_rec_exporters_write(r->exporters, r->store, r->res, err);
    return rc;
}

/* Reads the meter's zones into the tick's readings, counting failures. */
static void read_meter(recording *r)
{
    wc_error why = {{0}};
    if (wc_meter_read(&r->meter, r->readings, &why) != 0)
        warn_once(&r->warned_meter, &why);
    for (size_t i = 0; i < r->meter.nzones; i++)
        r->res->meter_errors += r->readings[i].status != 0;
}

/* Reads the meter, /proc/stat and every process for one tick; a failed zone
 * or /proc/stat is not fatal (its status is stored with the tick). A
 * simulated node is read last, fed this scan (wc_meter_sim_feed): it then
 * makes no second pass over /proc (issue 15). */
static int read_tick(recording *r, int *cpu_ok, int64_t *scan_ns, wc_error *err)
{
    int sim = r->meter.ops && !strcmp(r->meter.ops->kind, "sim");
    if (!sim)
        read_meter(r);
    wc_procstat_free(&r->stat);
    wc_error why = {{0}};
    *cpu_ok = wc_procstat_read(r->opts->procfs_root, &r->stat, &why) == 0;
    if (!*cpu_ok)
        warn_once(&r->warned_cpu, &why);
    int64_t t0 = wc_mono_ns();
    int rc = wc_proc_scan(r->scanner, &r->snap, err);
    if (rc)
        return rc;
    *scan_ns = wc_mono_ns() - t0;
    r->res->scan_errors += (int64_t)r->snap.errors;
    if (r->snap.errors)
        warn_once(&r->warned_scan, &r->snap.first_error);
    if (sim) {
        wc_meter_sim_feed(&r->meter, &r->snap, *cpu_ok ? &r->stat.total : NULL, r->stat.ncpus);
        read_meter(r);
    }
    return 0;
}

/* The tick's raw rows (none without a store), inside its transaction. */
static int store_raw(recording *r, int64_t seq, const int64_t clk[3], int cpu_ok,
                     int64_t scan_ns, int64_t *tick_id, wc_error *err)
{
    if (!r->store)
        return 0;
    int rc = wc_store_put_tick(r->store, seq, clk[0], clk[1], clk[2], &r->stat.total, cpu_ok,
                               r->snap.count, scan_ns, tick_id, err);
    if (!rc)
        rc = write_zone_samples(r, *tick_id, err);
    if (!rc)
        rc = wc_store_put_processes(r->store, *tick_id, &r->snap, err);
    return rc;
}

/* Writes and attributes one tick (clk: mono, boot, wall) in ONE transaction:
 * never half a tick (earlier ticks stay, this one is dropped on error). */
static int write_tick(recording *r, int64_t seq, const int64_t clk[3], int cpu_ok,
                      int64_t scan_ns, wc_attr_tick_in *in, wc_attr_out *out, wc_error *err)
{
    int rc = r->store ? wc_store_begin(r->store, err) : 0;
    if (rc)
        return rc;
    int64_t tick_id = 0;
    rc = store_raw(r, seq, clk, cpu_ok, scan_ns, &tick_id, err);
    if (!rc)
        rc = write_beside(r, tick_id, err);
    if (!rc)
        rc = build_attr_input(r, clk[0], clk[1], cpu_ok, in, err);
    if (!rc)
        rc = wc_attrib_step(r->attrib, in, out, err);
    if (!rc && r->store)
        rc = wc_store_put_attribution(r->store, r->model_id, tick_id, out, r->proc_ids, err);
    if (rc) {
        if (r->store)
            wc_store_rollback(r->store);
        return rc;
    }
    return r->store ? wc_store_commit(r->store, err) : 0;
}

/* Hands the tick to opts->on_tick (when set). */
static void publish_tick(recording *r, int64_t seq, const int64_t clk[3], int64_t dt_ns,
                         const wc_attr_tick_in *in, const wc_attr_out *out)
{
    const wc_record_opts *o = r->opts;
    if (!o->on_tick)
        return;
    wc_record_tick t = {.seq = seq, .mono_ns = clk[0], .wall_ns = clk[2],
                        .dt_ns = r->have_prev ? dt_ns : 0, .meter = &r->meter,
                        .readings = r->readings,
                        .prev_readings = r->have_prev ? r->prev_readings : NULL,
                        .ceiling_watts = r->ceiling, .in = in, .out = out,
                        .snap = &r->snap, .truth = r->truth, .ntruth = r->ntruth,
                        .truth_samples = r->truth_q, .ntruth_samples = r->ntruth_q,
                        .exporter_specs = o->exporter_specs, .nexporters = o->nexporter};
    t.scrapes = wc_rec_exporters_last(r->exporters, &t.nscrapes);
    o->on_tick(o->ctx, &t);
}

static int one_tick(recording *r, int64_t seq, int64_t *prev_mono, wc_error *err)
{
    int64_t clk[3] = {wc_mono_ns(), wc_boot_ns(), wc_wall_ns()};
    int cpu_ok = 0;
    int64_t scan_ns = 0;
    int rc = read_tick(r, &cpu_ok, &scan_ns, err);
    if (rc)
        return rc;
    wc_attr_tick_in in;
    wc_attr_out out;
    rc = write_tick(r, seq, clk, cpu_ok, scan_ns, &in, &out, err);
    if (rc)
        return rc;
    r->zones_version = r->meter.layout_version; /* the zone rows follow a returned zone */
    publish_tick(r, seq, clk, clk[0] - *prev_mono, &in, &out);
    progress(r, clk[0] - r->start_mono, clk[0] - *prev_mono);
    memcpy(r->prev_readings, r->readings, r->meter.nzones * sizeof *r->readings);
    r->have_prev = 1;
    *prev_mono = clk[0];
    return 0;
}

/* Sleeps until the absolute monotonic deadline; returns early on a signal. */
static void sleep_until(int64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = deadline_ns / WC_NS_PER_S,
                          .tv_nsec = deadline_ns % WC_NS_PER_S};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int loop(recording *r, volatile sig_atomic_t *stop, wc_error *err)
{
    const wc_record_opts *o = r->opts;
    int64_t start = wc_mono_ns(), prev_mono = start;
    r->start_mono = start;
    int rc = write_run_info(r, start, err);
    if (rc)
        return rc;
    for (int64_t k = 0;; k++) {
        rc = one_tick(r, k, &prev_mono, err);
        if (rc)
            return rc;
        if (r->res->ticks++ == 0 && o->on_first_tick)
            o->on_first_tick(o->ctx);
        if (*stop)
            break;
        int64_t next = start + (k + 1) * o->interval_ns;
        int64_t now = wc_mono_ns();
        while (next <= now) { /* overran: skip missed deadlines, keep the grid */
            r->res->missed_deadlines++;
            k++;
            next = start + (k + 1) * o->interval_ns;
        }
        if (o->duration_ns > 0 && next - start > o->duration_ns)
            break;
        /* the exporters' queued samples, in half the time left to the deadline */
        rc = wc_rec_exporters_flush(r->exporters, r->store, now + (next - now) / 2, err);
        if (rc)
            return rc;
        sleep_until(next);
        if (*stop) {
            /* finish with one last tick so the final partial interval is kept */
            rc = one_tick(r, k + 1, &prev_mono, err);
            if (!rc)
                r->res->ticks++;
            return rc;
        }
    }
    return 0;
}

/* After the loop: stops the pollers and writes their last samples, then
 * imports the file: logs. Returns rc unchanged when it already failed. */
static int finish_truth(recording *r, int rc, wc_error *err)
{
    wc_truth_poller *p = r->poller;
    wc_truth_poller_stop(p); /* joins the threads; their last samples stay queued */
    if (rc)
        return rc;
    if (p && !r->store)
        return write_truth(r, err); /* counted, nothing stored */
    if (p) {
        rc = wc_store_begin(r->store, err);
        if (!rc)
            rc = write_truth(r, err);
        if (!rc)
            rc = wc_store_commit(r->store, err);
    }
    return rc;
}

/* Imports the file: logs after the run is closed. A log that cannot be read
 * leaves the (complete, clean) run as it is, plus a truth_source row saying
 * the log was not imported and why. */
static int import_truth_files(recording *r, wc_error *err)
{
    int first_rc = 0;
    for (size_t i = 0; i < r->opts->ntruth; i++) {
        const char *spec = r->opts->truth_specs[i];
        if (strncmp(spec, "file:", 5) != 0)
            continue;
        wc_error why = {{0}};
        int rc = import_truth_file(r, spec, r->start_wall, r->start_mono, &why);
        if (!rc)
            continue;
        char desc[256];
        snprintf(desc, sizeof desc, "NOT imported: %.230s", why.msg);
        int64_t id = 0;
        wc_store_put_truth_source(r->store, spec, "file", WC_PROV_GROUND_TRUTH, desc, &id, NULL);
        if (!first_rc) {
            first_rc = rc;
            wc_error_set(err, rc, "the run itself is complete; the log %.200s was not imported: %.400s",
                         spec + 5, why.msg);
        }
    }
    return first_rc;
}

/* Compacts the finished run, saying so on a terminal (seconds on a long
 * run); a failure, or a further signal that stops it, is a warning: the run
 * stays whole. */
static void compact(recording *r, volatile sig_atomic_t *stop, sig_atomic_t stop_at)
{
    struct stat sb;
    int line = !r->opts->quiet && isatty(STDERR_FILENO) && stat(r->opts->db_path, &sb) == 0;
    if (line)
        fprintf(stderr, "\r\033[Kwattcal record: compacting the run file (%.1f MiB; another"
                " Ctrl-C stops it, the run stays whole)", sb.st_size / 1048576.0);
    wc_error cerr = {{0}};
    if (wc_store_compact(r->store, stop, stop_at, &cerr))
        fprintf(stderr, "%swattcal record: warning: %s\n", line ? "\n" : "", cerr.msg);
}

/* Ends the run in its file: the end row, indexes and journal (a run that
 * already failed is still finished, as not clean, and keeps its own error),
 * the file: logs, then the file compacted (a failure there is a warning:
 * the run is whole). A failed finish says which step and that every tick is
 * kept. */
static int finish_run(recording *r, volatile sig_atomic_t *stop, sig_atomic_t stop_at, int rc,
                      wc_error *err)
{
    wc_error ferr = {{0}};
    int frc = wc_store_finish_run(r->store, wc_wall_ns(), wc_mono_ns(), r->res->ticks, rc == 0,
                                  &ferr);
    if (!rc && frc)
        return wc_error_set(err, frc, "%s (all %lld ticks of the run are in the file)",
                            ferr.msg, (long long)r->res->ticks);
    if (!rc)
        rc = import_truth_files(r, err);
    if (!frc)
        compact(r, stop, stop_at);
    return rc;
}

/* A run that failed before its first tick: the file it created is removed,
 * and the error says so (a file that was there before is left as it was). */
static void discard_unstarted(recording *r, wc_error *err)
{
    int removed = wc_store_discard(r->store);
    r->store = NULL;
    size_t n = err ? strlen(err->msg) : 0;
    if (removed && err && n + 1 < sizeof err->msg)
        snprintf(err->msg + n, sizeof err->msg - n,
                 " (no tick was committed: the file is removed)");
}

int wc_record(const wc_record_opts *opts, volatile sig_atomic_t *stop, wc_record_result *res,
              wc_error *err)
{
    recording r;
    memset(&r, 0, sizeof r);
    r.opts = opts;
    r.res = res;
    memset(res, 0, sizeof *res);
    int rc = setup(&r, err);
    if (!rc) {
        rc = loop(&r, stop, err);
        sig_atomic_t stop_at = stop ? *stop : 0; /* a later signal skips or stops the compaction */
        rc = finish_truth(&r, rc, err);
        rc = wc_rec_exporters_finish(r.exporters, r.store, res, rc, err);
        release_tick_state(&r);
        if (!r.store) /* serve without --db: no file to finish */
            ;
        else if (rc && res->ticks == 0) /* a failed start: no file left (when it made one) */
            discard_unstarted(&r, err);
        else
            rc = finish_run(&r, stop, stop_at, rc, err);
        if (!opts->quiet && isatty(STDERR_FILENO))
            fputc('\n', stderr);
    }
    teardown(&r);
    return rc;
}
