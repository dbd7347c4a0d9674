/*
 * junit.c — JUnit XML of the validate gate (junit.h).
 */
#include "validator/junit.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "validator/exporter_text.h"
#include "validator/gate_notes.h"

void wc_xml_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if ((c < 0x20 && c != '\t') || c == 0x7f || c >= 0x80)
                fputc('?', f); /* not representable in XML 1.0 (non-ASCII: not validated as UTF-8) */
            else
                fputc(c, f);
        }
    }
}

static void testcase(FILE *f, const wc_check *c)
{
    char thr[64];
    snprintf(thr, sizeof thr, "%g%s", c->threshold, c->unit);
    fputs("    <testcase classname=\"wattcal.validate.", f);
    wc_xml_escape(f, c->metric);
    fputs("\" name=\"phase=", f);
    wc_xml_escape(f, c->phase);
    fputs(" metric=", f);
    wc_xml_escape(f, c->metric);
    fputs(" threshold=", f);
    wc_xml_escape(f, thr);
    fputs(" subject=", f);
    wc_xml_escape(f, c->subject);
    fputs("\" time=\"0\">\n", f);
    if (c->status == WC_CHECK_FAIL) {
        fputs("      <failure type=\"tolerance\" message=\"", f);
        wc_xml_escape(f, c->message);
        fputs("\"/>\n", f);
    } else if (c->status == WC_CHECK_SKIP || c->status == WC_CHECK_INSUFFICIENT) {
        /* an error, not skipped: CI must not read an unchecked tolerance as a pass */
        fprintf(f, "      <error type=\"%s\" message=\"",
                c->status == WC_CHECK_SKIP ? "no-verdict" : "insufficient");
        wc_xml_escape(f, c->message);
        fputs("\"/>\n", f);
    }
    fputs("      <system-out>", f);
    wc_xml_escape(f, c->message);
    fputs("</system-out>\n    </testcase>\n", f);
}

int wc_junit_xp_suite(const wc_validation *v, size_t *tests, size_t *failures, size_t *skipped)
{
    wc_xp_junit(NULL, v->xp, tests, failures, skipped);
    for (size_t i = 0; i < v->nchecks; i++)
        if (!strcmp(v->checks[i].metric, "exporter-invariants"))
            *tests = 0; /* gated: already testcases of the gate's suite */
    if (!*tests)
        *failures = *skipped = 0;
    return *tests != 0;
}

/* The gate's suite: its counts are the terminal's closing line (passed,
 * failed, no verdict, insufficient; the last two both <error>s, told apart
 * by the properties). */
static void gate_suite(FILE *f, const wc_validation *v, const char *db_path)
{
    fprintf(f, "  <testsuite name=\"wattcal validate ");
    wc_xml_escape(f, db_path);
    const char *prov = wc_gate_provenance(v);
    fprintf(f, " (model %s) gate %s%s%s%s\" tests=\"%zu\" failures=\"%zu\" skipped=\"0\" errors=\"%zu\">\n",
            v->model, wc_gate_outcome_name(v->outcome), prov[0] ? " (" : "", prov, prov[0] ? ")" : "",
            v->nchecks, v->failed, v->skipped + v->insufficient);
    fprintf(f, "    <properties>\n      <property name=\"passed\" value=\"%zu\"/>\n"
               "      <property name=\"failed\" value=\"%zu\"/>\n"
               "      <property name=\"no_verdict\" value=\"%zu\"/>\n"
               "      <property name=\"insufficient\" value=\"%zu\"/>\n    </properties>\n",
            v->passed, v->failed, v->skipped, v->insufficient);
    for (size_t i = 0; i < v->nchecks; i++)
        testcase(f, &v->checks[i]);
    fputs("  </testsuite>\n", f);
}

int wc_junit_write(const char *path, const wc_validation *v, const char *db_path, wc_error *err)
{
    /* written in place (a symlink, FIFO or device given as FILE is written through) */
    FILE *f = fopen(path, "w");
    if (!f)
        return wc_error_set(err, -errno, "--junit %.200s: cannot write: %s", path, strerror(errno));
    size_t xt, xf, xs; /* the exporter's invariants: a testsuite of their own when not gated */
    int xp = wc_junit_xp_suite(v, &xt, &xf, &xs);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<!-- the gate: %zu checks, %zu passed, %zu failed, %zu no verdict, %zu insufficient"
               " (validate's closing line); the exporter's invariants, not gated: %zu, %zu failed,"
               " %zu no verdict -->\n", v->nchecks, v->passed, v->failed, v->skipped,
            v->insufficient, xt, xf, xs);
    fprintf(f, "<testsuites name=\"wattcal validate\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\""
               " skipped=\"%zu\">\n", v->nchecks + xt, v->failed + xf, v->skipped + v->insufficient, xs);
    gate_suite(f, v, db_path);
    if (xp)
        wc_xp_junit(f, v->xp, &xt, &xf, &xs);
    fputs("</testsuites>\n", f);
    int bad = fflush(f) != 0 || ferror(f);
    int e = errno;
    if (fclose(f) || bad)
        return wc_error_set(err, -EIO, "--junit %.200s: write failed: %s", path,
                            strerror(bad ? e : errno));
    return 0;
}
