/*
 * fuzz_kepler_config.c — the exporter's own config file, Kepler's
 * config.yaml as `record`/`attribute --kepler-config FILE` read it
 * (collector/model/kepler_config.c, wc_kepler_config_load over libyaml; the
 * input is written to a file in the scratch directory, since the loader
 * takes a path). Contract (kepler_config.h): a success has interval and
 * staleness >= 0, maxTerminated an int, 0 <= minTerminatedEnergyThreshold
 * <= WC_KCFG_MAX_MIN_TERMINATED_J, 0..16 preferred meters each rapl, hwmon
 * or fake, 0..16 zone names of each kind without a control byte, flags 0/1;
 * the config written back as YAML (every field explicit, names escaped)
 * loads to the same struct; a failure is -EINVAL (or -ENOMEM) with a
 * printable message "FILE:LINE: ..." naming the file and a line of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/kepler_config.h"
#include "common/wc_text.h"
#include "tests/fuzz/fuzz.h"

/* A YAML double-quoted scalar: '"' and '\' escaped, control bytes as \xNN,
 * bytes past ASCII as \UXXXXXXXX of their code point. */
static void quoted(FILE *f, const char *s)
{
    fputc('"', f);
    while (*s) {
        const unsigned char *u = (const unsigned char *)s;
        size_t n = wc_utf8_len(u);
        if (n <= 1) {
            if (*u < 0x20 || *u == 0x7f)
                fprintf(f, "\\x%02X", *u);
            else
                fprintf(f, "%s%c", *s == '"' || *s == '\\' ? "\\" : "", *s);
            s++;
            continue;
        }
        uint32_t cp = n == 2 ? u[0] & 0x1f : n == 3 ? u[0] & 0x0f : u[0] & 0x07;
        for (size_t i = 1; i < n; i++)
            cp = cp << 6 | (u[i] & 0x3f);
        fprintf(f, "\\U%08" PRIX32, cp);
        s += n;
    }
    fputc('"', f);
}

/* "  KEY: [a, b]" in flow style, or "[]" when empty. */
static void list(FILE *f, const char *indent, const char *key,
                 const char (*names)[WC_KCFG_NAME_MAX], size_t n)
{
    fprintf(f, "%s%s: [", indent, key);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        quoted(f, names[i]);
    }
    fputs("]\n", f);
}

/* The config as Kepler's config.yaml, every kept field explicit: interval as
 * a Go duration in ns, staleness as yaml.v3's bare integer ns. */
static char *write_back(const wc_kepler_config *c, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    fprintf(f,
            "# written back by fuzz_kepler_config\nmonitor:\n  interval: %" PRId64 "ns\n"
            "  staleness: %" PRId64 "\n  maxTerminated: %d\n"
            "  minTerminatedEnergyThreshold: %" PRId64 "\ncpu:\n",
            c->interval_ns, c->staleness_ns, c->max_terminated, c->min_terminated_j);
    list(f, "  ", "preferredMeters", c->preferred, c->npreferred);
    fputs("rapl:\n", f);
    list(f, "  ", "zones", c->rapl_zones, c->nrapl_zones);
    fprintf(f, "experimental:\n  hwmon:\n    enabled: %s\n    forceEnabled: %s\n",
            c->hwmon_enabled ? "true" : "false", c->hwmon_forced ? "true" : "false");
    list(f, "    ", "zones", c->hwmon_zones, c->nhwmon_zones);
    fclose(f);
    return text;
}

static int same_names(const char (*a)[WC_KCFG_NAME_MAX], const char (*b)[WC_KCFG_NAME_MAX],
                      size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(a[i], b[i]))
            return 0;
    return 1;
}

static void compare(const wc_kepler_config *a, const wc_kepler_config *b, const char *text)
{
    FUZZ_CHECK(a->interval_ns == b->interval_ns && a->staleness_ns == b->staleness_ns &&
                   a->max_terminated == b->max_terminated &&
                   a->min_terminated_j == b->min_terminated_j &&
                   a->hwmon_enabled == b->hwmon_enabled && a->hwmon_forced == b->hwmon_forced,
               "scalars differ once written back:\n%s", text);
    FUZZ_CHECK(a->npreferred == b->npreferred && a->nrapl_zones == b->nrapl_zones &&
                   a->nhwmon_zones == b->nhwmon_zones &&
                   same_names(a->preferred, b->preferred, a->npreferred) &&
                   same_names(a->rapl_zones, b->rapl_zones, a->nrapl_zones) &&
                   same_names(a->hwmon_zones, b->hwmon_zones, a->nhwmon_zones),
               "lists differ once written back:\n%s", text);
}

