/*
 * test_kepler_metrics.c — Kepler's metric catalogue (collector/exporter/
 * kepler_metrics.c) against the shared catalogues (corpus/kepler-metrics/
 * catalogue-v0.10-plus.tsv: v0.10.2, v0.11.4, main; catalogue-v0.7.tsv: the
 * legacy layout), skipped when absent: every row, built into a sample with
 * the labels it lists, is a Kepler series of the right layout, and the
 * project's own table (tests/fixtures/exposition/kepler-catalogue.tsv, which
 * test_kepler_cases.c checks value by value) has that metric for that
 * version with the same classification — so the own table covers every
 * shared row, and a metric added to a shared catalogue fails here first.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/exporter/kepler_metrics.h"
#include "tests/unit/support/test_support.h"

/* Splits line at sep into at most max cells (in place). */
static size_t split(char *line, char sep, char **cells, size_t max)
{
    size_t n = 0;
    char *c = line;
    while (n < max) {
        cells[n++] = c;
        char *e = strchr(c, sep);
        if (!e)
            break;
        *e = '\0';
        c = e + 1;
    }
    return n;
}

/* The own table's row for (metric, layout): its versions and expected
 * level, quantity and device (cells 0, 3, 4, 5); 0 when there is none. */
static int own_row(const char *metric, const char *layout, char *row, size_t cap, char **cells)
{
    char *text = wc_test_slurp(wc_own_fixture("exposition/kepler-catalogue.tsv"), NULL);
    int found = 0;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save)) {
        char copy[1024], *c[9];
        snprintf(copy, sizeof copy, "%s", l);
        if (l[0] == '#' || split(copy, '\t', c, 9) != 9)
            continue;
        if (!strcmp(c[1], metric) && !strcmp(c[6], layout)) {
            snprintf(row, cap, "%s", l);
            split(row, '\t', cells, 9);
            found = 1;
        }
    }
    free(text);
    return found;
}

/* Classifies metric with the label names of the comma lists a and b (value
 * "x"; a legacy mode "dynamic"; a zone "package"). */
static void classify(const char *metric, const char *a, const char *b, wc_kep_fact *f)
{
    char names[512];
    snprintf(names, sizeof names, "%s%s%s", a, *a && *b ? "," : "", b);
    char *c[32];
    size_t n = *names ? split(names, ',', c, 32) : 0;
    wc_expo_label l[32];
    for (size_t i = 0; i < n; i++) {
        const char *v = !strcmp(c[i], "mode") ? "dynamic" : !strcmp(c[i], "zone") ? "package" : "x";
        l[i] = (wc_expo_label){.name = c[i], .value = v};
    }
    wc_expo_sample s = {.name = metric, .family = metric, .labels = l, .nlabels = n};
    cr_assert_eq(wc_kepler_classify(&s, f), 1, "%s is a Kepler series", metric);
}

/* The fact must be what the own table's row says. */
static void expect_own(const char *metric, const char *layout, const char *version,
                       const wc_kep_fact *f)
{
    char row[1024], *c[9];
    cr_assert(own_row(metric, layout, row, sizeof row, c), "%s (%s) is not in the own table",
              metric, layout);
    cr_assert(strstr(c[0], version), "%s: the own table lists %s, not %s", metric, c[0], version);
    cr_assert_str_eq(wc_kep_level_name(f->level), c[3], "%s", metric);
    cr_assert_str_eq(wc_kep_device_name(f->device), c[5], "%s", metric);
    if (strcmp(c[4], "idle_joules"))
        cr_assert_str_eq(wc_kep_quantity_name(f->quantity), c[4], "%s", metric);
}

Test(kepler_catalogue, every_v0_10_plus_row)
{
    char *text = wc_test_slurp(
        wc_shared_fixture("corpus/kepler-metrics/catalogue-v0.10-plus.tsv"), NULL);
    size_t rows = 0;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *c[6];
        if (l[0] == '#' || split(l, '\t', c, 6) < 5)
            continue;
        char version[32];
        snprintf(version, sizeof version, "%.*s", (int)strcspn(c[0], "@"), c[0]);
        wc_kep_fact f;
        classify(c[1], c[3], c[4], &f);
        cr_assert_eq(f.layout, WC_KEP_V010, "%s %s", version, c[1]);
        expect_own(c[1], "v0.10+", version, &f);
        rows++;
    }
    cr_assert_eq(rows, 81, "%zu rows", rows);
    free(text);
}

Test(kepler_catalogue, every_legacy_row)
{
    char *text =
        wc_test_slurp(wc_shared_fixture("corpus/kepler-metrics/catalogue-v0.7.tsv"), NULL);
    size_t rows = 0;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *c[5];
        if (l[0] == '#' || split(l, '\t', c, 5) < 4)
            continue;
        wc_kep_fact f;
        classify(c[0], c[2], c[3], &f);
        cr_assert_eq(f.layout, WC_KEP_LEGACY, "%s", c[0]);
        expect_own(c[0], "legacy", "v0.7", &f);
        if (strstr(c[2], "mode"))
            cr_assert_eq(f.quantity, WC_KEP_DYNAMIC_JOULES, "%s: mode=dynamic", c[0]);
        rows++;
    }
    cr_assert_eq(rows, 47, "%zu rows", rows);
    free(text);
}
