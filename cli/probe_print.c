/*
 * probe_print.c — `wattcal probe`'s output (probe_print.h): the terminal
 * table and the JSON report of what collector/probe.c found. Every string
 * that came from the machine or a device (DMI text, sensor labels, BMC
 * messages, paths) goes through wc_probe_term_safe in the table and through
 * cJSON (after UTF-8 repair) in JSON.
 *
 * Sections: the terminal-safe copy, the table, JSON.
 */
#include "cli/probe_print.h"

#include <cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef WATTCAL_VERSION
#define WATTCAL_VERSION "unknown"
#endif

const char *wc_probe_term_safe(const char *s, char *buf, size_t cap)
{
    size_t i = 0;
    if (cap == 0)
        return buf;
    for (; s && s[i] && i + 1 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    buf[i] = '\0';
    return buf;
}

/* ---- table ------------------------------------------------------------- */

/* Short alias so table code stays readable: an escaped copy in buf. */
#define SAFE(s, buf) wc_probe_term_safe((s), (buf), sizeof(buf))

static void print_virt(const wc_probe *p, FILE *out)
{
    const wc_probe_virt *v = &p->virt;
    char a[160], b[160];
    if (v->guest)
        fprintf(out, "virtualisation   guest (%s): %s\n", v->hypervisor, v->evidence);
    else
        fprintf(out, "virtualisation   no guest evidence (cpuinfo %s, DMI %s)\n",
                v->cpuinfo_flag < 0 ? "unreadable" : "flags without hypervisor",
                v->sys_vendor[0] ? "not a known VM" : "unreadable");
    if (v->sys_vendor[0] || v->product_name[0])
        fprintf(out, "                 DMI sys_vendor \"%s\", product_name \"%s\"\n",
                SAFE(v->sys_vendor, a), SAFE(v->product_name, b));
}

static void print_rapl_summary(const wc_probe *p, FILE *out)
{
    char m[800];
    fprintf(out, "RAPL (powercap)  %s: %s\n", wc_probe_rapl_state_name(p->rapl.state),
            SAFE(p->rapl.message, m));
}

static void print_hwmon_summary(const wc_probe *p, FILE *out)
{
    char d[600];
    const wc_hwmon_scan *h = &p->hwmon;
    if (p->hwmon_error[0])
        fprintf(out, "hwmon            error: %s\n", SAFE(p->hwmon_error, d));
    else if (!h->present)
        fprintf(out, "hwmon            absent: %s does not exist\n", SAFE(h->class_dir, d));
    else
        fprintf(out, "hwmon            %zu power/energy sensor%s in %zu chip%s at %s (%zu disabled "
                     "channel%s skipped)\n",
                h->nsensors, h->nsensors == 1 ? "" : "s", h->nchips, h->nchips == 1 ? "" : "s",
                SAFE(h->class_dir, d), h->disabled, h->disabled == 1 ? "" : "s");
}

static void print_ipmi_summary(const wc_probe *p, FILE *out)
{
    char d[PATH_MAX];
    fprintf(out, "IPMI in-band     ");
    if (p->ipmi.ndevices == 0) {
        const char *dev = SAFE(p->dev_root, d);
        fprintf(out, "no device (%s/ipmi0, %s/ipmi/0, %s/ipmidev/0)", dev, dev, dev);
    }
    for (size_t i = 0; i < p->ipmi.ndevices; i++)
        fprintf(out, "%s%s", i ? ", " : "device ", SAFE(p->ipmi.devices[i], d));
    fprintf(out, "; ipmitool %s\n",
            p->ipmi.ipmitool[0] ? SAFE(p->ipmi.ipmitool, d) : "not on PATH");
}

/* Zone indices ordered by socket (psys/-1 last), then discovery order. */
static void zones_by_socket(const wc_meter *m, size_t *order)
{
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < m->nzones; i++)
            if ((m->zones[i].socket >= 0) == (pass == 0))
                order[k++] = i;
    for (size_t i = 1; i < k; i++) /* stable insertion sort by socket */
        for (size_t j = i; j > 0 && m->zones[order[j - 1]].socket >= 0 &&
                           m->zones[order[j]].socket >= 0 &&
                           m->zones[order[j - 1]].socket > m->zones[order[j]].socket;
             j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

static void print_rapl_zone(const wc_probe *p, size_t z, FILE *out)
{
    const wc_zone *zn = &p->rapl.meter.zones[z];
    const wc_reading *r = &p->rapl.readings[z];
    char sock[16], range[32], energy[48], path[600], parent[40];
    snprintf(sock, sizeof sock, zn->socket >= 0 ? "%d" : "-", zn->socket);
    snprintf(range, sizeof range, zn->max_energy_range_uj ? "%" PRIu64 : "unknown",
             zn->max_energy_range_uj);
    if (r->status == 0)
        snprintf(energy, sizeof energy, "%" PRIu64, r->value);
    else
        snprintf(energy, sizeof energy, "error: %s", strerror(-r->status));
    snprintf(parent, sizeof parent, "%s",
             zn->parent >= 0 ? p->rapl.meter.zones[zn->parent].name : "-");
    fprintf(out, "  %-6s %-8s %5d  %-8s %7d  %15s  %-16s %s\n", sock, zn->name, zn->index,
            parent, zn->enabled, range, energy, SAFE(zn->path, path));
}

/* Per-die package zones (issue 14 item 1), one line per socket and domain:
 * mirrored copies of one counter (counted once) or distinct dies (summed). */
static void print_dies(const wc_meter *m, FILE *out)
{
    for (size_t i = 0; i < m->nzones; i++) {
        const wc_zone *z = &m->zones[i];
        int first = z->dies > 0;
        for (size_t j = 0; first && j < i; j++)
            first = !(m->zones[j].dies && m->zones[j].socket == z->socket &&
                      strcmp(m->zones[j].name, z->name) == 0);
        if (!first)
            continue;
        if (z->dies_mirrored)
            fprintf(out, "  note: socket %d: %d %s die zones mirror one counter (same value read "
                         "after read): counted once\n", z->socket, z->dies, z->name);
        else
            fprintf(out, "  note: socket %d: %d distinct %s die zones: summed per socket\n",
                    z->socket, z->dies, z->name);
    }
}

static void print_rapl_zones(const wc_probe *p, FILE *out)
{
    const wc_meter *m = &p->rapl.meter;
    if (p->rapl.state != WC_PROBE_RAPL_OK || m->nzones == 0)
        return;
    size_t *order = calloc(m->nzones, sizeof *order);
    if (!order)
        return;
    zones_by_socket(m, order);
    fprintf(out, "\nRAPL zones per socket (%zu socket%s)\n", p->rapl.nsockets,
            p->rapl.nsockets == 1 ? "" : "s");
    fprintf(out, "  %-6s %-8s %5s  %-8s %7s  %15s  %-16s %s\n", "socket", "zone", "index",
            "parent", "enabled", "max_range_uj", "energy_uj", "path");
    for (size_t i = 0; i < m->nzones; i++)
        print_rapl_zone(p, order[i], out);
    free(order);
    print_dies(m, out);
}

/* The reading of a sensor as a table cell. */
static const char *sensor_reading(const wc_hwmon_sensor *s, char *buf, size_t cap)
{
    if (s->status != 0)
        snprintf(buf, cap, "error");
    else if (s->kind == WC_HWMON_ENERGY)
        snprintf(buf, cap, "%" PRIu64 " uJ", s->energy_uj);
    else
        snprintf(buf, cap, "%.3f W", (double)s->power_uw / 1e6);
    return buf;
}

static void print_sensor(const wc_probe *p, const wc_hwmon_sensor *s, FILE *out)
{
    const wc_hwmon_chip *c = &p->hwmon.chips[s->chip];
    char entry[80], chip[140], name[140], label[140], reading[48], files[140], err[300];
    snprintf(files, sizeof files, "%s%s%s", s->file, s->current_file[0] ? " x " : "",
             s->current_file);
    fprintf(out, "  %-12s %-16s %-22s %-15s %14s  %-26s %s\n", SAFE(c->entry, entry),
            SAFE(c->chip, chip), SAFE(s->name, name), wc_hwmon_kind_name(s->kind),
            sensor_reading(s, reading, sizeof reading), files,
            s->label[0] ? SAFE(s->label, label) : "-");
    if (s->status != 0)
        fprintf(out, "  %12s %s\n", "", SAFE(s->error, err));
}

static void print_hwmon_sensors(const wc_probe *p, FILE *out)
{
    const wc_hwmon_scan *h = &p->hwmon;
    if (h->nsensors == 0)
        return;
    fprintf(out, "\nhwmon sensors (one reading each)\n");
    fprintf(out, "  %-12s %-16s %-22s %-15s %14s  %-26s %s\n", "entry", "chip", "sensor", "kind",
            "reading", "file(s)", "label");
    for (size_t i = 0; i < h->nsensors; i++)
        print_sensor(p, &h->sensors[i], out);
    for (size_t i = 0; i < h->nchips; i++) {
        char entry[80], note[200];
        if (h->chips[i].note[0])
            fprintf(out, "  note: %s: %s\n", SAFE(h->chips[i].entry, entry),
                    SAFE(h->chips[i].note, note));
    }
}

static void print_bmc(const wc_probe_bmc *b, FILE *out)
{
    char spec[520], text[300];
    fprintf(out, "  %s\n", SAFE(b->spec, spec));
    if (b->open_rc != 0) {
        fprintf(out, "    not opened: %s\n", SAFE(b->open_error, text));
        return;
    }
    fprintf(out, "    %s source (%s): %s\n", SAFE(b->kind, spec), wc_provenance_name(b->provenance),
            SAFE(b->description, text));
    if (!b->polled)
        return;
    const wc_truth_sample *t = &b->sample;
    fprintf(out, "    poll: %s", wc_truth_status_name(t->status));
    if (t->status == WC_TRUTH_OK || t->status == WC_TRUTH_STALE)
        fprintf(out, ", %.1f W", t->watts);
    if (t->path[0])
        fprintf(out, " via %s", SAFE(t->path, spec));
    if (t->error[0])
        fprintf(out, " (%s)", SAFE(t->error, text));
    fprintf(out, "\n");
}

static void print_bmcs(const wc_probe *p, FILE *out)
{
    if (p->nbmcs == 0) {
        fprintf(out, "BMC (--truth)    none configured\n");
        return;
    }
    fprintf(out, "BMC (--truth)    %zu configured, each opened and polled once:\n", p->nbmcs);
    for (size_t i = 0; i < p->nbmcs; i++)
        print_bmc(&p->bmcs[i], out);
    if (p->virt.guest)
        fprintf(out, "  note: inside a guest a BMC reports the host's power, not this guest's\n");
}

static void print_verdict(const wc_probe *p, FILE *out)
{
    const wc_probe_verdict *v = &p->verdict;
    char m[320], gt[520];
    fprintf(out, "\nwattcal would use     %s%s\n", v->wattcal_source,
            strcmp(v->wattcal_source, "none") == 0
                ? " (wattcal record exits 2 without --meter sim, which only simulates)"
                : "");
    if (!strcmp(v->exporter_mode, "measure"))
        fprintf(out, "exporter here would   measure (%s)\n", v->exporter_meter);
    else if (v->hardware_meter) /* hwmon sensors under hwmonN/device/ only (issue 14 item 4) */
        fprintf(out, "exporter here would   estimate (no meter it reads)\n");
    else
        fprintf(out, "exporter here would   estimate (no hardware meter)\n");
    fprintf(out, "  Kepler v0.10-v0.11  %s\n", v->kepler_released);
    fprintf(out, "  Kepler main         %s\n", v->kepler_head);
    if (!v->hardware_meter)
        fprintf(out, "  an exporter that runs anyway only estimates (a model, kepler#828): "
                     "label it estimated, never as measured\n");
    fprintf(out, "measured node power   %s\n", wc_probe_measured_text(p, m, sizeof m));
    fprintf(out, "ground truth          %s\n",
            v->ground_truth[0] ? SAFE(v->ground_truth, gt)
            : p->nbmcs        ? "none (no --truth source gave a ground-truth reading)"
                              : "none (no --truth source given)");
    fprintf(out, "verdict               %s\n", v->verdict);
}

void wc_probe_print(const wc_probe *p, FILE *out)
{
    char s[PATH_MAX], q[PATH_MAX];
    fprintf(out, "wattcal probe: power sources below sysfs %s, procfs %s\n\n",
            SAFE(p->sysfs_root, s), SAFE(p->procfs_root, q));
    print_virt(p, out);
    print_rapl_summary(p, out);
    print_hwmon_summary(p, out);
    print_ipmi_summary(p, out);
    print_bmcs(p, out);
    print_rapl_zones(p, out);
    print_hwmon_sensors(p, out);
    print_verdict(p, out);
}

/* ---- JSON -------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1-4), 0 when invalid. */
static size_t utf8_seq_len(const unsigned char *s)
{
    size_t n = s[0] < 0x80 ? 1 : (s[0] >> 5) == 0x6 ? 2 : (s[0] >> 4) == 0xE ? 3
             : (s[0] >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || (n == 2 && s[0] < 0xC2) || (n == 4 && s[0] > 0xF4))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0)))
        return 0; /* overlong, surrogate */
    if (n == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90)))
        return 0;
    return n;
}

