/*
 * truth_table.c — the ground-truth sources `--truth SPEC` can name (see
 * truth_table.h): one line per source; wc_truth_open (truth.c) dispatches on
 * it and builds its "unknown source" message from the summaries.
 */
#include "collector/truth/truth_table.h"

#include <string.h>

#include "common/wc_text.h"

static const wc_truth_kind KINDS[] = {
    {"ipmi", 0, wc_truth_ipmi_init, "ipmi:local, ipmi:lanplus://HOST[:PORT]",
     "a BMC over IPMI (DCMI power reading, else SDR sensors): in-band through the "
     "local device, or out of band"},
    {"redfish", 0, wc_truth_redfish_init, "redfish:https://HOST[:PORT]",
     "a BMC over Redfish (EnvironmentMetrics, PowerSubsystem or the deprecated Power "
     "resource)"},
    {"sim", 1, wc_truth_sim_init, "sim",
     "a SIMULATED BMC over the node's zones; parameters as "
     "sim:lag=2,window=10,period=5,eff=0.92,base=40,quant=1,noise=0.5,seed=7"},
    {"file", 0, NULL, "file:PATH",
     "a wall-meter log imported after the run, aligned by wall clock (--truth-format)"},
};

#define NKINDS (sizeof KINDS / sizeof KINDS[0])

const wc_truth_kind *wc_truth_kind_find(const char *spec, const char **rest)
{
    for (size_t i = 0; spec && i < NKINDS; i++) {
        size_t len = strlen(KINDS[i].prefix);
        if (strncmp(spec, KINDS[i].prefix, len) != 0)
            continue;
        if (spec[len] == ':' || (spec[len] == '\0' && KINDS[i].bare_ok)) {
            if (rest)
                *rest = spec[len] == ':' ? spec + len + 1 : spec + len;
            return &KINDS[i];
        }
    }
    return NULL;
}

const wc_truth_kind *wc_truth_kinds(size_t *n)
{
    if (n)
        *n = NKINDS;
    return KINDS;
}

const char *wc_truth_summaries(char *buf, size_t cap)
{
    size_t used = 0;
    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < NKINDS; i++)
        wc_append(buf, cap, &used, "%s%s", i ? ", " : "", KINDS[i].summary);
    return buf;
}
