/*
 * test_cgroup.c — container/pod/runtime identification (collector/procfs/cgroup.c).
 *
 * Data-driven over the shared fixtures: every case of B12, B14, B15 (ids read
 * from their expected.txt; the runtime/QoS/role each row states is restated
 * in a table here and cross-checked against the row text), every file of
 * corpus/proc/cgroup, both Kepler container-id TSVs, and the cgroup files of
 * Kepler's procfs test tree. Synthetic lines cover the rest (nesting, ':' in
 * paths, malformed lines, near-miss ids).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/procfs/cgroup.h"
#include "tests/unit/support/test_support.h"

#define ID_A "28a5e57257f81fcd6d592647dde27e06b53944d58af4fa546ad77a12ce8b41c2"
#define ID_B "01fd96f7ad292b02a8317cde4ecb8c7ef3cc06ffdd113f13410e0837eb2b2a20"
#define UID1 "481c0ae9-7d40-46dd-b6ca-ba27cb64f87e"
#define UID1_ "481c0ae9_7d40_46dd_b6ca_ba27cb64f87e"

/* ---- helpers -------------------------------------------------------------- */

static int parse(const char *text, wc_cgroup_info *out, wc_error *err)
{
    return wc_cgroup_parse(text, strlen(text), "test-origin", out, err);
}

static wc_cgroup_info parse_ok(const char *text)
{
    wc_cgroup_info info;
    wc_error err = {{0}};
    cr_assert_eq(parse(text, &info, &err), 0, "%s", err.msg);
    return info;
}