/* A copy of s with every invalid UTF-8 byte replaced by U+FFFD, so the JSON
 * is valid UTF-8 (cJSON escapes quotes, backslashes and control bytes). */
static char *utf8_repaired(const char *s)
{
    size_t len = strlen(s);
    char *out = malloc(len * 3 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_seq_len(p);
        if (n == 0) {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            p++;
            continue;
        }
        memcpy(out + o, p, n);
        o += n;
        p += n;
    }
    out[o] = '\0';
    return out;
}

/* Adds a string (NULL or "" as given: "" stays "", NULL becomes null). */
static void add_str(cJSON *obj, const char *key, const char *s)
{
    if (!s) {
        cJSON_AddNullToObject(obj, key);
        return;
    }
    char *fixed = utf8_repaired(s);
    cJSON_AddStringToObject(obj, key, fixed ? fixed : "");
    free(fixed);
}

/* Adds s, or null when s is empty. */
static void add_str_or_null(cJSON *obj, const char *key, const char *s)
{
    add_str(obj, key, s && s[0] ? s : NULL);
}

static void add_num(cJSON *obj, const char *key, double v) { cJSON_AddNumberToObject(obj, key, v); }

/* Adds a finite number, or null. */
static void add_num_or_null(cJSON *obj, const char *key, double v)
{
    if (isfinite(v))
        add_num(obj, key, v);
    else
        cJSON_AddNullToObject(obj, key);
}

