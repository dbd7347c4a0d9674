/*
 * doc.c — the report as HTML and Markdown at once (doc.h).
 */
#include "reports/doc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/wc_fs.h"
#include "reports/escape.h"

/* Inline CSS: readable on a phone (fluid width, tables scroll sideways in
 * their own box, plots scale), and printed (no scroll boxes, no page break
 * inside a figure or a table row). */
static const char CSS[] =
    ":root{--ink:#1d2329;--mute:#5b6670;--line:#d5dbe1;--bg:#fff}\n"
    "body{font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "color:var(--ink);background:var(--bg);max-width:68rem;margin:0 auto;padding:1rem}\n"
    "h1{font-size:1.6rem;margin:.2rem 0 .6rem}h2{font-size:1.25rem;margin:2rem 0 .5rem;"
    "border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{font-size:1.05rem;margin:1.2rem 0 .4rem}\n"
    "p{margin:.4rem 0 .8rem}\n"
    ".scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:.4rem 0 1rem}\n"
    "table{border-collapse:collapse;font-size:.86rem;font-variant-numeric:tabular-nums}\n"
    "th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top}\n"
    "th{background:#f3f5f7}td{overflow-wrap:break-word}\n"
    "tr.pass td:first-child{background:#d9f2de;font-weight:600}"
    "tr.fail td:first-child{background:#f8d4d0;font-weight:600}"
    "tr.skip td:first-child{background:#eceff1}tr.warn td:first-child{background:#fbefc4}\n"
    ".note{border-left:5px solid #8aa4bd;background:#f1f5f9;padding:.5rem .8rem;margin:.6rem 0}\n"
    ".note.warn{border-color:#e0a800;background:#fff7dc}.note.bad{border-color:#c0392b;background:#fdecea}"
    ".note.good{border-color:#2e8b57;background:#e9f7ef}\n"
    "figure{margin:1rem 0 1.6rem}figure svg{width:100%;height:auto;display:block}"
    "figcaption{color:var(--mute);font-size:.86rem;margin-top:.3rem}\n"
    ".missing{border:1px dashed var(--line);padding:1rem;color:var(--mute)}\n"
    "code{font-size:.85em;background:#f3f5f7;padding:0 .2em}\n"
    "@media (max-width:40rem){body{padding:.5rem;font-size:14px}table{font-size:.8rem}}\n"
    "@media print{body{max-width:none;padding:0;font-size:11pt}.scroll{overflow:visible}"
    "figure,tr,.note{break-inside:avoid}h2,h3{break-after:avoid}a{color:inherit}}\n";

