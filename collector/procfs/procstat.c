/*
 * procstat.c — /proc/stat CPU-line parser (see procstat.h).
 *
 * The recorder reads <procfs_root>/stat every tick; attribution uses the
 * aggregate line's first eight fields (Kepler's usage ratio) and reports use
 * the per-CPU lines. Lines are keyed by their label ("cpu", "cpuN"), never by
 * position, because offline CPUs print no line (B25). Older kernels print
 * fewer than ten fields; the missing ones read 0 and nfields says how many
 * there were. Other lines (intr, ctxt, ...) are skipped, except btime.
 */
#include "collector/procfs/procstat.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_fs.h"

/* Field count of a current kernel's cpu line. */
#define PS_MAX_FIELDS 10
/* user nice system idle: every kernel since 2.4 prints at least these. */
#define PS_MIN_FIELDS 4

static const char *const field_names[PS_MAX_FIELDS] = {
    "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice",
};

/* What the parse has seen so far. */
typedef struct ps_state {
    size_t cap;      /* allocated entries of out->cpus */
    int seen_total;  /* the aggregate line was read */
    int max_cpu;     /* highest cpuN label so far, -1 before any */
} ps_state;

/* One line of the text being parsed. */
typedef struct ps_line {
    const char *s;
    size_t n;
    size_t lineno; /* 1-based */
} ps_line;

/* Stores field i (0-based) of a cpu line. */
static void set_field(wc_cpu_times *t, int i, uint64_t v)
{
    uint64_t *slots[PS_MAX_FIELDS] = {
        &t->user, &t->nice, &t->system, &t->idle, &t->iowait,
        &t->irq, &t->softirq, &t->steal, &t->guest, &t->guest_nice,
    };
    *slots[i] = v;
}

/* Length of the token at s (up to a space or tab). */
static size_t token_len(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] != ' ' && s[i] != '\t')
        i++;
    return i;
}

/* Skips spaces and tabs; returns how many. */
static size_t skip_blanks(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
        i++;
    return i;
}

/* Parses the numbers after a cpu label (pos = offset just after the label). */
static int parse_cpu_fields(const ps_line *ln, size_t pos, const char *origin,
                            wc_cpu_times *t, wc_error *err)
{
    int nf = 0;
    for (;;) {
        pos += skip_blanks(ln->s + pos, ln->n - pos);
        if (pos >= ln->n)
            break;
        size_t tl = token_len(ln->s + pos, ln->n - pos);
        if (nf < PS_MAX_FIELDS) {
            uint64_t v = 0;
            if (wc_parse_u64(ln->s + pos, tl, &v) != 0)
                return wc_error_set(err, -EINVAL,
                                    "%s: line %zu: field %d (%s) is not an unsigned integer: \"%.*s\"",
                                    origin, ln->lineno, nf + 1, field_names[nf],
                                    (int)(tl > 40 ? 40 : tl), ln->s + pos);
            set_field(t, nf, v);
            nf++;
        }
        pos += tl;
    }
    if (nf < PS_MIN_FIELDS)
        return wc_error_set(err, -EINVAL, "%s: line %zu: field %d (%s) missing (only %d fields)",
                            origin, ln->lineno, nf + 1, field_names[nf], nf);
    t->nfields = nf;
    return 0;
}

/* Appends one per-CPU entry, growing the array. */
static int push_cpu(wc_procstat *out, size_t *cap, const wc_cpu_times *t)
{
    if (out->ncpus == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        wc_cpu_times *nc = realloc(out->cpus, ncap * sizeof *nc);
        if (!nc)
            return -ENOMEM;
        out->cpus = nc;
        *cap = ncap;
    }
    out->cpus[out->ncpus++] = *t;
    return 0;
}

/* Decodes the label "cpu" (-1) or "cpuN" (N) of length n. 0 or -EINVAL. */
static int parse_label(const char *s, size_t n, int *cpu)
{
    if (n == 3) {
        *cpu = -1;
        return 0;
    }
    uint64_t v = 0;
    if (wc_parse_u64(s + 3, n - 3, &v) != 0 || v > INT_MAX)
        return -EINVAL;
    *cpu = (int)v;
    return 0;
}

