/*
 * test_scenario.c — scenario files (workloads/scenario.h): the built-ins, a
 * fixture with every field, and each rejected input with its line and field.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_clock.h"
#include "common/wc_error.h"
#include "tests/unit/support/test_support.h"
#include "workloads/scenario.h"

#define S(x) ((int64_t)(x) * WC_NS_PER_S)

static wc_scenario load_builtin(const char *name)
{
    wc_scenario sc;
    wc_error err = {{0}};
    int rc = wc_scenario_load(name, &sc, &err);
    cr_assert_eq(rc, 0, "%s: %s", name, err.msg);
    return sc;
}

Test(scenario, builtin_names)
{
    const char *const *n = wc_scenario_builtin_names();
    cr_assert_str_eq(n[0], "quick");
    cr_assert_str_eq(n[1], "runbook");
    cr_assert_str_eq(n[2], "steps");
    cr_assert_str_eq(n[3], "burst");
    cr_assert_null(n[4]);
    cr_assert_null(wc_scenario_builtin_text("nope"));
}

Test(scenario, builtin_quick)
{
    wc_scenario sc = load_builtin("quick");
    cr_assert_str_eq(sc.name, "quick");
    cr_assert_str_eq(sc.origin, "builtin:quick");
    cr_assert_eq(sc.seed, 1);
    cr_assert_eq(wc_scenario_total_ns(&sc), S(60));
    cr_assert_eq(sc.n_phases, 6);
    const char *labels[] = {"idle", "cpu", "avx", "membound", "burst", "mixed"};
    const int64_t secs[] = {15, 10, 10, 10, 10, 5};
    for (int i = 0; i < 6; i++) {
        cr_assert_str_eq(sc.phases[i].label, labels[i], "phase %d", i);
        cr_assert_eq(sc.phases[i].duration_ns, S(secs[i]), "phase %d", i);
    }
    cr_assert_eq(sc.phases[0].n_workloads, 0);
    cr_assert_eq(sc.phases[5].n_workloads, 4);
    wc_scenario_free(&sc);
}

Test(scenario, builtin_runbook)
{
    wc_scenario sc = load_builtin("runbook");
    cr_assert_eq(sc.n_phases, 18);
    cr_assert_eq(wc_scenario_total_ns(&sc), S(18 * 60));
    cr_assert_str_eq(sc.phases[0].name, "r1-idle-baseline");
    cr_assert_str_eq(sc.phases[6].name, "r2-idle-baseline");
    cr_assert_str_eq(sc.phases[17].name, "r3-mix");
    cr_assert_str_eq(sc.phases[17].label, "mixed");
    cr_assert_eq(sc.phases[17].n_workloads, 5);
    wc_scenario_free(&sc);
}

Test(scenario, builtin_steps)
{
    wc_scenario sc = load_builtin("steps");
    const int duty[] = {0, 25, 50, 75, 100, 75, 50, 25, 0};
    cr_assert_eq(sc.n_phases, 9);
    cr_assert_eq(wc_scenario_total_ns(&sc), S(180));
    for (int i = 0; i < 9; i++) {
        const wc_scenario_phase *p = &sc.phases[i];
        cr_assert_eq(p->duration_ns, S(20));
        if (duty[i] == 0) {
            cr_assert_eq(p->n_workloads, 0);
            cr_assert_str_eq(p->label, "idle");
        } else {
            cr_assert_eq(p->n_workloads, 1);
            cr_assert_eq(p->workloads[0].cls, WC_STRESS_CPU);
            cr_assert_eq(p->workloads[0].workers, WC_SCENARIO_WORKERS_ALL);
            cr_assert_eq(p->workloads[0].duty_pct, duty[i], "phase %d", i);
        }
    }
    wc_scenario_free(&sc);
}

Test(scenario, builtin_burst)
{
    wc_scenario sc = load_builtin("burst");
    cr_assert_eq(sc.n_phases, 4);
    cr_assert_eq(wc_scenario_total_ns(&sc), S(100));
    cr_assert_str_eq(sc.phases[0].label, "idle");
    cr_assert_str_eq(sc.phases[1].label, "burst");
    cr_assert_eq(sc.phases[2].workloads[0].batch, 8);
    cr_assert_eq(sc.phases[2].workloads[0].count, 4000);
    cr_assert_eq(sc.phases[2].workloads[0].child_cpu_ns, 10000000);
    wc_scenario_free(&sc);
}

Test(scenario, fixture_exact_values)
{
    const char *path = wc_own_fixture("scenarios/example.yaml");
    wc_scenario sc;
    wc_error err = {{0}};
    cr_assert_eq(wc_scenario_load(path, &sc, &err), 0, "%s", err.msg);
    cr_assert_str_eq(sc.origin, path);
    cr_assert_str_eq(sc.name, "fixture-all-fields");
    cr_assert_eq(sc.seed, UINT64_MAX);
    cr_assert_eq(sc.n_phases, 5);

    const wc_scenario_phase *p = &sc.phases[0];
    cr_assert_str_eq(p->name, "idle-baseline");
    cr_assert_eq(p->duration_ns, 2500000000LL);
    cr_assert_eq(p->repetitions, 1);
    cr_assert_eq(p->n_workloads, 0);
    cr_assert_str_eq(p->label, "idle");
    cr_assert_eq(p->line, 5);

    p = &sc.phases[1];
    cr_assert_eq(p->duration_ns, 500000000LL);
    cr_assert_eq(p->repetitions, 3);
    cr_assert_str_eq(p->label, "cpu");
    cr_assert_eq(p->n_workloads, 1);
    cr_assert_eq(p->workloads[0].cls, WC_STRESS_CPU);
    cr_assert_eq(p->workloads[0].workers, 4);
    cr_assert_eq(p->workloads[0].duty_pct, 50);
    cr_assert_eq(p->workloads[0].resident_mb, -1);
    cr_assert_eq(p->workloads[0].line, 11);

    p = &sc.phases[2];
    cr_assert_eq(p->duration_ns, S(60));
    cr_assert_str_eq(p->label, "mem-pressure");
    cr_assert_eq(p->n_workloads, 2);
    cr_assert_eq(p->workloads[0].cls, WC_STRESS_MEMBOUND);
    cr_assert_eq(p->workloads[0].workers, 2);
    cr_assert_eq(p->workloads[0].resident_mb, 512);
    cr_assert_eq(p->workloads[0].duty_pct, 100);
    cr_assert_eq(p->workloads[1].cls, WC_STRESS_IDLE);
    cr_assert_eq(p->workloads[1].workers, 1);
    cr_assert_eq(p->workloads[1].resident_mb, 0);

    p = &sc.phases[3];
    cr_assert_eq(p->duration_ns, S(10));
    cr_assert_str_eq(p->label, "burst");
    const wc_scenario_workload *w = &p->workloads[0];
    cr_assert_eq(w->cls, WC_STRESS_BURST);
    cr_assert_eq(w->workers, WC_SCENARIO_WORKERS_ALL);
    cr_assert_eq(w->count, 300);
    cr_assert_eq(w->child_cpu_ns, 20000000);
    cr_assert_eq(w->batch, 8);

    p = &sc.phases[4];
    cr_assert_str_eq(p->label, "cpu"); /* two workloads, one class */
    cr_assert_eq(p->workloads[0].duty_pct, 100);
    cr_assert_eq(p->workloads[0].count, 200); /* defaults kept */
    cr_assert_eq(p->workloads[0].child_cpu_ns, 50000000);
    cr_assert_eq(p->workloads[0].batch, 1);
    cr_assert_eq(p->workloads[1].duty_pct, 1);

    cr_assert_eq(wc_scenario_total_ns(&sc),
                 2500000000LL + 3 * 500000000LL + S(60) + S(10) + S(1));

    wc_workload_spec spec;
    wc_scenario_workload_spec(w, S(10), 1000, &spec);
    cr_assert_eq(spec.workers, WC_WORKLOAD_MAX_WORKERS);
    cr_assert_eq(spec.burst_count, 300);
    cr_assert_eq(spec.burst_batch, 8);
    cr_assert_eq(spec.duration_ns, S(10));
    wc_scenario_workload_spec(&sc.phases[2].workloads[0], S(1), 8, &spec);
    cr_assert_eq(spec.workers, 2);
    cr_assert_eq(spec.resident_bytes, (size_t)512 << 20);
    wc_scenario_free(&sc);
    wc_scenario_free(&sc); /* idempotent */
}

