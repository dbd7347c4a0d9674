/*
 * attr_models.c — the table of attribution models: for each its name (the
 * --model value, stored with a run), its step and state (attr_kepler.c,
 * attr_ideal.c) and a one-line description. wc_model_name, wc_model_parse,
 * wc_model_description and the engine's step dispatch (attribution.c) all
 * read this one table; what each model does is in docs/kepler-model.md §5.
 * Adding a model: an enum value in attribution.h, its attr_<name>.c, its
 * declarations in attr_internal.h and one line here.
 */
#include <errno.h>
#include <string.h>

#include "collector/model/attr_internal.h"

/* In wc_model order. A model renamed keeps its old name (old_name): runs
 * that stored it still read, and --model accepts it. */
static const attr_model MODELS[] = {
    {WC_MODEL_KEPLER_011, "kepler-0.11", NULL, attr_kepler_011_step, &attr_kepler_state,
     "Kepler v0.11.4: node split with the previous interval's usage ratio; hwmon power gauges",
     "Kepler v0.11.4 (released ordering of v0.10.0 – v0.11.4; reference model kepler-0.11)",
     WC_VM_SINCE_0114},
    {WC_MODEL_KEPLER_MAIN, "kepler-main", "kepler-head", attr_kepler_head_step,
     &attr_kepler_state,
     "Kepler main after 81477124 (followed to 13944a69): ratio and CPU deltas over one interval",
     "Kepler main after commit 81477124, as of 13944a69 (reference model kepler-main, "
     "formerly kepler-head)",
     WC_VM_SINCE_MAIN},
    {WC_MODEL_IDEAL, "ideal", NULL, attr_ideal_step, &attr_ideal_state,
     "wattcal's corrected model: (pid, starttime) identity, no lifetime first delta, "
     "sane counter rule, containers and pods summed from their processes",
     "no exporter: wattcal's corrected model (ideal), the yardstick for the exporter's",
     WC_VM_SINCE_MAIN},
    {WC_MODEL_KEPLER_010, "kepler-0.10", NULL, attr_kepler_010_step, &attr_kepler_state,
     "Kepler v0.10.0-v0.11.3: as kepler-0.11 without the zone-type test (RAPL only)",
     "Kepler v0.10.0 – v0.11.3 (reference model kepler-0.10)", WC_VM_SINCE_0110},
};

#define NMODELS (sizeof MODELS / sizeof MODELS[0])

const attr_model *attr_model_find(wc_model m)
{
    for (size_t i = 0; i < NMODELS; i++)
        if (MODELS[i].id == m)
            return &MODELS[i];
    return NULL;
}

const char *wc_model_name(wc_model m)
{
    const attr_model *def = attr_model_find(m);
    return def ? def->name : "unknown";
}

const char *wc_model_description(wc_model m)
{
    const attr_model *def = attr_model_find(m);
    return def ? def->description : "unknown model";
}

const char *wc_model_exporter(wc_model m)
{
    const attr_model *def = attr_model_find(m);
    return def ? def->exporter : "unknown model";
}

size_t wc_model_count(void)
{
    return NMODELS;
}

const char *wc_model_old_name(wc_model m)
{
    const attr_model *def = attr_model_find(m);
    return def ? def->old_name : NULL;
}

int wc_model_parse(const char *name, wc_model *out)
{
    for (size_t i = 0; name && i < NMODELS; i++) {
        if (strcmp(name, MODELS[i].name) == 0 ||
            (MODELS[i].old_name && strcmp(name, MODELS[i].old_name) == 0)) {
            *out = MODELS[i].id;
            return 0;
        }
    }
    return -EINVAL;
}
