#!/usr/bin/env python3
"""Checks a run database written by `wattcal import --prometheus` against the
Prometheus API queried directly (Python 3 standard library only).

For the node given, asks /api/v1/series which targets export it (node_name,
exported_instance or instance equal to the node), then /api/v1/query_range
for {__name__=~"kepler_.+",node_name="NODE"} and, per target,
{__name__=~"kepler_.+",job=..,instance=..,node_name=""} on the same grid,
drops series naming another node, and compares with the database: the same
series (metric and canonical label text), the same value at every instant,
one scrape row per instant with its sample count; then each --truth-query's
values against the truth samples of the source whose spec is the query.
Prints one "ok: ..." line and exits 0, or prints every difference and exits 1.
"""
import argparse
import json
import math
import sqlite3
import sys
import urllib.parse
import urllib.request


def api(url, path, params):
    q = urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen("%s%s?%s" % (url, path, q), timeout=30) as r:
        doc = json.load(r)
    if doc.get("status") != "success":
        raise SystemExit("API error: %r" % doc)
    return doc["data"]


def quote(v):
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def canonical(labels):
    return "{" + ",".join("%s=%s" % (k, quote(v)) for k, v in sorted(labels.items())) + "}"


def keep(labels, node):
    return labels.get("node_name", node) == node and labels.get("exported_instance", node) == node


def expected(a):
    """{(metric, labels): {instant_ms: value}} from the API."""
    span = {"start": a.start, "end": a.end}
    sels = ['{__name__=~"kepler_.+",%s=%s}' % (l, quote(a.node))
            for l in ("node_name", "exported_instance", "instance")]
    targets = set()
    for s in api(a.prom, "/api/v1/series", dict(span, **{"match[]": sels})):
        if keep(s, a.node):
            targets.add((s.get("job", ""), s.get("instance", "")))
    data = [sels[0]] + ['{__name__=~"kepler_.+",job=%s,instance=%s,node_name=""}'
                        % (quote(j), quote(i)) for j, i in sorted(targets)]
    out = {}
    for sel in data:
        res = api(a.prom, "/api/v1/query_range", dict(span, query=sel, step=a.step))
        for r in res["result"]:
            labels = dict(r["metric"])
            if not keep(labels, a.node):
                continue
            name = labels.pop("__name__")
            out[(name, canonical(labels))] = {round(t * 1000): float(v) for t, v in r["values"]}
    return out


def stored(db):
    got = {}
    rows = db.execute("SELECT s.metric, s.labels, c.req_wall_ns, x.value FROM exporter_sample x"
                      " JOIN exporter_series s ON s.id = x.series_id"
                      " JOIN exporter_scrape c ON c.id = x.scrape_id")
    for metric, labels, wall_ns, value in rows:
        got.setdefault((metric, labels), {})[wall_ns // 1000000] = value
    return got


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b


def compare_exporter(want, got, errors):
    for key in sorted(set(want) | set(got)):
        if key not in got:
            errors.append("series missing from the DB: %s%s" % key)
        elif key not in want:
            errors.append("series in the DB but not in Prometheus: %s%s" % key)
        else:
            w, g = want[key], got[key]
            for t in sorted(set(w) | set(g)):
                if not same(w.get(t), g.get(t)):
                    errors.append("%s%s at %d ms: Prometheus %r, DB %r"
                                  % (key[0], key[1], t, w.get(t), g.get(t)))
    return sum(len(v) for v in want.values())


def compare_truth(a, db, errors):
    n = 0
    for q in a.truth_query:
        res = api(a.prom, "/api/v1/query_range",
                  {"query": q, "start": a.start, "end": a.end, "step": a.step})["result"]
        if len(res) != 1:
            errors.append("truth query %s: %d series in Prometheus" % (q, len(res)))
            continue
        want = {round(t * 1000): float(v) for t, v in res[0]["values"]}
        rows = db.execute("SELECT t.poll_wall_ns, t.watts FROM truth_sample t JOIN truth_source s"
                          " ON s.id = t.source_id WHERE s.spec = ? AND s.kind = 'prometheus'",
                          (q,)).fetchall()
        got = {w // 1000000: v for w, v in rows}
        if want != got:
            errors.append("truth query %s: Prometheus %d samples, DB %d, differing: %s"
                          % (q, len(want), len(got),
                             sorted(t for t in set(want) | set(got) if want.get(t) != got.get(t))[:5]))
        n += len(got)
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prom", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--node", required=True)
    ap.add_argument("--start", required=True)
    ap.add_argument("--end", required=True)
    ap.add_argument("--step", required=True, help="seconds, as the API takes it")
    ap.add_argument("--truth-query", action="append", default=[])
    a = ap.parse_args()
    db = sqlite3.connect("file:%s?mode=ro" % a.db, uri=True)
    errors = []
    want = expected(a)
    got = stored(db)
    samples = compare_exporter(want, got, errors)
    scrapes = db.execute("SELECT count(*), sum(samples) FROM exporter_scrape").fetchone()
    if scrapes[1] != samples:
        errors.append("scrape rows count %r samples, Prometheus has %d" % (scrapes[1], samples))
    truth = compare_truth(a, db, errors)
    for e in errors[:40]:
        print("DIFF: " + e)
    if errors:
        return 1
    print("ok: %d series, %d samples at %d instants, %d truth samples as Prometheus has them"
          % (len(want), samples, scrapes[0], truth))
    return 0


if __name__ == "__main__":
    sys.exit(main())
