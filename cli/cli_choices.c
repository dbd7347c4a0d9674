/*
 * cli_choices.c — the choices of --meter, --model, --truth and --exporter as
 * --help lists them, read from the tables that define them
 * (collector/meter/meter_table.c, collector/model/attr_models.c,
 * collector/truth/truth_table.c, collector/exporter/exporter_table.c), so a
 * new meter, model, truth source or exporter shows in every command's help
 * without an edit here (cli_parse.h: wc_cli_opt.choices).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_parse.h"
#include "collector/exporter/exporter_table.h"
#include "collector/meter/meter_table.h"
#include "collector/truth/truth_table.h"

/* Lines end before this column. */
#define WRAP_COL 79

/* Prints "  NAME  text" at col, the text's words wrapped before WRAP_COL and
 * continued 4 columns right of col (text's '\n' count as spaces). */
static void choice(FILE *out, int col, const char *name, const char *text)
{
    int at = fprintf(out, "%*s%s: ", col + 2, "", name);
    for (const char *w = text; *w;) {
        size_t n = strcspn(w, " \n");
        if (n && at + 1 + (int)n > WRAP_COL && at > col + 4)
            at = fprintf(out, "\n%*s", col + 4, "") - 1;
        if (n)
            at += fprintf(out, "%s%.*s", at > col + 4 && w != text ? " " : "", (int)n, w);
        w += n;
        while (*w == ' ' || *w == '\n')
            w++;
    }
    fputc('\n', out);
}

void wc_cli_list_meters(FILE *out, int col)
{
    size_t n = 0;
    const wc_meter_kind *k = wc_meter_kinds(&n);
    for (size_t i = 0; i < n; i++) {
        char text[256];
        snprintf(text, sizeof text, "%s%s", k[i].help,
                 strcmp(k[i].name, WC_METER_DEFAULT) ? "" : " (the default)");
        choice(out, col, k[i].name, text);
    }
}

void wc_cli_list_models(FILE *out, int col)
{
    for (size_t m = 0; m < wc_model_count(); m++)
        choice(out, col, wc_model_name((wc_model)m), wc_model_description((wc_model)m));
}

void wc_cli_list_model_names(FILE *out, int col)
{
    char names[128];
    fprintf(out, "%*s(%s)\n", col, "", wc_cli_model_names(names, sizeof names));
}

void wc_cli_list_truth(FILE *out, int col)
{
    size_t n = 0;
    const wc_truth_kind *k = wc_truth_kinds(&n);
    for (size_t i = 0; i < n; i++)
        choice(out, col, k[i].summary, k[i].help);
}

void wc_cli_list_exporters(FILE *out, int col)
{
    size_t n = 0;
    const wc_exporter_kind *k = wc_exporter_kinds(&n);
    for (size_t i = 0; i < n; i++)
        choice(out, col, k[i].summary, k[i].help);
}
