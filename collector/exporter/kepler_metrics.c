/*
 * kepler_metrics.c — Kepler's metric catalogue (kepler_metrics.h): one table
 * of every metric name of the v0.10+ exporter (v0.10.2, v0.11.4, main; Kepler's
 * internal/exporter/prometheus/collector/ at those tags) and of the legacy <= v0.9 one
 * (pkg/metrics/consts and metricfactory), and the label roles each row reads.
 * wc_kepler_classify looks a sample's name up (sorted once, binary search)
 * and copies its labels into a typed wc_kep_fact; the meter of a node series
 * comes from its path (v0.10+) or source (legacy) label. docs/kepler-model.md
 * §11 explains the labels in our words.
 */
#include "collector/exporter/kepler_metrics.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_text.h"

/* The fact field a label fills. */
enum {
    F_ZONE = 1, F_KEY, F_PARENT, F_NAME, F_NS, F_STATE, F_PATH, F_NODE, F_VERSION, F_REVISION,
    F_SOURCE, F_MODE
};

typedef struct label_role {
    const char *label;
    int field;
} label_role;

/* Label roles, per kind of series (each list ends with {NULL, 0}). */
static const label_role R_NODE[] = {{"zone", F_ZONE},     {"path", F_PATH},
                                    {"node_name", F_NODE}, {"gpu", F_KEY},
                                    {"gpu_name", F_NAME},  {NULL, 0}};
static const label_role R_PROCESS[] = {{"pid", F_KEY},   {"container_id", F_PARENT},
                                       {"comm", F_NAME}, {"state", F_STATE},
                                       {"zone", F_ZONE}, {"node_name", F_NODE},
                                       {NULL, 0}};
static const label_role R_CONTAINER[] = {{"container_id", F_KEY}, {"pod_id", F_PARENT},
                                         {"container_name", F_NAME}, {"state", F_STATE},
                                         {"zone", F_ZONE},           {"node_name", F_NODE},
                                         {NULL, 0}};
static const label_role R_POD[] = {{"pod_id", F_KEY}, {"pod_name", F_NAME},
                                   {"pod_namespace", F_NS}, {"state", F_STATE},
                                   {"zone", F_ZONE},  {"node_name", F_NODE},
                                   {NULL, 0}};
static const label_role R_VM[] = {{"vm_id", F_KEY},  {"vm_name", F_NAME}, {"state", F_STATE},
                                  {"zone", F_ZONE}, {"node_name", F_NODE}, {NULL, 0}};
static const label_role R_PLATFORM[] = {{"source_id", F_KEY}, {"chassis_id", F_PARENT},
                                        {"source_name", F_NAME}, {"source", F_SOURCE},
                                        {"node_name", F_NODE}, {NULL, 0}};
static const label_role R_RATIO[] = {{"node_name", F_NODE}, {NULL, 0}};
static const label_role R_BUILD[] = {{"version", F_VERSION}, {"revision", F_REVISION},
                                     {NULL, 0}};
static const label_role R_CPUINFO[] = {{"processor", F_KEY}, {"model_name", F_NAME},
                                       {NULL, 0}};
/* legacy <= v0.9 */
static const label_role L_NODE[] = {{"package", F_KEY}, {"instance", F_NODE}, {"mode", F_MODE},
                                    {"source", F_SOURCE}, {"device", F_NAME}, {NULL, 0}};
static const label_role L_PROCESS[] = {{"pid", F_KEY},      {"container_id", F_PARENT},
                                       {"command", F_NAME}, {"mode", F_MODE},
                                       {"source", F_SOURCE}, {NULL, 0}};
static const label_role L_CONTAINER[] = {{"container_id", F_KEY}, {"pod_name", F_PARENT},
                                         {"container_name", F_NAME},
                                         {"container_namespace", F_NS}, {"mode", F_MODE},
                                         {"source", F_SOURCE}, {NULL, 0}};
static const label_role L_VM[] = {{"vm_id", F_KEY}, {"mode", F_MODE}, {"source", F_SOURCE},
                                  {NULL, 0}};