static void check_names(const char (*names)[WC_KCFG_NAME_MAX], size_t n, const char *what)
{
    FUZZ_CHECK(n <= WC_KCFG_MAX_LIST, "%zu %s", n, what);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(memchr(names[i], 0, WC_KCFG_NAME_MAX) && fuzz_printable(names[i]),
                   "%s %zu '%s'", what, i, names[i]);
}

static void check(const wc_kepler_config *c)
{
    FUZZ_CHECK(c->interval_ns >= 0 && c->staleness_ns >= 0, "interval %" PRId64
               " staleness %" PRId64, c->interval_ns, c->staleness_ns);
    FUZZ_CHECK(c->min_terminated_j >= 0 && c->min_terminated_j <= WC_KCFG_MAX_MIN_TERMINATED_J,
               "minTerminatedEnergyThreshold %" PRId64, c->min_terminated_j);
    FUZZ_CHECK((c->hwmon_enabled == 0 || c->hwmon_enabled == 1) &&
                   (c->hwmon_forced == 0 || c->hwmon_forced == 1),
               "flags %d %d", c->hwmon_enabled, c->hwmon_forced);
    check_names(c->preferred, c->npreferred, "preferred meter");
    for (size_t i = 0; i < c->npreferred; i++)
        FUZZ_CHECK(!strcmp(c->preferred[i], "rapl") || !strcmp(c->preferred[i], "hwmon") ||
                       !strcmp(c->preferred[i], "fake"),
                   "preferred meter '%s'", c->preferred[i]);
    check_names(c->rapl_zones, c->nrapl_zones, "rapl zone");
    check_names(c->hwmon_zones, c->nhwmon_zones, "hwmon zone");
    int hw = wc_kepler_config_prefers_hwmon(c);
    FUZZ_CHECK(hw == (c->hwmon_enabled || c->hwmon_forced ||
                      (c->npreferred && !strcmp(c->preferred[0], "hwmon"))),
               "prefers hwmon %d", hw);
}

/* A failure: the message "PATH:LINE: ..." with 1 <= LINE <= the input's
 * lines + 1, printable. Lines as YAML counts them: CR, LF, CR LF, NEL, LS and
 * PS all break a line (libyaml; UTF-16 input too), so the bound counts every
 * byte that may be part of one (an upper bound, \r\n twice). */
static void check_failure(int rc, const wc_error *err, const char *path, const uint8_t *data,
                          size_t size)
{
    FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM, "rc %d (%s)", rc, err->msg);
    size_t plen = strlen(path), lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] && strchr("\n\r\x85\xa8\xa9\x28\x29", data[i]) != NULL;
    FUZZ_CHECK(fuzz_printable(err->msg), "message not printable '%s'", err->msg);
    if (rc == -ENOMEM)
        return;
    char *end = NULL;
    unsigned long line = strncmp(err->msg, path, plen) == 0 && err->msg[plen] == ':'
                             ? strtoul(err->msg + plen + 1, &end, 10)
                             : 0;
    FUZZ_CHECK(end && *end == ':' && line >= 1 && line <= lines + 1,
               "message does not name %s and a line of %zu: '%s'", path, lines, err->msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wc_kepler_config c, again;
    wc_error err = {{0}};
    char path[512];
    snprintf(path, sizeof path, "%s",
             fuzz_write_file(fuzz_scratch(), "config.yaml", data, size));
    int rc = wc_kepler_config_load(path, &c, &err);
    if (rc) {
        check_failure(rc, &err, path, data, size);
        return 0;
    }
    check(&c);
    size_t len = 0;
    char *text = write_back(&c, &len);
    const char *back = fuzz_write_file(fuzz_scratch(), "again.yaml", text, len);
    rc = wc_kepler_config_load(back, &again, &err);
    FUZZ_CHECK(rc == 0, "the config written back does not load: %s\n%s", err.msg, text);
    compare(&c, &again, text);
    free(text);
    return 0;
}