static int is_hex_char(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Never slice text: an id is "" or 64 lowercase hex. */
static void assert_id_shape(const wc_cgroup_info *info, const char *what)
{
    size_t n = strlen(info->container_id);
    cr_assert(n == 0 || n == 64, "%s: container_id \"%s\"", what, info->container_id);
    for (size_t i = 0; i < n; i++)
        cr_assert(is_hex_char(info->container_id[i]), "%s: container_id \"%s\"", what,
                  info->container_id);
    cr_assert(strlen(info->pod_uid) == 0 || strlen(info->pod_uid) == 36, "%s: pod_uid \"%s\"",
              what, info->pod_uid);
    cr_assert_null(strchr(info->pod_uid, '_'), "%s: pod_uid \"%s\"", what, info->pod_uid);
}

/* First whitespace-separated token of row with exactly 64 hex chars; "" if none. */
static void find_hex64(const char *row, char out[65])
{
    out[0] = '\0';
    for (const char *p = row; *p;) {
        size_t n = strcspn(p, " \t");
        int ok = n == 64;
        for (size_t i = 0; ok && i < n; i++)
            ok = is_hex_char(p[i]);
        if (ok) {
            memcpy(out, p, 64);
            out[64] = '\0';
            return;
        }
        p += n;
        p += strspn(p, " \t");
    }
}

/* First token shaped 8-4-4-4-12 (hex, '-'); "" if none. */
static void find_uuid(const char *row, char out[37])
{
    out[0] = '\0';
    for (const char *p = row; *p;) {
        size_t n = strcspn(p, " \t");
        int ok = n == 36;
        for (size_t i = 0; ok && i < n; i++)
            ok = (i == 8 || i == 13 || i == 18 || i == 23) ? p[i] == '-' : is_hex_char(p[i]);
        if (ok) {
            memcpy(out, p, 36);
            out[36] = '\0';
            return;
        }
        p += n;
        p += strspn(p, " \t");
    }
}

/* The row of expected.txt's table for case `id` (a copy; caller frees), or NULL. */
static char *expected_row(const char *expected_text, char id)
{
    const char *table = strstr(expected_text, "\ncase ");
    cr_assert_not_null(table, "expected.txt without a \"case\" table");
    for (const char *p = strchr(table + 1, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        if (p[1] == id && (p[2] == ' ' || p[2] == '\t')) {
            size_t n = strcspn(p + 1, "\n");
            char *row = malloc(n + 1);
            cr_assert_not_null(row);
            memcpy(row, p + 1, n);
            row[n] = '\0';
            return row;
        }
    }
    return NULL;
}

/* What the test states for one case beyond the ids in expected.txt. */
typedef struct case_extra {
    char id;
    const char *runtime;  /* "" = unknown / none */
    const char *qos;
    const char *row_word; /* a word the expected row must contain (runtime or role), or NULL */
} case_extra;

/* Runs every "case<TAB>line" of a B1x case against its expected.txt. */
static int run_case_dir(const char *dir, const case_extra *extra, size_t nextra, int check_monitor)
{
    char rel[256];
    snprintf(rel, sizeof rel, "cases/%s/expected.txt", dir);
    char *expected = wc_test_slurp(wc_shared_fixture(rel), NULL);
    snprintf(rel, sizeof rel, "cases/%s/proc_pid_cgroup_lines.txt", dir);
    char *lines = wc_test_slurp(wc_shared_fixture(rel), NULL);
    int checked = 0;
    for (char *line = strtok(lines, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || !line[0])
            continue;
        char *tab = strchr(line, '\t');
        cr_assert_not_null(tab, "%s: no tab in \"%s\"", dir, line);
        char id = line[0];
        const case_extra *x = NULL;
        for (size_t i = 0; i < nextra; i++)
            if (extra[i].id == id)
                x = &extra[i];
        cr_assert_not_null(x, "%s case %c: not in the test's table", dir, id);
        char *row = expected_row(expected, id);
        cr_assert_not_null(row, "%s case %c: no expected row", dir, id);
        char want_id[65], want_uid[37];
        find_hex64(row, want_id);
        find_uuid(row, want_uid);
        wc_cgroup_info info = parse_ok(tab + 1);
        assert_id_shape(&info, line);
        cr_assert_str_eq(info.container_id, want_id, "%s case %c container_id", dir, id);
        cr_assert_str_eq(info.pod_uid, want_uid, "%s case %c pod_uid", dir, id);
        cr_assert_str_eq(info.runtime, x->runtime, "%s case %c runtime", dir, id);
        cr_assert_str_eq(info.qos, x->qos, "%s case %c qos", dir, id);
        if (x->row_word)
            cr_assert_not_null(strstr(row, x->row_word), "%s case %c: row \"%s\" lacks \"%s\"", dir,
                               id, row, x->row_word);
        if (check_monitor)
            cr_assert_eq(info.is_runtime_monitor, strstr(row, "runtime-monitor") != NULL,
                         "%s case %c monitor flag", dir, id);
        else
            cr_assert_eq(info.is_runtime_monitor, 0);
        /* path = the path of the line (text after the second ':'). */
        const char *c2 = strchr(strchr(tab + 1, ':') + 1, ':') + 1;
        cr_assert_str_eq(info.path, c2, "%s case %c path", dir, id);
        free(row);
        checked++;
    }
    free(lines);
    free(expected);
    return checked;
}

/* ---- B12, B14, B15 -------------------------------------------------------- */

Test(cgroup, b12_cgroup_v1_every_case)
{
    static const case_extra extra[] = {
        {'A', "docker", "besteffort", "docker"},
        {'B', "containerd", "besteffort", "containerd"},
        {'C', "containerd", "burstable", "containerd"},
        {'D', "", "burstable", "unknown (cgroupfs: no prefix)"},
        {'E', "", "burstable", "unknown (cgroupfs: no prefix)"},
        {'F', "", "", "none (host daemon"},
    };
    cr_assert_eq(run_case_dir("B12", extra, 6, 0), 6);
}

Test(cgroup, b14_cgroup_v2_every_case)
{
    static const case_extra extra[] = {
        {'A', "docker", "", "docker"},
        {'B', "containerd", "besteffort", "containerd"},
        {'C', "", "", "(host: containerd daemon)"},
        {'D', "", "", "(host: user session)"},
        {'E', "", "", "(host: systemd)"},
    };
    cr_assert_eq(run_case_dir("B14", extra, 5, 0), 5);
}

Test(cgroup, b15_podman_crio_and_conmon_every_case)
{
    static const case_extra extra[] = {
        {'A', "podman", "", "workload"},
        {'B', "podman", "", "runtime-monitor"},
        {'C', "crio", "burstable", "workload"},
        {'D', "crio", "burstable", "runtime-monitor"},
        {'E', "", "burstable", "runtime unknown"},
    };
    cr_assert_eq(run_case_dir("B15", extra, 5, 1), 5);
}

/* ---- corpus/proc/cgroup, every .cgroup file ------------------------------------------- */

typedef struct file_case {
    const char *name;
    const char *runtime, *container_id, *pod_uid, *qos, *path; /* path NULL: not checked */
} file_case;

/* Expected for every file (Kepler's table has no /ecs/ rule: those stay host
 * processes here too, so wattcal and the exporter label the same things). */
static const file_case cgroup_files[] = {
    {"v1-all-root.cgroup", "", "", "", "", "/"},
    {"v1-docker-split-cpu-cpuacct.cgroup", "docker",
     "3726184226f5d3147c25fdeab5b60097e378e8a720503a5e19ecfdf29f869860", "", "",
     "/docker/3726184226f5d3147c25fdeab5b60097e378e8a720503a5e19ecfdf29f869860"},
    {"v1-ecs-ec2.cgroup", "", "", "", "", NULL},
    {"v1-ecs-fargate-1.3.cgroup", "", "", "", "", NULL},
    {"v1-ecs-fargate-1.4-no-trailing-newline.cgroup", "", "", "", "", NULL},
    {"v1-hybrid-docker-cgroupfs.cgroup", "docker",
     "99d24a208bd5b9c9663e18c34e4bd793536f062d8299a5cca0e718994abd9182", "", "",
     "/docker/99d24a208bd5b9c9663e18c34e4bd793536f062d8299a5cca0e718994abd9182"},
    {"v1-hybrid-k8s-systemd-driver-containerd.cgroup", "containerd",
     "e8ac3efec3322d7f13cfa0cdee4344754d01bd4e50fea44e0753e83fdb74cab3",
     "98005c3b-b650-4efe-8b91-2164d784397f", "burstable", NULL},
    {"v1-k8s-cgroupfs-driver-besteffort.cgroup", "",
     "3e74d3fd9db4c9dd921ae05c2502fb984d0cde1b36e581b13f79c639da4518a1",
     "3d274242-8ee0-11e9-a8a6-1e68d864ef1a", "besteffort", NULL},
    {"v1-pid1-init-scope.cgroup", "", "", "", "", "/init.scope"},
    {"v1-systemd-service.cgroup", "", "", "", "", "/system.slice/cups.service"},
    {"v1-systemd-user-scope-vte.cgroup", "", "", "", "",
     "/user.slice/user-1000.slice/user@1000.service/apps.slice/apps-org.gnome.Terminal.slice/"
     "vte-spawn-1d0750f1-4e83-4b26-81ae-e3770394b7f3.scope"},
    {"v1-systemd-user-subservice-mixed-paths.cgroup", "", "", "", "",
     "/user.slice/user-1000.slice/user@1000.service/xdg-desktop-portal-gtk.service"},
    {"v2-docker-systemd-driver.cgroup", "docker",
     "473a28bd49fcbf3a24eb55563125720311181ee184ae9b88fc9a3fbb30031e47", "", "",
     "/system.slice/docker-473a28bd49fcbf3a24eb55563125720311181ee184ae9b88fc9a3fbb30031e47.scope"},
    {"v2-pid1.cgroup", "", "", "", "", "/init.scope"},
    {"v2-root.cgroup", "", "", "", "", "/"},
    {"v2-session-scope.cgroup", "", "", "", "", "/user.slice/user-1000.slice/session-4.scope"},
    {"v2-systemd-service.cgroup", "", "", "", "", "/system.slice/ssh.service"},
};

static const file_case *find_file_case(const char *name)
{
    for (size_t i = 0; i < sizeof cgroup_files / sizeof cgroup_files[0]; i++)
        if (strcmp(cgroup_files[i].name, name) == 0)
            return &cgroup_files[i];
    return NULL;
}

Test(cgroup, corpus_every_cgroup_file)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", wc_shared_fixture("corpus/proc/cgroup"));
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    size_t seen = 0;
    for (struct dirent *de = readdir(d); de; de = readdir(d)) {
        size_t n = strlen(de->d_name);
        if (n < 7 || strcmp(de->d_name + n - 7, ".cgroup") != 0)
            continue;
        const file_case *fc = find_file_case(de->d_name);
        cr_assert_not_null(fc, "corpus file %s has no expectation in this test", de->d_name);
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t len = 0;
        char *text = wc_test_slurp(path, &len);
        wc_cgroup_info info;
        wc_error err = {{0}};
        cr_assert_eq(wc_cgroup_parse(text, len, path, &info, &err), 0, "%s", err.msg);
        free(text);
        assert_id_shape(&info, fc->name);
        cr_assert_str_eq(info.runtime, fc->runtime, "%s runtime", fc->name);
        cr_assert_str_eq(info.container_id, fc->container_id, "%s id", fc->name);
        cr_assert_str_eq(info.pod_uid, fc->pod_uid, "%s pod", fc->name);
        cr_assert_str_eq(info.qos, fc->qos, "%s qos", fc->name);
        cr_assert_eq(info.is_runtime_monitor, 0, "%s", fc->name);
        if (fc->path)
            cr_assert_str_eq(info.path, fc->path, "%s path", fc->name);
        seen++;
    }
    closedir(d);
    cr_assert_eq(seen, sizeof cgroup_files / sizeof cgroup_files[0], "every listed file exists");
}

/* ---- Kepler's TSVs ---------------------------------------------------------- */

/* Builds cgroup file text from a TSV cell: lines joined by '|'; a bare path
 * (Kepler's tests pass paths, not lines) becomes a "0::" line. */
static void tsv_cell_to_text(const char *cell, char *out, size_t cap)
{
    out[0] = '\0';
    char *copy = strdup(cell);
    cr_assert_not_null(copy);
    char *save = NULL;
    for (char *part = strtok_r(copy, "|", &save); part; part = strtok_r(NULL, "|", &save)) {
        size_t digits = strspn(part, "0123456789");
        const char *c2 = part[digits] == ':' ? strchr(part + digits + 1, ':') : NULL;
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "%s%s\n", c2 ? "" : "0::", part);
    }
    free(copy);
}