static const label_role L_INFO[] = {{"source", F_SOURCE}, {NULL, 0}};
/* a kepler_* metric outside the catalogue: what any Kepler series may say */
static const label_role R_OTHER[] = {{"node_name", F_NODE}, {"zone", F_ZONE},
                                     {"state", F_STATE},    {"path", F_PATH},
                                     {"source", F_SOURCE},  {NULL, 0}};

/* One catalogue row: a metric name and what its series mean. zone: the zone
 * the name carries (legacy), NULL when the zone label gives it. */
typedef struct kep_row {
    const char *metric;
    wc_kep_level level;
    wc_kep_quantity quantity;
    wc_kep_device device;
    wc_kep_layout layout;
    const char *zone;
    const label_role *roles;
} kep_row;

#define V WC_KEP_V010
#define L WC_KEP_LEGACY
#define CPU WC_KEP_CPU
#define GPU WC_KEP_GPU
#define OTH WC_KEP_DEV_OTHER
#define N_ WC_KEP_NODE
#define P_ WC_KEP_PROCESS
#define C_ WC_KEP_CONTAINER
#define D_ WC_KEP_POD
#define M_ WC_KEP_VM
#define J WC_KEP_JOULES
#define W WC_KEP_WATTS
#define Q_OTHER WC_KEP_Q_OTHER
/* A legacy energy row: kepler_<lvl>_<zn>_joules_total, quantity refined by
 * mode; the zone is the name's, except GPU series (zone "", as in v0.10+). */
#define LEGACY_ZONE(lvl, lv, zn, zone, dev, roles)                                             \
    {"kepler_" lvl "_" zn "_joules_total", lv, J, dev, L, zone, roles}
#define LEGACY_ZONES(lvl, lv, roles)                                                           \
    LEGACY_ZONE(lvl, lv, "package", "package", CPU, roles),                                    \
        LEGACY_ZONE(lvl, lv, "core", "core", CPU, roles),                                      \
        LEGACY_ZONE(lvl, lv, "uncore", "uncore", CPU, roles),                                  \
        LEGACY_ZONE(lvl, lv, "dram", "dram", CPU, roles),                                      \
        LEGACY_ZONE(lvl, lv, "other", "other", OTH, roles),                                    \
        LEGACY_ZONE(lvl, lv, "gpu", "", GPU, roles),                                           \
        LEGACY_ZONE(lvl, lv, "platform", "platform", OTH, roles)
/* Legacy resource-utilisation counters (from eBPF / perf): not energy. */
#define LEGACY_USAGE(lvl, lv, roles)                                                           \
    {"kepler_" lvl "_bpf_cpu_time_ms_total", lv, Q_OTHER, CPU, L, NULL, roles},                \
        {"kepler_" lvl "_cpu_cycles_total", lv, Q_OTHER, CPU, L, NULL, roles},                 \
        {"kepler_" lvl "_cpu_instructions_total", lv, Q_OTHER, CPU, L, NULL, roles},           \
        {"kepler_" lvl "_cache_miss_total", lv, Q_OTHER, CPU, L, NULL, roles}