static cJSON *virt_json(const wc_probe_virt *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "guest", v->guest);
    add_str_or_null(o, "hypervisor", v->hypervisor);
    if (v->cpuinfo_flag < 0)
        cJSON_AddNullToObject(o, "cpuinfo_hypervisor_flag");
    else
        cJSON_AddBoolToObject(o, "cpuinfo_hypervisor_flag", v->cpuinfo_flag);
    add_str_or_null(o, "sys_vendor", v->sys_vendor);
    add_str_or_null(o, "product_name", v->product_name);
    add_str(o, "evidence", v->evidence);
    return o;
}

static cJSON *rapl_zone_json(const wc_probe_rapl *r, size_t z)
{
    const wc_zone *zn = &r->meter.zones[z];
    const wc_reading *rd = &r->readings[z];
    cJSON *o = cJSON_CreateObject();
    add_str(o, "name", zn->name);
    add_str(o, "raw_name", zn->raw_name);
    add_num(o, "socket", zn->socket);
    add_num(o, "index", zn->index);
    add_str_or_null(o, "parent", zn->parent >= 0 ? r->meter.zones[zn->parent].name : NULL);
    add_str(o, "path", zn->path);
    add_num(o, "enabled", zn->enabled);
    add_num_or_null(o, "max_energy_range_uj",
                    zn->max_energy_range_uj ? (double)zn->max_energy_range_uj : NAN);
    add_num_or_null(o, "energy_uj", rd->status == 0 ? (double)rd->value : NAN);
    add_str_or_null(o, "read_error", rd->status ? strerror(-rd->status) : NULL);
    if (zn->dies) { /* a per-die package zone (issue 14 item 1) */
        add_num(o, "dies", zn->dies);
        cJSON_AddBoolToObject(o, "dies_mirrored", zn->dies_mirrored);
    }
    return o;
}