/* Maps Kepler's runtime class to wattcal's runtime label. */
static const char *runtime_of_class(const char *cls)
{
    static const struct { const char *cls, *rt; } map[] = {
        {"DockerRuntime", "docker"}, {"ContainerDRuntime", "containerd"},
        {"CrioRuntime", "crio"},     {"PodmanRuntime", "podman"},
        {"KubePodsRuntime", ""},     {"UnknownRuntime", ""},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i].cls, cls) == 0)
            return map[i].rt;
    cr_assert_fail("unknown Kepler runtime class \"%s\"", cls);
    return NULL;
}

/* Runs a TSV: cell 0 lines, cell 1 id, (v0.10 only) cell 2 class. */
static int run_tsv(const char *rel, int has_class)
{
    char *text = wc_test_slurp(wc_shared_fixture(rel), NULL);
    int checked = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || !line[0])
            continue;
        char *cells[4] = {0};
        int nc = 0;
        for (char *p = line; nc < 4 && p; nc++) {
            cells[nc] = p;
            char *tab = strchr(p, '\t');
            if (tab)
                *tab = '\0';
            p = tab ? tab + 1 : NULL;
        }
        cr_assert_geq(nc, has_class ? 4 : 3, "%s: short row \"%s\"", rel, line);
        char input[4096];
        tsv_cell_to_text(cells[0], input, sizeof input);
        wc_cgroup_info info = parse_ok(input);
        const char *name = cells[has_class ? 3 : 2];
        assert_id_shape(&info, name);
        cr_assert_str_eq(info.container_id, cells[1], "%s: %s", rel, name);
        if (has_class)
            cr_assert_str_eq(info.runtime, runtime_of_class(cells[2]), "%s: %s runtime", rel, name);
        checked++;
    }
    free(text);
    return checked;
}

