/*
 * probe.c — `wattcal probe`: find the node's power sources, decide what they
 * mean for an exporter, and report it as a table or JSON (see probe.h).
 *
 * Sections: collection (virtualisation, RAPL, hwmon, IPMI, --truth
 * sources), verdict, terminal table, JSON. Every string that came from the
 * machine or a device (DMI text, sensor labels, BMC messages, paths) goes
 * through wc_probe_term_safe in the table and through cJSON (after UTF-8
 * repair) in JSON.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "collector/probe.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/meter/meter_table.h"
#include "common/wc_fs.h"
#include "common/wc_text.h"

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

const char *wc_probe_rapl_state_name(wc_probe_rapl_state s)
{
    switch (s) {
    case WC_PROBE_RAPL_OK: return "ok";
    case WC_PROBE_RAPL_ROOT_ONLY: return "root_only";
    case WC_PROBE_RAPL_NO_ZONES: return "no_zones";
    case WC_PROBE_RAPL_UNREADABLE: return "unreadable";
    case WC_PROBE_RAPL_ERROR: return "error";
    }
    return "error";
}

/* ---- virtualisation ---------------------------------------------------- */

/* True when `word` occurs as a whole blank-separated word in [s, end). */
static int has_word(const char *s, const char *end, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = s; p + wl <= end; p++) {
        int starts = p == s || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':';
        int ends = p + wl == end || p[wl] == ' ' || p[wl] == '\t' || p[wl] == '\n';
        if (starts && ends && memcmp(p, word, wl) == 0)
            return 1;
    }
    return 0;
}

/* 1 when a "flags" line of <procfs>/cpuinfo has "hypervisor", 0 when not,
 * -1 when cpuinfo cannot be read. */
static int cpuinfo_hypervisor_flag(const char *procfs_root)
{
    char path[PATH_MAX];
    char *text = NULL;
    size_t len = 0;
    if (wc_path(path, sizeof path, procfs_root, "cpuinfo") != 0 ||
        wc_read_all(path, &text, &len, NULL) != 0)
        return -1;
    int found = 0;
    for (char *line = text; !found && line < text + len;) {
        char *nl = memchr(line, '\n', (size_t)(text + len - line));
        char *end = nl ? nl : text + len;
        if (strncmp(line, "flags", 5) == 0)
            found = has_word(line, end, "hypervisor");
        line = end + 1;
    }
    free(text);
    return found;
}

/* Reads <sysfs>/class/dmi/id/<field>: first line, "" when unreadable. */
static void read_dmi(const char *sysfs_root, const char *field, char *buf, size_t cap)
{
    char path[PATH_MAX];
    buf[0] = '\0';
    if (wc_path(path, sizeof path, sysfs_root, "class/dmi/id/%s", field) != 0)
        return;
    int rc = wc_read_line(path, buf, cap, NULL);
    if (rc != 0 && rc != -EFBIG)
        buf[0] = '\0';
}

/* DMI strings of virtual machines (systemd's detect-virt table, by prefix). */
typedef struct dmi_vm {
    int product;          /* 0 match sys_vendor, 1 match product_name */
    const char *prefix;
    const char *hypervisor;
} dmi_vm;

static const dmi_vm DMI_VMS[] = {
    {1, "KVM", "kvm"},           {0, "KVM", "kvm"},
    {1, "OpenStack", "kvm"},     {0, "OpenStack", "kvm"},
    {1, "KubeVirt", "kvm"},      {0, "QEMU", "qemu"},
    {1, "VMware", "vmware"},     {0, "VMware", "vmware"},
    {0, "VMW", "vmware"},        {0, "innotek GmbH", "oracle"},
    {1, "VirtualBox", "oracle"}, {0, "Xen", "xen"},
    {0, "Bochs", "bochs"},       {0, "Parallels", "parallels"},
    {0, "BHYVE", "bhyve"},       {1, "Virtual Machine", "microsoft"},
    {0, "Amazon EC2", "amazon"}, {1, "Google Compute Engine", "google"},
    {0, "Apple Virtualization", "apple"},
};

static int ends_with(const char *s, const char *suffix)
{
    size_t sl = strlen(s), xl = strlen(suffix);
    return sl >= xl && strcmp(s + sl - xl, suffix) == 0;
}

/* The DMI table entry this machine matches, or NULL. An EC2 ".metal"
 * instance reports "Amazon EC2" too but is bare metal. */