static const kep_row CATALOGUE[] = {
    /* v0.10+: node CPU (zone, path), usage ratio, CPU info */
    {"kepler_node_cpu_joules_total", N_, J, CPU, V, NULL, R_NODE},
    {"kepler_node_cpu_active_joules_total", N_, WC_KEP_ACTIVE_JOULES, CPU, V, NULL, R_NODE},
    {"kepler_node_cpu_idle_joules_total", N_, WC_KEP_IDLE_JOULES, CPU, V, NULL, R_NODE},
    {"kepler_node_cpu_watts", N_, W, CPU, V, NULL, R_NODE},
    {"kepler_node_cpu_active_watts", N_, WC_KEP_ACTIVE_WATTS, CPU, V, NULL, R_NODE},
    {"kepler_node_cpu_idle_watts", N_, WC_KEP_IDLE_WATTS, CPU, V, NULL, R_NODE},
    {"kepler_node_cpu_usage_ratio", WC_KEP_NODE_RATIO, WC_KEP_RATIO, CPU, V, NULL, R_RATIO},
    {"kepler_node_cpu_info", WC_KEP_CPU_INFO, WC_KEP_INFO, CPU, V, NULL, R_CPUINFO},
    /* v0.11.4+: node GPU (gpu, gpu_uuid, gpu_name, vendor) */
    {"kepler_node_gpu_joules_total", N_, J, GPU, V, NULL, R_NODE},
    {"kepler_node_gpu_active_joules_total", N_, WC_KEP_ACTIVE_JOULES, GPU, V, NULL, R_NODE},
    {"kepler_node_gpu_idle_joules_total", N_, WC_KEP_IDLE_JOULES, GPU, V, NULL, R_NODE},
    {"kepler_node_gpu_watts", N_, W, GPU, V, NULL, R_NODE},
    {"kepler_node_gpu_active_watts", N_, WC_KEP_ACTIVE_WATTS, GPU, V, NULL, R_NODE},
    {"kepler_node_gpu_idle_watts", N_, WC_KEP_IDLE_WATTS, GPU, V, NULL, R_NODE},
    {"kepler_node_gpu_info", WC_KEP_NONE, WC_KEP_INFO, GPU, V, NULL, R_NODE},
    /* v0.10+: workloads (state, zone; GPU series have no zone) */
    {"kepler_process_cpu_joules_total", P_, J, CPU, V, NULL, R_PROCESS},
    {"kepler_process_cpu_watts", P_, W, CPU, V, NULL, R_PROCESS},
    {"kepler_process_cpu_seconds_total", P_, WC_KEP_CPU_SECONDS, CPU, V, NULL, R_PROCESS},
    {"kepler_process_gpu_joules_total", P_, J, GPU, V, NULL, R_PROCESS},
    {"kepler_process_gpu_watts", P_, W, GPU, V, NULL, R_PROCESS},
    {"kepler_container_cpu_joules_total", C_, J, CPU, V, NULL, R_CONTAINER},
    {"kepler_container_cpu_watts", C_, W, CPU, V, NULL, R_CONTAINER},
    {"kepler_container_cpu_seconds_total", C_, WC_KEP_CPU_SECONDS, CPU, V, NULL, R_CONTAINER},
    {"kepler_container_gpu_joules_total", C_, J, GPU, V, NULL, R_CONTAINER},
    {"kepler_container_gpu_watts", C_, W, GPU, V, NULL, R_CONTAINER},
    {"kepler_pod_cpu_joules_total", D_, J, CPU, V, NULL, R_POD},
    {"kepler_pod_cpu_watts", D_, W, CPU, V, NULL, R_POD},
    {"kepler_pod_gpu_joules_total", D_, J, GPU, V, NULL, R_POD},
    {"kepler_pod_gpu_watts", D_, W, GPU, V, NULL, R_POD},
    {"kepler_vm_cpu_joules_total", M_, J, CPU, V, NULL, R_VM},
    {"kepler_vm_cpu_watts", M_, W, CPU, V, NULL, R_VM},
    /* v0.11+: platform power from the BMC; build info */
    {"kepler_platform_watts", WC_KEP_PLATFORM, W, OTH, V, "platform", R_PLATFORM},
    {"kepler_build_info", WC_KEP_BUILD_INFO, WC_KEP_INFO, OTH, V, NULL, R_BUILD},
    /* legacy <= v0.9: per-zone energy with mode = dynamic | idle */
    LEGACY_ZONES("node", N_, L_NODE),
    LEGACY_ZONES("process", P_, L_PROCESS),
    LEGACY_ZONES("container", C_, L_CONTAINER),
    LEGACY_ZONES("vm", M_, L_VM),
    {"kepler_container_joules_total", C_, J, OTH, L, "", L_CONTAINER},
    LEGACY_USAGE("node", N_, L_NODE),
    LEGACY_USAGE("process", P_, L_PROCESS),
    LEGACY_USAGE("container", C_, L_CONTAINER),
    LEGACY_USAGE("vm", M_, L_VM),
    {"kepler_node_info", WC_KEP_NONE, WC_KEP_INFO, OTH, L, NULL, L_INFO},
    {"kepler_exporter_build_info", WC_KEP_BUILD_INFO, WC_KEP_INFO, OTH, L, NULL, R_BUILD},
};
#define NROWS (sizeof CATALOGUE / sizeof CATALOGUE[0])

