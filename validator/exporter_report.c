/*
 * exporter_report.c — runs the exporter analyses of `validate` on every
 * exporter of a run (exporter_report.h): load and node sources before the
 * accuracy scoring, the rest after it.
 */
#include "validator/exporter_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/wc_text.h"

int wc_xp_report_load(wc_store *st, wc_accuracy_report *acc, wc_xp_report *r, wc_error *err)
{
    memset(r, 0, sizeof *r);
    wc_exporter_info info[WC_XP_MAX + 1];
    size_t n = 0;
    int rc = wc_store_exporters(st, info, WC_XP_MAX + 1, &n, err);
    if (rc)
        return rc;
    r->skipped = n > WC_XP_MAX ? 1 : 0;
    for (size_t i = 0; i < n && i < WC_XP_MAX && !rc; i++) {
        rc = wc_xp_load(st, &info[i], &r->data[i], err);
        if (rc)
            break;
        wc_xp_one *x = &r->x[r->n++];
        x->info = info[i];
        x->nscrapes = r->data[i].nscrapes;
        x->nseries = r->data[i].nseries;
        x->nrestarts = r->data[i].nrestarts;
        /* the recorder's exact words for a request the run's end cut short
         * (collector/exporter/exporter_scrape.c): the whole error, so an
         * exporter's own answer (an HTTP error quotes its body) cannot pass
         * a failure off as a cancel */
        const char *url = strchr(info[i].spec, ':');
        char cancelled[256];
        wc_textf(cancelled, sizeof cancelled, "%.160s: cancelled: the run ended during the request",
                 url ? url + 1 : info[i].spec);
        for (size_t k = 0; k < r->data[i].nscrapes; k++) {
            const wc_scrape_meta *m = &r->data[i].scrapes[k];
            x->scrapes_ok += !strcmp(m->status, "ok") || !strcmp(m->status, "capped");
            x->scrapes_cancelled += !strcmp(m->status, "error") && !strcmp(m->error, cancelled);
        }
        for (size_t z = 0; z < WC_XP_MAX_ZONES; z++)
            x->source_index[z] = -1;
        if (acc)
            rc = wc_xp_add_sources(&r->data[i], acc, x, err);
    }
    if (rc)
        wc_xp_report_free(r);
    return rc;
}

void wc_xp_showback_untrusted(wc_xp_one *x, size_t phases)
{
    size_t used = strlen(x->show_err_basis);
    if (!phases || !isfinite(x->show_err_pct) || used >= sizeof x->show_err_basis)
        return;
    wc_textf(x->show_err_basis + used, sizeof x->show_err_basis - used,
             "; NOT TRUSTWORTHY: its class bias comes from a replay where %zu phase(s) drew less"
             " than the idle baseline (replay on a quiet node)", phases);
}

int wc_xp_report_finish(wc_store *st, int64_t model_id, const char *model,
                        const wc_accuracy_report *acc, double class_err_pct,
                        const wc_boot_cfg *boot, wc_xp_report *r, wc_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < r->n && !rc; i++) {
        wc_xp_one *x = &r->x[i];
        if (wc_xp_check(&r->data[i], x) || wc_xp_showback(&r->data[i], acc, class_err_pct, x))
            rc = wc_error_set(err, -ENOMEM, "out of memory checking exporter %lld",
                              (long long)x->info.id);
        if (!rc && r->class_untrusted && isfinite(class_err_pct))
            wc_xp_showback_untrusted(x, r->class_untrusted);
        if (!rc)
            rc = wc_xp_reference(st, model_id, model, &r->data[i], boot, x, err);
    }
    return rc;
}

void wc_xp_report_free(wc_xp_report *r)
{
    for (size_t i = 0; i < WC_XP_MAX; i++)
        wc_xp_free(&r->data[i]);
    r->n = 0;
}
