/*
 * expo_stub_w3.c — TEMPORARY (workstream W3 only; the lead deletes this file
 * when W1's expo_parse.c and kepler_metrics.c are merged).
 *
 * The smallest implementations of expo_parse.h and kepler_metrics.h that
 * `import --prometheus` (collector/import/import_prom.c) needs on the W3
 * branch: canonical label text, a coarse classification of Kepler's v0.10+
 * and legacy names, the meter of a path label and the stable names. No
 * exposition parser (wc_expo_parse is W1's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/exporter/expo_parse.h"
#include "collector/exporter/kepler_metrics.h"

wc_expo_format wc_expo_format_of(const char *content_type)
{
    return content_type && strstr(content_type, "openmetrics") ? WC_EXPO_OPENMETRICS
                                                                : WC_EXPO_TEXT_004;
}

static int cmp_label(const void *a, const void *b)
{
    return strcmp((*(const wc_expo_label *const *)a)->name,
                  (*(const wc_expo_label *const *)b)->name);
}

/* Appends s to buf at *used, escaping \\, \" and \n; keeps the text terminated. */
static void put_escaped(char *buf, size_t cap, size_t *used, const char *s, int *full)
{
    for (; *s; s++) {
        const char *rep = *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : *s == '\n' ? "\\n" : NULL;
        size_t n = rep ? 2 : 1;
        if (*used + n + 1 > cap) {
            *full = 1;
            return;
        }
        memcpy(buf + *used, rep ? rep : s, n);
        *used += n;
        buf[*used] = '\0';
    }
}

int wc_expo_labels_canonical(const wc_expo_label *labels, size_t n, char *buf, size_t cap)
{
    const wc_expo_label **v = calloc(n ? n : 1, sizeof *v);
    if (!v || cap < 3) {
        free(v);
        return -ENOSPC;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = &labels[i];
    qsort(v, n, sizeof *v, cmp_label);
    size_t used = 0;
    int full = 0;
    put_escaped(buf, cap, &used, "{", &full);
    for (size_t i = 0; i < n && !full; i++) {
        put_escaped(buf, cap, &used, i ? "," : "", &full);
        put_escaped(buf, cap, &used, v[i]->name, &full);
        if (used + 3 > cap)
            full = 1;
        else
            used += (size_t)snprintf(buf + used, cap - used, "=\"");
        put_escaped(buf, cap, &used, v[i]->value, &full);
        if (!full && used + 2 <= cap)
            used += (size_t)snprintf(buf + used, cap - used, "\"");
        else
            full = 1;
    }
    if (!full && used + 2 <= cap)
        used += (size_t)snprintf(buf + used, cap - used, "}");
    else
        full = 1;
    free(v);
    return full ? -ENOSPC : (int)used;
}

static const char *label(const wc_expo_sample *s, const char *name)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (strcmp(s->labels[i].name, name) == 0)
            return s->labels[i].value;
    return "";
}

#define COPY(dst, src) snprintf((dst), sizeof(dst), "%s", (src))

wc_kep_meter wc_kepler_meter_of_path(const char *path)
{
    if (!path || !*path)
        return WC_KEP_METER_UNKNOWN;
    if (strncmp(path, "aggregated-", 11) == 0)
        return WC_KEP_METER_AGGREGATED;
    if (strstr(path, "/energy_") || strstr(path, "fake"))
        return WC_KEP_METER_FAKE;
    if (strstr(path, "/sys/class/powercap/") || strstr(path, "/sys/devices/virtual/powercap/") ||
        strstr(path, "/sys/class/hwmon/"))
        return WC_KEP_METER_MEASURED;
    return WC_KEP_METER_UNKNOWN;
}

/* Quantity from a name's tail ("..._active_joules_total"). */
static wc_kep_quantity quantity_of(const char *n)
{
    static const struct { const char *tail; wc_kep_quantity q; } T[] = {
        {"_active_joules_total", WC_KEP_ACTIVE_JOULES}, {"_idle_joules_total", WC_KEP_IDLE_JOULES},
        {"_joules_total", WC_KEP_JOULES}, {"_active_watts", WC_KEP_ACTIVE_WATTS},
        {"_idle_watts", WC_KEP_IDLE_WATTS}, {"_watts", WC_KEP_WATTS},
        {"_cpu_seconds_total", WC_KEP_CPU_SECONDS}, {"_usage_ratio", WC_KEP_RATIO}};
    size_t len = strlen(n);
    for (size_t i = 0; i < sizeof T / sizeof *T; i++) {
        size_t t = strlen(T[i].tail);
        if (len >= t && strcmp(n + len - t, T[i].tail) == 0)
            return T[i].q;
    }
    return WC_KEP_Q_OTHER;
}