/* Row indexes sorted by (metric, layout), and a hash table from a name to
 * its first place in that order, built once. */
static unsigned short order[NROWS];
#define NSLOTS 512 /* a power of two, well above the number of names */
static short slot[NSLOTS];
static pthread_once_t order_once = PTHREAD_ONCE_INIT;

/* FNV-1a of a name. */
static unsigned name_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int row_cmp(const void *a, const void *b)
{
    const kep_row *x = &CATALOGUE[*(const unsigned short *)a];
    const kep_row *y = &CATALOGUE[*(const unsigned short *)b];
    int c = strcmp(x->metric, y->metric);
    return c ? c : (int)x->layout - (int)y->layout;
}

static void order_init(void)
{
    for (size_t i = 0; i < NROWS; i++)
        order[i] = (unsigned short)i;
    qsort(order, NROWS, sizeof order[0], row_cmp);
    memset(slot, 0xff, sizeof slot);
    for (size_t i = 0; i < NROWS; i++) {
        const char *m = CATALOGUE[order[i]].metric;
        if (i && !strcmp(CATALOGUE[order[i - 1]].metric, m))
            continue; /* the legacy twin follows its v0.10+ row */
        unsigned j = name_hash(m) & (NSLOTS - 1);
        while (slot[j] >= 0)
            j = (j + 1) & (NSLOTS - 1);
        slot[j] = (short)i;
    }
}

/* The first place in order (v0.10+ before legacy) of this metric name, or -1. */
static long find_row(const char *name)
{
    for (unsigned j = name_hash(name) & (NSLOTS - 1); slot[j] >= 0; j = (j + 1) & (NSLOTS - 1))
        if (!strcmp(CATALOGUE[order[slot[j]]].metric, name))
            return slot[j];
    return -1;
}

static const char *label_value(const wc_expo_sample *s, const char *name)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (!strcmp(s->labels[i].name, name))
            return s->labels[i].value;
    return NULL;
}

/* The row of a sample: by name; a name both layouts use is legacy when the
 * sample has a mode label. NULL for a kepler_* name outside the catalogue. */
static const kep_row *row_of(const wc_expo_sample *s)
{
    pthread_once(&order_once, order_init);
    long i = find_row(s->name);
    if (i < 0)
        return NULL;
    const kep_row *r = &CATALOGUE[order[i]];
    const kep_row *next = (size_t)i + 1 < NROWS ? &CATALOGUE[order[i + 1]] : NULL;
    if (r->layout == V && next && !strcmp(next->metric, r->metric) && label_value(s, "mode"))
        r = next;
    return r;
}

/* The layout of a kepler_* series outside the catalogue: legacy when it
 * carries a label only the legacy layout uses. */
static wc_kep_layout guess_layout(const wc_expo_sample *s)
{
    static const char *const legacy[] = {"mode", "command", "container_namespace", "instance"};
    for (size_t i = 0; i < sizeof legacy / sizeof legacy[0]; i++)
        if (label_value(s, legacy[i]))
            return WC_KEP_LEGACY;
    return WC_KEP_V010;
}

/* Copies one label into the field its role names. */
static void fill(wc_kep_fact *f, int field, const char *v, wc_kep_quantity *mode_q)
{
    switch (field) {
    case F_ZONE: wc_copy_trunc(f->zone, sizeof f->zone, v); break;
    case F_KEY: wc_copy_trunc(f->key, sizeof f->key, v); break;
    case F_PARENT: wc_copy_trunc(f->parent, sizeof f->parent, v); break;
    case F_NAME: wc_copy_trunc(f->name, sizeof f->name, v); break;
    case F_NS: wc_copy_trunc(f->ns, sizeof f->ns, v); break;
    case F_STATE: wc_copy_trunc(f->state, sizeof f->state, v); break;
    case F_PATH: wc_copy_trunc(f->path, sizeof f->path, v); break;
    case F_NODE: wc_copy_trunc(f->node, sizeof f->node, v); break;
    case F_VERSION: wc_copy_trunc(f->version, sizeof f->version, v); break;
    case F_REVISION: wc_copy_trunc(f->revision, sizeof f->revision, v); break;
    case F_SOURCE: wc_copy_trunc(f->source, sizeof f->source, v); break;
    case F_MODE:
        *mode_q = !strcmp(v, "dynamic") ? WC_KEP_DYNAMIC_JOULES
                  : !strcmp(v, "idle")  ? WC_KEP_IDLE_JOULES
                                        : *mode_q;
        break;
    default: break;
    }
}

