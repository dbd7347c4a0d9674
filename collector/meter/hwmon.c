/*
 * hwmon.c — hwmon power/energy sensor discovery and one reading per sensor
 * (see hwmon.h). Mirrors Kepler HEAD's internal/device/hwmon_power_meter.go
 * and hwmon_chip_rules.go (kepler-model.md §2.4) with two differences that
 * only make the result deterministic or honest: sensors are in index order
 * (Kepler: Go map order), and a power reading of 4294967295000 µW — the ACPI
 * power meter's error marker 0xFFFFFFFF mW × 1000 — is reported as an error
 * (Kepler would read 4.29 MW). And one that only adds: a chip's device/
 * directory is read too, as the kernel's hwmon ABI allows and libsensors
 * does (the ACPI power_meter layout, issue 14 item 4); such sensors say so
 * (in_device), since Kepler lists the chip directory only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "collector/meter/hwmon.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/wc_fs.h"
#include "common/wc_text.h"

/* 0xFFFFFFFF mW in µW: acpi_power_meter's "error" value (lm-sensors#460). */
#define ACPI_ERROR_MARKER_UW 4294967295000ULL

/* ---- small text helpers ------------------------------------------------ */


static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Trims ASCII whitespace at both ends in place (Go's strings.TrimSpace). */
static char *trim_space(char *s)
{
    while (is_space(*s))
        s++;
    size_t len = strlen(s);
    while (len > 0 && is_space(s[len - 1]))
        s[--len] = '\0';
    return s;
}

void wc_hwmon_clean_name(const char *in, char *out, size_t cap)
{
    if (cap == 0)
        return;
    size_t n = 0;
    int continuation = 0; /* UTF-8 bytes still belonging to the last rune */
    for (const unsigned char *p = (const unsigned char *)in; *p && n + 1 < cap; p++) {
        unsigned char c = *p;
        if (continuation > 0 && c >= 0x80 && c < 0xC0) {
            continuation--; /* one rune, one '_' (Go's regexp works on runes) */
            continue;
        }
        continuation = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        int ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == ':' || c == '_';
        if (!ok && n == 0)
            continue; /* would be trimmed as a leading '_' */
        if (!(c == '_' && n == 0))
            out[n++] = ok ? (char)c : '_';
    }
    while (n > 0 && out[n - 1] == '_')
        n--;
    out[n] = '\0';
}

const char *wc_hwmon_kind_name(wc_hwmon_kind k)
{
    switch (k) {
    case WC_HWMON_ENERGY: return "energy";
    case WC_HWMON_POWER: return "power";
    case WC_HWMON_VOLTAGE_CURRENT: return "voltage_current";
    }
    return "unknown";
}

const char *wc_hwmon_pairing_name(wc_hwmon_pairing p)
{
    switch (p) {
    case WC_HWMON_PAIR_NONE: return "none";
    case WC_HWMON_PAIR_LABEL: return "label";
    case WC_HWMON_PAIR_CHIP_RULE: return "chip_rule";
    case WC_HWMON_PAIR_SAME_INDEX: return "same_index";
    }
    return "none";
}

const char *wc_hwmon_unit(wc_hwmon_kind k) { return k == WC_HWMON_ENERGY ? "uJ" : "uW"; }

/* ---- channels of one chip ---------------------------------------------- */

/* Sensor types Kepler looks at, in file-name prefix form. */
enum { T_ENERGY = 0, T_POWER, T_IN, T_CURR, T_COUNT };
static const char *const TYPE_PREFIX[T_COUNT] = {"energy", "power", "in", "curr"};

/* Properties of a channel that matter (bit flags). */
enum { P_INPUT = 1, P_AVERAGE = 2, P_LABEL = 4 };

/* One channel <type>N with the property files it has. */
typedef struct hw_chan {
    int index;
    unsigned props;
    int dev;              /* its files are in the chip's device/ directory (older layout) */
} hw_chan;

/* Prefix of a channel's files relative to the chip directory. */
static const char *chan_dir(int dev) { return dev ? "device/" : ""; }

typedef struct hw_chans {
    hw_chan *v;
    size_t n, cap;
} hw_chans;

/* Everything needed while one chip is examined. */
typedef struct hw_chip_ctx {
    wc_hwmon_scan *scan;
    size_t chip;          /* index in scan->chips */
    hw_chans types[T_COUNT];
} hw_chip_ctx;

static void chans_free(hw_chip_ctx *c)
{
    for (int t = 0; t < T_COUNT; t++) {
        free(c->types[t].v);
        c->types[t].v = NULL;
        c->types[t].n = c->types[t].cap = 0;
    }
}

/* Finds or appends channel `index` of a type. Returns it, NULL on ENOMEM. */
static hw_chan *chan_get(hw_chans *cs, int index)
{
    for (size_t i = 0; i < cs->n; i++)
        if (cs->v[i].index == index)
            return &cs->v[i];
    if (cs->n == cs->cap) {
        size_t ncap = cs->cap ? cs->cap * 2 : 8;
        hw_chan *nv = realloc(cs->v, ncap * sizeof *nv);
        if (!nv)
            return NULL;
        cs->v = nv;
        cs->cap = ncap;
    }
    cs->v[cs->n] = (hw_chan){.index = index, .props = 0, .dev = -1};
    return &cs->v[cs->n++];
}

/* Parses "<prefix><digits>_<property>" (Kepler's ^type(\d+)_(.+)$). Returns
 * the type (T_*) and fills index/property, or -1 when the name is not one. */
static int parse_channel_file(const char *name, int *index, const char **property)
{
    for (int t = 0; t < T_COUNT; t++) {
        size_t pl = strlen(TYPE_PREFIX[t]);
        if (strncmp(name, TYPE_PREFIX[t], pl) != 0)
            continue;
        const char *p = name + pl;
        long v = 0;
        size_t nd = 0;
        while (p[nd] >= '0' && p[nd] <= '9' && nd < 9)
            v = v * 10 + (p[nd++] - '0');
        if (nd == 0 || p[nd] != '_' || p[nd + 1] == '\0')
            continue;
        *index = (int)v;
        *property = p + nd + 1;
        return t;
    }
    return -1;
}

static unsigned property_flag(const char *property)
{
    if (strcmp(property, "input") == 0)
        return P_INPUT;
    if (strcmp(property, "average") == 0)
        return P_AVERAGE;
    if (strcmp(property, "label") == 0)
        return P_LABEL;
    return 0; /* enable, cap, max, ... : the channel exists, nothing more */
}

/* True when dir/name is a directory itself (not followed through links, as
 * Go's DirEntry.IsDir()). */
static int entry_is_dir(int dfd, const struct dirent *d)
{
    if (d->d_type != DT_UNKNOWN)
        return d->d_type == DT_DIR;
    struct stat st;
    return fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

static int by_index(const void *a, const void *b)
{
    int x = ((const hw_chan *)a)->index, y = ((const hw_chan *)b)->index;
    return (x > y) - (x < y);
}

/* Lists a chip directory (dev 0) or its device/ directory (dev 1) into
 * ctx->types, each sorted by index. The kernel's hwmon ABI
 * (Documentation/hwmon/sysfs-interface.rst) lets a driver put its attributes
 * in either, libsensors reads both: a channel found in the chip directory
 * keeps its files there, one found only in device/ reads them from device/
 * (ACPI power_meter, issue 14 item 4). */
static int collect_channels(hw_chip_ctx *ctx, const char *dir, int dev, wc_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;
        if (dev)
            return 0; /* no (readable) device/ directory: the chip directory is all */
        return wc_error_set(err, -e, "%s: cannot list: %s", dir, strerror(e));
    }
    int rc = 0;
    for (struct dirent *de; rc == 0 && (de = readdir(d)) != NULL;) {
        int index;
        const char *property;
        int t = parse_channel_file(de->d_name, &index, &property);
        if (t < 0 || entry_is_dir(dirfd(d), de))
            continue;
        hw_chan *ch = chan_get(&ctx->types[t], index);
        if (!ch) {
            rc = wc_error_set(err, -ENOMEM, "%s: out of memory", dir);
        } else if (ch->dev == -1 || ch->dev == dev) {
            ch->dev = dev;
            ch->props |= property_flag(property);
        }
    }
    closedir(d);
    for (int t = 0; t < T_COUNT; t++)
        if (ctx->types[t].n > 1)
            qsort(ctx->types[t].v, ctx->types[t].n, sizeof(hw_chan), by_index);
    return rc;
}

/* ---- per-channel files ------------------------------------------------- */

static const wc_hwmon_chip *ctx_chip(const hw_chip_ctx *ctx)
{
    return &ctx->scan->chips[ctx->chip];
}

/* Kepler's isSensorEnabled: disabled only when <type>N_enable reads "0". */
static int channel_enabled(const hw_chip_ctx *ctx, int type, int index, int dev)
{
    char path[PATH_MAX], text[32];
    if (wc_path(path, sizeof path, ctx_chip(ctx)->dir, "%s%s%d_enable", chan_dir(dev),
                TYPE_PREFIX[type], index) != 0 ||
        wc_read_text(path, text, sizeof text, NULL, NULL) != 0)
        return 1;
    return strcmp(trim_space(text), "0") != 0;
}

/* Reads <type>N_label: raw (trimmed, verbatim) and cleaned. Both "" when the
 * channel has no readable label. */
static void channel_label(const hw_chip_ctx *ctx, int type, const hw_chan *ch, char *raw,
                          size_t raw_cap, char *clean, size_t clean_cap)
{
    raw[0] = clean[0] = '\0';
    if (!(ch->props & P_LABEL))
        return;
    char path[PATH_MAX], text[512];
    if (wc_path(path, sizeof path, ctx_chip(ctx)->dir, "%s%s%d_label", chan_dir(ch->dev),
                TYPE_PREFIX[type], ch->index) != 0)
        return;
    int rc = wc_read_text(path, text, sizeof text, NULL, NULL);
    if (rc != 0 && rc != -EFBIG)
        return;
    wc_copy_trunc(raw, raw_cap, trim_space(text));
    wc_hwmon_clean_name(raw, clean, clean_cap);
}

/* Reads one unsigned decimal file of the chip into *out; on failure sets
 * s->status/s->error. */
static int read_chip_u64(const hw_chip_ctx *ctx, const char *file, uint64_t *out,
                         wc_hwmon_sensor *s)
{
    char path[PATH_MAX];
    wc_error e;
    e.msg[0] = '\0';
    int rc = wc_path(path, sizeof path, ctx_chip(ctx)->dir, "%s", file);
    if (rc == 0)
        rc = wc_read_u64(path, out, &e);
    else
        wc_error_set(&e, rc, "%s/%s: path too long", ctx_chip(ctx)->dir, file);
    if (rc != 0) {
        s->status = rc;
        wc_copy_trunc(s->error, sizeof s->error, e.msg);
    }
    return rc;
}

/* Takes the one reading of a sensor. */
static void read_sensor(const hw_chip_ctx *ctx, wc_hwmon_sensor *s)
{
    s->status = 0;
    s->error[0] = '\0';
    if (s->kind == WC_HWMON_ENERGY) {
        (void)read_chip_u64(ctx, s->file, &s->energy_uj, s);
        return;
    }
    if (s->kind == WC_HWMON_POWER) {
        if (read_chip_u64(ctx, s->file, &s->power_uw, s) == 0 &&
            s->power_uw == ACPI_ERROR_MARKER_UW) {
            s->status = -ERANGE;
            snprintf(s->error, sizeof s->error,
                     "%s/%s: 4294967295000 uW is the ACPI power meter's error marker "
                     "(0xFFFFFFFF mW), not a reading",
                     ctx_chip(ctx)->entry, s->file);
        }
        return;
    }
    if (read_chip_u64(ctx, s->file, &s->voltage_mv, s) != 0 ||
        read_chip_u64(ctx, s->current_file, &s->current_ma, s) != 0)
        return;
    if (__builtin_mul_overflow(s->voltage_mv, s->current_ma, &s->power_uw)) {
        s->status = -ERANGE;
        snprintf(s->error, sizeof s->error, "%s: %s x %s overflows 64 bits",
                 ctx_chip(ctx)->entry, s->file, s->current_file);
    }
}

/* ---- sensors ----------------------------------------------------------- */

/* Appends a zeroed sensor for the current chip; NULL on ENOMEM. */
static wc_hwmon_sensor *sensor_new(hw_chip_ctx *ctx, size_t *cap)
{
    wc_hwmon_scan *sc = ctx->scan;
    if (sc->nsensors == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        wc_hwmon_sensor *nv = realloc(sc->sensors, ncap * sizeof *nv);
        if (!nv)
            return NULL;
        sc->sensors = nv;
        *cap = ncap;
    }
    wc_hwmon_sensor *s = &sc->sensors[sc->nsensors++];
    memset(s, 0, sizeof *s);
    s->chip = ctx->chip;
    s->voltage_index = s->current_index = -1;
    sc->chips[ctx->chip].nsensors++;
    return s;
}

/* Name from the cleaned label, else "<chip>_<what><index>". */
static void sensor_name(const hw_chip_ctx *ctx, const char *clean_label, const char *what,
                        int index, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    if (clean_label[0])
        wc_copy_trunc(out, cap, clean_label);
    else
        wc_append(out, cap, &used, "%s_%s%d", ctx_chip(ctx)->chip, what, index);
}

/* Tier 1 (energy) or 2 (power): one sensor per enabled channel with an input
 * (power: *_average preferred). Returns the count added, or -ENOMEM. */
static int direct_tier(hw_chip_ctx *ctx, int type, size_t *cap)
{
    int added = 0;
    const hw_chans *cs = &ctx->types[type];
    for (size_t i = 0; i < cs->n; i++) {
        const hw_chan *ch = &cs->v[i];
        if (!channel_enabled(ctx, type, ch->index, ch->dev)) {
            ctx->scan->chips[ctx->chip].disabled++;
            continue;
        }
        int use_avg = type == T_POWER && (ch->props & P_AVERAGE);
        if (!use_avg && !(ch->props & P_INPUT))
            continue; /* Kepler: "no input file" */
        wc_hwmon_sensor *s = sensor_new(ctx, cap);
        if (!s)
            return -ENOMEM;
        char clean[128];
        channel_label(ctx, type, ch, s->label, sizeof s->label, clean, sizeof clean);
        sensor_name(ctx, clean, TYPE_PREFIX[type], ch->index, s->name, sizeof s->name);
        s->kind = type == T_ENERGY ? WC_HWMON_ENERGY : WC_HWMON_POWER;
        s->index = ch->index;
        snprintf(s->file, sizeof s->file, "%s%s%d_%s", chan_dir(ch->dev), TYPE_PREFIX[type],
                 ch->index, use_avg ? "average" : "input");
        s->in_device = ch->dev == 1;
        read_sensor(ctx, s);
        added++;
    }
    return added;
}

/* ---- tier 3: voltage × current ----------------------------------------- */

/* A usable voltage or current channel: enabled, with an input. */
typedef struct vi_chan {
    int index;
    int dev;              /* files in device/ */
    int has_average;
    char raw_label[128];
    char label[128];      /* cleaned; "" none */
} vi_chan;

typedef struct vi_side {
    vi_chan *v;
    size_t n;
} vi_side;

/* Builds the usable channels of type T_IN or T_CURR. Returns 0 or -ENOMEM. */
static int vi_collect(hw_chip_ctx *ctx, int type, vi_side *out)
{
    const hw_chans *cs = &ctx->types[type];
    out->n = 0;
    out->v = calloc(cs->n ? cs->n : 1, sizeof *out->v);
    if (!out->v)
        return -ENOMEM;
    for (size_t i = 0; i < cs->n; i++) {
        const hw_chan *ch = &cs->v[i];
        if (!(ch->props & P_INPUT))
            continue;
        if (!channel_enabled(ctx, type, ch->index, ch->dev)) {
            ctx->scan->chips[ctx->chip].disabled++;
            continue;
        }
        vi_chan *vc = &out->v[out->n++];
        vc->index = ch->index;
        vc->dev = ch->dev == 1;
        vc->has_average = (ch->props & P_AVERAGE) != 0;
        channel_label(ctx, type, ch, vc->raw_label, sizeof vc->raw_label, vc->label,
                      sizeof vc->label);
    }
    return 0;
}

static const vi_chan *vi_by_index(const vi_side *s, int index)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].index == index)
            return &s->v[i];
    return NULL;
}