static wc_kep_level level_of(const char *n)
{
    static const struct { const char *prefix; wc_kep_level l; } P[] = {
        {"kepler_node_cpu_usage_ratio", WC_KEP_NODE_RATIO}, {"kepler_build_info", WC_KEP_BUILD_INFO},
        {"kepler_node_cpu_info", WC_KEP_CPU_INFO}, {"kepler_platform_", WC_KEP_PLATFORM},
        {"kepler_node_", WC_KEP_NODE}, {"kepler_process_", WC_KEP_PROCESS},
        {"kepler_container_", WC_KEP_CONTAINER}, {"kepler_pod_", WC_KEP_POD},
        {"kepler_vm_", WC_KEP_VM}};
    for (size_t i = 0; i < sizeof P / sizeof *P; i++)
        if (strncmp(n, P[i].prefix, strlen(P[i].prefix)) == 0)
            return P[i].l;
    return WC_KEP_NONE;
}

/* Identity labels of a level (v0.10+ names, legacy fallbacks). */
static void identity(const wc_expo_sample *s, wc_kep_fact *f)
{
    switch (f->level) {
    case WC_KEP_PROCESS:
        COPY(f->key, label(s, "pid"));
        COPY(f->parent, label(s, "container_id"));
        COPY(f->name, *label(s, "comm") ? label(s, "comm") : label(s, "command"));
        break;
    case WC_KEP_CONTAINER:
        COPY(f->key, label(s, "container_id"));
        COPY(f->parent, label(s, "pod_id"));
        COPY(f->name, label(s, "container_name"));
        COPY(f->ns, label(s, "container_namespace"));
        break;
    case WC_KEP_POD:
        COPY(f->key, label(s, "pod_id"));
        COPY(f->name, label(s, "pod_name"));
        COPY(f->ns, label(s, "pod_namespace"));
        break;
    case WC_KEP_VM:
        COPY(f->key, label(s, "vm_id"));
        COPY(f->name, label(s, "vm_name"));
        break;
    default: break;
    }
}

int wc_kepler_classify(const wc_expo_sample *s, wc_kep_fact *out)
{
    if (strncmp(s->name, "kepler_", 7) != 0)
        return 0;
    memset(out, 0, sizeof *out);
    out->level = level_of(s->name);
    out->quantity = out->level == WC_KEP_BUILD_INFO || out->level == WC_KEP_CPU_INFO
                        ? WC_KEP_INFO : quantity_of(s->name);
    out->device = strstr(s->name, "_gpu_") ? WC_KEP_GPU : WC_KEP_CPU;
    out->layout = strstr(s->name, "_cpu_") || out->level == WC_KEP_BUILD_INFO ? WC_KEP_V010
                                                                             : WC_KEP_LEGACY;
    const char *mode = label(s, "mode");
    if (out->layout == WC_KEP_LEGACY && out->quantity == WC_KEP_JOULES && *mode)
        out->quantity = strcmp(mode, "idle") == 0 ? WC_KEP_IDLE_JOULES : WC_KEP_DYNAMIC_JOULES;
    COPY(out->zone, label(s, "zone"));
    COPY(out->state, label(s, "state"));
    COPY(out->path, label(s, "path"));
    COPY(out->node, label(s, "node_name"));
    COPY(out->version, label(s, "version"));
    COPY(out->revision, label(s, "revision"));
    COPY(out->source, label(s, "source"));
    identity(s, out);
    out->meter = out->level == WC_KEP_NODE && out->layout == WC_KEP_V010
                     ? wc_kepler_meter_of_path(out->path) : WC_KEP_METER_NA;
    return 1;
}

const char *wc_kep_level_name(wc_kep_level l)
{
    static const char *const N[] = {"", "node", "process", "container", "pod", "vm",
                                    "platform", "node_ratio", "build_info", "cpu_info"};
    return (size_t)l < sizeof N / sizeof *N ? N[l] : "";
}

const char *wc_kep_quantity_name(wc_kep_quantity q)
{
    static const char *const N[] = {"other", "joules", "active_joules", "idle_joules",
                                    "dynamic_joules", "watts", "active_watts", "idle_watts",
                                    "cpu_seconds", "ratio", "info"};
    return (size_t)q < sizeof N / sizeof *N ? N[q] : "";
}

const char *wc_kep_device_name(wc_kep_device d)
{
    return d == WC_KEP_CPU ? "cpu" : d == WC_KEP_GPU ? "gpu" : "other";
}

const char *wc_kep_meter_name(wc_kep_meter m)
{
    static const char *const N[] = {"", "measured", "aggregated", "fake", "unknown"};
    return (size_t)m < sizeof N / sizeof *N ? N[m] : "";
}

const char *wc_kep_layout_name(wc_kep_layout l) { return l == WC_KEP_LEGACY ? "legacy" : "v0.10+"; }

const char *wc_kepler_power_source(const wc_kep_meter *meters, size_t n)
{
    int all_measured = n > 0;
    for (size_t i = 0; i < n; i++) {
        if (meters[i] == WC_KEP_METER_FAKE)
            return "not measured";
        if (meters[i] != WC_KEP_METER_MEASURED && meters[i] != WC_KEP_METER_AGGREGATED)
            all_measured = 0;
    }
    return all_measured ? "measured" : "unknown";
}