Test(cgroup, kepler_v0_10_container_id_cases)
{
    cr_assert_eq(run_tsv("corpus/proc/cgroup/kepler-v0.10-container-id-cases.tsv", 1), 24);
}

Test(cgroup, kepler_v0_7_container_id_cases)
{
    cr_assert_eq(run_tsv("corpus/proc/cgroup/kepler-v0.7-container-id-cases.tsv", 0), 10);
}

Test(cgroup, kepler_tsv_pods_and_qos)
{
    /* Rows of the v0.10 TSV whose pod/QoS the TSV does not state; from the paths. */
    wc_cgroup_info a = parse_ok(
        "0::/system.slice/docker-fd9d0ea06257a9780827cbc7fd92e3812a54fca26d63e191b73610d5d48b9cbd.scope"
        "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
        "kubelet-kubepods-besteffort-podeab5a334_93fe_48a8_b139_9e8079c1f163.slice/"
        "cri-containerd-99f3a16ea25b7724cb56a4f0c0df1113ad9474fbf5545bead97fd5c7f61c13f4.scope\n");
    cr_assert_str_eq(a.container_id, "99f3a16ea25b7724cb56a4f0c0df1113ad9474fbf5545bead97fd5c7f61c13f4");
    cr_assert_str_eq(a.runtime, "containerd", "kind: the inner containerd id wins over docker");
    cr_assert_str_eq(a.pod_uid, "eab5a334-93fe-48a8-b139-9e8079c1f163");
    cr_assert_str_eq(a.qos, "besteffort");
    wc_cgroup_info g = parse_ok(
        "0::/kubepods/pod51b64565-2b17-4d46-83ac-22e398f2f7fb/"
        "65d752a38e1db784d521f48c3f1956f4f9a74ebb923377144f253f3aca9fa028\n");
    cr_assert_str_eq(g.pod_uid, "51b64565-2b17-4d46-83ac-22e398f2f7fb");
    cr_assert_str_eq(g.qos, "guaranteed", "no QoS dir = Guaranteed (Kepler #2354)");
    cr_assert_str_eq(g.runtime, "");
    wc_cgroup_info s = parse_ok(
        "0::/kubepods.slice/kubepods-pod7922aa99_d4aa_4885_a953_82976860b23a.slice/"
        "crio-1c33afbc9e5aa6c69150d1af05254b562a4b17c313fc6153e3625cf456922bfe.scope\n");
    cr_assert_str_eq(s.pod_uid, "7922aa99-d4aa-4885-a953-82976860b23a");
    cr_assert_str_eq(s.qos, "guaranteed");
    cr_assert_str_eq(s.runtime, "crio");
}

