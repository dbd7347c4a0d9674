/*
 * probe.h — what power sources this node has, and what that means for an
 * exporter's numbers (`wattcal probe`, runbook step 2).
 *
 * One probe collects, below --sysfs-root/--procfs-root:
 *   - RAPL: the powercap zones as `wattcal record` sees them (meter_rapl.c),
 *     per socket, each read once;
 *   - hwmon: power/energy sensors as Kepler's hwmon meter finds them (hwmon.c);
 *   - IPMI in-band: /dev/ipmi0, /dev/ipmi/0, /dev/ipmidev/0 and ipmitool on PATH;
 *   - the configured ground-truth sources (--truth SPEC), each opened and
 *     polled once through truth.h;
 *   - whether this is a virtual machine guest (DMI sys_vendor/product_name,
 *     the /proc/cpuinfo "hypervisor" flag);
 * and derives the verdict: which source wattcal would use, whether an
 * exporter here would measure or estimate (Kepler >= 0.10 exits at init
 * without RAPL: kepler-model.md §2.1, §8 items 1-2), whether measured node
 * power is available, and one sentence for the run report (B20).
 *
 * The result is data (wc_probe); the CLI prints it as a table or JSON
 * (cli/probe_print.h). Exit status: 0 when measured node power is available
 * here (readable RAPL zones, or an hwmon sensor with a reading: not an error
 * or the ACPI error marker), 1 when none, 3 when RAPL exists but energy_uj is
 * root-only to this user (issue 14 items 4, 9).
 */
#ifndef WC_PROBE_H
#define WC_PROBE_H

#include <limits.h>
#include <stddef.h>

#include "collector/meter/hwmon.h"
#include "collector/meter/meter.h"
#include "collector/truth/truth.h"
#include "common/wc_error.h"

/* The verdict sentence for a VM guest without any hardware meter (B20). */
#define WC_PROBE_VERDICT_GUEST_NO_METER \
    "no hardware power source in guest; attribution gap cannot be bounded from inside"

/* Opens a ground-truth source; wc_truth_open unless a test injects a fake. */
typedef int (*wc_probe_truth_open_fn)(const char *spec, const wc_truth_config *cfg,
                                      wc_truth_source *s, wc_error *err);

/* What to probe. Zero-initialise, then set what differs from the defaults. */
typedef struct wc_probe_opts {
    const char *sysfs_root;            /* NULL = "/sys" */
    const char *procfs_root;           /* NULL = "/proc" */
    const char *dev_root;              /* NULL = "/dev" (where the IPMI device nodes live) */
    const char *path_env;              /* PATH searched for ipmitool; NULL = getenv("PATH") */
    const char *const *truth_specs;    /* --truth SPECs, ntruth of them */
    size_t ntruth;
    const wc_truth_config *truth_cfg;  /* NULL = wc_truth_config_defaults with sysfs_root */
    wc_probe_truth_open_fn truth_open; /* NULL = wc_truth_open */
} wc_probe_opts;

/* RAPL as `wattcal record --meter rapl` would find it. */
typedef enum wc_probe_rapl_state {
    WC_PROBE_RAPL_OK = 0,     /* zones discovered (and read once) */
    WC_PROBE_RAPL_ROOT_ONLY,  /* zones exist, energy_uj is root-only (CVE-2020-8694) */
    WC_PROBE_RAPL_NO_ZONES,   /* class/powercap absent, empty, or without a named zone */
    WC_PROBE_RAPL_UNREADABLE, /* named zones, none with a readable energy_uj */
    WC_PROBE_RAPL_ERROR       /* anything else: message says */
} wc_probe_rapl_state;

#define WC_PROBE_MAX_SOCKETS 64

typedef struct wc_probe_rapl {
    wc_probe_rapl_state state;
    char class_dir[512];       /* <sysfs_root>/class/powercap */
    char message[768];         /* the meter's description (ok) or discovery error */
    wc_meter meter;            /* zones (state OK only; closed by wc_probe_free) */
    wc_reading *readings;      /* one per zone, malloc'd; status per zone */
    int sockets[WC_PROBE_MAX_SOCKETS]; /* distinct sockets >= 0, ascending */
    size_t nsockets;
} wc_probe_rapl;

typedef struct wc_probe_virt {
    int guest;                 /* 1 when the cpuinfo flag or DMI says VM guest */
    int cpuinfo_flag;          /* 1 "hypervisor" in a flags line, 0 not, -1 cpuinfo unreadable */
    char hypervisor[32];       /* from DMI ("qemu", "kvm", "vmware", "microsoft", "xen", ...),
                                  "unknown" when only the cpuinfo flag says guest, "" not a guest */
    char sys_vendor[128];      /* /sys/class/dmi/id/sys_vendor, "" unreadable (UNTRUSTED) */
    char product_name[128];    /* /sys/class/dmi/id/product_name, "" unreadable (UNTRUSTED) */
    char evidence[256];        /* what said so: "cpuinfo flag hypervisor; DMI sys_vendor QEMU" */
} wc_probe_virt;