static const dmi_vm *dmi_match(const wc_probe_virt *v)
{
    for (size_t i = 0; i < sizeof DMI_VMS / sizeof *DMI_VMS; i++) {
        const char *field = DMI_VMS[i].product ? v->product_name : v->sys_vendor;
        if (!field[0] || strncmp(field, DMI_VMS[i].prefix, strlen(DMI_VMS[i].prefix)) != 0)
            continue;
        if (strcmp(DMI_VMS[i].hypervisor, "amazon") == 0 && ends_with(v->product_name, ".metal"))
            return NULL;
        return &DMI_VMS[i];
    }
    return NULL;
}

static void probe_virt(const char *sysfs_root, const char *procfs_root, wc_probe_virt *v)
{
    memset(v, 0, sizeof *v);
    v->cpuinfo_flag = cpuinfo_hypervisor_flag(procfs_root);
    read_dmi(sysfs_root, "sys_vendor", v->sys_vendor, sizeof v->sys_vendor);
    read_dmi(sysfs_root, "product_name", v->product_name, sizeof v->product_name);
    const dmi_vm *m = dmi_match(v);
    size_t used = 0;
    if (v->cpuinfo_flag == 1)
        wc_append(v->evidence, sizeof v->evidence, &used, "cpuinfo flag hypervisor");
    if (m)
        wc_append(v->evidence, sizeof v->evidence, &used, "%sDMI %s %s", used ? "; " : "",
                  m->product ? "product_name" : "sys_vendor", m->prefix);
    v->guest = v->cpuinfo_flag == 1 || m != NULL;
    if (v->guest)
        wc_copy_trunc(v->hypervisor, sizeof v->hypervisor, m ? m->hypervisor : "unknown");
}

/* ---- RAPL -------------------------------------------------------------- */

/* Number of class/powercap entries with a `name` file (named zones), to tell
 * "no zones" from "zones without a readable energy_uj". */
static size_t count_named_zones(const char *class_dir)
{
    DIR *d = opendir(class_dir);
    if (!d)
        return 0;
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        char path[PATH_MAX];
        if (de->d_name[0] != '.' &&
            wc_path(path, sizeof path, class_dir, "%s/name", de->d_name) == 0 &&
            access(path, F_OK) == 0)
            n++;
    }
    closedir(d);
    return n;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Distinct sockets >= 0 of the discovered zones, ascending. */
static void collect_sockets(wc_probe_rapl *r)
{
    r->nsockets = 0;
    for (size_t i = 0; i < r->meter.nzones; i++) {
        int s = r->meter.zones[i].socket;
        int seen = s < 0;
        for (size_t j = 0; j < r->nsockets && !seen; j++)
            seen = r->sockets[j] == s;
        if (!seen && r->nsockets < WC_PROBE_MAX_SOCKETS)
            r->sockets[r->nsockets++] = s;
    }
    qsort(r->sockets, r->nsockets, sizeof r->sockets[0], int_cmp);
}

/* Maps discovery's result to a state. */
static wc_probe_rapl_state rapl_state_of(int rc, const char *class_dir)
{
    if (rc == 0)
        return WC_PROBE_RAPL_OK;
    if (rc == -EACCES)
        return WC_PROBE_RAPL_ROOT_ONLY;
    if (rc == -ENODEV)
        return count_named_zones(class_dir) ? WC_PROBE_RAPL_UNREADABLE : WC_PROBE_RAPL_NO_ZONES;
    return WC_PROBE_RAPL_ERROR;
}

/* Opens RAPL through the meter table entry `wattcal record --meter rapl`
 * uses. 0 or the init's -errno with e set. */
static int open_rapl(const char *sysfs_root, wc_meter *m, wc_error *e)
{
    const wc_meter_kind *rapl = wc_meter_find("rapl");
    if (!rapl)
        return wc_error_set(e, -ENOSYS, "probe: no rapl meter in the meter table");
    wc_meter_env env = {.sysfs_root = sysfs_root};
    return rapl->init(m, &env, e);
}