Test(scenario, fixture_bad_duty_names_line_and_field)
{
    const char *path = wc_own_fixture("scenarios/bad-duty.yaml");
    wc_scenario sc;
    wc_error err = {{0}};
    cr_assert_eq(wc_scenario_load(path, &sc, &err), -EINVAL);
    char want[512];
    snprintf(want, sizeof want, "%s:9: phases[1].workloads[0].duty: 150 is outside 1..100", path);
    cr_assert_str_eq(err.msg, want);
    cr_assert_eq(sc.n_phases, 0);
    cr_assert_null(sc.phases);
}

Test(scenario, load_unknown_name)
{
    wc_scenario sc;
    wc_error err = {{0}};
    cr_assert_eq(wc_scenario_load("no-such-scenario.yaml", &sc, &err), -ENOENT);
    cr_assert(strstr(err.msg, "not a built-in (quick, runbook, steps, burst)"), "%s", err.msg);
    cr_assert_eq(wc_scenario_load("", &sc, &err), -EINVAL);
}

/* Parses text as "s.yaml" and checks the error message starts with want. */
static void reject(const char *text, const char *want)
{
    wc_scenario sc;
    wc_error err = {{0}};
    int rc = wc_scenario_parse(text, strlen(text), "s.yaml", &sc, &err);
    cr_assert_eq(rc, -EINVAL, "accepted:\n%s", text);
    cr_assert(strncmp(err.msg, want, strlen(want)) == 0, "got  '%s'\nwant '%s...'", err.msg,
              want);
    cr_assert_eq(sc.n_phases, 0);
    cr_assert_null(sc.phases);
}