static const vi_chan *vi_by_label(const vi_side *s, const char *label)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].label[0] && strcmp(s->v[i].label, label) == 0)
            return &s->v[i];
    return NULL;
}

/* Adds one voltage × current sensor (Kepler's createCalculatedZone). */
static int vi_add(hw_chip_ctx *ctx, size_t *cap, const vi_chan *v, const vi_chan *c,
                  wc_hwmon_pairing how)
{
    wc_hwmon_sensor *s = sensor_new(ctx, cap);
    if (!s)
        return -ENOMEM;
    s->kind = WC_HWMON_VOLTAGE_CURRENT;
    s->pairing = how;
    s->voltage_index = v->index;
    s->current_index = c->index;
    s->index = how == WC_HWMON_PAIR_LABEL ? c->index : v->index;
    wc_copy_trunc(s->label, sizeof s->label, v->raw_label);
    sensor_name(ctx, v->label, "power", v->index, s->name, sizeof s->name);
    const char *prop = v->has_average && c->has_average ? "average" : "input";
    snprintf(s->file, sizeof s->file, "%sin%d_%s", chan_dir(v->dev), v->index, prop);
    snprintf(s->current_file, sizeof s->current_file, "%scurr%d_%s", chan_dir(c->dev), c->index,
             prop);
    s->in_device = v->dev || c->dev;
    read_sensor(ctx, s);
    return 1;
}