/* ---- Kepler's procfs test tree ----------------------------------------------- */

typedef struct pid_case {
    const char *pid, *runtime, *container_id;
} pid_case;

static const pid_case kepler_pids[] = {
    {"1337", "", ""},
    /* kepler-model.md §3.3: plain docker, container name = short id b176419186d7. */
    {"3456208", "docker", "b176419186d75a44628851daf7841d3374a2ec56d0b038ee3bd1e0c6d331e5b1"},
    {"3538317", "podman", "f992ec4ed807f76e5e54c9c67d78f0a4105bf945420271c2558ba905e38d2108"},
    {"3538344", "podman", "f992ec4ed807f76e5e54c9c67d78f0a4105bf945420271c2558ba905e38d2108"},
    {"3538356", "podman", "f992ec4ed807f76e5e54c9c67d78f0a4105bf945420271c2558ba905e38d2108"},
    {"43251", "", ""},
};

/* Checks <root>/<pid>/cgroup for every pid directory of root. */
static size_t run_procfs_tree(const char *rel)
{
    char root[4096];
    snprintf(root, sizeof root, "%s", wc_shared_fixture(rel));
    DIR *d = opendir(root);
    cr_assert_not_null(d);
    size_t seen = 0;
    for (struct dirent *de = readdir(d); de; de = readdir(d)) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        const pid_case *pc = NULL;
        for (size_t i = 0; i < sizeof kepler_pids / sizeof kepler_pids[0]; i++)
            if (strcmp(kepler_pids[i].pid, de->d_name) == 0)
                pc = &kepler_pids[i];
        cr_assert_not_null(pc, "%s/%s has no expectation in this test", rel, de->d_name);
        char path[4400];
        snprintf(path, sizeof path, "%s/%s/cgroup", root, de->d_name);
        size_t len = 0;
        char *text = wc_test_slurp(path, &len);
        wc_cgroup_info info;
        wc_error err = {{0}};
        cr_assert_eq(wc_cgroup_parse(text, len, path, &info, &err), 0, "%s", err.msg);
        free(text);
        assert_id_shape(&info, path);
        cr_assert_str_eq(info.runtime, pc->runtime, "pid %s", pc->pid);
        cr_assert_str_eq(info.container_id, pc->container_id, "pid %s", pc->pid);
        cr_assert_str_eq(info.pod_uid, "", "pid %s", pc->pid);
        seen++;
    }
    closedir(d);
    return seen;
}

Test(cgroup, kepler_procfs_fixture_cgroups)
{
    cr_assert_eq(run_procfs_tree("kepler/internal/resource/testdata/procfs"), 6);
}

Test(cgroup, corpus_kepler_procfs_copy)
{
    cr_assert_eq(run_procfs_tree("corpus/proc/kepler-procfs"), 5);
}

/* ---- synthetic ------------------------------------------------------------------ */