/* Discovers and reads the RAPL zones once. Returns 0 or -ENOMEM. */
static int probe_rapl(const char *sysfs_root, wc_probe_rapl *r, wc_error *err)
{
    wc_error e;
    e.msg[0] = '\0';
    if (wc_path(r->class_dir, sizeof r->class_dir, sysfs_root, "class/powercap") != 0)
        r->class_dir[0] = '\0'; /* too long: init below says so */
    int rc = open_rapl(sysfs_root, &r->meter, &e);
    if (rc == 0)
        rc = wc_meter_discover(&r->meter, &e);
    if (rc == -ENOMEM)
        return wc_error_set(err, rc, "%s", e.msg);
    r->state = rapl_state_of(rc, r->class_dir);
    wc_copy_trunc(r->message, sizeof r->message, rc == 0 ? r->meter.description : e.msg);
    if (rc != 0) {
        wc_meter_close(&r->meter);
        return 0;
    }
    r->readings = calloc(r->meter.nzones ? r->meter.nzones : 1, sizeof *r->readings);
    if (!r->readings)
        return wc_error_set(err, -ENOMEM, "probe: out of memory");
    (void)wc_meter_read(&r->meter, r->readings, NULL); /* statuses are per zone */
    collect_sockets(r);
    return 0;
}

/* ---- IPMI in-band ------------------------------------------------------ */

/* True when path names an executable regular file. */
static int is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Finds `tool` (a name, or a path when it holds '/') on path_env. */
static void find_on_path(const char *tool, const char *path_env, char *out, size_t cap)
{
    out[0] = '\0';
    if (strchr(tool, '/')) {
        if (is_executable(tool))
            wc_copy_trunc(out, cap, tool);
        return;
    }
    for (const char *p = path_env ? path_env : ""; ; ) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        char cand[PATH_MAX];
        int n = snprintf(cand, sizeof cand, "%.*s/%s", (int)len, len ? p : ".", tool);
        if (n > 0 && (size_t)n < sizeof cand && is_executable(cand)) {
            wc_copy_trunc(out, cap, cand);
            return;
        }
        if (!colon)
            return;
        p = colon + 1;
    }
}

static void probe_ipmi(const char *dev_root, const char *path_env, const char *tool,
                       wc_probe_ipmi *ip)
{
    static const char *const NODES[WC_PROBE_IPMI_DEVICES] = {"ipmi0", "ipmi/0", "ipmidev/0"};
    memset(ip, 0, sizeof *ip);
    for (size_t i = 0; i < WC_PROBE_IPMI_DEVICES; i++) {
        char path[PATH_MAX];
        struct stat st;
        if (wc_path(path, sizeof path, dev_root, "%s", NODES[i]) == 0 && stat(path, &st) == 0)
            wc_copy_trunc(ip->devices[ip->ndevices++], sizeof ip->devices[0], path);
    }
    find_on_path(tool && *tool ? tool : "ipmitool", path_env, ip->ipmitool, sizeof ip->ipmitool);
}

/* ---- ground-truth sources ---------------------------------------------- */

const char *wc_probe_redact_spec(const char *spec, char *buf, size_t cap)
{
    if (cap == 0)
        return buf;
    const char *sep = spec ? strstr(spec, "://") : NULL;
    const char *at = sep ? strrchr(sep + 3, '@') : NULL;
    if (!at) {
        wc_copy_trunc(buf, cap, spec ? spec : "");
        return buf;
    }
    size_t used = 0;
    buf[0] = '\0';
    wc_append(buf, cap, &used, "%.*s***%s", (int)(sep + 3 - spec), spec, at);
    return buf;
}

/* Redacts free text in place (an error or description that may quote a
 * spec): every occurrence of the raw spec becomes its redacted form; then
 * after each "://", a "USERINFO@" (up to the last '@' before a blank)
 * becomes "***@", and, with cut_prefix, so does a cut copy of the spec's
 * own userinfo (a message that quotes the spec truncated, "%.64s..."). */
static void redact_text(char *text, size_t cap, const char *spec, const char *redacted,
                        int cut_prefix)
{
    char out[1024];
    size_t used = 0;
    out[0] = '\0';
    size_t slen = strlen(spec);
    int spec_has_secret = slen > 0 && strcmp(spec, redacted) != 0;
    const char *sep = strstr(spec, "://");
    const char *uinfo = spec_has_secret && sep ? sep + 3 : NULL;
    const char *uend = uinfo ? strrchr(uinfo, '@') : NULL;
    for (const char *p = text; *p;) {
        if (spec_has_secret && strncmp(p, spec, slen) == 0) {
            wc_append(out, sizeof out, &used, "%s", redacted);
            p += slen;
            continue;
        }
        if (strncmp(p, "://", 3) == 0) {
            const char *tok = p + 3;
            size_t n = strcspn(tok, " \t\r\n");
            const char *at = NULL;
            for (size_t i = 0; i < n; i++)
                if (tok[i] == '@')
                    at = tok + i;
            size_t common = 0;
            if (!at && cut_prefix && uend)
                while (uinfo + common < uend && tok[common] && tok[common] == uinfo[common])
                    common++;
            if (at || common) {
                wc_append(out, sizeof out, &used, "://***");
                p = at ? at : tok + common;
                continue;
            }
        }
        wc_append(out, sizeof out, &used, "%c", *p);
        p++;
    }
    wc_copy_trunc(text, cap, out);
    explicit_bzero(out, sizeof out);
}

