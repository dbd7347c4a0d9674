/*
 * test_serve_state.c — what `wattcal serve` publishes from recorder ticks
 * (collector/serve/serve_state.c, serve_workloads.c, serve_render.c),
 * from hand-built ticks: the node zone and its gap per level (idle,
 * unattributed, over), pod names from the kubelet's pod list
 * (tests/fixtures/serve/pods.json, escaped in the labels), a workload that
 * ends becoming terminated and then expiring, and the cap counting what it
 * refuses.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/serve/kubelet.h"
#include "collector/serve/serve_state.h"
#include "tests/unit/support/test_support.h"

#define POD "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"

/* A tick: node active 10 J over 1 s; processes 1 and 2 in pod POD (4 J and
 * 3 J), process 3 outside (2 J) when three is set. */
typedef struct fake {
    wc_zone zone;
    wc_meter meter;
    wc_reading rd[1], prev[1];
    wc_attr_proc_in procs[3];
    wc_proc_identity ids[3];
    wc_proc_sample samples[3];
    wc_proc_snapshot snap;
    wc_attr_tick_in in;
    wc_attr_node_out node;
    wc_attr_work_out work[5];
    wc_attr_out out;
    wc_record_tick t;
} fake;

static const wc_meter_ops OPS = {.kind = "sim"};

static void add_work(fake *f, size_t *n, wc_attr_level lv, size_t pi, const char *key, double j)
{
    f->work[*n] = (wc_attr_work_out){.level = lv, .proc_index = pi, .key = key, .zone = 0,
                                     .energy_uj = (uint64_t)(j * 1e6),
                                     .total_uj = (uint64_t)(j * 1e6), .power_uw = j * 1e6};
    (*n)++;
}

static void build(fake *f, int64_t seq, int three)
{
    memset(f, 0, sizeof *f);
    strcpy(f->zone.name, "package");
    f->meter.zones = &f->zone;
    f->meter.nzones = 1;
    f->meter.ops = &OPS;
    f->meter.provenance = WC_PROV_SIMULATED;
    f->prev[0].value = 1000000 * (uint64_t)seq;
    f->rd[0].value = f->prev[0].value + 15000000;
    size_t np = three ? 3 : 2;
    for (size_t i = 0; i < np; i++) {
        f->procs[i] = (wc_attr_proc_in){.pid = (int32_t)(100 + i), .starttime = 7,
                                        .container_id = "", .pod_uid = i < 2 ? POD : ""};
        snprintf(f->ids[i].comm, sizeof f->ids[i].comm, "p%zu", i);
        f->samples[i].id = &f->ids[i];
    }
    f->snap = (wc_proc_snapshot){.samples = f->samples, .count = np};
    f->in = (wc_attr_tick_in){.procs = f->procs, .nprocs = np};
    strcpy(f->node.zone, "package");
    f->node = (wc_attr_node_out){.zone = "package", .delta_uj = 15000000, .active_uj = 10000000,
                                 .idle_uj = 5000000, .power_uw = 15e6, .active_uw = 10e6,
                                 .idle_uw = 5e6, .ratio = 2.0 / 3, .interval_s = 1};
    size_t n = 0;
    add_work(f, &n, WC_LEVEL_PROCESS, 0, "", 4);
    add_work(f, &n, WC_LEVEL_PROCESS, 1, "", 3);
    if (three)
        add_work(f, &n, WC_LEVEL_PROCESS, 2, "", 2);
    add_work(f, &n, WC_LEVEL_POD, 0, POD, 7);
    f->out = (wc_attr_out){.node = &f->node, .nnode = 1, .work = f->work, .nwork = n};
    f->t = (wc_record_tick){.seq = seq, .mono_ns = seq * 1000000000LL, .dt_ns = 1000000000,
                            .meter = &f->meter, .readings = f->rd, .prev_readings = f->prev,
                            .ceiling_watts = 5000, .in = &f->in, .out = &f->out,
                            .snap = &f->snap};
}

static char *render(wc_serve_state *s)
{
    wc_expow_buf b = {0};
    cr_assert_eq(wc_serve_state_render(s, &b), 0);
    return b.data;
}

static wc_serve_state *state(size_t cap)
{
    wc_serve_config cfg = {.node_name = "n1", .model = WC_MODEL_IDEAL, .version = "t",
                           .expire_ns = 2000000000LL, .max_workloads = cap};
    wc_error err = {{0}};
    wc_serve_state *s = wc_serve_state_new(&cfg, &err);
    cr_assert_not_null(s, "%s", err.msg);
    return s;
}

/* Under load the model's zone power is ΔE over the zone's own reading span,
 * not over the tick's interval (here 10 J in a 0.25 s span of a 1 s tick:
 * 40 W active): the processes' watts are shares of that power, and the gap
 * in watts must be too, so active − Σ processes = unattributed − over holds
 * (a loaded `make test` once served 20.65 W active, 0 W to processes and a
 * 5.16 W gap: the gap was µJ over the 4× longer tick). A VM row is no pod. */
