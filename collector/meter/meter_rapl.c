/*
 * meter_rapl.c — the RAPL meter over the powercap sysfs class (meter_rapl.h).
 *
 * Discovery follows Kepler's listing (kepler-model.md §2.2:
 * internal/device/rapl_sysfs_power_meter.go, procfs sysfs/class_powercap.go)
 * where that is right, and wattcal's corrections where it is not:
 *   - every entry of <sysfs_root>/class/powercap, in strcmp order, with a
 *     readable non-empty `name` is a zone; control-type dirs have no `name`;
 *   - the name "word-N" (or the multi-die "word-N-die-M") gives name "word"
 *     and socket N; die zones of one socket and domain (some AMD EPYC) are
 *     read three times 10 ms apart at discovery: zones that mirror one
 *     counter (the same value read after read) are one zone, counted once;
 *     distinct dies stay zones of their socket, summed (issue 14 item 1); a subzone "<type>:X:Y" takes its socket from its parent
 *     "<type>:X"'s name, never from a directory index (B07), and its domain
 *     from its own `name` file (B08); psys is socket -1;
 *   - an intel-rapl-mmio zone that duplicates a readable MSR (intel-rapl:)
 *     zone of the same name and socket is dropped (B09); without a twin it
 *     is kept;
 *   - `enabled` (1/0/-1 absent) and max_energy_range_uj (0 when missing or
 *     unreadable) are recorded; unlike Kepler a missing range is not fatal,
 *     counter.c then flags decreasing intervals NO_RANGE (B03);
 *   - energy_uj is read once: EACCES is fatal with the fix spelled out (B05,
 *     CVE-2020-8694); a zone whose energy_uj is absent or not a number is
 *     skipped (it can never be measured) and counted in the description.
 * Every read opens each zone's precomputed energy_uj path afresh, so a zone
 * whose directory vanished (package offline, B25) reads -ENOENT while the
 * others still read. A vanished zone is looked for again on every read: its
 * own directory under its own `name`, else any entry with that name (and,
 * for a subzone, its parent's), whose max_energy_range_uj is re-read
 * (issue 14 item 6; m->layout_version says the path or range changed).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "collector/meter/meter_rapl.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/wc_clock.h"
#include "common/wc_fs.h"
#include "common/wc_text.h"

/* Room for a zone directory (wc_zone.path) plus "/energy_uj". */
#define RAPL_FILE_PATH_MAX (sizeof(((wc_zone *)0)->path) + 32)

/* What the RAPL meter keeps between discover and close. */
typedef struct rapl_priv {
    char class_dir[512];                     /* <sysfs_root>/class/powercap */
    char (*energy_path)[RAPL_FILE_PATH_MAX]; /* per zone, nzones entries */
    unsigned char *absent;                   /* per zone: its directory vanished (B25) */
} rapl_priv;

/* One powercap entry that has a readable `name`, before selection. */
typedef struct rapl_cand {
    char entry[256];        /* directory entry, e.g. "intel-rapl:0:1" */
    char raw[64];           /* `name` verbatim */
    char base[32];          /* name with "-N" stripped */
    int num;                /* N of "word-N", -1 when none */
    int socket;             /* resolved socket, -1 none */
    int parent;             /* candidate index of "<type>:X" for "<type>:X:Y", -1 */
    int enabled;            /* 1, 0, -1 absent */
    uint64_t max_uj;        /* 0 unknown */
    int energy_rc;          /* result of the discovery read of energy_uj */
    int zone;               /* index in the kept zone array, -1 dropped/skipped */
    int die;                /* M of "word-N-die-M", -1 when none */
    int dies;               /* die zones of its (socket, domain) group; 0 when no die zone */
    int mirrored;           /* 1: the group mirrors one counter */
    int die_copy;           /* dropped: a copy of its group's first die zone (or its subzone) */
} rapl_cand;

static const char CVE_HINT[] =
    "energy_uj is readable only by root since CVE-2020-8694: run as root, or grant "
    "CAP_DAC_READ_SEARCH, or a udev rule giving a group read access";

/* ---- name parsing ------------------------------------------------------ */


/* Parses up to 9 decimal digits at s; returns how many (0 = none). */
static size_t parse_small_uint(const char *s, int *out)
{
    size_t n = 0;
    int v = 0;
    while (n < 9 && s[n] >= '0' && s[n] <= '9') {
        v = v * 10 + (s[n] - '0');
        n++;
    }
    if (n == 9 && s[n] >= '0' && s[n] <= '9')
        return 0; /* too long to be a socket number */
    *out = v;
    return n;
}

