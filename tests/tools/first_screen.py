"""first_screen.py — measures a wattcal report as a browser lays it out.

Usage: first_screen.py CHROMIUM REPORT.html WIDTH HEIGHT WORKDIR
Prints one JSON object measured by headless Chromium at WIDTH x HEIGHT:
  scroll_width, inner_width   the page's width and the viewport's (body overflow when >)
  verdict_top, verdict_bottom the verdict box (#verdict) in page pixels (-1: none)
  verdict_text                its text
  cut_tables                  tables wider than their scroll box (columns cut off)
  min_tick_px                 the smallest on-screen height of a plot's tick label (SVG text), px
  provenance_after_verdict    the "Provenance" heading comes after the verdict box
  duplicate_ids               ids that occur more than once in the page
  screenshot, screenshot_rows a PNG of the first screen and its distinct pixel rows
                              (filtered scanlines: a blank screen has a handful)
The report's own Content-Security-Policy forbids scripts, so the page is
measured from a copy (in WORKDIR), its policy removed, shown in an iframe of
exactly WIDTH x HEIGHT (a headless window is at least 500 px wide) by a
wrapper page whose script measures it; the report itself is not changed.
Standard library only.
"""
import json
import os
import re
import struct
import subprocess
import sys
import zlib

MEASURE = r"""
<script>
function measure(w, d) {
  var r = {}, de = d.documentElement, v = d.getElementById('verdict');
  r.scroll_width = Math.max(de.scrollWidth, d.body.scrollWidth);
  r.inner_width = w.innerWidth;
  if (v) {
    var b = v.getBoundingClientRect();
    r.verdict_top = b.top + w.scrollY; r.verdict_bottom = b.bottom + w.scrollY;
    r.verdict_text = v.innerText;
  } else { r.verdict_top = r.verdict_bottom = -1; r.verdict_text = ''; }
  r.cut_tables = 0; r.tables = 0;
  d.querySelectorAll('.scroll').forEach(function (s) {
    r.tables++;
    if (s.scrollWidth > s.clientWidth + 1) r.cut_tables++;
  });
  var min = 1e9; r.plots = d.querySelectorAll('.plot svg').length;
  d.querySelectorAll('.plot svg text').forEach(function (t) {
    var h = t.getBoundingClientRect().height;
    if (h > 0 && /^[-+0-9.]+$/.test(t.textContent.trim())) min = Math.min(min, h);
  });
  r.min_tick_px = min === 1e9 ? -1 : min;
  var prov = Array.prototype.find.call(d.querySelectorAll('h2'), function (h) {
    return h.textContent === 'Provenance'; });
  r.provenance_after_verdict = !!(v && prov &&
    (v.compareDocumentPosition(prov) & Node.DOCUMENT_POSITION_FOLLOWING));
  var ids = {}; r.duplicate_ids = [];
  d.querySelectorAll('[id]').forEach(function (e) {
    if (ids[e.id] && r.duplicate_ids.indexOf(e.id) < 0) r.duplicate_ids.push(e.id);
    ids[e.id] = 1; });
  var pre = document.createElement('pre');
  pre.id = 'wattcal-measure';
  pre.textContent = 'MEASURE' + JSON.stringify(r) + 'END';
  document.body.appendChild(pre);
}
var f = document.getElementById('page');
f.addEventListener('load', function () { measure(f.contentWindow, f.contentDocument); });
</script>
"""


def main():
    chromium, report, width, height, work = sys.argv[1:6]
    html = open(report, encoding="utf-8").read()
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html, count=1)
    # The page in an iframe of exactly WIDTH x HEIGHT (headless windows are at
    # least 500 px wide); srcdoc keeps it same-origin, so the wrapper measures it.
    wrapper = ('<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}</style></head>'
               '<body><iframe id="page" style="border:0;display:block" width="%s" height="%s" srcdoc="%s">'
               '</iframe>%s</body></html>' % (width, height, html_attr(html), MEASURE))
    copy = os.path.join(work, "measure-%sx%s.html" % (width, height))
    with open(copy, "w", encoding="utf-8") as f:
        f.write(wrapper)
    prof = os.path.join(work, "chrome-profile")
    common = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars", "--user-data-dir=" + prof,
              "--window-size=%d,%s" % (max(int(width), 500), height), "--virtual-time-budget=3000"]
    out = subprocess.run(common + ["--dump-dom", "file://" + copy], capture_output=True, text=True, timeout=120)
    m = re.search(r"<pre id=\"wattcal-measure\">MEASURE(.*?)END</pre>", out.stdout, re.S)
    if not m:
        sys.stderr.write(out.stderr[-2000:])
        sys.exit("first_screen.py: no measurement in the DOM (chromium exit %d)" % out.returncode)
    r = json.loads(m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                   .replace("&amp;", "&"))
    shot = os.path.join(work, "first-screen-%sx%s.png" % (width, height))
    subprocess.run(common + ["--screenshot=" + shot, "file://" + copy], capture_output=True, timeout=120)
    r["screenshot"] = shot
    r["screenshot_rows"] = distinct_rows(shot, int(width)) if os.path.exists(shot) else -1
    print(json.dumps(r))


def html_attr(s):
    return s.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def distinct_rows(path, width):
    """Distinct pixel rows of the PNG's first `width` columns (a blank screen has one or two)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, colour = ihdr[:4]
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    stride = 1 + w * channels * depth // 8
    raw = zlib.decompress(idat)
    return len({raw[i:i + stride] for i in range(0, len(raw), stride)})


if __name__ == "__main__":
    main()
