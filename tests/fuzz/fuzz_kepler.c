/*
 * fuzz_kepler.c — Kepler's classifier (collector/exporter/kepler_metrics.c,
 * wc_kepler_classify, wc_kepler_meter_of_path, wc_kepler_power_source) on
 * every sample wc_expo_parse gets from the input (text 0.0.4, or
 * OpenMetrics with "#wc: format=om" on the first line, cut off first).
 * Contract (kepler_metrics.h): 1 exactly for kepler_* names, 0 (the fact
 * untouched) otherwise; every enum in range and its name non-empty; each
 * string field terminated and either empty, the zone a catalogue name
 * carries, or the start of one of the sample's label values (nothing
 * invented); a state is one the labels gave; a meter only on node CPU
 * energy and power series, and for v0.10+ the meter of its path; the same
 * fact whatever the order of the labels; the node's power source is one of
 * its three words, "measured" only when every node meter measured.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/exporter/expo_parse.h"
#include "collector/exporter/kepler_metrics.h"
#include "tests/fuzz/fuzz.h"

#define MAX_METERS 256

typedef struct run {
    wc_kep_meter meters[MAX_METERS];
    size_t nmeters;
    size_t kepler;
} run;

static const char *const ZONES[] = {"package", "core", "uncore", "dram", "other", "platform", ""};

/* s is "" or the start of some label's value (or, for the zone, a catalogue zone). */
static void from_labels(const wc_expo_sample *s, const char *field, const char *what, int zone)
{
    if (!*field)
        return;
    size_t n = strlen(field);
    for (size_t i = 0; i < s->nlabels; i++)
        if (!strncmp(s->labels[i].value, field, n))
            return;
    for (size_t i = 0; zone && i < sizeof ZONES / sizeof *ZONES; i++)
        if (!strcmp(field, ZONES[i]))
            return;
    fuzz_broken(__FILE__, __LINE__, "from_labels", "%s '%s' of %s is no label's value", what,
                field, s->name);
}

static void check_strings(const wc_expo_sample *s, const wc_kep_fact *f)
{
#define TERMINATED(x) FUZZ_CHECK(memchr(f->x, '\0', sizeof f->x), #x " not terminated")
    TERMINATED(zone); TERMINATED(key); TERMINATED(parent); TERMINATED(name); TERMINATED(ns);
    TERMINATED(state); TERMINATED(path); TERMINATED(node); TERMINATED(version);
    TERMINATED(revision); TERMINATED(source);
#undef TERMINATED
    from_labels(s, f->zone, "zone", 1);
    from_labels(s, f->key, "key", 0);
    from_labels(s, f->parent, "parent", 0);
    from_labels(s, f->name, "name", 0);
    from_labels(s, f->ns, "namespace", 0);
    from_labels(s, f->state, "state", 0);
    from_labels(s, f->path, "path", 0);
    from_labels(s, f->node, "node", 0);
    from_labels(s, f->version, "version", 0);
    from_labels(s, f->revision, "revision", 0);
    from_labels(s, f->source, "source", 0);
}

static int energy_or_power(wc_kep_quantity q)
{
    return q == WC_KEP_JOULES || q == WC_KEP_ACTIVE_JOULES || q == WC_KEP_IDLE_JOULES ||
           q == WC_KEP_DYNAMIC_JOULES || q == WC_KEP_WATTS || q == WC_KEP_ACTIVE_WATTS ||
           q == WC_KEP_IDLE_WATTS;
}

static void check_enums(const wc_kep_fact *f)
{
    FUZZ_CHECK(f->level <= WC_KEP_CPU_INFO && f->quantity <= WC_KEP_INFO &&
                   f->device <= WC_KEP_DEV_OTHER && f->meter <= WC_KEP_METER_ESTIMATED &&
                   f->layout <= WC_KEP_LEGACY,
               "enums %d %d %d %d %d", f->level, f->quantity, f->device, f->meter, f->layout);
    FUZZ_CHECK(*wc_kep_level_name(f->level) && *wc_kep_quantity_name(f->quantity) &&
                   *wc_kep_device_name(f->device) && *wc_kep_layout_name(f->layout),
               "a name missing");
    int metered = f->level == WC_KEP_NODE && f->device == WC_KEP_CPU &&
                  energy_or_power(f->quantity);
    FUZZ_CHECK(metered == (f->meter != WC_KEP_METER_NA), "meter %s on level %s quantity %s",
               wc_kep_meter_name(f->meter), wc_kep_level_name(f->level),
               wc_kep_quantity_name(f->quantity));
    FUZZ_CHECK(!metered || f->layout == WC_KEP_LEGACY ||
                   f->meter == wc_kepler_meter_of_path(f->path),
               "meter %s for path '%s'", wc_kep_meter_name(f->meter), f->path);
}

