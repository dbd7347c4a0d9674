/*
 * test_probe.c — `wattcal probe`'s collection and verdict (collector/probe.c)
 * over Kepler's device testdata (RAPL + hwmon: "measure", exit 0), an empty
 * sysfs (no meter: exit 1, Kepler fails at init, an exporter estimates), the
 * B20 case (a KVM guest rebuilt from vm_probe.txt: the verdict and
 * "measured node power: UNAVAILABLE" exactly as expected.txt says), and
 * temporary trees for the other outcomes. BMC sources are injected through
 * wc_probe_opts.truth_open, so nothing here depends on a real BMC. How the
 * result is printed (table, JSON, hostile text) is tested with the printer,
 * tests/unit/cli/test_probe_print.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/probe.h"
#include "common/wc_tmptree.h"
#include "tests/unit/support/test_support.h"

#define KEPLER_SYS "kepler/internal/device/testdata/sys"
#define KEPLER_PROC "kepler/internal/resource/testdata/procfs"

/* ---- helpers ----------------------------------------------------------- */

static char *dup_path(const char *p)
{
    char *s = strdup(p);
    cr_assert_not_null(s);
    return s;
}

/* A temporary root with an empty dev/ and bin/ so IPMI findings do not
 * depend on this machine. */
typedef struct tree {
    char *dir;
    char sys[4096], proc[4096], dev[4096], bin[4096];
} tree;

static void tree_new(tree *t)
{
    t->dir = dup_path(wc_test_tmpdir());
    snprintf(t->sys, sizeof t->sys, "%s/sys", t->dir);
    snprintf(t->proc, sizeof t->proc, "%s/proc", t->dir);
    snprintf(t->dev, sizeof t->dev, "%s/dev", t->dir);
    snprintf(t->bin, sizeof t->bin, "%s/bin", t->dir);
    cr_assert_eq(mkdir(t->sys, 0755) | mkdir(t->proc, 0755) | mkdir(t->dev, 0755) |
                     mkdir(t->bin, 0755),
                 0);
}

static void tree_free(tree *t)
{
    wc_remove_tree(t->dir);
    free(t->dir);
}

/* Options reading sys/proc, the tree's dev/ and PATH=bin/. */
static wc_probe_opts opts_for(const tree *t, const char *sys, const char *proc)
{
    wc_probe_opts o;
    memset(&o, 0, sizeof o);
    o.sysfs_root = sys;
    o.procfs_root = proc;
    o.dev_root = t->dev;
    o.path_env = t->bin;
    return o;
}

static void run_probe(const wc_probe_opts *o, wc_probe *p)
{
    wc_error err;
    err.msg[0] = '\0';
    cr_assert_eq(wc_probe_run(o, p, &err), 0, "%s", err.msg);
}

/* Writes <root>/<rel> = text. */
static void put(const char *root, const char *rel, const char *text)
{
    wc_test_write(root, rel, text);
}

static void put_cpuinfo(const char *proc, int hypervisor)
{
    char text[512];
    snprintf(text, sizeof text,
             "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme de pse tsc msr pae "
             "mce cx8 apic sep mtrr pge%s lahf_lm\nbugs\t\t: spectre_v1\n\n",
             hypervisor ? " hypervisor" : "");
    put(proc, "cpuinfo", text);
}