static cJSON *rapl_json(const wc_probe_rapl *r)
{
    cJSON *o = cJSON_CreateObject();
    add_str(o, "state", wc_probe_rapl_state_name(r->state));
    add_str(o, "class_dir", r->class_dir);
    add_str(o, "message", r->message);
    cJSON *socks = cJSON_AddArrayToObject(o, "sockets");
    for (size_t i = 0; i < r->nsockets; i++)
        cJSON_AddItemToArray(socks, cJSON_CreateNumber(r->sockets[i]));
    cJSON *zones = cJSON_AddArrayToObject(o, "zones");
    for (size_t i = 0; r->state == WC_PROBE_RAPL_OK && i < r->meter.nzones; i++)
        cJSON_AddItemToArray(zones, rapl_zone_json(r, i));
    return o;
}

static cJSON *hwmon_chip_json(const wc_hwmon_chip *c)
{
    cJSON *o = cJSON_CreateObject();
    add_str(o, "entry", c->entry);
    add_str(o, "dir", c->dir);
    add_str(o, "chip", c->chip);
    add_str_or_null(o, "driver", c->driver);
    add_str_or_null(o, "tier", c->tier >= 0 ? wc_hwmon_kind_name((wc_hwmon_kind)c->tier) : NULL);
    add_num(o, "sensors", (double)c->nsensors);
    add_num(o, "disabled_channels", (double)c->disabled);
    add_str_or_null(o, "note", c->note);
    return o;
}

