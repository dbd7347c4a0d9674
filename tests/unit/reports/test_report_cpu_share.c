/*
 * test_report_cpu_share.c — the CPU-accounting cross-check in the
 * HTML/Markdown report (reports/report_cpu_share.c): its figures rendered,
 * "too little data" said, and the exporter's labels (untrusted: a pod name
 * carrying markup and a Markdown pipe) escaped in both formats.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report_cpu_share.h"

/* Reads all of f (rewound) into a malloc'd string. */
static char *slurp(FILE *f)
{
    long n = ftell(f);
    cr_assert(n >= 0);
    rewind(f);
    char *s = calloc((size_t)n + 1, 1);
    cr_assert_not_null(s);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    return s;
}

static void render(const wc_cpu_share_report *r, char **html, char **md)
{
    wc_doc d = {.html = tmpfile(), .md = tmpfile(), .dir = "."};
    cr_assert(d.html && d.md);
    wc_report_cpu_share(&d, r);
    *html = slurp(d.html);
    *md = slurp(d.md);
    fclose(d.html);
    fclose(d.md);
}

Test(report_cpu_share, rows_rendered_and_labels_escaped)
{
    wc_cpu_share_report r = {.have = 1, .zone = "package", .accounting = "cpu.stat usage_usec",
                             .pods = 2, .nsrc = 2};
    wc_share_source *m = &r.src[0], *x = &r.src[1];
    snprintf(m->source, sizeof m->source, "model:kepler-0.11");
    snprintf(m->provenance, sizeof m->provenance, "attributed by model kepler-0.11");
    m->npods = 2, m->intervals = 3, m->too_little = 1;
    snprintf(x->source, sizeof x->source, "exporter:1");
    snprintf(x->provenance, sizeof x->provenance, "replay of kepler-0.11 rows (measured)");
    x->npods = 2, x->intervals = 40, x->nrows = 1;
    wc_share_row *w = &x->rows[0];
    snprintf(w->pod_uid, sizeof w->pod_uid, "aaaaaaaa-0000-4000-8000-000000000000");
    snprintf(w->name, sizeof w->name, "<script>alert(1)</script>|x");
    snprintf(w->ns, sizeof w->ns, "shop");
    w->energy_j = 120, w->energy_pct = 60, w->cpu_s = 9, w->cpu_pct = 50, w->diff_pts = 10;
    w->ratio = 1.2, w->intervals = 40;
    char *html, *md;
    render(&r, &html, &md);
    cr_assert(strstr(html, "CPU accounting cross-check"), "%s", html);
    cr_assert(strstr(html, "Too little data."), "the model's 3 intervals: %s", html);
    cr_assert(strstr(html, "+10.00") && strstr(html, "1.200") && strstr(html, "60.00"), "%s", html);
    cr_assert_null(strstr(html, "<script>"), "markup from a label: %s", html);
    cr_assert(strstr(html, "&lt;script&gt;"), "%s", html);
    cr_assert(strstr(md, "+10.00") && strstr(md, "aaaaaaaa-0000-4000-8000-000000000000"), "%s", md);
    cr_assert_null(strstr(md, "</script>|x"), "an unescaped pipe splits the row: %s", md);
    free(html);
    free(md);
}

Test(report_cpu_share, no_accounting_says_so)
{
    wc_cpu_share_report r = {.have = 0};
    char *html, *md;
    render(&r, &html, &md);
    cr_assert(strstr(md, "Not available: the run has no pod cgroup CPU accounting"), "%s", md);
    free(html);
    free(md);
}