void wc_doc_begin(wc_doc *d, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n<title>", d->html);
    wc_html_escape(d->html, title);
    fprintf(d->html, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", CSS);
    wc_html_escape(d->html, title);
    fputs("</h1>\n", d->html);
    fputs("# ", d->md);
    wc_md_escape(d->md, title);
    fputs("\n\n", d->md);
}

void wc_doc_end(wc_doc *d)
{
    if (d->table_cols)
        wc_doc_table_end(d);
    fputs("</body>\n</html>\n", d->html);
}

void wc_doc_heading(wc_doc *d, int level, const char *text)
{
    if (level < 2 || level > 3)
        level = 2;
    fprintf(d->html, "<h%d>", level);
    wc_html_escape(d->html, text);
    fprintf(d->html, "</h%d>\n", level);
    fprintf(d->md, "%s ", level == 2 ? "##" : "###");
    wc_md_escape(d->md, text);
    fputs("\n\n", d->md);
}

/* vsnprintf into a malloc'd string (NULL on failure). */
static char *vformat(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        return NULL;
    return s;
}

void wc_doc_para(wc_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    if (!s)
        return;
    fputs("<p>", d->html);
    wc_html_escape(d->html, s);
    fputs("</p>\n", d->html);
    wc_md_escape_block(d->md, s);
    fputs("\n\n", d->md);
    free(s);
}

void wc_doc_note(wc_doc *d, const char *kind, const char *label, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    if (!s)
        return;
    fputs("<div class=\"note ", d->html);
    wc_html_escape(d->html, kind);
    fputs("\"><strong>", d->html);
    wc_html_escape(d->html, label);
    fputs("</strong> ", d->html);
    wc_html_escape(d->html, s);
    fputs("</div>\n", d->html);
    fputs("> **", d->md);
    wc_md_escape(d->md, label);
    fputs("** ", d->md);
    wc_md_escape(d->md, s);
    fputs("\n\n", d->md);
    free(s);
}

void wc_doc_table_begin(wc_doc *d, const char *const *headers, int ncols)
{
    d->table_cols = ncols;
    fputs("<div class=\"scroll\"><table>\n<thead><tr>", d->html);
    fputs("|", d->md);
    for (int i = 0; i < ncols; i++) {
        fputs("<th>", d->html);
        wc_html_escape(d->html, headers[i]);
        fputs("</th>", d->html);
        fputc(' ', d->md);
        wc_md_escape(d->md, headers[i]);
        fputs(" |", d->md);
    }
    fputs("</tr></thead>\n<tbody>\n", d->html);
    fputs("\n|", d->md);
    for (int i = 0; i < ncols; i++)
        fputs("---|", d->md);
    fputs("\n", d->md);
}

void wc_doc_table_row(wc_doc *d, const char *row_class, const char *const *cells)
{
    if (row_class) {
        fputs("<tr class=\"", d->html);
        wc_html_escape(d->html, row_class);
        fputs("\">", d->html);
    } else {
        fputs("<tr>", d->html);
    }
    fputs("|", d->md);
    for (int i = 0; i < d->table_cols; i++) {
        const char *c = cells[i] && cells[i][0] ? cells[i] : "-";
        fputs("<td>", d->html);
        wc_html_escape(d->html, c);
        fputs("</td>", d->html);
        fputc(' ', d->md);
        wc_md_escape(d->md, c);
        fputs(" |", d->md);
    }
    fputs("</tr>\n", d->html);
    fputs("\n", d->md);
}

void wc_doc_table_end(wc_doc *d)
{
    fputs("</tbody></table></div>\n", d->html);
    fputs("\n", d->md);
    d->table_cols = 0;
}

/* Whether an SVG holds anything active: a script, foreign content, an
 * event handler attribute, a javascript: link (case-insensitive). gnuplot's
 * static SVG has none; its interactive mode, or a file that is not
 * gnuplot's, would. */
static int svg_active(const char *svg)
{
    static const char *const bad[] = {"<script", "<foreignobject", "<iframe", "<object", "<embed",
                                      "javascript:", "<a ", "<a\n", "<animate", "<set "};
    for (const char *p = svg; *p; p++) {
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            if (!strncasecmp(p, bad[i], strlen(bad[i])))
                return 1;
        /* on...= attributes: whitespace, "on", letters, "=" */
        if ((*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') && !strncasecmp(p + 1, "on", 2)) {
            const char *q = p + 3;
            while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'))
                q++;
            while (*q == ' ')
                q++;
            if (q > p + 3 && *q == '=')
                return 1;
        }
    }
    return 0;
}

/* The <svg> element of dir/<id>.svg, without the XML declaration and
 * doctype; NULL when unreadable or when it holds anything active (never
 * inlined). */
static char *svg_element(const char *dir, const char *id)
{
    char path[4200], *buf = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s.svg", dir, id);
    if (wc_read_all(path, &buf, &len, NULL))
        return NULL;
    char *start = strstr(buf, "<svg");
    if (!start || strlen(buf) != len || svg_active(start)) {
        free(buf);
        return NULL;
    }
    memmove(buf, start, strlen(start) + 1);
    return buf;
}

void wc_doc_figure(wc_doc *d, const wc_figure *f)
{
    char *svg = f->drawn ? svg_element(d->dir, f->id) : NULL;
    fprintf(d->html, "<figure id=\"fig-%s\">\n", f->id);
    if (svg) {
        fputs(svg, d->html);
        fputs("\n", d->html);
    } else {
        fputs("<div class=\"missing\">", d->html);
        wc_html_escape(d->html, f->title);
        fputs(": not drawn — ", d->html);
        wc_html_escape(d->html, f->drawn ? "its SVG could not be read" : f->why_not);
        fputs("</div>\n", d->html);
    }
    fputs("<figcaption>", d->html);
    wc_html_escape(d->html, f->caption);
    if (f->has_data)
        fprintf(d->html, " Data: <code>%s</code>.", f->data);
    fputs("</figcaption>\n</figure>\n", d->html);
    if (f->drawn)
        fprintf(d->md, "![%s](%s.png)\n\n", f->id, f->id);
    else {
        fputs("*Not drawn: ", d->md);
        wc_md_escape(d->md, f->why_not);
        fputs("*\n\n", d->md);
    }
    wc_md_escape(d->md, f->caption);
    if (f->has_data)
        fprintf(d->md, " Data: `%s`.", f->data);
    fputs("\n\n", d->md);
    free(svg);
}