/* True when s is "" or "-die-<digits>" (the kernel's multi-die suffix). */
static int is_end_or_die_suffix(const char *s)
{
    if (*s == '\0')
        return 1;
    if (strncmp(s, "-die-", 5) != 0)
        return 0;
    int die;
    size_t n = parse_small_uint(s + 5, &die);
    return n > 0 && s[5 + n] == '\0';
}

/* M of a "word-N-die-M" name (the kernel's multi-die package zones, some AMD
 * EPYC), -1 for any other name. */
static int die_of(const char *raw)
{
    const char *d = strstr(raw, "-die-");
    int m;
    if (!d || !is_end_or_die_suffix(d))
        return -1;
    return parse_small_uint(d + 5, &m) ? m : -1;
}

/* Splits a powercap `name` into its domain and number: "package-1" →
 * ("package", 1); "package-0-die-1" → ("package", 0); "dram" → ("dram", -1).
 * Kepler: internal/device/rapl_sysfs_power_meter.go (name-index rule). */
static void split_zone_name(const char *raw, char *base, size_t cap, int *num)
{
    *num = -1;
    for (const char *dash = strchr(raw, '-'); dash; dash = strchr(dash + 1, '-')) {
        int v;
        size_t n = parse_small_uint(dash + 1, &v);
        if (dash == raw || n == 0 || !is_end_or_die_suffix(dash + 1 + n))
            continue;
        size_t len = (size_t)(dash - raw);
        if (len >= cap)
            len = cap - 1;
        memcpy(base, raw, len);
        base[len] = '\0';
        *num = v;
        return;
    }
    wc_copy_trunc(base, cap, raw);
}

/* Length of the parent entry name of a subzone ("intel-rapl:0:1" →
 * strlen("intel-rapl:0")), 0 for a top-level zone (one ':' or none). */
static size_t parent_prefix_len(const char *entry)
{
    const char *first = strchr(entry, ':');
    const char *last = strrchr(entry, ':');
    if (!first || first == last)
        return 0;
    return (size_t)(last - entry);
}

static int is_msr_entry(const char *entry) { return strncmp(entry, "intel-rapl:", 11) == 0; }
static int is_mmio_entry(const char *entry) { return strncmp(entry, "intel-rapl-mmio:", 16) == 0; }

/* ---- listing ----------------------------------------------------------- */

static int skip_dots(const struct dirent *d) { return d->d_name[0] != '.'; }

/* strcmp order: lexical, independent of the locale (alphasort uses strcoll). */
static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Lists class_dir into *names (strcmp order). Returns the count, or -ENODEV
 * (absent) / -errno with err set. */
static int list_class_dir(const char *class_dir, struct dirent ***names, wc_error *err)
{
    int n = scandir(class_dir, names, skip_dots, by_name);
    if (n >= 0)
        return n;
    int e = errno;
    if (e == ENOENT || e == ENOTDIR)
        return wc_error_set(err, -ENODEV,
                            "no RAPL: %s does not exist (looked for powercap zones with a "
                            "`name` file there; no powercap driver, or not this host's /sys)",
                            class_dir);
    if (e == EACCES)
        return wc_error_set(err, -EACCES, "%s: cannot list: %s (run as root)", class_dir,
                            strerror(e));
    return wc_error_set(err, -e, "%s: cannot list: %s", class_dir, strerror(e));
}