Test(cgroup, colon_in_path_split_on_first_two_only)
{
    wc_cgroup_info i = parse_ok("5:cpu,cpuacct:/a:b/docker-" ID_A ".scope\n");
    cr_assert_str_eq(i.container_id, ID_A);
    cr_assert_str_eq(i.runtime, "docker");
    cr_assert_str_eq(i.path, "/a:b/docker-" ID_A ".scope");
    /* The ':' of the containerd leaf stays in the path (scaphandre PR #143). */
    i = parse_ok("13:memory:/system.slice/containerd.service/kubepods-besteffort-pod" UID1_
                 ".slice:cri-containerd:" ID_B);
    cr_assert_str_eq(i.container_id, ID_B);
    cr_assert_str_eq(i.pod_uid, UID1);
    cr_assert_str_eq(i.qos, "besteffort");
    cr_assert_not_null(strstr(i.path, ".slice:cri-containerd:" ID_B));
}

Test(cgroup, nested_innermost_wins)
{
    wc_cgroup_info i = parse_ok("4:memory:/docker/" ID_A "/docker/" ID_B "\n");
    cr_assert_str_eq(i.container_id, ID_B);
    cr_assert_str_eq(i.runtime, "docker");
    /* Across lines: the deeper one wins whatever its position. */
    i = parse_ok("5:cpu:/docker/" ID_A "/kubepods/burstable/pod" UID1 "/" ID_B "\n"
                 "4:memory:/docker/" ID_A "\n");
    cr_assert_str_eq(i.container_id, ID_B);
    cr_assert_str_eq(i.runtime, "");
    cr_assert_str_eq(i.pod_uid, UID1);
    cr_assert_str_eq(i.qos, "burstable");
    i = parse_ok("4:memory:/docker/" ID_A "\n"
                 "5:cpu:/docker/" ID_A "/kubepods/besteffort/pod" UID1 "/" ID_B "\n");
    cr_assert_str_eq(i.container_id, ID_B);
    cr_assert_str_eq(i.qos, "besteffort");
    /* The outer docker id alone. */
    i = parse_ok("0::/docker/" ID_A "/init.scope\n");
    cr_assert_str_eq(i.container_id, ID_A);
}

Test(cgroup, relative_namespace_paths)
{
    wc_cgroup_info i = parse_ok("0::/../../../system.slice/docker-" ID_A ".scope\n");
    cr_assert_str_eq(i.container_id, ID_A);
    i = parse_ok("0::/../../kubepods/besteffort/pod" UID1 "/" ID_B "\n");
    cr_assert_str_eq(i.container_id, ID_B);
    cr_assert_str_eq(i.pod_uid, UID1);
    cr_assert_str_eq(i.qos, "besteffort");
}

Test(cgroup, conmon_monitors_name_the_monitored_container)
{
    wc_cgroup_info i = parse_ok("0::/machine.slice/libpod-conmon-" ID_A ".scope\n");
    cr_assert_eq(i.is_runtime_monitor, 1);
    cr_assert_str_eq(i.container_id, ID_A);
    cr_assert_str_eq(i.runtime, "podman");
    i = parse_ok("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID1_
                 ".slice/crio-conmon-" ID_B ".scope\n");
    cr_assert_eq(i.is_runtime_monitor, 1);
    cr_assert_str_eq(i.container_id, ID_B);
    cr_assert_str_eq(i.runtime, "crio");
    cr_assert_str_eq(i.pod_uid, UID1);
    cr_assert_str_eq(i.qos, "besteffort");
    i = parse_ok("0::/machine.slice/libpod-" ID_A ".scope/container\n");
    cr_assert_eq(i.is_runtime_monitor, 0);
    cr_assert_str_eq(i.container_id, ID_A);
}

Test(cgroup, runtime_prefixes_under_cgroupfs_kubepods)
{
    wc_cgroup_info i = parse_ok("4:cpu:/kubepods/burstable/pod" UID1 "/crio-" ID_A "\n");
    cr_assert_str_eq(i.runtime, "crio");
    cr_assert_str_eq(i.container_id, ID_A);
    cr_assert_str_eq(i.pod_uid, UID1);
    cr_assert_str_eq(i.qos, "burstable");
    i = parse_ok("0::/containerd/" ID_B "\n");
    cr_assert_str_eq(i.runtime, "containerd");
    cr_assert_str_eq(i.container_id, ID_B);
    i = parse_ok("0::/system.slice/containerd-" ID_B ".scope\n");
    cr_assert_str_eq(i.runtime, "containerd");
}

