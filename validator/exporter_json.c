/*
 * exporter_json.c — the exporter section as JSON ("exporters" of
 * wattcal-validate/1: unknown numbers null, never 0) and as a JUnit
 * testsuite of its invariants (exporter_text.h).
 */
#include "validator/exporter_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "validator/junit.h"

static void jnum(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static void jci(cJSON *o, const char *k, const wc_ci *c)
{
    cJSON *x = cJSON_AddObjectToObject(o, k);
    jnum(x, "est", c->est);
    jnum(x, "lo", c->lo);
    jnum(x, "hi", c->hi);
}

static void json_head(cJSON *o, const wc_xp_one *x)
{
    cJSON_AddNumberToObject(o, "id", (double)x->info.id);
    cJSON_AddStringToObject(o, "spec", x->info.spec);
    cJSON_AddStringToObject(o, "origin", x->info.origin);
    cJSON_AddStringToObject(o, "node", x->info.node);
    cJSON_AddStringToObject(o, "version", x->info.version);
    cJSON_AddStringToObject(o, "layout", x->info.layout);
    cJSON_AddStringToObject(o, "power_source", x->info.power_source[0] ? x->info.power_source : "unknown");
    cJSON_AddStringToObject(o, "provenance", x->info.provenance);
    cJSON_AddNumberToObject(o, "scrapes", (double)x->nscrapes);
    cJSON_AddNumberToObject(o, "scrapes_ok", (double)x->scrapes_ok);
    cJSON_AddNumberToObject(o, "series", (double)x->nseries);
    cJSON_AddNumberToObject(o, "restarts", (double)x->nrestarts);
    cJSON_AddNumberToObject(o, "wraps", (double)x->nwraps);
    cJSON *src = cJSON_AddArrayToObject(o, "node_sources");
    for (size_t i = 0; i < x->nsources; i++) {
        char name[64];
        snprintf(name, sizeof name, "exporter#%lld:%s", (long long)x->info.id, x->source_zone[i]);
        cJSON_AddItemToArray(src, cJSON_CreateString(name));
    }
}

static void json_invariants(cJSON *o, const wc_xp_one *x)
{
    cJSON *arr = cJSON_AddArrayToObject(o, "invariants");
    for (size_t i = 0; i < x->ninv; i++) {
        const wc_xp_invariant *v = &x->inv[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", v->name);
        cJSON_AddStringToObject(e, "zone", v->zone);
        cJSON_AddNumberToObject(e, "checked", (double)v->checked);
        cJSON_AddNumberToObject(e, "violations", (double)v->violations);
        jnum(e, "worst", v->worst);
        cJSON_AddStringToObject(e, "unit", v->unit);
        cJSON_AddStringToObject(e, "worst_at", v->worst_at);
        cJSON_AddStringToObject(e, "verdict", wc_xp_verdict_name(v->verdict));
        cJSON_AddStringToObject(e, "note", v->note);
        cJSON_AddItemToArray(arr, e);
    }
    cJSON *gap = cJSON_AddArrayToObject(o, "gap");
    for (size_t i = 0; i < x->ngap; i++) {
        const wc_xp_gap *g = &x->gap[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "zone", g->zone);
        jnum(e, "total_joules", g->total_j);
        jnum(e, "idle_joules", g->idle_j);
        jnum(e, "active_joules", g->active_j);
        jnum(e, "pods_joules", g->pods_j);
        jnum(e, "outside_pods_joules", g->outside_j);
        cJSON_AddNumberToObject(e, "intervals", (double)g->intervals);
        cJSON_AddItemToArray(gap, e);
    }
}

static void json_reference(cJSON *o, const wc_xp_one *x)
{
    cJSON *r = cJSON_AddObjectToObject(o, "reference");
    cJSON_AddStringToObject(r, "model", x->ref_model);
    cJSON_AddStringToObject(r, "note", x->ref_note);
    cJSON_AddNumberToObject(r, "compared", (double)x->ref_compared);
    cJSON_AddNumberToObject(r, "agree_within_1mj", (double)x->ref_agree);
    cJSON *arr = cJSON_AddArrayToObject(r, "top");
    for (size_t i = 0; i < x->nref; i++) {
        const wc_xp_ref *f = &x->ref[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "level", f->level);
        cJSON_AddStringToObject(e, "key", f->key);
        cJSON_AddStringToObject(e, "name", f->name);
        jnum(e, "exporter_joules", f->exp_j);
        jnum(e, "reference_joules", f->ref_j);
        cJSON_AddNumberToObject(e, "intervals", (double)f->n);
        jci(e, "bias_pct", &f->bias_pct);
        cJSON_AddItemToArray(arr, e);
    }
}

static void json_showback(cJSON *o, const wc_xp_one *x)
{
    cJSON *s = cJSON_AddObjectToObject(o, "showback");
    cJSON_AddStringToObject(s, "zone", x->show_zone);
    jnum(s, "node_joules", x->show_node_j);
    jnum(s, "error_pct", x->show_err_pct);
    cJSON_AddStringToObject(s, "error_basis", x->show_err_basis);
    cJSON_AddNumberToObject(s, "pods_with_energy", (double)x->show_pods);
    cJSON *arr = cJSON_AddArrayToObject(s, "pods");
    for (size_t i = 0; i < x->nshow; i++) {
        const wc_xp_show *p = &x->show[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "uid", p->uid);
        cJSON_AddStringToObject(e, "name", p->name);
        cJSON_AddStringToObject(e, "namespace", p->ns);
        jnum(e, "joules", p->joules);
        jnum(e, "share_pct", p->share_pct);
        jnum(e, "error_joules", p->err_j);
        cJSON_AddItemToArray(arr, e);
    }
}

void wc_xp_json(cJSON *root, const wc_xp_report *r)
{
    cJSON *arr = cJSON_AddArrayToObject(root, "exporters");
    for (size_t i = 0; r && i < r->n; i++) {
        cJSON *o = cJSON_CreateObject();
        json_head(o, &r->x[i]);
        json_invariants(o, &r->x[i]);
        json_reference(o, &r->x[i]);
        json_showback(o, &r->x[i]);
        cJSON_AddItemToArray(arr, o);
    }
}

/* One invariant as a <testcase>. */
static void junit_case(FILE *f, const wc_xp_one *x, const wc_xp_invariant *v)
{
    char msg[512], worst[48] = "-"; /* nothing checked: no worst value */
    if (isfinite(v->worst))
        snprintf(worst, sizeof worst, "%g %s", v->worst, v->unit);
    snprintf(msg, sizeof msg, "%s: %zu checked, %zu violated, worst %s %s %s", wc_xp_verdict_name(v->verdict),
             v->checked, v->violations, worst, v->worst_at, v->note);
    fprintf(f, "    <testcase classname=\"wattcal.exporter.invariant\" name=\"exporter#%lld ",
            (long long)x->info.id);
    wc_xml_escape(f, v->name);
    fputs(v->zone[0] ? " zone=" : "", f);
    wc_xml_escape(f, v->zone);
    fputs("\" time=\"0\">\n", f);
    if (v->verdict != WC_XP_PASS) {
        fputs(v->verdict == WC_XP_FAIL ? "      <failure type=\"invariant\" message=\"" : "      <skipped message=\"", f);
        wc_xml_escape(f, msg);
        fputs("\"/>\n", f);
    }
    fputs("      <system-out>", f);
    wc_xml_escape(f, msg);
    fputs("</system-out>\n    </testcase>\n", f);
}

void wc_xp_junit(FILE *f, const wc_xp_report *r, size_t *tests, size_t *failures, size_t *skipped)
{
    *tests = *failures = *skipped = 0;
    for (size_t i = 0; r && i < r->n; i++)
        for (size_t j = 0; j < r->x[i].ninv; j++) {
            (*tests)++;
            *failures += r->x[i].inv[j].verdict == WC_XP_FAIL;
            *skipped += r->x[i].inv[j].verdict == WC_XP_NO_VERDICT;
        }
    if (!f || !*tests)
        return;
    fprintf(f, "  <testsuite name=\"wattcal validate: the exporter's invariants\" tests=\"%zu\" "
               "failures=\"%zu\" skipped=\"%zu\" errors=\"0\">\n", *tests, *failures, *skipped);
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < r->x[i].ninv; j++)
            junit_case(f, &r->x[i], &r->x[i].inv[j]);
    fputs("  </testsuite>\n", f);
}