#define HEAD "name: t\nseed: 1\nphases:\n"
/* Lines: 1 name, 2 seed, 3 phases, 4 "- name: a", 5 duration, 6 workloads, 7 item. */
#define PH(wl) HEAD "  - name: a\n    duration: 1s\n    workloads:\n      - " wl "\n"

Test(scenario, rejects_with_line_and_field)
{
    reject(PH("{class: cpu, duty: 150}"), "s.yaml:7: phases[0].workloads[0].duty: 150 is outside 1..100");
    reject(PH("{class: cpu, duty: 0}"), "s.yaml:7: phases[0].workloads[0].duty: 0 is outside 1..100");
    reject(PH("{class: cpu, workers: 257}"),
           "s.yaml:7: phases[0].workloads[0].workers: 257 is outside 1..256");
    reject(PH("{class: burst, batch: 65}"),
           "s.yaml:7: phases[0].workloads[0].batch: 65 is outside 1..64");
    reject(PH("{class: burst, count: 0}"),
           "s.yaml:7: phases[0].workloads[0].count: 0 is outside 1..1000000");
    reject(PH("{class: idle, resident_mb: -1}"),
           "s.yaml:7: phases[0].workloads[0].resident_mb: -1 is outside 0..1048576");
    /* unknown class */
    reject(PH("{class: gpu}"), "s.yaml:7: phases[0].workloads[0].class: unknown class 'gpu'");
    reject(PH("{workers: 2}"), "s.yaml:7: phases[0].workloads[0].class: missing");
    /* wrong types */
    reject(PH("{class: cpu, workers: many}"),
           "s.yaml:7: phases[0].workloads[0].workers: 'many' is not an integer");
    reject(PH("{class: cpu, duty: [50]}"),
           "s.yaml:7: phases[0].workloads[0].duty: is a list, expected an integer");
    reject(PH("{class: cpu, duty: 2.5}"),
           "s.yaml:7: phases[0].workloads[0].duty: '2.5' is not an integer");
    reject(PH("{class: burst, child_cpu: soon}"),
           "s.yaml:7: phases[0].workloads[0].child_cpu: 'soon' is not a duration");
    reject(PH("cpu"), "s.yaml:7: phases[0].workloads[0]: is a scalar, expected a mapping");
    reject(HEAD "  - name: a\n    duration: 1s\n    workloads: {class: cpu}\n",
           "s.yaml:6: phases[0].workloads: is a mapping, expected a list");
    reject("name: t\nphases: all of them\n", "s.yaml:2: phases: is a scalar, expected a list");
    reject("name: [t]\nphases: []\n", "s.yaml:1: name: is a list, expected a name");
    reject("name: t\nseed: -3\nphases: []\n", "s.yaml:2: seed: '-3' is not an integer");
    reject(HEAD "  - name: a\n    duration: 1s\n    repetitions: x\n",
           "s.yaml:6: phases[0].repetitions: 'x' is not an integer");
    reject(HEAD "  - name: a\n    duration: 1s\n    repetitions: 0\n",
           "s.yaml:6: phases[0].repetitions: 0 is outside 1..100000");
    reject("- a\n- b\n", "s.yaml:1: (top level): is a list, expected a mapping");
    /* fields that do not apply to the class */
    reject(PH("{class: cpu, batch: 2}"),
           "s.yaml:7: phases[0].workloads[0].batch: does not apply to class cpu");
    reject(PH("{class: idle, duty: 50}"),
           "s.yaml:7: phases[0].workloads[0].duty: does not apply to class idle");
    reject(PH("{class: avx, resident_mb: 10}"),
           "s.yaml:7: phases[0].workloads[0].resident_mb: does not apply to class avx");
    /* unknown keys at every level */
    reject("name: t\ncolour: red\nphases: []\n", "s.yaml:2: colour: unknown key (expected name, seed, phases)");
    reject(HEAD "  - name: a\n    duration: 1s\n    lenght: 2s\n",
           "s.yaml:6: phases[0].lenght: unknown key");
    reject(PH("{class: cpu, dutty: 5}"), "s.yaml:7: phases[0].workloads[0].dutty: unknown key");
    /* durations */
    reject(HEAD "  - name: a\n  - name: b\n", "s.yaml:4: phases[0].duration: missing");
    reject(HEAD "  - name: a\n    duration: 1s\n  - name: b\n    workloads: []\n",
           "s.yaml:6: phases[1].duration: missing");
    reject(HEAD "  - name: a\n    duration: 0s\n",
           "s.yaml:5: phases[0].duration: '0s' must be greater than 0");
    reject(HEAD "  - name: a\n    duration: -5s\n",
           "s.yaml:5: phases[0].duration: '-5s' is not a duration");
    reject(HEAD "  - name: a\n    duration: ten seconds\n",
           "s.yaml:5: phases[0].duration: 'ten seconds' is not a duration");
    reject(HEAD "  - name: a\n    duration:\n", "s.yaml:5: phases[0].duration: is empty");
    reject(HEAD "  - duration: 1s\n", "s.yaml:4: phases[0].name: missing");
    /* no phases */
    reject("name: t\nseed: 1\n", "s.yaml:1: phases: missing");
    reject("name: t\nphases: []\n", "s.yaml:2: phases: is empty");
    reject("name: t\nphases:\n", "s.yaml:2: phases: missing");
    reject("seed: 1\nphases: []\n", "s.yaml:1: name: missing");
    reject("", "s.yaml:1: the scenario is empty");
    reject("# only a comment\n", "s.yaml:1: the scenario is empty");
    /* total overflow */
    reject(HEAD "  - name: a\n    duration: 2000h\n    repetitions: 1000\n"
                "  - name: b\n    duration: 2000h\n    repetitions: 1000\n",
           "s.yaml:7: phases[1]: the scenario's total length overflows");
}

