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
    "color:var(--ink);background:var(--bg);max-width:76rem;margin:0 auto;padding:1rem}\n"
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
    "figure{margin:1rem 0 1.6rem}.plot{overflow-x:auto;-webkit-overflow-scrolling:touch}"
    ".plot svg{width:100%;min-width:38rem;max-width:60rem;height:auto;display:block}"
    "figcaption{color:var(--mute);font-size:.86rem;margin-top:.3rem}\n"
    ".verdict{border:2px solid #8aa4bd;border-left-width:8px;background:#f1f5f9;padding:.6rem .9rem;"
    "margin:.4rem 0 1rem}.verdict.bad{border-color:#c0392b;background:#fdecea}"
    ".verdict.good{border-color:#2e8b57;background:#e9f7ef}.verdict.warn{border-color:#e0a800;"
    "background:#fff7dc}.verdict .answer{font-size:1.2rem;font-weight:650;line-height:1.35;margin:.1rem 0 .5rem}"
    ".verdict ul{margin:.2rem 0;padding-left:1.1rem}.verdict li{margin:.15rem 0}\n"
    ".missing{border:1px dashed var(--line);padding:1rem;color:var(--mute)}\n"
    "code{font-size:.85em;background:#f3f5f7;padding:0 .2em}\n"
    "@media (max-width:40rem){body{padding:.5rem;font-size:14px}table{font-size:.8rem}h1{font-size:1.3rem}"
    ".verdict .answer{font-size:1.08rem}}\n"
    "@media print{body{max-width:none;padding:0;font-size:11pt}.scroll,.plot{overflow:visible}"
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
    snprintf(d->heading, sizeof d->heading, "%s", text);
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

void wc_doc_verdict_begin(wc_doc *d, const char *kind, const char *sentence)
{
    fputs("<section id=\"verdict\" class=\"verdict ", d->html);
    wc_html_escape(d->html, kind);
    fputs("\">\n<p class=\"answer\">", d->html);
    wc_html_escape(d->html, sentence);
    fputs("</p>\n<ul>\n", d->html);
    fputs("> **", d->md);
    wc_md_escape(d->md, sentence);
    fputs("**\n>\n", d->md);
}

void wc_doc_verdict_item(wc_doc *d, const char *label, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    if (!s)
        return;
    fputs("<li><strong>", d->html);
    wc_html_escape(d->html, label);
    fputs("</strong> ", d->html);
    wc_html_escape(d->html, s);
    fputs("</li>\n", d->html);
    fputs("> - **", d->md);
    wc_md_escape(d->md, label);
    fputs("** ", d->md);
    wc_md_escape(d->md, s);
    fputs("\n", d->md);
    free(s);
}

void wc_doc_verdict_end(wc_doc *d)
{
    fputs("</ul>\n</section>\n", d->html);
    fputs("\n", d->md);
}

/* Where the open table's Markdown goes: its buffer, or the file when the
 * buffer could not be opened (then it is never folded). */
static FILE *md_out(wc_doc *d)
{
    return d->md_table ? d->md_table : d->md;
}

void wc_doc_table_begin(wc_doc *d, const char *const *headers, int ncols)
{
    d->table_cols = ncols;
    d->table_rows = 0;
    d->md_table_buf = NULL;
    d->md_table_len = 0;
    d->md_table = open_memstream(&d->md_table_buf, &d->md_table_len);
    FILE *md = md_out(d);
    fputs("<div class=\"scroll\"><table>\n<thead><tr>", d->html);
    fputs("|", md);
    for (int i = 0; i < ncols; i++) {
        fputs("<th>", d->html);
        wc_html_escape(d->html, headers[i]);
        fputs("</th>", d->html);
        fputc(' ', md);
        wc_md_escape(md, headers[i]);
        fputs(" |", md);
    }
    fputs("</tr></thead>\n<tbody>\n", d->html);
    fputs("\n|", md);
    for (int i = 0; i < ncols; i++)
        fputs("---|", md);
    fputs("\n", md);
}

void wc_doc_table_row(wc_doc *d, const char *row_class, const char *const *cells)
{
    FILE *md = md_out(d);
    d->table_rows++;
    if (row_class) {
        fputs("<tr class=\"", d->html);
        wc_html_escape(d->html, row_class);
        fputs("\">", d->html);
    } else {
        fputs("<tr>", d->html);
    }
    fputs("|", md);
    for (int i = 0; i < d->table_cols; i++) {
        const char *c = cells[i] && cells[i][0] ? cells[i] : "-";
        fputs("<td>", d->html);
        wc_html_escape(d->html, c);
        fputs("</td>", d->html);
        fputc(' ', md);
        wc_md_escape(md, c);
        fputs(" |", md);
    }
    fputs("</tr>\n", d->html);
    fputs("\n", md);
}