static void free_listing(struct dirent **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* ---- per-candidate discovery ------------------------------------------- */

/* Reads `enabled`: 1, 0, or -1 when absent/unreadable. */
static int read_enabled(const char *dir)
{
    char path[RAPL_FILE_PATH_MAX];
    uint64_t v;
    if (wc_path(path, sizeof path, dir, "enabled") != 0 || wc_read_u64(path, &v, NULL) != 0)
        return -1;
    return v ? 1 : 0;
}

/* Reads max_energy_range_uj: 0 when missing, unreadable or not a number. */
static uint64_t read_max_range(const char *dir)
{
    char path[RAPL_FILE_PATH_MAX];
    uint64_t v;
    if (wc_path(path, sizeof path, dir, "max_energy_range_uj") != 0 ||
        wc_read_u64(path, &v, NULL) != 0)
        return 0;
    return v;
}

/* Fills c for class_dir/entry. Returns 1 when the entry is a zone candidate
 * (readable non-empty `name`), 0 when it is not, or -EACCES (err set) when
 * its energy_uj is root-only. */
static int probe_entry(const char *class_dir, const char *entry, rapl_cand *c, wc_error *err)
{
    char dir[sizeof(((wc_zone *)0)->path)];
    char path[RAPL_FILE_PATH_MAX];
    if (wc_path(dir, sizeof dir, class_dir, "%s", entry) != 0 ||
        wc_path(path, sizeof path, dir, "name") != 0)
        return 0; /* too long to be a powercap zone */
    memset(c, 0, sizeof *c);
    if (wc_read_line(path, c->raw, sizeof c->raw, NULL) != 0 || c->raw[0] == '\0')
        return 0;
    wc_copy_trunc(c->entry, sizeof c->entry, entry);
    split_zone_name(c->raw, c->base, sizeof c->base, &c->num);
    c->die = die_of(c->raw);
    c->enabled = read_enabled(dir);
    c->max_uj = read_max_range(dir);
    c->parent = -1;
    c->zone = -1;
    uint64_t energy_uj;
    if (wc_path(path, sizeof path, dir, "energy_uj") != 0)
        return 0;
    c->energy_rc = wc_read_u64(path, &energy_uj, NULL);
    if (c->energy_rc == -EACCES || c->energy_rc == -EPERM)
        return wc_error_set(err, -EACCES, "%s: permission denied: %s", path, CVE_HINT);
    return 1;
}

/* Probes every listed entry into cands (capacity n); stores the count. */
static int probe_all(const char *class_dir, struct dirent **names, int n, rapl_cand *cands,
                     size_t *ncands, wc_error *err)
{
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        int rc = probe_entry(class_dir, names[i]->d_name, &cands[k], err);
        if (rc < 0)
            return rc;
        if (rc == 1)
            k++;
    }
    *ncands = k;
    return 0;
}

/* Index of the candidate whose entry is the first len bytes of name, -1. */
static int find_entry(const rapl_cand *cands, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(cands[i].entry) == len && strncmp(cands[i].entry, name, len) == 0)
            return (int)i;
    return -1;
}

/* Parents and sockets: a subzone inherits its parent's socket (B07), a
 * top-level zone has its own name's number, psys none. Candidates are in
 * strcmp order, so a parent is resolved before its children. */
static void resolve_sockets(rapl_cand *cands, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rapl_cand *c = &cands[i];
        size_t plen = parent_prefix_len(c->entry);
        c->parent = plen ? find_entry(cands, n, c->entry, plen) : -1;
        if (c->parent >= 0)
            c->socket = cands[c->parent].socket;
        else
            c->socket = c->num;
        if (strcmp(c->base, "psys") == 0)
            c->socket = -1;
    }
}

/* True when an MMIO candidate has a readable MSR twin (same name, socket). */
static int has_msr_twin(const rapl_cand *cands, size_t n, const rapl_cand *c)
{
    for (size_t i = 0; i < n; i++) {
        const rapl_cand *o = &cands[i];
        if (o->energy_rc == 0 && is_msr_entry(o->entry) && o->socket == c->socket &&
            strcmp(o->base, c->base) == 0)
            return 1;
    }
    return 0;
}

/* Counts of what selection left out, for the description and errors. */
typedef struct rapl_dropped {
    size_t mmio_dups;
    size_t unreadable;
    int first_unreadable;   /* candidate index, -1 */
    size_t die_copies;      /* die zones that mirrored another one (counted once) */
} rapl_dropped;

/* Marks which candidates become zones (c->zone = position). Returns how many. */
static size_t select_zones(rapl_cand *cands, size_t n, rapl_dropped *dropped)
{
    size_t kept = 0;
    dropped->mmio_dups = 0;
    dropped->unreadable = 0;
    dropped->first_unreadable = -1;
    dropped->die_copies = 0;
    for (size_t i = 0; i < n; i++) {
        rapl_cand *c = &cands[i];
        if (c->energy_rc != 0) {
            if (dropped->unreadable++ == 0)
                dropped->first_unreadable = (int)i;
            continue;
        }
        if (is_mmio_entry(c->entry) && has_msr_twin(cands, n, c)) {
            dropped->mmio_dups++;
            continue;
        }
        c->zone = (int)kept++;
    }
    return kept;
}