/* The same sample with its labels in reverse order classifies the same. */
static void check_order(const wc_expo_sample *s, const wc_kep_fact *f)
{
    if (s->nlabels < 2)
        return;
    wc_expo_label rev[64];
    size_t n = s->nlabels < 64 ? s->nlabels : 64;
    for (size_t i = 0; i < n; i++)
        rev[i] = s->labels[n - 1 - i];
    wc_expo_sample r = *s;
    r.labels = rev;
    r.nlabels = n;
    static wc_kep_fact g;
    memset(&g, 0, sizeof g);
    FUZZ_CHECK(wc_kepler_classify(&r, &g) == 1, "reordered: not Kepler's");
    FUZZ_CHECK(!memcmp(f, &g, sizeof g), "%s: another fact with its labels reversed", s->name);
}

static int sample_cb(void *ctx, const wc_expo_sample *s)
{
    run *r = ctx;
    static wc_kep_fact f;
    memset(&f, 0xa5, sizeof f);
    int rc = wc_kepler_classify(s, &f);
    int kepler = !strncmp(s->name, "kepler_", 7);
    FUZZ_CHECK(rc == kepler, "classify %s: %d", s->name, rc);
    if (!rc) {
        for (size_t i = 0; i < sizeof f; i++)
            FUZZ_CHECK(((const unsigned char *)&f)[i] == 0xa5, "fact touched for %s", s->name);
        return 0;
    }
    r->kepler++;
    check_enums(&f);
    check_strings(s, &f);
    check_order(s, &f);
    for (size_t i = 0; i < s->nlabels; i++)
        FUZZ_CHECK(wc_kepler_meter_of_path(s->labels[i].value) <= WC_KEP_METER_ESTIMATED,
                   "meter of '%s'", s->labels[i].value);
    if (f.meter != WC_KEP_METER_NA && r->nmeters < MAX_METERS)
        r->meters[r->nmeters++] = f.meter;
    return 0;
}

static void check_power_source(const run *r)
{
    const char *ps = wc_kepler_power_source(r->meters, r->nmeters);
    FUZZ_CHECK(!strcmp(ps, "measured") || !strcmp(ps, "not measured") || !strcmp(ps, "unknown"),
               "power source '%s'", ps);
    int all_measured = r->nmeters > 0;
    for (size_t i = 0; i < r->nmeters; i++)
        all_measured &= r->meters[i] == WC_KEP_METER_MEASURED ||
                        r->meters[i] == WC_KEP_METER_AGGREGATED;
    FUZZ_CHECK((strcmp(ps, "measured") == 0) == all_measured, "power source '%s' of %zu meters", ps,
               r->nmeters);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run r;
    memset(&r, 0, sizeof r);
    char fmt[8];
    fuzz_option(data, size, "format", fmt, sizeof fmt);
    const char *body = (const char *)data;
    size_t len = size;
    if (size >= 4 && !memcmp(data, "#wc:", 4)) {
        const char *nl = memchr(body, '\n', size);
        len = nl ? size - (size_t)(nl + 1 - body) : 0;
        body = nl ? nl + 1 : body + size;
    }
    wc_error err = {{0}};
    wc_expo_format f = !strcmp(fmt, "om") ? WC_EXPO_OPENMETRICS : WC_EXPO_TEXT_004;
    int rc = wc_expo_parse(body, len, f, "fuzz", NULL, sample_cb, &r, NULL, &err);
    FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -EFBIG, "parse rc %d", rc);
    check_power_source(&r);
    return 0;
}
