/*
 * test_cgroup_cases.c — container/pod/runtime identification
 * (collector/procfs/cgroup.c) on the project's own cgroup table,
 * tests/fixtures/procfs/cgroup/cases.tsv: one process per row, each standing
 * for a shared bug case (B12 cgroup v1, B14 v2, B15 podman/cri-o and conmon),
 * a corpus/proc/cgroup file or a row of Kepler's container-id tables
 * (nested runtimes, bare paths, QoS classes), with the runtime, id, pod,
 * QoS, monitor flag and path it must give. Also the cgroup files of the own
 * procfs tree tests/fixtures/procfs/node. test_cgroup.c proves the same on
 * the shared fixtures.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/procfs/cgroup.h"
#include "tests/unit/support/test_support.h"

#define TABLE "procfs/cgroup/cases.tsv"

/* The cgroup text of a row: "|"-joined lines, or "@FILE" read as is. */
static char *row_text(const char *cell, size_t *len)
{
    if (cell[0] == '@') {
        char rel[256];
        snprintf(rel, sizeof rel, "procfs/cgroup/%s", cell + 1);
        return wc_test_slurp(wc_own_fixture(rel), len);
    }
    size_t n = strlen(cell);
    char *text = malloc(n + 2);
    cr_assert_not_null(text);
    for (size_t i = 0; i < n; i++)
        text[i] = cell[i] == '|' ? '\n' : cell[i];
    text[n] = '\n';
    text[n + 1] = '\0';
    *len = n + 1;
    return text;
}

/* An id is "" or 64 lowercase hex; a pod UID "" or 36 characters with '-',
 * or a static pod's 32 lowercase hex. */
static void assert_shape(const wc_cgroup_info *info, const char *what)
{
    size_t n = strlen(info->container_id);
    cr_assert(n == 0 || n == 64, "%s: container_id \"%s\"", what, info->container_id);
    cr_assert_eq(strspn(info->container_id, "0123456789abcdef"), n, "%s", what);
    size_t u = strlen(info->pod_uid);
    cr_assert(u == 0 || u == 36 || (u == 32 && strspn(info->pod_uid, "0123456789abcdef") == 32),
              "%s: pod_uid \"%s\"", what, info->pod_uid);
    cr_assert_null(strchr(info->pod_uid, '_'), "%s: pod_uid \"%s\"", what, info->pod_uid);
}

/* Checks one TSV row (cells split in place). */
static void check_row(char **cell)
{
    const char *name = cell[0];
    size_t len = 0;
    char *text = row_text(cell[8], &len);
    wc_cgroup_info info;
    wc_error err = {{0}};
    cr_assert_eq(wc_cgroup_parse(text, len, name, &info, &err), 0, "%s: %s", name, err.msg);
    free(text);
    assert_shape(&info, name);
    cr_assert_str_eq(info.runtime, cell[2], "%s (%s): runtime", name, cell[1]);
    cr_assert_str_eq(info.container_id, cell[3], "%s (%s): container_id", name, cell[1]);
    cr_assert_str_eq(info.pod_uid, cell[4], "%s (%s): pod_uid", name, cell[1]);
    cr_assert_str_eq(info.qos, cell[5], "%s (%s): qos", name, cell[1]);
    cr_assert_eq(info.is_runtime_monitor, atoi(cell[6]), "%s (%s): monitor", name, cell[1]);
    if (strcmp(cell[7], "-") != 0)
        cr_assert_str_eq(info.path, cell[7], "%s (%s): path", name, cell[1]);
}

/* Runs every row whose "stands for" starts with prefix; returns the count. */
static int run_rows(const char *prefix)
{
    char *text = wc_test_slurp(wc_own_fixture(TABLE), NULL);
    int checked = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        char *cell[9];
        int nc = 0;
        for (char *p = line; p && nc < 9; nc++) {
            cell[nc] = p;
            char *tab = strchr(p, '\t');
            if (tab)
                *tab = '\0';
            p = tab ? tab + 1 : NULL;
        }
        cr_assert_eq(nc, 9, "%s: row \"%s\" has %d cells", TABLE, cell[0], nc);
        if (strncmp(cell[1], prefix, strlen(prefix)) != 0)
            continue;
        check_row(cell);
        checked++;
    }
    free(text);
    return checked;
}