/* Handles one "cpu..." line. */
static int parse_cpu_line(const ps_line *ln, const char *origin, wc_procstat *out,
                          ps_state *st, wc_error *err)
{
    size_t ll = token_len(ln->s, ln->n);
    wc_cpu_times t = {0};
    if (parse_label(ln->s, ll, &t.cpu) != 0)
        return wc_error_set(err, -EINVAL, "%s: line %zu: label \"%.*s\" is not cpu or cpuN",
                            origin, ln->lineno, (int)(ll > 40 ? 40 : ll), ln->s);
    int rc = parse_cpu_fields(ln, ll, origin, &t, err);
    if (rc)
        return rc;
    if (t.cpu < 0) {
        if (st->seen_total)
            return wc_error_set(err, -EINVAL, "%s: line %zu: a second aggregate \"cpu\" line",
                                origin, ln->lineno);
        st->seen_total = 1;
        out->total = t;
        return 0;
    }
    /* Kernels print ascending labels; only one not above the maximum can repeat. */
    if (t.cpu <= st->max_cpu && wc_procstat_cpu(out, t.cpu))
        return wc_error_set(err, -EINVAL, "%s: line %zu: cpu%d appears twice", origin,
                            ln->lineno, t.cpu);
    if (t.cpu > st->max_cpu)
        st->max_cpu = t.cpu;
    if (push_cpu(out, &st->cap, &t) != 0)
        return wc_error_set(err, -ENOMEM, "%s: out of memory", origin);
    return 0;
}

/* Handles the "btime <seconds>" line. */
static int parse_btime(const ps_line *ln, const char *origin, wc_procstat *out, wc_error *err)
{
    size_t pos = 5 + skip_blanks(ln->s + 5, ln->n - 5);
    size_t tl = token_len(ln->s + pos, ln->n - pos);
    if (wc_parse_u64(ln->s + pos, tl, &out->btime_s) != 0)
        return wc_error_set(err, -EINVAL, "%s: line %zu: field 1 (btime) is not an unsigned "
                            "integer: \"%.*s\"", origin, ln->lineno,
                            (int)(tl > 40 ? 40 : tl), ln->s + pos);
    return 0;
}

/* Dispatches one line by its first word. */
static int parse_line(const ps_line *ln, const char *origin, wc_procstat *out, ps_state *st,
                      wc_error *err)
{
    size_t ll = token_len(ln->s, ln->n);
    if (ll >= 3 && memcmp(ln->s, "cpu", 3) == 0)
        return parse_cpu_line(ln, origin, out, st, err);
    if (ll == 5 && memcmp(ln->s, "btime", 5) == 0)
        return parse_btime(ln, origin, out, err);
    return 0;
}

int wc_procstat_parse(const char *text, size_t len, const char *origin,
                      wc_procstat *out, wc_error *err)
{
    if (!origin)
        origin = "/proc/stat";
    memset(out, 0, sizeof *out);
    ps_state st = {0, 0, -1};
    ps_line ln = {text, 0, 0};
    const char *end = text + len;
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        ln.s = p;
        ln.n = (size_t)((nl ? nl : end) - p);
        ln.lineno++;
        int rc = parse_line(&ln, origin, out, &st, err);
        if (rc) {
            wc_procstat_free(out);
            return rc;
        }
        p = nl ? nl + 1 : end;
    }
    if (!st.seen_total) {
        wc_procstat_free(out);
        return wc_error_set(err, -EINVAL, "%s: line %zu: no aggregate \"cpu\" line in the file",
                            origin, ln.lineno);
    }
    return 0;
}

int wc_procstat_read(const char *procfs_root, wc_procstat *out, wc_error *err)
{
    memset(out, 0, sizeof *out);
    char path[4096];
    if (wc_path(path, sizeof path, procfs_root, "stat") != 0)
        return wc_error_set(err, -ENAMETOOLONG, "%s/stat: path too long", procfs_root);
    char *text = NULL;
    size_t len = 0;
    int rc = wc_read_all(path, &text, &len, err);
    if (rc)
        return rc;
    rc = wc_procstat_parse(text, len, path, out, err);
    free(text);
    return rc;
}

void wc_procstat_free(wc_procstat *ps)
{
    if (!ps)
        return;
    free(ps->cpus);
    ps->cpus = NULL;
    ps->ncpus = 0;
}

const wc_cpu_times *wc_procstat_cpu(const wc_procstat *ps, int n)
{
    if (n < 0)
        return NULL;
    /* Without offline CPUs cpuN is line N: try that first, then search. */
    if ((size_t)n < ps->ncpus && ps->cpus[n].cpu == n)
        return &ps->cpus[n];
    for (size_t i = 0; i < ps->ncpus; i++)
        if (ps->cpus[i].cpu == n)
            return &ps->cpus[i];
    return NULL;
}

uint64_t wc_cpu_total_ticks(const wc_cpu_times *t)
{
    return t->user + t->nice + t->system + t->idle + t->iowait + t->irq + t->softirq + t->steal;
}

uint64_t wc_cpu_busy_ticks(const wc_cpu_times *t)
{
    return wc_cpu_total_ticks(t) - t->idle - t->iowait;
}