/* A one-package RAPL tree (package-0 with a dram subzone). */
static void put_rapl(const char *sys, int with_range)
{
    put(sys, "class/powercap/intel-rapl/enabled", "1\n");
    put(sys, "class/powercap/intel-rapl:0/name", "package-0\n");
    put(sys, "class/powercap/intel-rapl:0/energy_uj", "123456789\n");
    put(sys, "class/powercap/intel-rapl:0/enabled", "1\n");
    put(sys, "class/powercap/intel-rapl:0:0/name", "dram\n");
    put(sys, "class/powercap/intel-rapl:0:0/energy_uj", "4567\n");
    if (with_range) {
        put(sys, "class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
        put(sys, "class/powercap/intel-rapl:0:0/max_energy_range_uj", "65712999613\n");
    }
}

/* ---- Kepler's device testdata: RAPL and hwmon -------------------------- */

Test(probe_kepler, rapl_present_means_measure_and_exit_0)
{
    char *sys = dup_path(wc_shared_fixture(KEPLER_SYS));
    char *proc = dup_path(wc_shared_fixture(KEPLER_PROC));
    tree t;
    tree_new(&t);
    wc_probe_opts o = opts_for(&t, sys, proc);
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.rapl.state, WC_PROBE_RAPL_OK, "%s", p.rapl.message);
    cr_assert_eq(p.rapl.meter.nzones, 3, "package-0, its core, package-10 (MMIO twin dropped)");
    cr_assert_eq(p.rapl.nsockets, 2);
    cr_assert_eq(p.rapl.sockets[0], 0);
    cr_assert_eq(p.rapl.sockets[1], 10);
    for (size_t i = 0; i < p.rapl.meter.nzones; i++)
        cr_assert_eq(p.rapl.readings[i].status, 0, "zone %zu", i);
    cr_assert_eq(p.rapl.readings[0].value, 240422366267ULL);
    cr_assert_eq(p.hwmon.nsensors, 31);
    cr_assert_eq(p.virt.guest, 0);
    cr_assert_eq(p.virt.cpuinfo_flag, -1, "the procfs fixture has no cpuinfo");
    cr_assert_eq(p.ipmi.ndevices, 0);
    cr_assert_str_eq(p.ipmi.ipmitool, "");
    const wc_probe_verdict *v = &p.verdict;
    cr_assert_eq(v->hardware_meter, 1);
    cr_assert_eq(wc_probe_exit_code(&p), 0);
    cr_assert_str_eq(v->wattcal_source, "rapl");
    cr_assert_str_eq(v->exporter_mode, "measure");
    cr_assert_str_eq(v->exporter_meter, "rapl");
    cr_assert_eq(v->measured_available, 1);
    cr_assert_str_eq(v->measured_source, "rapl");
    cr_assert(strncmp(v->kepler_released, "measures with RAPL", 18) == 0, "%s",
              v->kepler_released);
    cr_assert_str_eq(v->verdict,
                     "RAPL measures this node: wattcal record can measure the attribution gap");
    char m[256];
    cr_assert_str_eq(wc_probe_measured_text(&p, m, sizeof m),
                     "AVAILABLE (rapl: 3 zones on 2 sockets)");
    wc_probe_free(&p);
    tree_free(&t);
    free(sys);
    free(proc);
}

/* ---- no meter at all --------------------------------------------------- */

Test(probe_tree, empty_sysfs_has_no_meter_exit_1)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/.keep", "");
    put_cpuinfo(t.proc, 0);
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.rapl.state, WC_PROBE_RAPL_NO_ZONES);
    cr_assert(strstr(p.rapl.message, "class/powercap"), "%s", p.rapl.message);
    cr_assert_eq(p.hwmon.present, 0);
    cr_assert_eq(p.virt.cpuinfo_flag, 0);
    cr_assert_eq(p.virt.guest, 0);
    const wc_probe_verdict *v = &p.verdict;
    cr_assert_eq(v->hardware_meter, 0);
    cr_assert_eq(wc_probe_exit_code(&p), 1);
    cr_assert_str_eq(v->wattcal_source, "none");
    cr_assert_str_eq(v->exporter_mode, "estimate");
    cr_assert_str_eq(v->kepler_released, "fails at init: no RAPL zones found (kepler#2280, #2262)");
    cr_assert_str_eq(v->kepler_head, "fails at init: no RAPL zone and no hwmon power sensor");
    char m[256];
    cr_assert_str_eq(wc_probe_measured_text(&p, m, sizeof m),
                     "UNAVAILABLE (reason: no powercap zones, no hwmon power sensor)");
    cr_assert_str_eq(v->verdict, "no hardware power source on this node; attribution gap "
                                 "cannot be measured here");
    wc_probe_free(&p);
    tree_free(&t);
}

/* ---- B20: a KVM guest without RAPL ------------------------------------- */

/* The output lines that follow `$ <command>` in vm_probe.txt, up to the next
 * "$" line (comments after '#' dropped), joined with '\n'. */
static void command_output(const char *probe, const char *command, char *out, size_t cap)
{
    out[0] = '\0';
    const char *at = strstr(probe, command);
    cr_assert_not_null(at, "vm_probe.txt lacks `%s`", command);
    const char *line = strchr(at, '\n');
    size_t used = 0;
    while (line && line[1] && line[1] != '$') {
        line++;
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        used += (size_t)snprintf(out + used, cap - used, "%s%.*s", used ? "\n" : "", (int)len,
                                 line);
        line = end;
    }
}

