/*
 * test_cgroup_cpu_cases.c — a cgroup's accounted CPU (collector/procfs/
 * cgroup_cpu.c) on the project's own sysfs trees,
 * tests/fixtures/procfs/cgroup-cpu: cgroup v2 cpu.stat and v1 cpuacct.usage
 * with known values, a cgroup with no accounting file, truncated and
 * malformed files (refused naming the file, never read as a smaller number),
 * and the pod directory above a container's cgroup path.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collector/procfs/cgroup_cpu.h"
#include "tests/unit/support/test_support.h"

#define V2_POD "/kubepods.slice/kubepods-burstable.slice/" \
               "kubepods-burstable-pod11111111_2222_4333_8444_555555555555.slice"
#define V2_CTR V2_POD "/cri-containerd-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.scope"
#define V1_POD "/kubepods/besteffort/pod66666666-7777-4888-9999-000000000000"
#define V1_CTR V1_POD "/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static int read_at(const char *tree, const char *dir, uint64_t *ns, wc_cgcpu_kind *kind,
                   wc_error *err)
{
    char rel[64];
    snprintf(rel, sizeof rel, "procfs/cgroup-cpu/%s", tree);
    return wc_cgroup_cpu_read(wc_own_fixture(rel), dir, ns, kind, err);
}

Test(cgroup_cpu_cases, v2_cpu_stat_usage_usec_in_ns)
{
    uint64_t ns = 0;
    wc_cgcpu_kind kind = WC_CGCPU_NONE;
    wc_error err = {{0}};
    cr_assert_eq(read_at("v2", V2_POD, &ns, &kind, &err), 0, "%s", err.msg);
    cr_assert_eq(ns, 7500000000ULL);
    cr_assert_eq(kind, WC_CGCPU_V2_STAT);
    cr_assert_str_eq(wc_cgcpu_kind_name(kind), "cpu.stat usage_usec");
    cr_assert_eq(read_at("v2", V2_CTR, &ns, &kind, &err), 0, "%s", err.msg);
    cr_assert_eq(ns, 7000001000ULL);
}

Test(cgroup_cpu_cases, v1_cpuacct_usage_not_the_cpu_controllers_stat)
{
    uint64_t ns = 0;
    wc_cgcpu_kind kind = WC_CGCPU_NONE;
    wc_error err = {{0}};
    cr_assert_eq(read_at("v1", V1_POD, &ns, &kind, &err), 0, "%s", err.msg);
    cr_assert_eq(ns, 123456789012ULL);
    cr_assert_eq(kind, WC_CGCPU_V1_CPUACCT);
    cr_assert_str_eq(wc_cgcpu_kind_name(kind), "cpuacct.usage");
    cr_assert_eq(read_at("v1", V1_CTR, &ns, &kind, &err), 0, "%s", err.msg);
    cr_assert_eq(ns, 123000000000ULL);
}

Test(cgroup_cpu_cases, missing_file_is_enoent_naming_the_path)
{
    uint64_t ns = 42;
    wc_cgcpu_kind kind = WC_CGCPU_V2_STAT;
    wc_error err = {{0}};
    cr_assert_eq(read_at("missing", "/kubepods.slice/gone.scope", &ns, &kind, &err), -ENOENT);
    cr_assert_not_null(strstr(err.msg, "gone.scope/cpu.stat"), "%s", err.msg);
    cr_assert_eq(kind, WC_CGCPU_NONE);
    cr_assert_eq(read_at("missing", "/no/such/dir", &ns, &kind, &err), -ENOENT);
}

Test(cgroup_cpu_cases, truncated_and_malformed_are_refused)
{
    uint64_t ns = 0;
    wc_cgcpu_kind kind = WC_CGCPU_NONE;
    wc_error err = {{0}};
    cr_assert_eq(read_at("truncated", "/cut.scope", &ns, &kind, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "cut.scope/cpu.stat: truncated"), "%s", err.msg);
    cr_assert_eq(read_at("truncated", "/nokey.scope", &ns, &kind, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "no usage_usec"), "%s", err.msg);
    cr_assert_eq(read_at("truncated", "/cut1", &ns, &kind, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "cpuacct.usage: truncated"), "%s", err.msg);
}

Test(cgroup_cpu_cases, parsers_on_text)
{
    uint64_t v = 0;
    wc_error err = {{0}};
    const char bad[] = "usage_usec 12x\n";
    cr_assert_eq(wc_cgroup_cpu_parse_stat(bad, strlen(bad), "t", &v, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "t:1: usage_usec"), "%s", err.msg);
    const char later[] = "user_usec 5\nusage_usec 18446744073709551615\n";
    cr_assert_eq(wc_cgroup_cpu_parse_stat(later, strlen(later), "t", &v, &err), 0, "%s", err.msg);
    cr_assert_eq(v, UINT64_MAX);
    cr_assert_eq(wc_cgroup_cpu_parse_stat("", 0, "t", &v, &err), -EINVAL);
    cr_assert_eq(wc_cgroup_cpu_parse_cpuacct("7\n", 2, "t", &v, &err), 0);
    cr_assert_eq(v, 7);
    cr_assert_eq(wc_cgroup_cpu_parse_cpuacct("-7\n", 3, "t", &v, &err), -EINVAL);
    cr_assert_eq(wc_cgroup_cpu_parse_cpuacct("\n", 1, "t", &v, &err), -EINVAL);
}

Test(cgroup_cpu_cases, pod_dir_of_a_container_path)
{
    char out[512];
    cr_assert_eq(wc_cgroup_pod_dir(V2_CTR, "11111111-2222-4333-8444-555555555555", out,
                                   sizeof out), 0);
    cr_assert_str_eq(out, V2_POD);
    cr_assert_eq(wc_cgroup_pod_dir(V1_CTR, "66666666-7777-4888-9999-000000000000", out,
                                   sizeof out), 0);
    cr_assert_str_eq(out, V1_POD);
    cr_assert_eq(wc_cgroup_pod_dir("/system.slice/x.service", "66666666-7777-4888-9999-000000000000",
                                   out, sizeof out), -ENOENT);
    cr_assert_eq(wc_cgroup_pod_dir(V1_CTR, "", out, sizeof out), -ENOENT);
    cr_assert_eq(wc_cgroup_pod_dir(V1_CTR, "66666666-7777-4888-9999-000000000000", out, 8),
                 -ENAMETOOLONG);
}