/* Priority 1: identical cleaned labels. Returns the count added or -ENOMEM. */
static int vi_match_label(hw_chip_ctx *ctx, size_t *cap, const vi_side *v, const vi_side *c)
{
    int added = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (!v->v[i].label[0])
            continue;
        const vi_chan *cur = vi_by_label(c, v->v[i].label);
        if (!cur)
            continue;
        if (vi_add(ctx, cap, &v->v[i], cur, WC_HWMON_PAIR_LABEL) < 0)
            return -ENOMEM;
        added++;
    }
    return added;
}

/* Kepler's knownChipPairings (hwmon_chip_rules.go): same-index chips with
 * skip lists, or explicit "in:curr" pairings. Lists are comma-separated. */
typedef struct chip_rule {
    const char *driver;
    int same_index;
    const char *pairs;        /* "1:1" or "0:1,2:2"; "" for same-index chips */
    const char *skip_voltage; /* same-index chips only (Kepler ignores it for pairs) */
    const char *skip_current;
} chip_rule;

static const chip_rule CHIP_RULES[] = {
    {"ina3221", 1, "", "4,5,6,7", ""},
    {"ina226", 0, "1:1", "0", ""},
    {"ina219", 0, "1:1", "0", ""},
    {"ina209", 0, "1:1", "0", ""},
    {"ina238", 0, "1:1", "0", ""},
    {"ina260", 0, "1:1", "", ""},
    {"ina233", 0, "1:1", "2", ""},
    {"ltc2945", 0, "1:1", "2", ""},
    {"ltc2947", 0, "0:1", "", ""},
    {"ltc4260", 0, "1:1", "2", ""},
    {"ltc4261", 0, "1:1", "2", ""},
    {"ltc2992", 0, "0:1,2:2", "1,3,4,5", ""},
    {"ltc4282", 0, "1:1", "2,3,4", ""},
    {"adm1275", 0, "1:1", "", ""},
    {"adm1276", 0, "1:1", "", ""},
    {"adm1278", 0, "1:1", "", ""},
    {"adm1293", 0, "1:1", "", ""},
    {"max20730", 0, "2:1", "", ""},
    {"max20751", 0, "2:1", "", ""},
    {"max34440", 1, "", "", "7,8"},
    {"max34451", 1, "", "", ""},
    {"tps40422", 1, "", "", ""},
    {"tps53679", 1, "", "", ""},
    {"tps546d24", 1, "", "", ""},
    {"ir35221", 1, "", "", ""},
    {"xdpe12284", 1, "", "", ""},
    {"mp2975", 0, "1:1", "", "2,3,4,5,6,7,8"},
    {"pmbus", 1, "", "", ""},
    {"ucd9000", 1, "", "", ""},
    {"ucd90320", 1, "", "", ""},
};