/* What DMI says in a guest systemd-detect-virt names (stock firmware text). */
static void dmi_for(const char *virt, const char **vendor, const char **product)
{
    if (strcmp(virt, "kvm") == 0) {
        *vendor = "QEMU";
        *product = "Standard PC (Q35 + ICH9, 2009)";
        return;
    }
    cr_assert_fail("no DMI text for virt '%s'", virt);
}

/* Builds sys/ and proc/ from vm_probe.txt: the (empty) powercap listing, the
 * cpuinfo hypervisor flag, DMI of the detected hypervisor, the hwmon count. */
static void build_b20_tree(const tree *t, const char *probe)
{
    char out[256];
    command_output(probe, "$ ls /sys/class/powercap/", out, sizeof out);
    cr_assert_str_eq(out, "", "the guest lists no powercap zone");
    put(t->sys, "class/powercap/.keep", "");
    command_output(probe, "/proc/cpuinfo", out, sizeof out);
    cr_assert_str_eq(out, "hypervisor");
    put_cpuinfo(t->proc, 1);
    command_output(probe, "$ systemd-detect-virt", out, sizeof out);
    const char *vendor, *product;
    dmi_for(out, &vendor, &product);
    char text[160];
    snprintf(text, sizeof text, "%s\n", vendor);
    put(t->sys, "class/dmi/id/sys_vendor", text);
    snprintf(text, sizeof text, "%s\n", product);
    put(t->sys, "class/dmi/id/product_name", text);
    command_output(probe, "wc -l", out, sizeof out);
    cr_assert_str_eq(out, "0", "no hwmon chip in the guest");
    put(t->sys, "class/hwmon/.keep", "");
}

/* The text between `open` and the next `close` after it in s, into out. */
static void between(const char *s, const char *open, char close, char *out, size_t cap)
{
    const char *a = strstr(s, open);
    cr_assert_not_null(a, "expected.txt lacks %s", open);
    a += strlen(open);
    const char *b = strchr(a, close);
    cr_assert_not_null(b);
    snprintf(out, cap, "%.*s", (int)(b - a), a);
}

Test(probe_b20, kvm_guest_without_rapl_is_unbounded)
{
    char *probe = wc_test_slurp(wc_shared_fixture("cases/B20/vm_probe.txt"), NULL);
    char *expected = wc_test_slurp(wc_shared_fixture("cases/B20/expected.txt"), NULL);
    char want_verdict[256], want_reason[256], want_line[300];
    between(expected, "the run report states: \"", '"', want_verdict, sizeof want_verdict);
    between(expected, "measured node power: UNAVAILABLE (reason: ", ')', want_reason,
            sizeof want_reason);
    snprintf(want_line, sizeof want_line, "UNAVAILABLE (reason: %s)", want_reason);
    tree t;
    tree_new(&t);
    build_b20_tree(&t, probe);
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.virt.guest, 1);
    cr_assert_eq(p.virt.cpuinfo_flag, 1);
    cr_assert_str_eq(p.virt.hypervisor, "qemu");
    cr_assert_str_eq(p.virt.sys_vendor, "QEMU");
    cr_assert_str_eq(p.virt.evidence, "cpuinfo flag hypervisor; DMI sys_vendor QEMU");
    cr_assert_eq(p.rapl.state, WC_PROBE_RAPL_NO_ZONES);
    cr_assert_eq(p.hwmon.nsensors, 0);
    const wc_probe_verdict *v = &p.verdict;
    cr_assert_str_eq(v->verdict, want_verdict);
    cr_assert_str_eq(v->verdict, WC_PROBE_VERDICT_GUEST_NO_METER);
    cr_assert_eq(v->measured_available, 0);
    cr_assert_str_eq(v->measured_reason, want_reason);
    char m[256];
    cr_assert_str_eq(wc_probe_measured_text(&p, m, sizeof m), want_line);
    cr_assert_str_eq(v->exporter_mode, "estimate");
    cr_assert(strstr(v->kepler_released, "fails at init"), "never 0 W, never an exit: %s",
              v->kepler_released);
    cr_assert_eq(wc_probe_exit_code(&p), 1);
    wc_probe_free(&p);
    tree_free(&t);
    free(probe);
    free(expected);
}