/* The meter of a legacy node series, from its source label. */
static wc_kep_meter meter_of_legacy_source(const char *src)
{
    static const char *const measured[] = {"rapl",     "rapl-sysfs", "rapl-msr",
                                           "intel_rapl", "ampere-xgene-hwmon", "acpi",
                                           "grace-acpi", "redfish",  "hmc"};
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++)
        if (!strcmp(src, measured[i]))
            return WC_KEP_METER_MEASURED;
    if (!strcmp(src, "trained_power_model") || !strcmp(src, "estimator"))
        return WC_KEP_METER_ESTIMATED;
    if (!strcmp(src, "dummy") || !strcmp(src, "none"))
        return WC_KEP_METER_FAKE;
    return WC_KEP_METER_UNKNOWN;
}

/* The meter of a node CPU energy or power series (the CPU zones; legacy:
 * package, core, uncore, dram); NA for any other series (GPU, the legacy
 * "other" and "platform" zones, usage, info). */
static wc_kep_meter meter_of(const wc_kep_fact *f)
{
    int energy = f->quantity == WC_KEP_JOULES || f->quantity == WC_KEP_ACTIVE_JOULES ||
                 f->quantity == WC_KEP_IDLE_JOULES || f->quantity == WC_KEP_DYNAMIC_JOULES ||
                 f->quantity == WC_KEP_WATTS || f->quantity == WC_KEP_ACTIVE_WATTS ||
                 f->quantity == WC_KEP_IDLE_WATTS;
    if (f->level != WC_KEP_NODE || !energy || f->device != WC_KEP_CPU)
        return WC_KEP_METER_NA;
    if (f->layout == WC_KEP_LEGACY)
        return meter_of_legacy_source(f->source);
    return wc_kepler_meter_of_path(f->path);
}

int wc_kepler_classify(const wc_expo_sample *s, wc_kep_fact *out)
{
    if (!s || !s->name || strncmp(s->name, "kepler_", 7))
        return 0;
    const kep_row *r = row_of(s);
    memset(out, 0, sizeof *out);
    out->level = r ? r->level : WC_KEP_NONE;
    out->quantity = r ? r->quantity : WC_KEP_Q_OTHER;
    out->device = r ? r->device : WC_KEP_DEV_OTHER;
    out->layout = r ? r->layout : guess_layout(s);
    const label_role *roles = r ? r->roles : R_OTHER;
    wc_kep_quantity q = out->quantity;
    for (size_t i = 0; i < s->nlabels; i++) {
        const char *ln = s->labels[i].name;
        for (const label_role *x = roles; x->label; x++)
            if (x->label[0] == ln[0] && !strcmp(x->label, ln)) {
                fill(out, x->field, s->labels[i].value, &q);
                break;
            }
    }
    if (r && r->layout == WC_KEP_LEGACY && r->quantity == WC_KEP_JOULES)
        out->quantity = q;
    if (r && r->zone)
        wc_copy_trunc(out->zone, sizeof out->zone, r->zone);
    out->meter = meter_of(out);
    return 1;
}

/* ---- paths -------------------------------------------------------------- */

/* Does [s, e) match "<name>:<digits>(:<digits>)*" (a powercap zone: intel-rapl:0:1)? */
static int powercap_zone(const char *s, const char *e)
{
    const char *c = memchr(s, ':', (size_t)(e - s));
    if (!c || c == s)
        return 0;
    for (const char *x = c; x < e; x++) {
        if (*x == ':') {
            if (x + 1 >= e || x[1] < '0' || x[1] > '9')
                return 0;
        } else if (*x < '0' || *x > '9') {
            return 0;
        }
    }
    return 1;
}

/* Does [s, e) start with word and continue with digits then, if tail is
 * given, one of its entries ("|"-separated) to the end? */
