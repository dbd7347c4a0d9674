/*
 * gate_notes.c — the provenance and the calibration note printed beside the
 * validate gate (gate_notes.h). Reads the finished wc_validation only; prints
 * nothing (text_report.c and summary_json.c do).
 */
#include "validator/gate_notes.h"

#include <stdio.h>
#include <string.h>

static int is_sim(const char *provenance)
{
    return !strcmp(provenance, "simulated");
}

/* 1 when the gated source is, or derives from, a simulated meter (an
 * estimate or a model's split of simulated counters is simulated too). */
static int gated_simulated(const wc_validation *v)
{
    if (v->gated_source < 0 || (size_t)v->gated_source >= v->acc.nsources)
        return 0;
    return is_sim(v->acc.sources[v->gated_source].provenance) || is_sim(v->acc.run_provenance);
}

/* 2 when every truth source is simulated, 1 when some are, 0 none. */
static int truth_simulated(const wc_validation *v)
{
    size_t sim = 0;
    for (size_t t = 0; t < v->acc.ntruth; t++)
        sim += is_sim(v->acc.truth[t].provenance) != 0;
    return !sim ? 0 : sim == v->acc.ntruth ? 2 : 1;
}

const char *wc_gate_provenance(const wc_validation *v)
{
    if (v->outcome == WC_GATE_NONE || !v->have_accuracy)
        return "";
    int m = gated_simulated(v), t = truth_simulated(v);
    if (m && t == 2)
        return "SIMULATED meter and truth: a rehearsal, validates nothing";
    if (m && t == 1)
        return "SIMULATED meter, and some truth SIMULATED: validates nothing about real hardware";
    if (m)
        return "SIMULATED meter: validates nothing about this node's hardware";
    if (t == 2)
        return "SIMULATED truth: checked against no real wall power, validates nothing";
    if (t == 1)
        return "some truth SIMULATED: only the checks against the real truth validate anything";
    return "";
}

int wc_gate_uncalibrated_note(const wc_validation *v, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    if (v->outcome == WC_GATE_NONE || !v->have_accuracy || !v->acc.ntruth || v->gated_source < 0 ||
        (size_t)v->gated_source >= v->acc.nsources)
        return 0;
    size_t readings = 0; /* a truth that delivered nothing cannot be calibrated against */
    for (size_t t = 0; t < v->acc.ntruth; t++)
        readings += v->acc.truth[t].n;
    if (!readings)
        return 0;
    const char *src = v->acc.sources[v->gated_source].name;
    if (strncmp(src, "meter:", 6))
        return 0;
    for (size_t i = 0; i < v->nfits; i++)
        if (v->fits[i].kind == WC_CAL_TRUTH_METER)
            return 0;
    snprintf(buf, cap, "%s in this run: the node checks read the raw meter (%.111s) against the"
                       " wall, which misses PSU loss and platform power; calibrate this run, or copy"
                       " a fit with `wattcal calibrate --apply-from`, and judge the node on"
                       " estimate:wall#N",
             v->nfits ? "no wall-power calibration (only zone fits)" : "no calibration", src);
    return 1;
}