/* ---- other outcomes ---------------------------------------------------- */

Test(probe_tree, hwmon_only_node_measures_with_kepler_head_not_wattcal)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/hwmon/hwmon0/name", "k10temp\n");
    put(t.sys, "class/hwmon/hwmon0/power1_input", "45000000\n");
    put(t.sys, "class/hwmon/hwmon0/power1_label", "Package\n");
    put_cpuinfo(t.proc, 0);
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    wc_probe p;
    run_probe(&o, &p);
    const wc_probe_verdict *v = &p.verdict;
    cr_assert_eq(wc_probe_exit_code(&p), 0);
    cr_assert_str_eq(v->wattcal_source, "none");
    cr_assert_str_eq(v->exporter_mode, "measure");
    cr_assert_str_eq(v->exporter_meter, "hwmon");
    cr_assert(strncmp(v->kepler_released, "fails at init: no RAPL zones found", 34) == 0);
    cr_assert(strstr(v->kepler_released, "experimental.hwmon.enabled"));
    cr_assert_str_eq(v->kepler_head, "measures with hwmon (cpu.preferredMeters [rapl, hwmon]: "
                                     "1 sensor)");
    char m[256];
    cr_assert_str_eq(wc_probe_measured_text(&p, m, sizeof m), "AVAILABLE (hwmon: 1 sensor)");
    cr_assert(strstr(v->verdict, "wattcal record (RAPL only) cannot measure"), "%s", v->verdict);
    wc_probe_free(&p);
    tree_free(&t);
}

Test(probe_tree, named_zones_without_energy_are_unreadable_not_absent)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/powercap/intel-rapl:0/name", "package-0\n");
    put_cpuinfo(t.proc, 0);
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.rapl.state, WC_PROBE_RAPL_UNREADABLE, "%s", p.rapl.message);
    cr_assert_str_eq(p.verdict.measured_reason,
                     "no readable powercap zone, no hwmon power sensor");
    cr_assert_eq(wc_probe_exit_code(&p), 1);
    wc_probe_free(&p);
    tree_free(&t);
}

Test(probe_tree, missing_max_energy_range_fails_kepler_at_init)
{
    tree t;
    tree_new(&t);
    put_rapl(t.sys, 0);
    put_cpuinfo(t.proc, 0);
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.rapl.state, WC_PROBE_RAPL_OK, "%s", p.rapl.message);
    cr_assert_eq(p.rapl.readings[0].value, 123456789);
    cr_assert_eq(wc_probe_exit_code(&p), 0);
    char want[4300];
    snprintf(want, sizeof want,
             "fails at init: max_energy_range_uj unreadable for %s/class/powercap/intel-rapl:0",
             t.sys);
    cr_assert_str_eq(p.verdict.kepler_released, want);
    cr_assert_str_eq(p.verdict.kepler_head, want);
    wc_probe_free(&p);
    tree_free(&t);
}

/* As nobody, energy_uj mode 0400 (CVE-2020-8694): the meter exists (an
 * exporter running as root would measure), but this user has no measured
 * power: UNAVAILABLE, root-only said, exit 3 (issue 14 item 9). */
static int probe_as_nobody(const tree *t)
{
    if (setgid(65534) != 0 || setuid(65534) != 0)
        return 77;
    if (access(t->dir, X_OK) != 0) /* a parent of the tree is closed to nobody */
        return 78;
    wc_probe_opts o = opts_for(t, t->sys, t->proc);
    wc_probe p;
    wc_error err;
    if (wc_probe_run(&o, &p, &err) != 0)
        return 2;
    char m[256];
    int ok = p.rapl.state == WC_PROBE_RAPL_ROOT_ONLY && wc_probe_exit_code(&p) == 3 &&
             p.verdict.hardware_meter && !p.verdict.measured_available &&
             strstr(p.rapl.message, "CVE-2020-8694") && !strcmp(p.verdict.wattcal_source, "rapl") &&
             !strcmp(wc_probe_measured_text(&p, m, sizeof m),
                     "UNAVAILABLE to this user (reason: RAPL energy_uj is root-only "
                     "(CVE-2020-8694): run as root, or grant CAP_DAC_READ_SEARCH, no hwmon power "
                     "sensor)") &&
             !strncmp(p.verdict.verdict, "RAPL present but energy_uj is root-only", 39);
    if (!ok)
        fprintf(stderr, "state=%s verdict=%s message=%s\n",
                wc_probe_rapl_state_name(p.rapl.state), p.verdict.verdict, p.rapl.message);
    wc_probe_free(&p);
    return ok ? 0 : 1;
}