static int word_digits(const char *s, const char *e, const char *word, const char *tail)
{
    size_t n = strlen(word);
    if ((size_t)(e - s) <= n || memcmp(s, word, n))
        return 0;
    const char *d = s + n;
    while (d < e && *d >= '0' && *d <= '9')
        d++;
    if (d == s + n)
        return 0;
    if (!tail)
        return d == e;
    for (const char *t = tail; *t;) {
        size_t k = strcspn(t, "|");
        if ((size_t)(e - d) == k && !memcmp(d, t, k))
            return 1;
        t += k + (t[k] == '|');
    }
    return 0;
}

/* An hwmon sensor file: (power|energy|in|curr)N_(input|average). */
static int hwmon_sensor(const char *s, const char *e)
{
    static const char *const kinds[] = {"power", "energy", "in", "curr"};
    for (size_t i = 0; i < 4; i++)
        if (word_digits(s, e, kinds[i], "_input|_average"))
            return 1;
    return 0;
}

wc_kep_meter wc_kepler_meter_of_path(const char *path)
{
    if (!path || !*path)
        return WC_KEP_METER_UNKNOWN;
    if (!strncmp(path, "aggregated-", 11))
        return path[11] ? WC_KEP_METER_AGGREGATED : WC_KEP_METER_UNKNOWN;
    const char *end = path + strlen(path), *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!strncmp(base, "energy_", 7) && base[7] && strcmp(base + 7, "uj"))
        return WC_KEP_METER_FAKE;
    int powercap = 0, hwmon = 0;
    for (const char *c = path; c < end;) {
        const char *slash = memchr(c, '/', (size_t)(end - c)), *ce = slash ? slash : end;
        powercap |= (size_t)(ce - c) == 8 && !memcmp(c, "powercap", 8);
        hwmon |= word_digits(c, ce, "hwmon", NULL) && ce != end;
        c = slash ? slash + 1 : end;
    }
    if (powercap && powercap_zone(base, end))
        return WC_KEP_METER_MEASURED;
    if (hwmon && hwmon_sensor(base, end))
        return WC_KEP_METER_MEASURED;
    return WC_KEP_METER_UNKNOWN;
}

const char *wc_kepler_power_source(const wc_kep_meter *meters, size_t n)
{
    size_t measured = 0, unknown = 0, fake = 0;
    for (size_t i = 0; i < n; i++) {
        switch (meters[i]) {
        case WC_KEP_METER_NA: break;
        case WC_KEP_METER_MEASURED:
        case WC_KEP_METER_AGGREGATED: measured++; break;
        case WC_KEP_METER_FAKE:
        case WC_KEP_METER_ESTIMATED: fake++; break;
        default: unknown++; break;
        }
    }
    if (fake)
        return "not measured";
    return measured && !unknown ? "measured" : "unknown";
}

/* ---- names -------------------------------------------------------------- */

const char *wc_kep_level_name(wc_kep_level l)
{
    static const char *const n[] = {"none",     "node",        "process",    "container", "pod",
                                    "vm",       "platform",    "usage-ratio", "build-info",
                                    "cpu-info"};
    return (unsigned)l < sizeof n / sizeof n[0] ? n[l] : "none";
}

const char *wc_kep_quantity_name(wc_kep_quantity q)
{
    static const char *const n[] = {"other",       "joules",      "active_joules",
                                    "idle_joules", "dynamic_joules", "watts",
                                    "active_watts", "idle_watts", "cpu_seconds",
                                    "ratio",       "info"};
    return (unsigned)q < sizeof n / sizeof n[0] ? n[q] : "other";
}

const char *wc_kep_device_name(wc_kep_device d)
{
    return d == WC_KEP_CPU ? "cpu" : d == WC_KEP_GPU ? "gpu" : "other";
}

const char *wc_kep_meter_name(wc_kep_meter m)
{
    static const char *const n[] = {"", "measured", "aggregated", "fake", "unknown", "estimated"};
    return (unsigned)m < sizeof n / sizeof n[0] ? n[m] : "";
}

const char *wc_kep_layout_name(wc_kep_layout l)
{
    return l == WC_KEP_LEGACY ? "legacy" : "v0.10+";
}
