#!/usr/bin/python3
"""End to end: a real small sweep (2 local workers), `fleetsweep report`, then the page opened
in headless Chromium at 1400 px: the screenshot must exist and be non-trivial, the DOM must hold
every section, Chromium must log no console error and no resource load, and what Chromium lays
out is measured (a test-only copy of the page gets a script that reads the SVG geometry): no
label or tick text is clipped by its chart, every configuration with results is plotted under
"All", and the effect panels draw intervals. Skips (77) only when chromium is not installed. Set
FLEETSWEEP_REPORT_SCREENSHOT=PATH to keep the screenshot."""
import json
import os
import re
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_helpers import DATA, fail, fleetsweep, run, run_sweep  # noqa: E402

SECTIONS = ["verdict", "summary", "ranking", "ranking-all", "heatmap", "parallel", "effects",
            "distributions", "progress", "infeasible", "nodes", "fingerprints"]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def check_html(html):
    for s in SECTIONS:
        if 'id="%s"' % s not in html:
            fail("report.html has no section " + s)
    if re.search(r"<script|<link|<img|<iframe|@import|url\(", html, re.I):
        fail("report.html is not self-contained (script/link/img/url)")
    for m in re.finditer(r"(?:src|href)\s*=", html, re.I):
        fail("report.html references an external resource at %d" % m.start())
    if html.count("<svg") < 3:
        fail("expected at least 3 inline SVG charts, got %d" % html.count("<svg"))
    if "bogus" not in html or "infeasible configurations" not in html:
        fail("the infeasible LOOP_ORDER=bogus region is not in the report")


# Appended to a test-only copy of report.html (the report itself has no script): measures the
# laid-out SVG text and marks, and writes the result into the DOM for --dump-dom.
MEASURE = """<script>
const out = {clipped: [], labels: 0, all_points: -1, top_points: -1, effect_bars: 0};
for (const svg of document.querySelectorAll('svg.chart')) {
  const w = svg.viewBox.baseVal.width, h = svg.viewBox.baseVal.height;
  for (const t of svg.querySelectorAll('text')) {
    const b = t.getBBox();
    if (b.x < -0.5 || b.x + b.width > w + 0.5 || b.y < -0.5 || b.y + b.height > h + 0.5)
      out.clipped.push(t.textContent);
    if (t.classList.contains('label')) out.labels++;
  }
}
const all = document.querySelector('#ranking-all + svg');
if (all) out.all_points = all.querySelectorAll('circle').length;
const topChart = document.querySelector('#ranking-top + svg');
if (topChart) out.top_points = topChart.querySelectorAll('circle').length;
out.effect_bars = document.querySelectorAll('#effects line.ci').length;
out.effects = {};
for (const e of document.querySelectorAll('#effects .effect')) {
  const name = e.querySelector('h3').firstChild.textContent.trim();
  out.effects[name] = [e.querySelectorAll('circle.pt').length,
                       e.querySelectorAll('line.ci').length / 3];
}
out.pc_axes = [...document.querySelectorAll('#parallel g.pc-axis:not(.value)')].map(
    g => g.querySelector('text.axislabel').textContent);
out.pc_value_axes = document.querySelectorAll('#parallel g.pc-axis.value').length;
out.pc_lines = [...document.querySelectorAll('#parallel polyline.pc')].map(
    l => l.points.numberOfItems);
out.executions = document.querySelectorAll('#distributions circle.exe').length;
out.progress_points = document.querySelectorAll('#progress circle.exe').length;
document.body.insertAdjacentHTML('beforeend',
    '<pre id="measure">' + JSON.stringify(out) + '</pre>');
</script>"""