Test(probe_tree, root_only_energy_uj_is_a_meter_but_no_measured_power_here)
{
    if (geteuid() != 0)
        cr_skip_test("needs root to create root-owned 0400 files and drop to nobody");
    tree t;
    tree_new(&t);
    put_rapl(t.sys, 1);
    put_cpuinfo(t.proc, 0);
    char file[4300];
    snprintf(file, sizeof file, "%s/class/powercap/intel-rapl:0/energy_uj", t.sys);
    cr_assert_eq(chmod(t.dir, 0755), 0);
    cr_assert_eq(chmod(file, 0400), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0)
        _exit(probe_as_nobody(&t));
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77)
        cr_skip_test("cannot switch to uid 65534 here");
    if (WEXITSTATUS(status) == 78)
        cr_skip_test("uid 65534 cannot reach the test tree below TMPDIR (%s): EACCES cannot be"
                     " tested here (a private TMPDIR of mode 0700)", getenv("TMPDIR"));
    cr_assert_eq(WEXITSTATUS(status), 0, "probe as nobody: see stderr");
    tree_free(&t);
}

Test(probe_tree, rapl_inside_a_guest_is_flagged)
{
    tree t;
    tree_new(&t);
    put_rapl(t.sys, 1);
    put(t.sys, "class/dmi/id/sys_vendor", "VMware, Inc.\n");
    put(t.sys, "class/dmi/id/product_name", "VMware7,1\n");
    put_cpuinfo(t.proc, 0);
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.virt.guest, 1);
    cr_assert_str_eq(p.virt.hypervisor, "vmware");
    cr_assert_eq(p.rapl.nsockets, 1);
    cr_assert_str_eq(p.verdict.exporter_mode, "measure");
    cr_assert(strncmp(p.verdict.verdict, "RAPL visible inside a guest", 27) == 0, "%s",
              p.verdict.verdict);
    cr_assert_eq(wc_probe_exit_code(&p), 0);
    wc_probe_free(&p);
    tree_free(&t);
}

Test(probe_tree, ec2_metal_is_not_a_guest_ec2_vm_is)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/dmi/id/sys_vendor", "Amazon EC2\n");
    put(t.sys, "class/dmi/id/product_name", "m5.metal\n");
    put_cpuinfo(t.proc, 0);
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.virt.guest, 0);
    cr_assert_str_eq(p.virt.hypervisor, "");
    wc_probe_free(&p);
    put(t.sys, "class/dmi/id/product_name", "m5.large\n");
    run_probe(&o, &p);
    cr_assert_eq(p.virt.guest, 1);
    cr_assert_str_eq(p.virt.hypervisor, "amazon");
    cr_assert_str_eq(p.virt.evidence, "DMI sys_vendor Amazon EC2");
    wc_probe_free(&p);
    tree_free(&t);
}

Test(probe_tree, ipmi_device_nodes_and_ipmitool_on_path)
{
    tree t;
    tree_new(&t);
    put(t.dev, "ipmi0", "");
    put(t.dev, "ipmidev/0", "");
    put(t.bin, "ipmitool", "#!/bin/sh\nexit 0\n");
    char tool[4200];
    snprintf(tool, sizeof tool, "%s/ipmitool", t.bin);
    put_cpuinfo(t.proc, 0);
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    char path_env[9000];
    snprintf(path_env, sizeof path_env, "/nonexistent:%s", t.bin);
    o.path_env = path_env;
    wc_probe p;
    run_probe(&o, &p); /* not executable yet: not found */
    cr_assert_str_eq(p.ipmi.ipmitool, "");
    wc_probe_free(&p);
    cr_assert_eq(chmod(tool, 0755), 0);
    run_probe(&o, &p);
    cr_assert_eq(p.ipmi.ndevices, 2);
    char want[4200];
    snprintf(want, sizeof want, "%s/ipmi0", t.dev);
    cr_assert_str_eq(p.ipmi.devices[0], want);
    snprintf(want, sizeof want, "%s/ipmidev/0", t.dev);
    cr_assert_str_eq(p.ipmi.devices[1], want);
    cr_assert_str_eq(p.ipmi.ipmitool, tool);
    cr_assert_eq(wc_probe_exit_code(&p), 1, "IPMI is ground truth, not a meter to attribute from");
    wc_probe_free(&p);
    tree_free(&t);
}