/* Opens, polls once and closes one --truth source into b (a file: log is
 * only listed). */
static void probe_bmc(const char *spec, const wc_truth_config *cfg,
                      wc_probe_truth_open_fn open_fn, wc_probe_bmc *b)
{
    wc_truth_source src;
    wc_error e;
    e.msg[0] = '\0';
    memset(&src, 0, sizeof src);
    memset(b, 0, sizeof *b);
    wc_probe_redact_spec(spec, b->spec, sizeof b->spec); /* never the userinfo part */
    b->sample.watts = NAN;
    if (strncmp(spec, "file:", 5) == 0) { /* a log, not a device: nothing to poll */
        wc_copy_trunc(b->kind, sizeof b->kind, "file");
        b->open_rc = -ENOTSUP;
        wc_copy_trunc(b->open_error, sizeof b->open_error,
                   "a wall-meter/PDU log is imported after the run, not polled by probe");
        return;
    }
    b->open_rc = open_fn(spec, cfg, &src, &e);
    if (b->open_rc != 0) {
        wc_copy_trunc(b->open_error, sizeof b->open_error, e.msg[0] ? e.msg : strerror(-b->open_rc));
        redact_text(b->open_error, sizeof b->open_error, spec, b->spec, 1);
        explicit_bzero(e.msg, sizeof e.msg);
        wc_truth_close(&src);
        explicit_bzero(&src, sizeof src);
        return;
    }
    wc_copy_trunc(b->kind, sizeof b->kind, src.ops && src.ops->kind ? src.ops->kind : "");
    wc_copy_trunc(b->description, sizeof b->description, src.description);
    b->provenance = src.provenance;
    redact_text(b->description, sizeof b->description, spec, b->spec, 0);
    if (src.ops && src.ops->poll) {
        b->poll_rc = wc_truth_poll(&src, &b->sample);
        b->polled = 1;
        redact_text(b->sample.error, sizeof b->sample.error, spec, b->spec, 0);
    }
    wc_truth_close(&src);
    explicit_bzero(&src, sizeof src);
}

static int probe_bmcs(const wc_probe_opts *o, const char *sysfs_root, wc_probe *p,
                      wc_error *err)
{
    if (o->ntruth == 0)
        return 0;
    p->bmcs = calloc(o->ntruth, sizeof *p->bmcs);
    if (!p->bmcs)
        return wc_error_set(err, -ENOMEM, "probe: out of memory");
    wc_truth_config cfg;
    if (o->truth_cfg) {
        cfg = *o->truth_cfg;
    } else {
        wc_truth_config_defaults(&cfg);
        cfg.sysfs_root = sysfs_root;
    }
    wc_probe_truth_open_fn open_fn = o->truth_open ? o->truth_open : wc_truth_open;
    for (size_t i = 0; i < o->ntruth; i++)
        probe_bmc(o->truth_specs[i], &cfg, open_fn, &p->bmcs[p->nbmcs++]);
    return 0;
}

/* ---- verdict ----------------------------------------------------------- */

static int rapl_present(const wc_probe *p)
{
    return p->rapl.state == WC_PROBE_RAPL_OK || p->rapl.state == WC_PROBE_RAPL_ROOT_ONLY;
}

/* Path of the first RAPL zone without a known max_energy_range_uj, or NULL. */
static const char *zone_without_range(const wc_probe *p)
{
    for (size_t i = 0; i < p->rapl.meter.nzones; i++)
        if (p->rapl.meter.zones[i].max_energy_range_uj == 0)
            return p->rapl.meter.zones[i].path;
    return NULL;
}