Test(cgroup, near_misses_are_not_containers)
{
    static const char *const lines[] = {
        /* 63 and 65 hex digits */
        "0::/system.slice/docker-28a5e57257f81fcd6d592647dde27e06b53944d58af4fa546ad77a12ce8b41c.scope\n",
        "0::/system.slice/docker-" ID_A "0.scope\n",
        /* a mount unit named after an id, not a scope */
        "0::/system.slice/docker-" ID_A ".mount\n",
        /* the daemon, not a container (B12 F, scaphandre PR #146) */
        "1:name=systemd:/system.slice/containerd.service\n",
        "0::/system.slice/docker.service\n",
        /* a bare id without a known parent */
        "0::/default/" ID_A "\n",
        /* kubepods without a pod dir */
        "0::/kubepods/burstable/" ID_A "\n",
        /* non-hex */
        "0::/docker/zz" ID_A "\n",
    };
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
        wc_cgroup_info i = parse_ok(lines[k]);
        cr_assert_str_eq(i.container_id, "", "%s", lines[k]);
        cr_assert_str_eq(i.runtime, "", "%s", lines[k]);
        cr_assert_eq(i.is_runtime_monitor, 0);
    }
}

Test(cgroup, pod_level_process_and_pod_outside_kubepods)
{
    wc_cgroup_info i = parse_ok("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                                UID1_ ".slice\n");
    cr_assert_str_eq(i.container_id, "");
    cr_assert_str_eq(i.pod_uid, UID1);
    cr_assert_str_eq(i.qos, "burstable");
    cr_assert_str_eq(i.path, "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID1_
                             ".slice");
    /* "pod<uuid>" outside a kubepods hierarchy is not a pod. */
    i = parse_ok("0::/machine.slice/pod" UID1 "/docker-" ID_A ".scope\n");
    cr_assert_str_eq(i.container_id, ID_A);
    cr_assert_str_eq(i.pod_uid, "");
    cr_assert_str_eq(i.qos, "");
}

Test(cgroup, uppercase_hex_is_lowered_and_crlf_tolerated)
{
    wc_cgroup_info i = parse_ok("0::/system.slice/docker-28A5E57257F81FCD6D592647DDE27E06B53944D58AF4"
                                "FA546AD77A12CE8B41C2.scope\r\n");
    cr_assert_str_eq(i.container_id, ID_A);
    cr_assert_str_eq(i.path, "/system.slice/docker-28A5E57257F81FCD6D592647DDE27E06B53944D58AF4"
                             "FA546AD77A12CE8B41C2.scope");
}

Test(cgroup, empty_and_malformed)
{
    wc_cgroup_info i = parse_ok("");
    cr_assert_str_eq(i.container_id, "");
    cr_assert_str_eq(i.path, "");
    i = parse_ok("\n\n");
    cr_assert_str_eq(i.runtime, "");
    wc_error err = {{0}};
    cr_assert_eq(parse("0::/init.scope\ngarbage\n", &i, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "test-origin"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "line 2"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "garbage"), "%s", err.msg);
    cr_assert_str_eq(i.path, "", "nothing half-filled on error");
    cr_assert_eq(parse("1:name=systemd\n", &i, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "line 1"), "%s", err.msg);
}

Test(cgroup, not_nul_terminated_input)
{
    /* The parser must stay inside [text, text+len). */
    const char full[] = "0::/docker/" ID_A "TRAILING";
    wc_cgroup_info i;
    wc_error err = {{0}};
    cr_assert_eq(wc_cgroup_parse(full, strlen(full) - 8, "t", &i, &err), 0, "%s", err.msg);
    cr_assert_str_eq(i.container_id, ID_A);
    cr_assert_str_eq(i.path, "/docker/" ID_A);
}

Test(cgroup, long_path_truncated_in_path_field_only)
{
    char text[2048];
    int n = snprintf(text, sizeof text, "0::");
    for (int k = 0; k < 60; k++)
        n += snprintf(text + n, sizeof text - (size_t)n, "/level%02d.slice", k);
    snprintf(text + n, sizeof text - (size_t)n, "/docker-%s.scope\n", ID_B);
    wc_cgroup_info i = parse_ok(text);
    cr_assert_str_eq(i.container_id, ID_B);
    cr_assert_eq(strlen(i.path), sizeof i.path - 1);
    cr_assert_eq(strncmp(i.path, "/level00.slice/level01.slice", 28), 0);
}