Test(serve_state, gap_watts_in_the_node_power_terms)
{
    wc_serve_state *s = state(100);
    fake f;
    build(&f, 1, 1);
    f.node.active_uw = 40e6, f.node.idle_uw = 20e6, f.node.power_uw = 60e6;
    for (size_t i = 0; i < f.out.nwork; i++)
        f.work[i].power_uw *= 4;
    f.work[f.out.nwork] = (wc_attr_work_out){.level = WC_LEVEL_VM, .proc_index = 0, .key = "vm-1",
                                             .zone = 0, .energy_uj = 9000000, .power_uw = 36e6};
    f.out.nwork++;
    wc_serve_state_tick(s, &f.t);
    char *m = render(s);
    const char *pfx = "{node_name=\"n1\",provenance=\"simulated\",model=\"ideal\",zone=\"package\"";
    char want[512];
    snprintf(want, sizeof want,
             "wattcal_attribution_gap_watts%s,level=\"process\",kind=\"unattributed\"} 4\n", pfx);
    cr_assert_not_null(strstr(m, want), "40 W active - 36 W to processes: %s", m);
    snprintf(want, sizeof want,
             "wattcal_attribution_gap_watts%s,level=\"pod\",kind=\"unattributed\"} 12\n", pfx);
    cr_assert_not_null(strstr(m, want), "40 W active - 28 W to the pod (the VM row not a pod)");
    snprintf(want, sizeof want, "wattcal_attribution_gap_watts%s,level=\"pod\",kind=\"idle\"} 20\n",
             pfx);
    cr_assert_not_null(strstr(m, want));
    snprintf(want, sizeof want,
             "wattcal_attribution_gap_joules_total%s,level=\"process\",kind=\"unattributed\"} 1\n", pfx);
    cr_assert_not_null(strstr(m, want), "joules stay joules");
    cr_assert_null(strstr(m, "vm-1"), "a VM is not served as a pod");
    free(m);
    wc_serve_state_free(s);
}

Test(serve_state, node_gap_and_pod_names)
{
    wc_serve_state *s = state(100);
    size_t len = 0;
    char *json = wc_test_slurp(wc_own_fixture("serve/pods.json"), &len);
    wc_error err = {{0}};
    cr_assert_eq(wc_kubelet_parse_pods(json, len, "pods.json", s, &err), 2, "%s", err.msg);
    free(json);
    fake f;
    build(&f, 1, 1);
    wc_serve_state_tick(s, &f.t);
    char *m = render(s);
    const char *pfx = "{node_name=\"n1\",provenance=\"simulated\",model=\"ideal\",zone=\"package\"";
    char want[512];
    snprintf(want, sizeof want, "wattcal_node_cpu_active_watts%s} 10\n", pfx);
    cr_assert_not_null(strstr(m, want), "%s", m);
    snprintf(want, sizeof want,
             "wattcal_attribution_gap_watts%s,level=\"process\",kind=\"unattributed\"} 1\n", pfx);
    cr_assert_not_null(strstr(m, want), "10 J active - 9 J to processes");
    snprintf(want, sizeof want,
             "wattcal_attribution_gap_joules_total%s,level=\"pod\",kind=\"unattributed\"} 3\n", pfx);
    cr_assert_not_null(strstr(m, want), "10 J active - 7 J to the pod");
    snprintf(want, sizeof want, "wattcal_attribution_gap_watts%s,level=\"pod\",kind=\"idle\"} 5\n",
             pfx);
    cr_assert_not_null(strstr(m, want));
    cr_assert_not_null(strstr(m, "pod_id=\"" POD "\",pod_name=\"web-7d4b9c\","
                                 "pod_namespace=\"shop\",state=\"running\",zone=\"package\"} 7\n"),
                       "%s", m);
    cr_assert_not_null(strstr(m, "wattcal_meter_watts{node_name=\"n1\",provenance=\"simulated\","
                                 "zone=\"package\",socket=\"0\"} 15\n"));
    char name[256], ns[256];
    cr_assert(wc_serve_state_identity(s, "11111111-2222-3333-4444-555555555555", name, ns,
                                      sizeof name));
    cr_assert_str_eq(name, "batch-\"quoted\"\\name");
    free(m);
    wc_serve_state_free(s);
}

Test(serve_state, terminated_then_expired)
{
    wc_serve_state *s = state(100);
    fake f;
    build(&f, 1, 1);
    wc_serve_state_tick(s, &f.t);
    build(&f, 2, 0); /* process 102 ended */
    wc_serve_state_tick(s, &f.t);
    char *m = render(s);
    cr_assert_not_null(strstr(m, "pid=\"102\",comm=\"p2\",container_id=\"\",pod_id=\"\","
                                 "state=\"terminated\",zone=\"package\"} 0\n"), "%s", m);
    free(m);
    build(&f, 4, 0); /* 3 s after it was last seen: gone */
    wc_serve_state_tick(s, &f.t);
    m = render(s);
    cr_assert_null(strstr(m, "pid=\"102\""));
    cr_assert_not_null(strstr(m, "wattcal_serve_workloads_expired_total{node_name=\"n1\","
                                 "provenance=\"measured\",level=\"process\"} 1\n"), "%s", m);
    free(m);
    wc_serve_state_free(s);
}

Test(serve_state, cap_counts_what_it_refuses)
{
    wc_serve_state *s = state(2);
    fake f;
    build(&f, 1, 1); /* four workloads, room for two */
    wc_serve_state_tick(s, &f.t);
    build(&f, 2, 1);
    wc_serve_state_tick(s, &f.t);
    char *m = render(s);
    int dropped = 0;
    for (const char *p = m; (p = strstr(p, "wattcal_serve_series_dropped_total{")); p++) {
        const char *sp = strchr(p, '}');
        dropped += atoi(sp + 2);
    }
    cr_assert_eq(dropped, 4, "two refused on each of two ticks: %s", m);
    int served = 0;
    for (const char *p = m; (p = strstr(p, "\nwattcal_serve_workloads{")); p++)
        served += atoi(strchr(p, '}') + 2);
    cr_assert_eq(served, 2);
    free(m);
    wc_serve_state_free(s);
}
