/*
 * cgroup.c — container, pod and runtime identification from the text of a
 * /proc/<pid>/cgroup file (see cgroup.h).
 *
 * The process sampler (proc_scan.c) calls this once per new process. Each
 * line is split on its FIRST TWO ':' (the path may itself contain ':'), the
 * path is cut into '/' components ("", "." and ".." dropped, so relative
 * "/../../.." paths from cgroup namespaces match like absolute ones), and one
 * static table of component rules is applied at every component. The match
 * at the deepest component wins (Kepler: highest offset; kind and
 * docker-in-docker nest the real container inside the outer one). The pod
 * UID and QoS class come from the kubepods components of the winning path.
 * Ids are only ever 64-hex tokens, never slice text (B12).
 */
#include "collector/procfs/cgroup.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* How a rule finds the 64-hex id relative to the component being tested. */
typedef enum cg_kind {
    CG_PREFIX,   /* component = <text><64hex> or <text><64hex>.scope */
    CG_INFIX,    /* component = ...<text><64hex> ("...slice:cri-containerd:<id>") */
    CG_PARENT,   /* component = <64hex> and the previous component = <text> */
    CG_KUBEPODS  /* component = <64hex> under <text>/[qos/]pod<uid> (cgroupfs driver) */
} cg_kind;

/* One pattern of the table. */
typedef struct cg_rule {
    const char *runtime; /* value for wc_cgroup_info.runtime ("" = unknown) */
    cg_kind kind;
    const char *text;    /* prefix, infix or parent component */
    int monitor;         /* 1: the runtime monitor (conmon) of the container */
} cg_rule;

/* Every container layout wattcal recognises (kepler-model.md §3.3, plus the
 * conmon monitors). At one component the first matching rule wins, so the
 * longer prefixes come first. */
static const cg_rule cg_rules[] = {
    {"docker", CG_PREFIX, "docker-", 0},
    {"docker", CG_PARENT, "docker", 0},
    {"containerd", CG_PREFIX, "cri-containerd-", 0},
    {"containerd", CG_PREFIX, "cri-containerd:", 0},
    {"containerd", CG_INFIX, ":cri-containerd:", 0},
    {"containerd", CG_PREFIX, "containerd-", 0},
    {"containerd", CG_PARENT, "containerd", 0},
    {"crio", CG_PREFIX, "crio-conmon-", 1},
    {"crio", CG_PREFIX, "crio-", 0},
    {"podman", CG_PREFIX, "libpod-conmon-", 1},
    {"podman", CG_PREFIX, "libpod-payload-", 0},
    {"podman", CG_PREFIX, "libpod-", 0},
    {"", CG_KUBEPODS, "kubepods", 0},
};

#define CG_ID_LEN 64
#define CG_UID_LEN 36
#define CG_HASH_UID_LEN 32 /* a static/mirror pod's UID: its config hash, 32 hex */
#define CG_MAX_COMPONENTS 256

/* A slice of the input text. */
typedef struct cg_span {
    const char *s;
    size_t n;
} cg_span;

/* A path cut into components. */
typedef struct cg_path {
    cg_span whole;
    cg_span comp[CG_MAX_COMPONENTS];
    size_t ncomp;
} cg_path;

/* The best container match so far. */
typedef struct cg_match {
    const cg_rule *rule; /* NULL = none yet */
    size_t depth;        /* component index of the id */
    const char *id;      /* CG_ID_LEN characters inside the input */
} cg_match;

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* True when [s, s+n) starts with exactly CG_ID_LEN hex digits (no 65th). */
static int hex_id_at(const char *s, size_t n)
{
    if (n < CG_ID_LEN)
        return 0;
    for (size_t i = 0; i < CG_ID_LEN; i++)
        if (!is_hex(s[i]))
            return 0;
    return n == CG_ID_LEN || !is_hex(s[CG_ID_LEN]);
}

/* Number of hex digits at the start of [s, s+n). */
static size_t hex_run(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && is_hex(s[i]))
        i++;
    return i;
}

static int span_eq(cg_span a, const char *lit)
{
    size_t n = strlen(lit);
    return a.n == n && memcmp(a.s, lit, n) == 0;
}

static int span_starts(cg_span a, const char *lit)
{
    size_t n = strlen(lit);
    return a.n >= n && memcmp(a.s, lit, n) == 0;
}

