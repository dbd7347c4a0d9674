/*
 * doc.h — one document written twice, as HTML and as Markdown: the report
 * (reports/report.c) is composed once through these calls and every piece of
 * text is escaped for each format (reports/escape.h), so no string from the
 * run can become markup in either.
 */
#ifndef WC_REPORT_DOC_H
#define WC_REPORT_DOC_H

#include <stddef.h>
#include <stdio.h>

#include "reports/figures.h"

/* The two outputs. */
typedef struct wc_doc {
    FILE *html, *md;
    const char *dir;          /* where the figures' files are */
    int table_cols;           /* columns of the open table, 0 none */
    const char *md_images;    /* how report.md references a plot: NULL or "" its file name
                                 beside it, "inline" a data: URI, else this base URL + "/<id>.png" */
    char heading[160];        /* the last heading: a long table's <details> summary */
    FILE *md_table;           /* the open table's Markdown, buffered (NULL: written directly) */
    char *md_table_buf;
    size_t md_table_len, table_rows;
} wc_doc;

/* Markdown tables longer than this many rows are folded into <details>. */
#define WC_DOC_DETAILS_ROWS 10

/* Writes the HTML head (title, inline CSS, a Content-Security-Policy that
 * forbids every network fetch and every script) and the Markdown title. */
void wc_doc_begin(wc_doc *d, const char *title);

/* Closes both documents (the HTML body and html elements). */
void wc_doc_end(wc_doc *d);

/* A heading, level 2 or 3 (level 1 is the title). */
void wc_doc_heading(wc_doc *d, int level, const char *text);

/* A paragraph of printf-formatted text, escaped as a whole. */
void wc_doc_para(wc_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A highlighted note: kind "warn" (yellow), "bad" (red), "good" (green),
 * "info"; label is shown in bold before the text. */
void wc_doc_note(wc_doc *d, const char *kind, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The verdict box at the top of the page (HTML id "verdict"): kind as for
 * wc_doc_note, the one-sentence answer in large type, then items (a bold
 * label and printf-formatted text); in Markdown a block quote with the
 * sentence in bold and the items as a list. */
void wc_doc_verdict_begin(wc_doc *d, const char *kind, const char *sentence);
void wc_doc_verdict_item(wc_doc *d, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void wc_doc_verdict_end(wc_doc *d);

/* A table: headers[ncols]; rows of ncols cells (NULL cell = "-"); a row
 * class ("pass", "fail", "skip", "warn" or NULL) colours the row in HTML and
 * is ignored in Markdown. In HTML it scrolls sideways inside its own box;
 * in Markdown one of more than WC_DOC_DETAILS_ROWS rows is folded into
 * <details> whose summary names the last heading and the row count. */
void wc_doc_table_begin(wc_doc *d, const char *const *headers, int ncols);
void wc_doc_table_row(wc_doc *d, const char *row_class, const char *const *cells);
void wc_doc_table_end(wc_doc *d);

/* A figure: its SVG inline in the HTML (read from dir/<id>.svg; every id
 * in it prefixed "fig-<id>-" so the page's ids stay unique, in a box that
 * scrolls sideways on a phone rather than shrinking the labels), its PNG
 * in the Markdown (as md_images says), its caption and its data file named
 * in both; a figure that was not drawn says why. */
void wc_doc_figure(wc_doc *d, const wc_figure *f);

#endif