#define WC_PROBE_IPMI_DEVICES 3

typedef struct wc_probe_ipmi {
    char devices[WC_PROBE_IPMI_DEVICES][PATH_MAX]; /* in-band device nodes that exist */
    size_t ndevices;
    char ipmitool[PATH_MAX];   /* ipmitool found on PATH, "" none */
} wc_probe_ipmi;

/* One --truth source: opened and polled once. Credentials in a spec are
 * refused by every source; probe still never shows them: spec, open_error,
 * description and the sample's error have any userinfo part
 * ("scheme://USER:PASS@host") replaced by "***@" (wc_probe_redact_spec). */
typedef struct wc_probe_bmc {
    char spec[512];            /* as given, USER:PASS@ redacted to ***@ */
    char kind[16];             /* ops->kind once opened ("ipmi", "redfish", "sim"), else "" */
    wc_provenance provenance;  /* ground truth, or simulated for sim */
    int open_rc;               /* 0 opened, else -errno */
    char open_error[256];      /* why it did not open (UNTRUSTED device text possible) */
    int polled;                /* 1 when one poll was made */
    int poll_rc;               /* wc_truth_poll's result */
    wc_truth_sample sample;    /* status/watts/path/error of that poll */
    char description[256];     /* the source's own description (UNTRUSTED) */
} wc_probe_bmc;

/* What the findings mean. */
typedef struct wc_probe_verdict {
    int hardware_meter;        /* RAPL zones (readable or root-only) or >= 1 hwmon sensor with a
                                  reading (either hwmon layout) */
    const char *wattcal_source;/* "rapl" or "none": what `wattcal record` would read */
    const char *exporter_mode; /* "measure" or "estimate": what Kepler would do (its hwmon meter
                                  lists hwmonN/ only, not hwmonN/device/) */
    const char *exporter_meter;/* "rapl", "hwmon" or "none" */
    char kepler_released[256]; /* Kepler v0.10.0-v0.11.4 with its default config, here */
    char kepler_head[256];     /* Kepler main (cpu.preferredMeters [rapl, hwmon]), here */
    int measured_available;    /* 1 when measured node power can be read here: readable RAPL or
                                  an hwmon sensor with a reading (root-only RAPL: 0) */
    char measured_source[16];  /* "rapl", "hwmon" or "" */
    char measured_reason[256]; /* why unavailable, e.g. "virtualised guest, no powercap zones,
                                  no hwmon power sensor"; "" when available */
    char ground_truth[512];    /* spec of the first --truth source with a ground-truth (not
                                  simulated) ok/stale reading, "" none */
    char verdict[256];         /* one sentence for the run report */
} wc_probe_verdict;

typedef struct wc_probe {
    char sysfs_root[PATH_MAX], procfs_root[PATH_MAX], dev_root[PATH_MAX];
    wc_probe_virt virt;
    wc_probe_rapl rapl;
    wc_hwmon_scan hwmon;
    char hwmon_error[768];     /* class/hwmon present but unlistable; "" otherwise */
    wc_probe_ipmi ipmi;
    wc_probe_bmc *bmcs;        /* malloc'd, nbmcs entries, in --truth order */
    size_t nbmcs;
    wc_probe_verdict verdict;
} wc_probe;

/* Probes everything opts names into *out. Missing or unreadable sources are
 * findings, not errors. Returns 0, -ENAMETOOLONG (--sysfs-root longer than
 * 400 bytes, or a procfs/dev root near PATH_MAX; err names the option) or
 * -ENOMEM with err set. *out is always safe to pass to wc_probe_free. May
 * take as long as the slowest --truth source's poll (its timeout). */
int wc_probe_run(const wc_probe_opts *opts, wc_probe *out, wc_error *err);

/* Releases what a probe holds (the RAPL meter, hwmon scan, BMC list). */
void wc_probe_free(wc_probe *p);

/* 0 when measured node power is available here (verdict.measured_available),
 * 3 when RAPL exists but energy_uj is root-only to this user, 1 otherwise. */
int wc_probe_exit_code(const wc_probe *p);

/* "UNAVAILABLE (reason: ...)", "UNAVAILABLE to this user (reason: ...)" (RAPL
 * root-only) or "AVAILABLE (rapl: ...)" / "AVAILABLE (hwmon: N sensors)", into buf. */
const char *wc_probe_measured_text(const wc_probe *p, char *buf, size_t cap);

/* "ok", "root_only", "no_zones", "unreadable", "error". */
const char *wc_probe_rapl_state_name(wc_probe_rapl_state s);

/* Copies spec into buf (cap bytes) with its userinfo part — everything
 * between the first "://" and the last '@' after it — replaced by "***"
 * ("redfish:https://admin:pw@bmc" is shown as "***@bmc" after the "://"); a spec
 * without one is copied as is. Returns buf. */
const char *wc_probe_redact_spec(const char *spec, char *buf, size_t cap);

#endif