static void sensor_values_json(cJSON *o, const wc_hwmon_sensor *s)
{
    int ok = s->status == 0;
    if (s->kind == WC_HWMON_ENERGY) {
        add_num_or_null(o, "energy_uj", ok ? (double)s->energy_uj : NAN);
        return;
    }
    add_num_or_null(o, "power_uw", ok ? (double)s->power_uw : NAN);
    if (s->kind == WC_HWMON_VOLTAGE_CURRENT) {
        add_num_or_null(o, "voltage_mv", ok ? (double)s->voltage_mv : NAN);
        add_num_or_null(o, "current_ma", ok ? (double)s->current_ma : NAN);
    }
}

static cJSON *hwmon_sensor_json(const wc_hwmon_scan *h, const wc_hwmon_sensor *s)
{
    cJSON *o = cJSON_CreateObject();
    add_str(o, "chip", h->chips[s->chip].chip);
    add_str(o, "entry", h->chips[s->chip].entry);
    add_str(o, "name", s->name);
    add_str_or_null(o, "label", s->label);
    add_str(o, "kind", wc_hwmon_kind_name(s->kind));
    add_str(o, "unit", wc_hwmon_unit(s->kind));
    add_str(o, "pairing", wc_hwmon_pairing_name(s->pairing));
    add_num(o, "index", s->index);
    add_str(o, "file", s->file);
    add_str_or_null(o, "current_file", s->current_file);
    cJSON_AddBoolToObject(o, "in_device", s->in_device);
    add_str(o, "status", s->status == 0 ? "ok" : "error");
    add_str_or_null(o, "error", s->error);
    sensor_values_json(o, s);
    return o;
}