Test(scenario, rejects_duplicate_keys)
{
    reject("name: t\nname: u\nphases: []\n", "s.yaml:2: name: duplicate key (first on line 1)");
    reject(HEAD "  - name: a\n    duration: 1s\n    duration: 2s\n",
           "s.yaml:6: phases[0].duration: duplicate key (first on line 5)");
    reject(PH("{class: cpu, duty: 10, duty: 20}"),
           "s.yaml:7: phases[0].workloads[0].duty: duplicate key (first on line 7)");
}

Test(scenario, rejects_yaml_syntax_errors)
{
    reject(HEAD "  - name: a\n    duration: 1s\n    workloads: [{class: cpu\n",
           "s.yaml:7: YAML syntax error:");
    reject("name: t\n  bad indent: 1\nphases: []\n", "s.yaml:2: YAML syntax error:");
    reject("name: \"unterminated\nphases: []\n", "s.yaml:");
    reject("name: t\nphases: [{name: a, duration: 1s}]\n---\nname: u\n",
           "s.yaml:4: a second YAML document");
    reject("name: *nowhere\n", "s.yaml:1: YAML syntax error:");
}

Test(scenario, accepts_minimal_and_null_workloads)
{
    const char *text = "name: m\nphases:\n  - name: a\n    duration: 1\n    workloads:\n";
    wc_scenario sc;
    wc_error err = {{0}};
    cr_assert_eq(wc_scenario_parse(text, strlen(text), "m.yaml", &sc, &err), 0, "%s", err.msg);
    cr_assert_eq(sc.seed, 1);
    cr_assert_eq(sc.phases[0].n_workloads, 0);
    cr_assert_str_eq(sc.phases[0].label, "idle");
    cr_assert_eq(wc_scenario_total_ns(&sc), S(1));
    wc_scenario_free(&sc);
    wc_scenario_free(NULL);
    cr_assert_eq(wc_scenario_total_ns(NULL), 0);
}

