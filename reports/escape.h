/*
 * escape.h — writing untrusted strings (process names, pod and container
 * ids, phase labels, BMC text, specs) into the report formats so that they
 * show literally and harmlessly:
 *   HTML      & < > " ' as entities;
 *   Markdown  & < > as entities (so no HTML tag can form) and a backslash
 *             before every character that means something inline (\ ` * _
 *             [ ] | ~); text that starts a line (a paragraph) also before
 *             a first character that starts a block (# + - = !, and the .
 *             or ) after leading digits);
 *   gnuplot   a label never enters a gnuplot script as text: it is written
 *             as dec("<hex of its bytes>"), a string expression the script's
 *             own function dec() turns back into bytes when the plot is
 *             drawn, so the script text holds only [0-9a-f] from the run and
 *             backticks, `system`, macros (@) and quotes in a label are never
 *             parsed; gnuplot's data-file reader takes a double quote as a
 *             string delimiter with no escape, so labels plotted from data
 *             files are hex fields too (wc_gp_hex) and the readable copy
 *             (wc_gp_field) is the last column, which no plot reads.
 * In every format a control byte (newline, tab, ESC…) or a byte that is not
 * valid UTF-8 is written as the visible text \n, \t, \xNN.
 */
#ifndef WC_REPORT_ESCAPE_H
#define WC_REPORT_ESCAPE_H

#include <stdio.h>

/* Writes s as HTML text (element content or a quoted attribute value). */
void wc_html_escape(FILE *f, const char *s);

/* Writes s as Markdown inline text: a table cell, or after other text. */
void wc_md_escape(FILE *f, const char *s);

/* Writes s as Markdown text that starts a line (a paragraph). */
void wc_md_escape_block(FILE *f, const char *s);

/* Writes s as a readable tab-separated data-file field ("-" when empty). */
void wc_gp_field(FILE *f, const char *s);

/* The visible form of s (control and invalid bytes as \n, \xNN) into buf,
 * cut at a character boundary to fit max_bytes (then ending in "..."), at
 * most cap − 1 bytes. Returns buf. */
const char *wc_visible(const char *s, size_t max_bytes, char *buf, size_t cap);

/* Writes the hex digits of the visible form of s (at most max_bytes, see
 * wc_visible): a data-file field the script decodes with dec(). */
void wc_gp_hex(FILE *f, const char *s, size_t max_bytes);

/* Writes the gnuplot string expression dec("<hex>") for s (see top). */
void wc_gp_string(FILE *f, const char *s, size_t max_bytes);

/* The gnuplot functions wc_gp_string needs; the start of every script. */
extern const char WC_GP_DECODER[];

#endif