/* ---- ground-truth sources through an injected opener ------------------- */

/* A fake BMC: the spec after "fake:" chooses what it does. */
static int fake_poll(wc_truth_source *s, wc_truth_sample *out)
{
    if (strstr(s->spec, "unavailable")) {
        out->status = WC_TRUTH_UNAVAILABLE;
        snprintf(out->error, sizeof out->error, "sensor \"Pwr\" disabled\033[31m");
        snprintf(out->path, sizeof out->path, "sdr:Pwr Consumption");
        return 0;
    }
    out->status = WC_TRUTH_OK;
    out->watts = 412.5;
    out->window_s = 1;
    out->window_known = 1;
    snprintf(out->path, sizeof out->path, "dcmi:instantaneous");
    return 0;
}

static const wc_truth_ops FAKE_OPS = {.kind = "fake", .open = NULL, .poll = fake_poll,
                                      .close = NULL};

static int fake_open(const char *spec, const wc_truth_config *cfg, wc_truth_source *s,
                     wc_error *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    s->cfg = *cfg;
    if (strstr(spec, "refuse"))
        return wc_error_set(err, -ECONNREFUSED, "%s: BMC said \"no\\\033[2J\"", spec);
    s->ops = &FAKE_OPS;
    s->provenance = strstr(spec, "simulated") ? WC_PROV_SIMULATED : WC_PROV_GROUND_TRUTH;
    snprintf(s->description, sizeof s->description, "fake BMC for %s", spec);
    return 0;
}

Test(probe_bmc, each_source_opened_and_polled_once)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/.keep", "");
    put_cpuinfo(t.proc, 0);
    static const char *const specs[] = {"fake:refuse", "fake:simulated", "fake:unavailable",
                                        "fake:ok"};
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    o.truth_specs = specs;
    o.ntruth = 4;
    o.truth_open = fake_open;
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.nbmcs, 4);
    cr_assert_eq(p.bmcs[0].open_rc, -ECONNREFUSED);
    cr_assert(strstr(p.bmcs[0].open_error, "BMC said"));
    cr_assert_eq(p.bmcs[0].polled, 0);
    cr_assert_eq(p.bmcs[1].sample.status, WC_TRUTH_OK);
    cr_assert_eq(p.bmcs[1].provenance, WC_PROV_SIMULATED);
    cr_assert_eq(p.bmcs[2].sample.status, WC_TRUTH_UNAVAILABLE);
    cr_assert(isnan(p.bmcs[2].sample.watts), "unavailable is never 0 W");
    cr_assert_eq(p.bmcs[3].sample.status, WC_TRUTH_OK);
    cr_assert_eq(p.bmcs[3].sample.watts, 412.5);
    cr_assert_str_eq(p.bmcs[3].kind, "fake");
    /* the first ground-truth (not simulated) reading */
    cr_assert_str_eq(p.verdict.ground_truth, "fake:ok");
    cr_assert_eq(wc_probe_exit_code(&p), 1,
                 "a BMC alone is not a meter an exporter attributes from");
    wc_probe_free(&p);
    tree_free(&t);
}

Test(probe_bmc, unknown_spec_and_file_log_are_listed_unpolled)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/.keep", "");
    static const char *const specs[] = {"carrier-pigeon:1", "file:/var/log/pdu.csv"};
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    o.truth_specs = specs;
    o.ntruth = 2;
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.nbmcs, 2);
    cr_assert_str_eq(p.bmcs[1].kind, "file");
    cr_assert_eq(p.bmcs[1].open_rc, -ENOTSUP);
    cr_assert(strstr(p.bmcs[1].open_error, "imported after the run"), "%s", p.bmcs[1].open_error);
    cr_assert_str_eq(p.bmcs[0].spec, "carrier-pigeon:1");
    cr_assert_eq(p.bmcs[0].open_rc, -EINVAL);
    cr_assert(strstr(p.bmcs[0].open_error, "carrier-pigeon:1"), "%s", p.bmcs[0].open_error);
    cr_assert_str_eq(p.verdict.ground_truth, "");
    wc_probe_free(&p);
    tree_free(&t);
}