static cJSON *hwmon_json(const wc_probe *p)
{
    const wc_hwmon_scan *h = &p->hwmon;
    cJSON *o = cJSON_CreateObject();
    add_str(o, "class_dir", h->class_dir);
    cJSON_AddBoolToObject(o, "present", h->present);
    add_str_or_null(o, "error", p->hwmon_error);
    add_num(o, "disabled_channels", (double)h->disabled);
    cJSON *chips = cJSON_AddArrayToObject(o, "chips");
    for (size_t i = 0; i < h->nchips; i++)
        cJSON_AddItemToArray(chips, hwmon_chip_json(&h->chips[i]));
    cJSON *sensors = cJSON_AddArrayToObject(o, "sensors");
    for (size_t i = 0; i < h->nsensors; i++)
        cJSON_AddItemToArray(sensors, hwmon_sensor_json(h, &h->sensors[i]));
    return o;
}

static cJSON *ipmi_json(const wc_probe_ipmi *ip)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *devs = cJSON_AddArrayToObject(o, "devices");
    for (size_t i = 0; i < ip->ndevices; i++) {
        char *fixed = utf8_repaired(ip->devices[i]);
        cJSON_AddItemToArray(devs, cJSON_CreateString(fixed ? fixed : ""));
        free(fixed);
    }
    add_str_or_null(o, "ipmitool", ip->ipmitool);
    return o;
}

static cJSON *bmc_json(const wc_probe_bmc *b)
{
    cJSON *o = cJSON_CreateObject();
    const wc_truth_sample *t = &b->sample;
    int valued = b->polled && (t->status == WC_TRUTH_OK || t->status == WC_TRUTH_STALE);
    add_str(o, "spec", b->spec);
    add_str_or_null(o, "kind", b->kind);
    cJSON_AddBoolToObject(o, "opened", b->open_rc == 0);
    add_str_or_null(o, "provenance", b->open_rc == 0 ? wc_provenance_name(b->provenance) : NULL);
    add_str_or_null(o, "description", b->description);
    add_str_or_null(o, "status", b->polled ? wc_truth_status_name(t->status) : NULL);
    add_num_or_null(o, "watts", valued ? t->watts : NAN);
    add_num_or_null(o, "window_s", valued && t->window_known ? t->window_s : NAN);
    add_str_or_null(o, "path", b->polled ? t->path : NULL);
    add_str_or_null(o, "error", b->open_rc ? b->open_error : b->polled ? t->error : NULL);
    return o;
}

static cJSON *verdict_json(const wc_probe *p, cJSON *root)
{
    const wc_probe_verdict *v = &p->verdict;
    cJSON_AddBoolToObject(root, "hardware_meter", v->hardware_meter);
    add_str(root, "wattcal_source", v->wattcal_source);
    cJSON *ex = cJSON_AddObjectToObject(root, "exporter");
    add_str(ex, "mode", v->exporter_mode);
    add_str(ex, "meter", v->exporter_meter);
    add_str(ex, "kepler_released", v->kepler_released);
    add_str(ex, "kepler_head", v->kepler_head);
    cJSON *mp = cJSON_AddObjectToObject(root, "measured_node_power");
    cJSON_AddBoolToObject(mp, "available", v->measured_available);
    add_str_or_null(mp, "source", v->measured_source);
    add_str_or_null(mp, "reason", v->measured_reason);
    add_str_or_null(root, "ground_truth", v->ground_truth);
    add_str(root, "verdict", v->verdict);
    add_num(root, "exit_code", wc_probe_exit_code(p));
    return root;
}

char *wc_probe_json(const wc_probe *p)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    add_str(root, "schema", "wattcal-probe/1");
    add_str(root, "wattcal_version", WATTCAL_VERSION);
    add_str(root, "sysfs_root", p->sysfs_root);
    add_str(root, "procfs_root", p->procfs_root);
    cJSON_AddItemToObject(root, "virtualization", virt_json(&p->virt));
    cJSON_AddItemToObject(root, "rapl", rapl_json(&p->rapl));
    cJSON_AddItemToObject(root, "hwmon", hwmon_json(p));
    cJSON_AddItemToObject(root, "ipmi", ipmi_json(&p->ipmi));
    cJSON *bmcs = cJSON_AddArrayToObject(root, "bmcs");
    for (size_t i = 0; i < p->nbmcs; i++)
        cJSON_AddItemToArray(bmcs, bmc_json(&p->bmcs[i]));
    verdict_json(p, root);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}