/* Finds lit inside a; returns its offset or -1. */
static long span_find(cg_span a, const char *lit, size_t from)
{
    size_t n = strlen(lit);
    for (size_t i = from; i + n <= a.n; i++)
        if (memcmp(a.s + i, lit, n) == 0)
            return (long)i;
    return -1;
}

/* True for a UUID 8-4-4-4-12 at s whose separators are all `sep`. */
static int uid_at(const char *s, size_t n, char sep)
{
    static const size_t dash_at[] = {8, 13, 18, 23};
    if (n < CG_UID_LEN)
        return 0;
    size_t d = 0;
    for (size_t i = 0; i < CG_UID_LEN; i++) {
        if (d < 4 && i == dash_at[d]) {
            if (s[i] != sep)
                return 0;
            d++;
        } else if (!is_hex(s[i])) {
            return 0;
        }
    }
    return 1;
}

/* Length of the pod UID at s (n bytes available) that `end` must follow
 * (NULL: the end of the component): CG_UID_LEN for a UUID with `sep`
 * separators, CG_HASH_UID_LEN for the 32 hex digits of a static or mirror
 * pod (the kubelet names those by their config hash, without dashes); 0 when
 * neither. */
static size_t pod_uid_len(const char *s, size_t n, char sep, const char *end)
{
    size_t len = 0;
    if (uid_at(s, n, sep))
        len = CG_UID_LEN;
    else if (n >= CG_HASH_UID_LEN && hex_run(s, n) == CG_HASH_UID_LEN)
        len = CG_HASH_UID_LEN;
    if (!len)
        return 0;
    cg_span rest = {s + len, n - len};
    if (end ? !span_starts(rest, end) : rest.n != 0)
        return 0;
    return len;
}

/* "pod<uid>" exactly (cgroupfs form; <uid> a UUID or a static pod's hash). */
static int is_pod_dir(cg_span c)
{
    return c.n > 3 && span_starts(c, "pod") && pod_uid_len(c.s + 3, c.n - 3, '-', NULL) != 0;
}

static int is_qos_dir(cg_span c)
{
    return span_eq(c, "burstable") || span_eq(c, "besteffort");
}

/* CG_PREFIX: <text><64hex>[.scope]. */
static const char *match_prefix(cg_span c, const char *text)
{
    if (!span_starts(c, text))
        return NULL;
    size_t off = strlen(text);
    if (!hex_id_at(c.s + off, c.n - off))
        return NULL;
    cg_span rest = {c.s + off + CG_ID_LEN, c.n - off - CG_ID_LEN};
    if (rest.n != 0 && !span_eq(rest, ".scope"))
        return NULL;
    return c.s + off;
}

/* CG_INFIX: ...<text><64hex> at the end of the component. */
static const char *match_infix(cg_span c, const char *text)
{
    size_t tl = strlen(text);
    if (c.n < tl + CG_ID_LEN)
        return NULL;
    size_t off = c.n - CG_ID_LEN - tl;
    if (memcmp(c.s + off, text, tl) != 0 || !hex_id_at(c.s + off + tl, CG_ID_LEN))
        return NULL;
    return c.s + off + tl;
}

/* CG_KUBEPODS: <text>/[burstable|besteffort/]pod<uid>/<64hex>. */
static const char *match_kubepods(const cg_path *p, size_t i, const char *text)
{
    cg_span c = p->comp[i];
    if (i < 2 || c.n != CG_ID_LEN || !hex_id_at(c.s, c.n) || !is_pod_dir(p->comp[i - 1]))
        return NULL;
    if (span_eq(p->comp[i - 2], text))
        return c.s;
    if (i >= 3 && is_qos_dir(p->comp[i - 2]) && span_eq(p->comp[i - 3], text))
        return c.s;
    return NULL;
}

/* Applies one rule at component i; the id's start, or NULL. */
static const char *match_rule(const cg_rule *r, const cg_path *p, size_t i)
{
    cg_span c = p->comp[i];
    switch (r->kind) {
    case CG_PREFIX:
        return match_prefix(c, r->text);
    case CG_INFIX:
        return match_infix(c, r->text);
    case CG_PARENT:
        if (i == 0 || !span_eq(p->comp[i - 1], r->text) || c.n != CG_ID_LEN)
            return NULL;
        return hex_id_at(c.s, c.n) ? c.s : NULL;
    case CG_KUBEPODS:
        return match_kubepods(p, i, r->text);
    }
    return NULL;
}