def measure(common, out_dir, tmp):
    """What Chromium draws: returns the MEASURE script's result."""
    html = open(os.path.join(out_dir, "report.html"), encoding="utf-8").read()
    probe = os.path.join(tmp, "probe.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(html.replace("</body>", MEASURE + "</body>"))
    _, dom, _ = run(common + ["--window-size=1400,2000", "--dump-dom", "file://" + probe],
                    timeout=90)
    found = re.findall(r'<pre id="measure">(\{.*?)</pre>', dom, re.S)  # not the script's text
    if not found:
        fail("the measuring script did not run")
    return json.loads(found[-1].replace("&quot;", '"').replace("&amp;", "&"))


def main():
    chromium = find_chromium()
    tmp = tempfile.mkdtemp(prefix="fs-report-")
    try:
        out = os.path.join(tmp, "sweep")
        run_sweep(os.path.join(DATA, "report-demo.yaml"), out)
        # Default heatmap, then explicit axes, then an unknown parameter (an error).
        fleetsweep("report", out)
        html = open(os.path.join(out, "report.html"), encoding="utf-8").read()
        check_html(html)
        fleetsweep("report", out, "--x", "BN", "--y", "LOOP_ORDER")
        html = open(os.path.join(out, "report.html"), encoding="utf-8").read()
        if "Heatmap: BN &times; LOOP_ORDER" not in html:
            fail("--x BN --y LOOP_ORDER did not choose the heatmap axes")
        rc, _, err = fleetsweep("report", out, "--x", "NOPE", check=False)
        if rc == 0 or "NOPE" not in err:
            fail("an unknown --x parameter must fail naming it (rc %d, %s)" % (rc, err))
        fleetsweep("report", out)

        if chromium is None:
            print("SKIP: chromium is not installed (apt-get install chromium); the HTML checks "
                  "passed", file=sys.stderr)
            sys.exit(77)
        url = "file://" + os.path.join(out, "report.html")
        png = os.path.join(tmp, "report.png")
        common = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                  "--user-data-dir=" + os.path.join(tmp, "profile"), "--enable-logging=stderr",
                  "--v=0"]
        _, _, err = run(common + ["--screenshot=" + png, "--window-size=1400,2000", url],
                        timeout=90)
        with open(png, "rb") as f:
            data = f.read()
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            fail("screenshot is not a PNG")
        width, height = struct.unpack(">II", data[16:24])
        if (width, height) != (1400, 2000) or len(data) < 30000:
            fail("screenshot looks trivial: %dx%d, %d bytes" % (width, height, len(data)))
        _, dom, err2 = run(common + ["--dump-dom", url], timeout=90)
        for s in SECTIONS:
            if 'id="%s"' % s not in dom:
                fail("the DOM Chromium built has no section " + s)
        if dom.count("<svg") < 3:
            fail("the DOM has fewer than 3 SVG charts")
        for log in (err, err2):
            for line in log.splitlines():
                if "CONSOLE" in line or "Failed to load resource" in line \
                        or "Uncaught" in line:
                    fail("Chromium logged a page error: " + line)
        drawn = measure(common, out, tmp)
        with open(os.path.join(out, "results.json")) as f:
            results = json.load(f)
        with_results = sum(1 for c in results["configurations"] if c.get("n", 0) > 0)
        if drawn["clipped"]:
            fail("text clipped by its chart at 1400 px: %s" % drawn["clipped"][:10])
        if drawn["all_points"] != with_results:
            fail("'All' plots %d of %d configurations with results"
                 % (drawn["all_points"], with_results))
        # The zoomed view shows the tied set (at least the top 10); it is drawn when it is a
        # strict subset of the configurations with results, and never otherwise.
        best = max(10, len(results.get("tied") or []))  # "tied" holds the best one too
        if with_results > best and not best <= drawn["top_points"] < with_results:
            fail("no zoomed view of the top %d configurations: %s" % (best, drawn))
        if with_results <= best and drawn["top_points"] != -1:
            fail("a zoomed view that shows every configuration again: %s" % drawn)
        if drawn["labels"] < with_results or drawn["effect_bars"] == 0:
            fail("labels or effect intervals missing: %s" % drawn)
        # Parallel coordinates: one axis per parameter that varies, one for the metric, and one
        # line per configuration with results through every axis.
        values = {}
        for c in results["configurations"]:
            for name in set(values) | set(c.get("params", {})):
                values.setdefault(name, set()).add(str(c.get("params", {}).get(name)))
        varying = sorted(n for n, v in values.items() if len(v) > 1)
        if sorted(drawn["pc_axes"]) != varying or drawn["pc_value_axes"] != 1:
            fail("parallel coordinates: axes %s, want one per varying parameter %s and the "
                 "metric" % (drawn["pc_axes"], varying))
        if drawn["pc_lines"] != [len(varying) + 1] * with_results:
            fail("parallel coordinates: lines %s, want %d through %d axes each"
                 % (drawn["pc_lines"], with_results, len(varying) + 1))
        # Effects: one dot and one interval per level of each parameter measured at two levels.
        for name in varying:
            levels = {json.dumps(c["params"].get(name)) for c in results["configurations"]
                      if c.get("n", 0) > 0}
            if len(levels) < 2:
                continue
            if drawn["effects"].get(name) != [len(levels), len(levels)]:
                fail("effect panel of %s: [dots, intervals] %s, want %d of each"
                     % (name, drawn["effects"].get(name), len(levels)))
        if results.get("node_effects", {}).get("nodes") and 'id="node-table"' not in dom:
            fail("node effects are not shown as a table")
        if '{"drift"' in dom:
            fail("raw JSON in the node table")
        ok_executions = sum(c.get("ok_attempts", 0) for c in results["configurations"])
        if drawn["executions"] != ok_executions or drawn["progress_points"] != ok_executions:
            fail("every successful execution is one dot in the distributions (%d) and progress "
                 "(%d) panels: want %d" % (drawn["executions"], drawn["progress_points"],
                                          ok_executions))
        keep = os.environ.get("FLEETSWEEP_REPORT_SCREENSHOT")
        if keep:
            shutil.copyfile(png, keep)
        print("ok: report.html rendered, %dx%d screenshot (%d bytes), %s"
              % (width, height, len(data), drawn))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