Test(cgroup_cases, v1_every_case)
{
    cr_assert_eq(run_rows("B12 "), 5);
}

Test(cgroup_cases, v2_every_case)
{
    cr_assert_eq(run_rows("B14 "), 5);
}

Test(cgroup_cases, podman_crio_and_conmon_every_case)
{
    cr_assert_eq(run_rows("B15 "), 5);
}

/* Issue 14 item 5: a static or mirror pod's slice is named by the kubelet's
 * config hash (32 hex, no dashes): the pod UID and QoS are still found, so
 * its energy reaches the pod; 31 or 33 hex digits are no pod. */
Test(cgroup_cases, static_pods_keep_their_pod_and_qos)
{
    cr_assert_eq(run_rows("static pod: "), 5);
}

Test(cgroup_cases, corpus_layouts)
{
    cr_assert_eq(run_rows("corpus "), 9);
}

Test(cgroup_cases, kepler_container_id_rows)
{
    cr_assert_eq(run_rows("kepler TSV: "), 13);
}

Test(cgroup_cases, the_no_newline_file_really_has_none)
{
    size_t len = 0;
    char *text = wc_test_slurp(wc_own_fixture("procfs/cgroup/no-trailing-newline.cgroup"), &len);
    cr_assert_gt(len, 0);
    cr_assert_neq(text[len - 1], '\n');
    free(text);
}

/* ---- the own procfs tree -------------------------------------------------- */

static const struct {
    const char *pid, *runtime, *container_id;
    int monitor;
} node_pids[] = {
    {"1", "", "", 0},
    {"2101", "docker", "3feb00294c5cb577d5679b958fcea898e0e7383fd7565096826c8d1ba55f11f8", 0},
    {"3301", "podman", "2f259bab93aaaaa2542ba43ef33eb990d0999ee1b9924b557b7be53c0b7a1bb9", 1},
    {"3302", "podman", "2f259bab93aaaaa2542ba43ef33eb990d0999ee1b9924b557b7be53c0b7a1bb9", 0},
    {"4400", "", "", 0},
    {"5005", "", "", 0},
};

Test(cgroup_cases, node_procfs_tree_cgroups)
{
    const char *root = wc_own_fixture("procfs/node");
    DIR *d = opendir(root);
    cr_assert_not_null(d);
    size_t seen = 0;
    for (struct dirent *de = readdir(d); de; de = readdir(d)) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        size_t k = 0;
        while (k < sizeof node_pids / sizeof *node_pids && strcmp(node_pids[k].pid, de->d_name))
            k++;
        cr_assert_lt(k, sizeof node_pids / sizeof *node_pids, "%s/%s has no expectation", root,
                     de->d_name);
        char path[4400];
        snprintf(path, sizeof path, "%s/%s/cgroup", root, de->d_name);
        size_t len = 0;
        char *text = wc_test_slurp(path, &len);
        wc_cgroup_info info;
        wc_error err = {{0}};
        cr_assert_eq(wc_cgroup_parse(text, len, path, &info, &err), 0, "%s", err.msg);
        free(text);
        assert_shape(&info, path);
        cr_assert_str_eq(info.runtime, node_pids[k].runtime, "pid %s", de->d_name);
        cr_assert_str_eq(info.container_id, node_pids[k].container_id, "pid %s", de->d_name);
        cr_assert_eq(info.is_runtime_monitor, node_pids[k].monitor, "pid %s", de->d_name);
        cr_assert_str_eq(info.pod_uid, "", "pid %s", de->d_name);
        seen++;
    }
    closedir(d);
    cr_assert_eq(seen, 6);
}