/* ---- per-die package zones (issue 14 item 1) ------------------------------ */

#define DIE_MAX 16          /* larger groups are taken as distinct dies, unchecked */
#define DIE_ROUNDS 3        /* sandwiched reads at discovery ... */
#define DIE_PAUSE_NS 10000000L /* ... 10 ms apart */

/* Reads class_dir/entry/energy_uj. 0 or -errno. */
static int read_energy(const char *class_dir, const char *entry, uint64_t *v)
{
    char path[RAPL_FILE_PATH_MAX];
    if (wc_path(path, sizeof path, class_dir, "%s/energy_uj", entry) != 0)
        return -ENAMETOOLONG;
    return wc_read_u64(path, v, NULL);
}

/* 1 when the die zones idx[0..n) mirror one counter: on every round each
 * other zone reads between two reads of the first (the same value read
 * after read, or a counter that moved on between the reads), and at least
 * one round was conclusive (the first zone did not wrap in between). 0 for
 * distinct dies, or when a read fails. */
static int dies_mirror(const char *class_dir, const rapl_cand *cands, const size_t *idx, size_t n)
{
    int conclusive = 0;
    for (int round = 0; round < DIE_ROUNDS; round++) {
        if (round)
            nanosleep(&(struct timespec){0, DIE_PAUSE_NS}, NULL);
        uint64_t a, b, v[DIE_MAX];
        if (read_energy(class_dir, cands[idx[0]].entry, &a) != 0)
            return 0;
        for (size_t j = 1; j < n; j++)
            if (read_energy(class_dir, cands[idx[j]].entry, &v[j]) != 0)
                return 0;
        if (read_energy(class_dir, cands[idx[0]].entry, &b) != 0)
            return 0;
        if (b < a)
            continue; /* wrapped between the reads: says nothing */
        for (size_t j = 1; j < n; j++)
            if (v[j] < a || v[j] > b)
                return 0;
        conclusive = 1;
    }
    return conclusive;
}

/* The kept top-level die zones with c's socket and domain, c first: their
 * candidate indices into idx (at most DIE_MAX + 1 looked at). */
static size_t die_group(const rapl_cand *cands, size_t n, size_t first, size_t *idx)
{
    const rapl_cand *c = &cands[first];
    size_t k = 0;
    for (size_t i = first; i < n && k <= DIE_MAX; i++) {
        const rapl_cand *o = &cands[i];
        if (o->zone >= 0 && o->die >= 0 && o->parent < 0 && !o->dies && o->socket == c->socket &&
            strcmp(o->base, c->base) == 0)
            idx[k++] = i;
    }
    return k;
}

/* Groups the die zones of each (socket, domain); a mirrored group keeps its
 * first zone only (its subzones go with the others). Renumbers the kept
 * zones; returns how many remain and counts the dropped copies. */
static size_t group_dies(const char *class_dir, rapl_cand *cands, size_t n, size_t *die_copies)
{
    *die_copies = 0;
    for (size_t i = 0; i < n; i++) {
        size_t idx[DIE_MAX + 1];
        if (cands[i].zone < 0 || cands[i].die < 0 || cands[i].parent >= 0 || cands[i].dies)
            continue;
        size_t k = die_group(cands, n, i, idx);
        int mirrored = k >= 2 && k <= DIE_MAX && dies_mirror(class_dir, cands, idx, k);
        for (size_t j = 0; j < k; j++) {
            cands[idx[j]].dies = (int)k;
            cands[idx[j]].mirrored = mirrored;
            if (mirrored && j > 0) {
                cands[idx[j]].zone = -1;
                cands[idx[j]].die_copy = 1;
                (*die_copies)++;
            }
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        rapl_cand *c = &cands[i];
        if (c->zone >= 0 && c->parent >= 0 && cands[c->parent].die_copy) {
            c->zone = -1; /* a subzone of a dropped copy is a copy too */
            c->die_copy = 1;
        }
        if (c->zone >= 0)
            c->zone = (int)kept++;
    }
    return kept;
}

/* Fills zone z from candidate c (zones[0..z) already filled). */
static void fill_zone(wc_zone *zones, size_t z, const rapl_cand *cands, const rapl_cand *c,
                      const char *class_dir)
{
    wc_zone *zn = &zones[z];
    memset(zn, 0, sizeof *zn);
    wc_copy_trunc(zn->name, sizeof zn->name, c->base);
    wc_copy_trunc(zn->raw_name, sizeof zn->raw_name, c->raw);
    (void)wc_path(zn->path, sizeof zn->path, class_dir, "%s", c->entry); /* fits: probed */
    zn->socket = c->socket;
    zn->parent = c->parent >= 0 ? cands[c->parent].zone : -1;
    zn->enabled = c->enabled;
    zn->max_energy_range_uj = c->max_uj;
    zn->kind = WC_KIND_COUNTER_UJ;
    zn->dies = c->dies > 1 ? c->dies : 0;
    zn->dies_mirrored = zn->dies ? c->mirrored : 0;
    zn->index = 0;
    for (size_t j = 0; j < z; j++)
        if (zones[j].socket == zn->socket && strcmp(zones[j].name, zn->name) == 0)
            zn->index++;
}

/* ---- description ------------------------------------------------------- */


/* Distinct sockets >= 0 of the zones named name. */
static size_t count_sockets_of(const wc_meter *m, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nzones; i++) {
        const wc_zone *z = &m->zones[i];
        int first = z->socket >= 0 && strcmp(z->name, name) == 0;
        for (size_t j = 0; first && j < i; j++)
            first = !(m->zones[j].socket == z->socket && strcmp(m->zones[j].name, name) == 0);
        n += first;
    }
    return n;
}