/* What Kepler (released and main) does on this node (kepler-model.md §2.1). */
static void kepler_outcomes(const wc_probe *p, wc_probe_verdict *v)
{
    size_t used = 0, used_head = 0;
    const char *no_range = zone_without_range(p);
    if (rapl_present(p) && no_range) {
        wc_append(v->kepler_released, sizeof v->kepler_released, &used,
                  "fails at init: max_energy_range_uj unreadable for %s", no_range);
        wc_copy_trunc(v->kepler_head, sizeof v->kepler_head, v->kepler_released);
    } else if (rapl_present(p)) {
        wc_copy_trunc(v->kepler_released, sizeof v->kepler_released,
                   "measures with RAPL (same-name zones of all sockets aggregated)");
        wc_copy_trunc(v->kepler_head, sizeof v->kepler_head, v->kepler_released);
    } else if (p->hwmon.nsensors > 0) {
        wc_copy_trunc(v->kepler_released, sizeof v->kepler_released,
                   "fails at init: no RAPL zones found (kepler#2280, #2262); v0.11.4 measures "
                   "with hwmon only when experimental.hwmon.enabled");
        wc_append(v->kepler_head, sizeof v->kepler_head, &used_head,
                  "measures with hwmon (cpu.preferredMeters [rapl, hwmon]: %zu sensor%s)",
                  p->hwmon.nsensors, p->hwmon.nsensors == 1 ? "" : "s");
    } else {
        wc_copy_trunc(v->kepler_released, sizeof v->kepler_released,
                   "fails at init: no RAPL zones found (kepler#2280, #2262)");
        wc_copy_trunc(v->kepler_head, sizeof v->kepler_head,
                   "fails at init: no RAPL zone and no hwmon power sensor");
    }
}

/* Why measured node power is unavailable, e.g. "virtualised guest, no
 * powercap zones, no hwmon power sensor". */
static void unavailable_reason(const wc_probe *p, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    if (p->virt.guest)
        wc_append(buf, cap, &used, "virtualised guest");
    const char *rapl = p->rapl.state == WC_PROBE_RAPL_NO_ZONES     ? "no powercap zones"
                       : p->rapl.state == WC_PROBE_RAPL_UNREADABLE ? "no readable powercap zone"
                                                                   : "powercap unusable";
    wc_append(buf, cap, &used, "%s%s", used ? ", " : "", rapl);
    wc_append(buf, cap, &used, ", no hwmon power sensor");
}

/* The first --truth source that gave a ground-truth (not simulated) reading. */
static void pick_ground_truth(const wc_probe *p, wc_probe_verdict *v)
{
    for (size_t i = 0; i < p->nbmcs; i++) {
        const wc_probe_bmc *b = &p->bmcs[i];
        if (b->polled && b->provenance == WC_PROV_GROUND_TRUTH &&
            (b->sample.status == WC_TRUTH_OK || b->sample.status == WC_TRUTH_STALE)) {
            wc_copy_trunc(v->ground_truth, sizeof v->ground_truth, b->spec);
            return;
        }
    }
}

static const char *verdict_sentence(const wc_probe *p)
{
    if (!p->verdict.hardware_meter)
        return p->virt.guest ? WC_PROBE_VERDICT_GUEST_NO_METER
                             : "no hardware power source on this node; attribution gap cannot "
                               "be measured here";
    if (rapl_present(p) && p->virt.guest)
        return "RAPL visible inside a guest: its counters may be emulated or the host's; check "
               "them against the host before trusting the attribution gap";
    if (p->rapl.state == WC_PROBE_RAPL_ROOT_ONLY)
        return "RAPL present but energy_uj is root-only: run wattcal record as root to measure "
               "the attribution gap";
    if (rapl_present(p))
        return "RAPL measures this node: wattcal record can measure the attribution gap";
    return "hwmon sensors only: an exporter may measure with hwmon, wattcal record (RAPL only) "
           "cannot measure the attribution gap here";
}

static void decide(wc_probe *p)
{
    wc_probe_verdict *v = &p->verdict;
    memset(v, 0, sizeof *v);
    int rapl = rapl_present(p), hwmon = p->hwmon.nsensors > 0;
    v->hardware_meter = rapl || hwmon;
    v->wattcal_source = rapl ? "rapl" : "none";
    v->exporter_mode = v->hardware_meter ? "measure" : "estimate";
    v->exporter_meter = rapl ? "rapl" : hwmon ? "hwmon" : "none";
    kepler_outcomes(p, v);
    v->measured_available = v->hardware_meter;
    if (v->hardware_meter)
        wc_copy_trunc(v->measured_source, sizeof v->measured_source, v->exporter_meter);
    else
        unavailable_reason(p, v->measured_reason, sizeof v->measured_reason);
    pick_ground_truth(p, v);
    wc_copy_trunc(v->verdict, sizeof v->verdict, verdict_sentence(p));
}