/* Cuts a path into components, dropping "", "." and "..". */
static void split_path(cg_span path, cg_path *out)
{
    out->whole = path;
    out->ncomp = 0;
    size_t i = 0;
    while (i < path.n && out->ncomp < CG_MAX_COMPONENTS) {
        size_t j = i;
        while (j < path.n && path.s[j] != '/')
            j++;
        cg_span c = {path.s + i, j - i};
        if (c.n != 0 && !span_eq(c, ".") && !span_eq(c, ".."))
            out->comp[out->ncomp++] = c;
        i = j + 1;
    }
}

/* Tests every rule at every component of one path; keeps the deepest match
 * (on equal depth the earlier line / earlier rule stays). 1 when it improved. */
static int match_path(const cg_path *p, cg_match *best)
{
    int improved = 0;
    for (size_t i = 0; i < p->ncomp; i++) {
        if (best->rule && i <= best->depth)
            continue;
        for (size_t r = 0; r < sizeof cg_rules / sizeof cg_rules[0]; r++) {
            const char *id = match_rule(&cg_rules[r], p, i);
            if (id) {
                best->rule = &cg_rules[r];
                best->depth = i;
                best->id = id;
                improved = 1;
                break;
            }
        }
    }
    return improved;
}

/* Offset of "pod<uid>" inside a systemd slice component ("...-pod<uid>.slice",
 * '_' separators) or a cgroupfs "pod<uid>" dir; -1 when absent. *uid_len gets
 * the UID's length (a UUID, or a static pod's 32-hex hash). */
static long find_pod_in(cg_span c, char *sep, size_t *uid_len)
{
    if (is_pod_dir(c)) {
        *sep = '-';
        *uid_len = c.n - 3;
        return 0;
    }
    for (long at = span_find(c, "-pod", 0); at >= 0; at = span_find(c, "-pod", (size_t)at + 1)) {
        size_t u = (size_t)at + 4;
        size_t len = pod_uid_len(c.s + u, c.n - u, '_', ".slice");
        if (len) {
            *sep = '_';
            *uid_len = len;
            return (long)u - 3;
        }
    }
    return -1;
}

/* True when any of the first n components mentions kubepods. */
static int has_kubepods(const cg_path *p, size_t n)
{
    for (size_t i = 0; i < n && i < p->ncomp; i++)
        if (span_find(p->comp[i], "kubepods", 0) >= 0)
            return 1;
    return 0;
}

/* QoS of the pod at component k (its slice name or the dir above it). */
static const char *qos_of(const cg_path *p, size_t k, size_t pod_off)
{
    cg_span head = {p->comp[k].s, pod_off};
    if (span_find(head, "-burstable-", 0) >= 0)
        return "burstable";
    if (span_find(head, "-besteffort-", 0) >= 0)
        return "besteffort";
    if (k > 0 && is_qos_dir(p->comp[k - 1]))
        return span_eq(p->comp[k - 1], "burstable") ? "burstable" : "besteffort";
    return "guaranteed";
}

static void copy_lower(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char ch = src[i];
        dst[i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
    }
    dst[n] = '\0';
}

/* Fills pod_uid and qos from the innermost pod component at or above
 * component `upto` of p. 1 when a pod was found. */
static int find_pod(const cg_path *p, size_t upto, wc_cgroup_info *out)
{
    for (size_t k = upto + 1; k-- > 0;) {
        if (k >= p->ncomp)
            continue;
        char sep = '-';
        size_t len = 0;
        long off = find_pod_in(p->comp[k], &sep, &len);
        if (off < 0 || !has_kubepods(p, k + 1))
            continue;
        copy_lower(out->pod_uid, p->comp[k].s + off + 3, len);
        for (char *q = out->pod_uid; *q; q++)
            if (*q == '_')
                *q = '-';
        snprintf(out->qos, sizeof out->qos, "%s", qos_of(p, k, (size_t)off));
        return 1;
    }
    return 0;
}

static void set_path(wc_cgroup_info *out, cg_span path)
{
    size_t n = path.n < sizeof out->path - 1 ? path.n : sizeof out->path - 1;
    memcpy(out->path, path.s, n);
    out->path[n] = '\0';
}