void wc_doc_table_end(wc_doc *d)
{
    fputs("</tbody></table></div>\n", d->html);
    if (d->md_table) {
        fclose(d->md_table);
        d->md_table = NULL;
        int fold = d->table_rows > WC_DOC_DETAILS_ROWS;
        if (fold) {
            fputs("<details><summary>", d->md);
            wc_html_escape(d->md, d->heading[0] ? d->heading : "Table");
            fprintf(d->md, ": %zu rows</summary>\n\n", d->table_rows);
        }
        if (d->md_table_buf)
            fwrite(d->md_table_buf, 1, d->md_table_len, d->md);
        if (fold)
            fputs("\n</details>\n", d->md);
        free(d->md_table_buf);
        d->md_table_buf = NULL;
    }
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

/* The SVG with every id, and every reference to one (href="#x", url(#x)),
 * prefixed "fig-<id>-": gnuplot names its canvas and markers alike in
 * every file, and ids must be unique in the page. NULL when out of memory. */
static char *prefix_ids(const char *svg, const char *id)
{
    static const char *const keys[] = {" id='", " id=\"", "\nid='", "\nid=\"", "href='#", "href=\"#", "url(#"};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    for (const char *p = svg; *p;) {
        size_t k = 0, nk = sizeof keys / sizeof keys[0];
        while (k < nk && strncmp(p, keys[k], strlen(keys[k])))
            k++;
        if (k == nk) {
            fputc(*p++, f);
            continue;
        }
        fprintf(f, "%sfig-%s-", keys[k], id);
        p += strlen(keys[k]);
    }
    if (fclose(f)) {
        free(out);
        return NULL;
    }
    return out;
}

/* Standard base64 of n bytes to f. */
static void base64(FILE *f, const unsigned char *b, size_t n)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
        fputc(A[v >> 18 & 63], f);
        fputc(A[v >> 12 & 63], f);
        fputc(i + 1 < n ? A[v >> 6 & 63] : '=', f);
        fputc(i + 2 < n ? A[v & 63] : '=', f);
    }
}

/* The Markdown image of a drawn figure, as d->md_images says: the PNG's
 * file name beside report.md, a data: URI, or the base URL + "/<id>.png".
 * An inline PNG that cannot be read falls back to the file name, saying so. */
static void md_image(wc_doc *d, const wc_figure *f)
{
    const char *mode = d->md_images ? d->md_images : "";
    if (!strcmp(mode, "inline")) {
        char path[4200], *buf = NULL;
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s.png", d->dir, f->id);
        if (!wc_read_all(path, &buf, &len, NULL)) {
            fprintf(d->md, "![%s](data:image/png;base64,", f->id);
            base64(d->md, (const unsigned char *)buf, len);
            fputs(")\n\n", d->md);
            free(buf);
            return;
        }
        fprintf(d->md, "*(%s.png could not be read to inline it: linked instead.)*\n\n", f->id);
    } else if (*mode) {
        size_t n = strlen(mode);
        fprintf(d->md, "![%s](%s%s%s.png)\n\n", f->id, mode, mode[n - 1] == '/' ? "" : "/", f->id);
        return;
    }
    fprintf(d->md, "![%s](%s.png)\n\n", f->id, f->id);
}

void wc_doc_figure(wc_doc *d, const wc_figure *f)
{
    char *raw = f->drawn ? svg_element(d->dir, f->id) : NULL;
    char *svg = raw ? prefix_ids(raw, f->id) : NULL;
    free(raw);
    fprintf(d->html, "<figure id=\"fig-%s\">\n", f->id);
    if (svg) {
        fputs("<div class=\"plot\">", d->html);
        fputs(svg, d->html);
        fputs("</div>\n", d->html);
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
        md_image(d, f);
    else {
        fputs("*", d->md);
        wc_md_escape(d->md, f->title);
        fputs(": not drawn — ", d->md);
        wc_md_escape(d->md, f->why_not);
        fputs("*\n\n", d->md);
    }
    wc_md_escape(d->md, f->caption);
    if (f->has_data)
        fprintf(d->md, " Data: `%s`.", f->data);
    fputs("\n\n", d->md);
    free(svg);
}