/* "; package-0: 2 die zones mirror one counter, counted once" or "; package-1:
 * 2 distinct die zones, summed", once per group (issue 14 item 1). */
static void describe_dies(const wc_meter *m, char *d, size_t cap, size_t *used)
{
    for (size_t i = 0; i < m->nzones; i++) {
        const wc_zone *z = &m->zones[i];
        int first = z->dies > 0;
        for (size_t j = 0; first && j < i; j++)
            first = !(m->zones[j].dies && m->zones[j].socket == z->socket &&
                      strcmp(m->zones[j].name, z->name) == 0);
        if (!first)
            continue;
        if (z->dies_mirrored)
            wc_append(d, cap, used, "; %s-%d: %d die zones mirror one counter, counted once",
                      z->name, z->socket, z->dies);
        else
            wc_append(d, cap, used, "; %s-%d: %d distinct die zones, summed", z->name, z->socket,
                      z->dies);
    }
}

/* "RAPL (powercap) at /sys/class/powercap: 2 packages, 2 dram, psys". */
static void describe(wc_meter *m, const char *class_dir, const rapl_dropped *dropped,
                     const rapl_cand *cands)
{
    char *d = m->description;
    size_t cap = sizeof m->description, used = 0;
    d[0] = '\0';
    wc_append(d, cap, &used, "RAPL (powercap) at %s:", class_dir);
    for (size_t i = 0; i < m->nzones; i++) {
        const char *name = m->zones[i].name;
        size_t count = 0, first = i;
        for (size_t j = 0; j < m->nzones; j++) {
            if (strcmp(m->zones[j].name, name) != 0)
                continue;
            if (j < first)
                first = j;
            count++;
        }
        if (first != i)
            continue; /* already described */
        const char *sep = i == 0 ? " " : ", ";
        size_t sockets = count_sockets_of(m, name);
        if (count == 1 && strcmp(name, "psys") == 0)
            wc_append(d, cap, &used, "%spsys", sep);
        else if (strcmp(name, "package") == 0 && sockets && sockets != count)
            wc_append(d, cap, &used, "%s%zu package zones on %zu socket%s", sep, count, sockets,
                      sockets == 1 ? "" : "s");
        else if (strcmp(name, "package") == 0)
            wc_append(d, cap, &used, "%s%zu package%s", sep, count, count == 1 ? "" : "s");
        else
            wc_append(d, cap, &used, "%s%zu %s", sep, count, name);
    }
    describe_dies(m, d, cap, &used);
    if (dropped->mmio_dups)
        wc_append(d, cap, &used, "; dropped %zu MMIO duplicate%s", dropped->mmio_dups,
               dropped->mmio_dups == 1 ? "" : "s");
    if (dropped->unreadable)
        wc_append(d, cap, &used, "; skipped %zu zone%s without readable energy_uj (%s)",
               dropped->unreadable, dropped->unreadable == 1 ? "" : "s",
               cands[dropped->first_unreadable].entry);
}