/* Splits one line "<id>:<controllers>:<path>" on its first two ':'. */
static int line_path(cg_span line, cg_span *path, int *is_v2)
{
    const char *c1 = memchr(line.s, ':', line.n);
    if (!c1)
        return -EINVAL;
    const char *c2 = memchr(c1 + 1, ':', (size_t)(line.s + line.n - c1 - 1));
    if (!c2)
        return -EINVAL;
    *is_v2 = (c1 - line.s == 1 && line.s[0] == '0' && c2 == c1 + 1);
    path->s = c2 + 1;
    path->n = (size_t)(line.s + line.n - c2 - 1);
    return 0;
}

/* State carried over the lines of one file. */
typedef struct cg_scan {
    cg_match best;
    cg_path cur;        /* the line being examined */
    cg_span best_path;  /* path of the winning line */
    cg_span pod_path;   /* first path with a kubepods pod (pod-level processes) */
    cg_span v2_path;    /* first "0::" path */
    cg_span first_path; /* first path at all */
    int have_pod, have_v2, have_first;
} cg_scan;

/* Examines one non-empty line. */
static int scan_line(cg_scan *st, cg_span line, size_t lineno, const char *origin,
                     wc_error *err)
{
    cg_span path;
    int v2 = 0;
    if (line_path(line, &path, &v2) != 0)
        return wc_error_set(err, -EINVAL, "%s: line %zu: expected \"id:controllers:path\", "
                            "found \"%.*s\"", origin, lineno,
                            (int)(line.n > 80 ? 80 : line.n), line.s);
    if (!st->have_first) {
        st->first_path = path;
        st->have_first = 1;
    }
    if (v2 && !st->have_v2) {
        st->v2_path = path;
        st->have_v2 = 1;
    }
    split_path(path, &st->cur);
    if (match_path(&st->cur, &st->best))
        st->best_path = path;
    if (!st->have_pod) {
        wc_cgroup_info probe;
        memset(&probe, 0, sizeof probe);
        if (st->cur.ncomp > 0 && find_pod(&st->cur, st->cur.ncomp - 1, &probe)) {
            st->pod_path = path;
            st->have_pod = 1;
        }
    }
    return 0;
}

/* Writes the result of the scan into out. */
static void finish(cg_scan *st, wc_cgroup_info *out)
{
    if (st->best.rule) {
        const cg_rule *r = st->best.rule;
        snprintf(out->runtime, sizeof out->runtime, "%s", r->runtime);
        copy_lower(out->container_id, st->best.id, CG_ID_LEN);
        out->is_runtime_monitor = r->monitor;
        set_path(out, st->best_path);
        split_path(st->best_path, &st->cur);
        find_pod(&st->cur, st->best.depth, out);
        return;
    }
    if (st->have_pod) {
        set_path(out, st->pod_path);
        split_path(st->pod_path, &st->cur);
        find_pod(&st->cur, st->cur.ncomp - 1, out);
    } else if (st->have_v2) {
        set_path(out, st->v2_path);
    } else if (st->have_first) {
        set_path(out, st->first_path);
    }
}

int wc_cgroup_parse(const char *text, size_t len, const char *origin,
                    wc_cgroup_info *out, wc_error *err)
{
    if (!origin)
        origin = "cgroup";
    memset(out, 0, sizeof *out);
    cg_scan st;
    memset(&st, 0, sizeof st);
    size_t lineno = 0;
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        cg_span line = {p, (size_t)((nl ? nl : end) - p)};
        while (line.n > 0 && (line.s[line.n - 1] == '\r' || line.s[line.n - 1] == '\0'))
            line.n--;
        lineno++;
        p = nl ? nl + 1 : end;
        if (line.n == 0)
            continue;
        int rc = scan_line(&st, line, lineno, origin, err);
        if (rc) {
            memset(out, 0, sizeof *out);
            return rc;
        }
    }
    finish(&st, out);
    return 0;
}

void wc_cgroup_ids_of(const wc_cgroup_info *in, wc_cgroup_ids *out)
{
    memcpy(out->runtime, in->runtime, sizeof out->runtime);
    memcpy(out->container_id, in->container_id, sizeof out->container_id);
    memcpy(out->pod_uid, in->pod_uid, sizeof out->pod_uid);
    memcpy(out->qos, in->qos, sizeof out->qos);
    out->is_runtime_monitor = in->is_runtime_monitor;
}