static const chip_rule *chip_rule_for(const char *driver)
{
    for (size_t i = 0; i < sizeof CHIP_RULES / sizeof *CHIP_RULES; i++)
        if (driver[0] && strcmp(CHIP_RULES[i].driver, driver) == 0)
            return &CHIP_RULES[i];
    return NULL;
}

/* True when index appears in a comma-separated list of numbers. */
static int in_list(const char *list, int index)
{
    for (const char *p = list; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            return 0;
        if (v == index)
            return 1;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

/* Priority 2: the chip's rule. Returns the count added or -ENOMEM. */
static int vi_match_rule(hw_chip_ctx *ctx, size_t *cap, const vi_side *v, const vi_side *c)
{
    const chip_rule *r = chip_rule_for(ctx_chip(ctx)->driver);
    if (!r)
        return 0;
    int added = 0;
    if (r->same_index) {
        for (size_t i = 0; i < v->n; i++) {
            const vi_chan *cur = vi_by_index(c, v->v[i].index);
            if (in_list(r->skip_voltage, v->v[i].index) || !cur ||
                in_list(r->skip_current, v->v[i].index))
                continue;
            if (vi_add(ctx, cap, &v->v[i], cur, WC_HWMON_PAIR_CHIP_RULE) < 0)
                return -ENOMEM;
            added++;
        }
        return added;
    }
    for (const char *p = r->pairs; *p;) {
        char *end;
        int vi = (int)strtol(p, &end, 10);
        int ci = (int)strtol(end + 1, &end, 10);
        p = *end == ',' ? end + 1 : end;
        const vi_chan *vol = vi_by_index(v, vi), *cur = vi_by_index(c, ci);
        if (!vol || !cur)
            continue;
        if (vi_add(ctx, cap, vol, cur, WC_HWMON_PAIR_CHIP_RULE) < 0)
            return -ENOMEM;
        added++;
    }
    return added;
}

/* Priority 3: inN with currN. Returns the count added or -ENOMEM. */
static int vi_match_same_index(hw_chip_ctx *ctx, size_t *cap, const vi_side *v,
                               const vi_side *c)
{
    int added = 0;
    for (size_t i = 0; i < v->n; i++) {
        const vi_chan *cur = vi_by_index(c, v->v[i].index);
        if (!cur)
            continue;
        if (vi_add(ctx, cap, &v->v[i], cur, WC_HWMON_PAIR_SAME_INDEX) < 0)
            return -ENOMEM;
        added++;
    }
    return added;
}

/* Tier 3. Returns the count added or -ENOMEM; leaves a note when voltage and
 * current channels exist but none pair (Kepler's ErrVoltageCurrentNoLabels). */
static int vi_tier(hw_chip_ctx *ctx, size_t *cap)
{
    if (ctx->types[T_IN].n == 0 || ctx->types[T_CURR].n == 0)
        return 0;
    vi_side v = {0}, c = {0};
    int added = -ENOMEM;
    if (vi_collect(ctx, T_IN, &v) == 0 && vi_collect(ctx, T_CURR, &c) == 0) {
        added = vi_match_label(ctx, cap, &v, &c);
        if (added == 0)
            added = vi_match_rule(ctx, cap, &v, &c);
        if (added == 0)
            added = vi_match_same_index(ctx, cap, &v, &c);
        if (added == 0)
            snprintf(ctx->scan->chips[ctx->chip].note, sizeof ctx->scan->chips[ctx->chip].note,
                     "voltage and current channels without a pairing (no matching labels, "
                     "no chip rule, no common index)");
    }
    free(v.v);
    free(c.v);
    return added;
}

/* ---- chips ------------------------------------------------------------- */

/* basename of path into out, cleaned. */
static void clean_base(const char *path, char *out, size_t cap)
{
    const char *b = strrchr(path, '/');
    wc_hwmon_clean_name(b ? b + 1 : path, out, cap);
}

/* Kepler's getChipName from the `device` link: "<parent dir>_<device>". */
static int chip_name_from_device(const char *dir, char *out, size_t cap)
{
    char link[PATH_MAX], real[PATH_MAX];
    if (wc_path(link, sizeof link, dir, "device") != 0 || !realpath(link, real))
        return 0;
    char dev[128], type[128];
    clean_base(real, dev, sizeof dev);
    char *slash = strrchr(real, '/');
    if (slash && slash != real) {
        *slash = '\0';
        clean_base(real, type, sizeof type);
    } else {
        type[0] = '\0';
    }
    size_t used = 0;
    out[0] = '\0';
    if (type[0] && dev[0])
        wc_append(out, cap, &used, "%s_%s", type, dev);
    else
        wc_copy_trunc(out, cap, dev);
    return out[0] != '\0';
}

/* Fills chip->driver (the cleaned `name`) and chip->chip. */
static void name_chip(wc_hwmon_chip *chip)
{
    char path[PATH_MAX], text[256];
    chip->driver[0] = '\0';
    if (wc_path(path, sizeof path, chip->dir, "name") == 0 &&
        wc_read_text(path, text, sizeof text, NULL, NULL) == 0)
        wc_hwmon_clean_name(text, chip->driver, sizeof chip->driver);
    if (chip_name_from_device(chip->dir, chip->chip, sizeof chip->chip))
        return;
    if (chip->driver[0]) {
        wc_copy_trunc(chip->chip, sizeof chip->chip, chip->driver);
        return;
    }
    char real[PATH_MAX];
    clean_base(realpath(chip->dir, real) ? real : chip->dir, chip->chip, sizeof chip->chip);
}

/* Examines one chip: channels, then the first tier that yields sensors. */
static int scan_chip(wc_hwmon_scan *sc, size_t chip, size_t *cap, wc_error *err)
{
    hw_chip_ctx ctx = {.scan = sc, .chip = chip};
    wc_hwmon_chip *ch = &sc->chips[chip];
    name_chip(ch);
    ch->tier = -1;
    wc_error lerr;
    char devdir[PATH_MAX];
    if (collect_channels(&ctx, ch->dir, 0, &lerr) != 0 ||
        (wc_path(devdir, sizeof devdir, ch->dir, "device") == 0 &&
         collect_channels(&ctx, devdir, 1, &lerr) != 0)) {
        chans_free(&ctx);
        wc_copy_trunc(ch->note, sizeof ch->note, lerr.msg);
        return 0; /* Kepler: log and continue with the other chips */
    }
    int added = direct_tier(&ctx, T_ENERGY, cap);
    int tier = WC_HWMON_ENERGY;
    if (added == 0) {
        added = direct_tier(&ctx, T_POWER, cap);
        tier = WC_HWMON_POWER;
    }
    if (added == 0) {
        added = vi_tier(&ctx, cap);
        tier = WC_HWMON_VOLTAGE_CURRENT;
    }
    chans_free(&ctx);
    if (added < 0)
        return wc_error_set(err, -ENOMEM, "%s: out of memory", ch->dir);
    ch->tier = added > 0 ? tier : -1;
    sc->disabled += ch->disabled;
    return 0;
}

static int skip_dots(const struct dirent *d) { return d->d_name[0] != '.'; }

/* strcmp order, independent of the locale. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Kepler takes entries that are directories or symlinks. */
static int is_chip_entry(const char *class_dir, const char *name)
{
    char path[PATH_MAX];
    struct stat st;
    if (wc_path(path, sizeof path, class_dir, "%s", name) != 0 || lstat(path, &st) != 0)
        return 0;
    return S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode);
}

/* Adds the chips of a listing to sc->chips. */
static int add_chips(wc_hwmon_scan *sc, struct dirent **names, int n, wc_error *err)
{
    sc->chips = calloc(n > 0 ? (size_t)n : 1, sizeof *sc->chips);
    if (!sc->chips)
        return wc_error_set(err, -ENOMEM, "%s: out of memory", sc->class_dir);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (!is_chip_entry(sc->class_dir, name))
            continue;
        wc_hwmon_chip *ch = &sc->chips[sc->nchips];
        if (wc_path(ch->dir, sizeof ch->dir, sc->class_dir, "%s", name) != 0)
            continue; /* cannot be a real hwmon entry */
        wc_copy_trunc(ch->entry, sizeof ch->entry, name);
        sc->nchips++;
    }
    return 0;
}

int wc_hwmon_scan_sysfs(const char *sysfs_root, wc_hwmon_scan *out, wc_error *err)
{
    memset(out, 0, sizeof *out);
    if (wc_path(out->class_dir, sizeof out->class_dir, sysfs_root ? sysfs_root : "/sys",
                "class/hwmon") != 0)
        return wc_error_set(err, -ENAMETOOLONG, "hwmon: sysfs root too long: %s", sysfs_root);
    struct dirent **names = NULL;
    int n = scandir(out->class_dir, &names, skip_dots, by_name);
    if (n < 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR)
            return 0;
        return wc_error_set(err, -e, "%s: cannot list: %s", out->class_dir, strerror(e));
    }
    out->present = 1;
    int rc = add_chips(out, names, n, err);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    size_t cap = 0;
    for (size_t c = 0; rc == 0 && c < out->nchips; c++)
        rc = scan_chip(out, c, &cap, err);
    return rc;
}

void wc_hwmon_scan_free(wc_hwmon_scan *s)
{
    if (!s)
        return;
    free(s->chips);
    free(s->sensors);
    s->chips = NULL;
    s->sensors = NULL;
    s->nchips = s->nsensors = s->disabled = 0;
}