Test(scenario, backend_field)
{
    const char *text = PH("{class: cpu, workers: 2, duty: 50, backend: stress-ng}")
        "      - {class: idle, resident_mb: 8}\n"
        "      - {class: burst, count: 10, backend: wattcal}\n";
    wc_scenario sc;
    wc_error err = {{0}};
    cr_assert_eq(wc_scenario_parse(text, strlen(text), "s.yaml", &sc, &err), 0, "%s", err.msg);
    cr_assert_eq(sc.phases[0].n_workloads, 3);
    const wc_scenario_workload *w = sc.phases[0].workloads;
    cr_assert_eq(w[0].backend, WC_BACKEND_STRESS_NG);
    cr_assert_eq(w[1].backend, WC_BACKEND_WATTCAL, "wattcal is the default");
    cr_assert_eq(w[2].backend, WC_BACKEND_WATTCAL);
    wc_workload_spec spec;
    wc_scenario_workload_spec(&w[0], S(3), 4, &spec);
    cr_assert_eq(spec.backend, WC_BACKEND_STRESS_NG);
    cr_assert_eq(spec.duty_pct, 50);
    cr_assert_eq(spec.workers, 2);
    wc_scenario_workload_spec(&w[1], S(3), 4, &spec);
    cr_assert_eq(spec.backend, WC_BACKEND_WATTCAL);
    wc_scenario_free(&sc);
}

Test(scenario, backend_rejects_with_line_and_field)
{
    reject(PH("{class: cpu, backend: stressng}"),
           "s.yaml:7: phases[0].workloads[0].backend: unknown backend 'stressng' (wattcal or "
           "stress-ng)");
    reject(PH("{class: cpu, backend: [stress-ng]}"),
           "s.yaml:7: phases[0].workloads[0].backend: is a list, expected a backend name");
    reject(PH("{class: cpu, backend: }"),
           "s.yaml:7: phases[0].workloads[0].backend: is empty");
    reject(PH("{class: membound, duty: 50, backend: stress-ng}"),
           "s.yaml:7: phases[0].workloads[0].duty: 50: the stress-ng backend runs membound at "
           "100 only");
    reject(PH("{class: cpu, backendd: wattcal}"),
           "s.yaml:7: phases[0].workloads[0].backendd: unknown key (expected class, workers, "
           "duty, resident_mb, count, child_cpu, batch, backend)");
}