/* ---- credentials in a --truth spec are never shown ---------------------- */

Test(probe_bmc, redact_spec_hides_userinfo)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"ipmi:lanplus://admin:S3cret@127.0.0.1", "ipmi:lanplus://***@127.0.0.1"},
        {"redfish:https://admin:S3cret@bmc.example.com:8443",
         "redfish:https://***@bmc.example.com:8443"},
        {"redfish:https://adm@in:p@ss/w@rd@bmc", "redfish:https://***@bmc"},
        {"redfish:https://bmc.example.com", "redfish:https://bmc.example.com"},
        {"ipmi:local", "ipmi:local"},
        {"file:/var/log/pdu@rack1.csv", "file:/var/log/pdu@rack1.csv"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[128];
        cr_expect_str_eq(wc_probe_redact_spec(cases[i].in, buf, sizeof buf), cases[i].out);
    }
    char small[12];
    cr_expect_str_eq(wc_probe_redact_spec("ipmi:lan://u:pw@h", small, sizeof small), "ipmi:lan://");
}

/* `wattcal probe --truth 'ipmi:lanplus://admin:S3cret@127.0.0.1'` once printed
 * the whole spec in its table and JSON (the output: test_probe_print.c). */
Test(probe_bmc, credentials_in_a_spec_are_redacted_everywhere)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/.keep", "");
    static char longspec[700];
    int n = snprintf(longspec, sizeof longspec, "redfish:https://admin:");
    for (int i = 0; i < 100; i++)
        n += snprintf(longspec + n, sizeof longspec - (size_t)n, "S3cret");
    snprintf(longspec + n, sizeof longspec - (size_t)n, "@bmc.example.com");
    const char *specs[] = {"ipmi:lanplus://admin:S3cret@127.0.0.1",
                           "redfish:https://admin:S3cret@bmc.example.com", longspec,
                           "weird://admin:S3cret@host"};
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    o.truth_specs = specs;
    o.ntruth = 4;
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.nbmcs, 4);
    cr_expect_str_eq(p.bmcs[0].spec, "ipmi:lanplus://***@127.0.0.1");
    cr_expect_str_eq(p.bmcs[1].spec, "redfish:https://***@bmc.example.com");
    cr_expect_str_eq(p.bmcs[2].spec, "redfish:https://***@bmc.example.com");
    cr_expect_str_eq(p.bmcs[3].spec, "weird://***@host");
    for (size_t i = 0; i < 4; i++) {
        cr_expect_neq(p.bmcs[i].open_rc, 0, "%s opened", p.bmcs[i].spec);
        cr_expect_null(strstr(p.bmcs[i].open_error, "S3c"), "%s", p.bmcs[i].open_error);
    }
    cr_expect(strstr(p.bmcs[0].open_error, "credentials do not belong"), "%s",
              p.bmcs[0].open_error);
    cr_expect(strstr(p.bmcs[1].open_error, "credentials must not be in the URL"), "%s",
              p.bmcs[1].open_error);
    wc_probe_free(&p);
    tree_free(&t);
}

/* A source that echoes its spec (description, poll error) still shows it
 * redacted, and so does the verdict's ground-truth line. */
Test(probe_bmc, a_source_echoing_its_spec_is_redacted)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/.keep", "");
    static const char *const specs[] = {"fake:ok://root:S3cret@bmc", "fake:refuse://root:S3cret@bmc"};
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    o.truth_specs = specs;
    o.ntruth = 2;
    o.truth_open = fake_open;
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.nbmcs, 2);
    cr_expect_eq(p.bmcs[0].sample.status, WC_TRUTH_OK);
    cr_expect_str_eq(p.bmcs[0].description, "fake BMC for fake:ok://***@bmc");
    cr_expect_str_eq(p.verdict.ground_truth, "fake:ok://***@bmc");
    cr_expect_str_eq(p.bmcs[1].open_error, "fake:refuse://***@bmc: BMC said \"no\\\033[2J\"");
    wc_probe_free(&p);
    tree_free(&t);
}