/* ---- ops --------------------------------------------------------------- */

static void rapl_free_zones(wc_meter *m)
{
    rapl_priv *p = m->priv;
    free(m->zones);
    m->zones = NULL;
    m->nzones = 0;
    if (p) {
        free(p->energy_path);
        p->energy_path = NULL;
        free(p->absent);
        p->absent = NULL;
    }
}

/* Allocates zones and energy paths for `kept` zones and fills them. */
static int build_zones(wc_meter *m, rapl_cand *cands, size_t n, size_t kept, wc_error *err)
{
    rapl_priv *p = m->priv;
    m->zones = calloc(kept, sizeof *m->zones);
    p->energy_path = calloc(kept, sizeof *p->energy_path);
    p->absent = calloc(kept, 1);
    if (!m->zones || !p->energy_path || !p->absent) {
        rapl_free_zones(m);
        return wc_error_set(err, -ENOMEM, "RAPL discovery: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        if (cands[i].zone < 0)
            continue;
        size_t z = (size_t)cands[i].zone;
        fill_zone(m->zones, z, cands, &cands[i], p->class_dir);
        if (wc_path(p->energy_path[z], sizeof p->energy_path[z], m->zones[z].path,
                    "energy_uj") != 0) {
            rapl_free_zones(m);
            return wc_error_set(err, -ENAMETOOLONG, "%s: path too long", m->zones[z].path);
        }
    }
    m->nzones = kept;
    return 0;
}

/* -ENODEV for a listing with candidates but none readable / none at all. */
static int no_zone_error(const char *class_dir, const rapl_cand *cands, size_t ncands,
                         const rapl_dropped *dropped, wc_error *err)
{
    if (ncands == 0)
        return wc_error_set(err, -ENODEV,
                            "no RAPL zone: %s has no entry with a readable, non-empty `name` "
                            "file (looked for <entry>/name, <entry>/energy_uj)",
                            class_dir);
    const rapl_cand *c = &cands[dropped->first_unreadable < 0 ? 0 : dropped->first_unreadable];
    return wc_error_set(err, -ENODEV,
                        "no readable RAPL zone under %s: %zu zone%s named but without a "
                        "readable energy_uj (first: %s/%s/energy_uj: %s)",
                        class_dir, ncands, ncands == 1 ? "" : "s", class_dir, c->entry,
                        strerror(-c->energy_rc));
}

static int rapl_discover(wc_meter *m, wc_error *err)
{
    rapl_priv *p = m->priv;
    rapl_free_zones(m);
    struct dirent **names = NULL;
    int n = list_class_dir(p->class_dir, &names, err);
    if (n < 0)
        return n;
    rapl_cand *cands = calloc(n > 0 ? (size_t)n : 1, sizeof *cands);
    if (!cands) {
        free_listing(names, n);
        return wc_error_set(err, -ENOMEM, "RAPL discovery: out of memory");
    }
    size_t ncands = 0;
    int rc = probe_all(p->class_dir, names, n, cands, &ncands, err);
    free_listing(names, n);
    if (rc == 0) {
        resolve_sockets(cands, ncands);
        rapl_dropped dropped;
        size_t kept = select_zones(cands, ncands, &dropped);
        if (kept)
            kept = group_dies(p->class_dir, cands, ncands, &dropped.die_copies);
        if (kept == 0)
            rc = no_zone_error(p->class_dir, cands, ncands, &dropped, err);
        else
            rc = build_zones(m, cands, ncands, kept, err);
        if (rc == 0)
            describe(m, p->class_dir, &dropped, cands);
    }
    free(cands);
    return rc;
}

/* ---- a zone that comes back (B25) -------------------------------------- */

/* True when class_dir/entry is zone z of m: its `name` is z's raw name and,
 * for a subzone, its parent entry's `name` is z's parent's (a top-level zone
 * must be top-level). The socket index may have moved (B25 expected.txt). */
static int entry_is_zone(const wc_meter *m, const char *class_dir, const char *entry,
                         const wc_zone *z)
{
    char path[RAPL_FILE_PATH_MAX], name[64];
    if (wc_path(path, sizeof path, class_dir, "%s/name", entry) != 0 ||
        wc_read_line(path, name, sizeof name, NULL) != 0 || strcmp(name, z->raw_name) != 0)
        return 0;
    size_t plen = parent_prefix_len(entry);
    if (z->parent < 0 || plen == 0)
        return z->parent < 0 && plen == 0;
    if (wc_path(path, sizeof path, class_dir, "%.*s/name", (int)plen, entry) != 0 ||
        wc_read_line(path, name, sizeof name, NULL) != 0)
        return 0;
    return strcmp(name, m->zones[z->parent].raw_name) == 0;
}

/* Points zone i at class_dir/entry and re-reads its range; bumps the
 * layout version when the path or the range changed. */
static void rebind_zone(wc_meter *m, size_t i, const char *entry)
{
    rapl_priv *p = m->priv;
    wc_zone *z = &m->zones[i];
    char dir[sizeof z->path], energy[RAPL_FILE_PATH_MAX];
    if (wc_path(dir, sizeof dir, p->class_dir, "%s", entry) != 0 ||
        wc_path(energy, sizeof energy, dir, "energy_uj") != 0)
        return;
    uint64_t range = read_max_range(dir);
    if (strcmp(dir, z->path) != 0 || range != z->max_energy_range_uj)
        m->layout_version++;
    memcpy(z->path, dir, sizeof dir);
    memcpy(p->energy_path[i], energy, sizeof energy);
    z->max_energy_range_uj = range;
    p->absent[i] = 0;
}

/* Looks for vanished zone i again: its own directory under its own name,
 * else any entry that names it (the index may have changed); name and range
 * are re-read (B25). 1 when found, 0 when still absent. */
static int rediscover(wc_meter *m, size_t i)
{
    rapl_priv *p = m->priv;
    const wc_zone *z = &m->zones[i];
    const char *own = strrchr(z->path, '/');
    if (own && entry_is_zone(m, p->class_dir, own + 1, z)) {
        rebind_zone(m, i, own + 1);
        return 1;
    }
    struct dirent **names = NULL;
    int n = scandir(p->class_dir, &names, skip_dots, by_name);
    int found = 0;
    for (int k = 0; k < n && !found; k++)
        if (entry_is_zone(m, p->class_dir, names[k]->d_name, z)) {
            rebind_zone(m, i, names[k]->d_name);
            found = 1;
        }
    free_listing(names, n > 0 ? n : 0);
    return found;
}

static int rapl_read(wc_meter *m, wc_reading *out, wc_error *err)
{
    rapl_priv *p = m->priv;
    int first_rc = 0;
    for (size_t i = 0; i < m->nzones; i++) {
        wc_error zerr;
        zerr.msg[0] = '\0';
        out[i].mono_ns = wc_mono_ns();
        if (p->absent[i] && !rediscover(m, i))
            out[i].status = wc_error_set(&zerr, -ENOENT, "%s (%s): zone still absent (its CPUs "
                                         "offline?)", m->zones[i].path, m->zones[i].raw_name);
        else
            out[i].status = wc_read_u64(p->energy_path[i], &out[i].value, &zerr);
        p->absent[i] = out[i].status == -ENOENT;
        if (out[i].status == 0)
            continue;
        out[i].value = 0; /* meaningless: status says why */
        if (first_rc == 0)
            first_rc = wc_error_set(err, out[i].status, "%s", zerr.msg);
    }
    return first_rc;
}

static void rapl_close(wc_meter *m)
{
    rapl_free_zones(m);
    free(m->priv);
    m->priv = NULL;
}

static const wc_meter_ops RAPL_OPS = {
    .kind = "rapl",
    .discover = rapl_discover,
    .read = rapl_read,
    .close = rapl_close,
};

int wc_meter_rapl_init(wc_meter *m, const char *sysfs_root, wc_error *err)
{
    memset(m, 0, sizeof *m);
    rapl_priv *p = calloc(1, sizeof *p);
    if (!p)
        return wc_error_set(err, -ENOMEM, "RAPL meter: out of memory");
    if (wc_path(p->class_dir, sizeof p->class_dir, sysfs_root ? sysfs_root : "/sys",
                "class/powercap") != 0) {
        free(p);
        return wc_error_set(err, -ENAMETOOLONG, "RAPL meter: sysfs root too long: %s",
                            sysfs_root);
    }
    m->ops = &RAPL_OPS;
    m->provenance = WC_PROV_MEASURED;
    m->priv = p;
    size_t used = 0;
    wc_append(m->description, sizeof m->description, &used,
           "RAPL (powercap) at %s: not yet discovered", p->class_dir);
    return 0;
}