int wc_probe_exit_code(const wc_probe *p) { return p->verdict.hardware_meter ? 0 : 1; }

const char *wc_probe_measured_text(const wc_probe *p, char *buf, size_t cap)
{
    const wc_probe_verdict *v = &p->verdict;
    if (!v->measured_available)
        snprintf(buf, cap, "UNAVAILABLE (reason: %s)", v->measured_reason);
    else if (p->rapl.state == WC_PROBE_RAPL_ROOT_ONLY)
        snprintf(buf, cap, "AVAILABLE (rapl; energy_uj is root-only: run as root)");
    else if (p->rapl.state == WC_PROBE_RAPL_OK)
        snprintf(buf, cap, "AVAILABLE (rapl: %zu zone%s on %zu socket%s)", p->rapl.meter.nzones,
                 p->rapl.meter.nzones == 1 ? "" : "s", p->rapl.nsockets,
                 p->rapl.nsockets == 1 ? "" : "s");
    else
        snprintf(buf, cap, "AVAILABLE (hwmon: %zu sensor%s)", p->hwmon.nsensors,
                 p->hwmon.nsensors == 1 ? "" : "s");
    return buf;
}

/* ---- run / free -------------------------------------------------------- */

/* Longest --sysfs-root that leaves room for class/<...>/<entry>/<file>. */
#define SYSFS_ROOT_MAX 400

/* Copies a root (default def) into out. -ENAMETOOLONG (err names the
 * option) when it is longer than max bytes. */
static int set_root(char *out, size_t max, const char *root, const char *def, const char *what,
                    wc_error *err)
{
    const char *r = root && *root ? root : def;
    if (strlen(r) > max)
        return wc_error_set(err, -ENAMETOOLONG, "%s: path longer than %zu bytes: %.64s...",
                            what, max, r);
    wc_copy_trunc(out, max + 1, r);
    return 0;
}

int wc_probe_run(const wc_probe_opts *o, wc_probe *p, wc_error *err)
{
    memset(p, 0, sizeof *p);
    int rc = set_root(p->sysfs_root, SYSFS_ROOT_MAX, o->sysfs_root, "/sys", "--sysfs-root",
                      err);
    if (rc == 0)
        rc = set_root(p->procfs_root, sizeof p->procfs_root - 64, o->procfs_root, "/proc",
                      "--procfs-root", err);
    if (rc == 0)
        rc = set_root(p->dev_root, sizeof p->dev_root - 64, o->dev_root, "/dev", "device root",
                      err);
    if (rc != 0)
        return rc;
    probe_virt(p->sysfs_root, p->procfs_root, &p->virt);
    rc = probe_rapl(p->sysfs_root, &p->rapl, err);
    if (rc != 0)
        return rc;
    wc_error herr;
    herr.msg[0] = '\0';
    rc = wc_hwmon_scan_sysfs(p->sysfs_root, &p->hwmon, &herr);
    if (rc == -ENOMEM || rc == -ENAMETOOLONG)
        return wc_error_set(err, rc, "%s", herr.msg);
    if (rc != 0)
        wc_copy_trunc(p->hwmon_error, sizeof p->hwmon_error, herr.msg);
    probe_ipmi(p->dev_root, o->path_env ? o->path_env : getenv("PATH"),
               o->truth_cfg ? o->truth_cfg->ipmitool : NULL, &p->ipmi);
    rc = probe_bmcs(o, p->sysfs_root, p, err);
    if (rc != 0)
        return rc;
    decide(p);
    return 0;
}

void wc_probe_free(wc_probe *p)
{
    if (!p)
        return;
    wc_meter_close(&p->rapl.meter);
    free(p->rapl.readings);
    p->rapl.readings = NULL;
    wc_hwmon_scan_free(&p->hwmon);
    free(p->bmcs);
    p->bmcs = NULL;
    p->nbmcs = 0;
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
    if (v->hardware_meter)
        fprintf(out, "exporter here would   measure (%s)\n", v->exporter_meter);
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
