/*
 * probe.c — `wattcal probe`: find the node's power sources and decide what
 * they mean for an exporter (see probe.h). The CLI prints the result as a
 * table or JSON (cli/probe_print.c).
 *
 * Sections: collection (virtualisation, RAPL, hwmon, IPMI, --truth
 * sources), verdict, run / free. Strings that came from the machine or a
 * device are kept as found (credentials in --truth specs redacted); the
 * printer makes them safe for a terminal or JSON.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "collector/probe.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/meter/meter_table.h"
#include "common/wc_fs.h"
#include "common/wc_text.h"

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

/* hwmon sensors with a reading (not an error, not the ACPI error marker);
 * kepler_only: only those in the chip directory, the ones Kepler's hwmon
 * meter lists (issue 14 item 4). */
static size_t usable_hwmon(const wc_probe *p, int kepler_only)
{
    size_t n = 0;
    for (size_t i = 0; i < p->hwmon.nsensors; i++) {
        const wc_hwmon_sensor *s = &p->hwmon.sensors[i];
        n += s->status == 0 && !(kepler_only && s->in_device);
    }
    return n;
}

/* hwmon sensors Kepler's hwmon meter would find (the chip directory's). */
static size_t kepler_hwmon(const wc_probe *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->hwmon.nsensors; i++)
        n += !p->hwmon.sensors[i].in_device;
    return n;
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
    } else if (kepler_hwmon(p) > 0) {
        wc_copy_trunc(v->kepler_released, sizeof v->kepler_released,
                   "fails at init: no RAPL zones found (kepler#2280, #2262); v0.11.4 measures "
                   "with hwmon only when experimental.hwmon.enabled");
        wc_append(v->kepler_head, sizeof v->kepler_head, &used_head,
                  "measures with hwmon (cpu.preferredMeters [rapl, hwmon]: %zu sensor%s)",
                  kepler_hwmon(p), kepler_hwmon(p) == 1 ? "" : "s");
    } else if (p->hwmon.nsensors > 0) {
        wc_copy_trunc(v->kepler_released, sizeof v->kepler_released,
                   "fails at init: no RAPL zones found (kepler#2280, #2262)");
        wc_append(v->kepler_head, sizeof v->kepler_head, &used_head,
                  "fails at init: no RAPL zone, and its hwmon meter lists hwmonN/ only: the %zu "
                  "sensor%s under hwmonN/device/ stay unseen", p->hwmon.nsensors,
                  p->hwmon.nsensors == 1 ? "" : "s");
    } else {
        wc_copy_trunc(v->kepler_released, sizeof v->kepler_released,
                   "fails at init: no RAPL zones found (kepler#2280, #2262)");
        wc_copy_trunc(v->kepler_head, sizeof v->kepler_head,
                   "fails at init: no RAPL zone and no hwmon power sensor");
    }
}

/* The first hwmon sensor's error, NULL when every sensor reads. */
static const char *first_sensor_error(const wc_probe *p)
{
    for (size_t i = 0; i < p->hwmon.nsensors; i++)
        if (p->hwmon.sensors[i].status != 0)
            return p->hwmon.sensors[i].error;
    return NULL;
}

/* Why measured node power is unavailable, e.g. "virtualised guest, no
 * powercap zones, no hwmon power sensor"; RAPL root-only (CVE-2020-8694)
 * and sensors that only read an error (the ACPI power meter's marker) say
 * so (issue 14 items 4, 9). */
static void unavailable_reason(const wc_probe *p, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    if (p->virt.guest)
        wc_append(buf, cap, &used, "virtualised guest");
    const char *rapl = p->rapl.state == WC_PROBE_RAPL_NO_ZONES     ? "no powercap zones"
                       : p->rapl.state == WC_PROBE_RAPL_UNREADABLE ? "no readable powercap zone"
                       : p->rapl.state == WC_PROBE_RAPL_ROOT_ONLY
                           ? "RAPL energy_uj is root-only (CVE-2020-8694): run as root, or grant "
                             "CAP_DAC_READ_SEARCH"
                           : "powercap unusable";
    wc_append(buf, cap, &used, "%s%s", used ? ", " : "", rapl);
    const char *why = first_sensor_error(p);
    if (p->hwmon.nsensors && why)
        wc_append(buf, cap, &used, ", no hwmon sensor with a reading (%zu read an error; first: %s)",
                  p->hwmon.nsensors, why);
    else
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
    int rapl = rapl_present(p), hwmon = usable_hwmon(p, 0) > 0;
    int kepler_sees = rapl || usable_hwmon(p, 1) > 0;
    v->hardware_meter = rapl || hwmon;
    v->wattcal_source = rapl ? "rapl" : "none";
    v->exporter_mode = kepler_sees ? "measure" : "estimate";
    v->exporter_meter = rapl ? "rapl" : kepler_sees ? "hwmon" : "none";
    kepler_outcomes(p, v);
    /* measured here and now: readable RAPL, or a hwmon sensor with a reading */
    v->measured_available = p->rapl.state == WC_PROBE_RAPL_OK || hwmon;
    if (v->measured_available)
        wc_copy_trunc(v->measured_source, sizeof v->measured_source,
                      p->rapl.state == WC_PROBE_RAPL_OK ? "rapl" : "hwmon");
    else
        unavailable_reason(p, v->measured_reason, sizeof v->measured_reason);
    pick_ground_truth(p, v);
    wc_copy_trunc(v->verdict, sizeof v->verdict, verdict_sentence(p));
}

int wc_probe_exit_code(const wc_probe *p)
{
    if (p->verdict.measured_available)
        return 0;
    return p->rapl.state == WC_PROBE_RAPL_ROOT_ONLY ? 3 : 1;
}

const char *wc_probe_measured_text(const wc_probe *p, char *buf, size_t cap)
{
    const wc_probe_verdict *v = &p->verdict;
    if (!v->measured_available && p->rapl.state == WC_PROBE_RAPL_ROOT_ONLY)
        snprintf(buf, cap, "UNAVAILABLE to this user (reason: %s)", v->measured_reason);
    else if (!v->measured_available)
        snprintf(buf, cap, "UNAVAILABLE (reason: %s)", v->measured_reason);
    else if (p->rapl.state == WC_PROBE_RAPL_OK)
        snprintf(buf, cap, "AVAILABLE (rapl: %zu zone%s on %zu socket%s)", p->rapl.meter.nzones,
                 p->rapl.meter.nzones == 1 ? "" : "s", p->rapl.nsockets,
                 p->rapl.nsockets == 1 ? "" : "s");
    else
        snprintf(buf, cap, "AVAILABLE (hwmon: %zu sensor%s)", usable_hwmon(p, 0),
                 usable_hwmon(p, 0) == 1 ? "" : "s");
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
