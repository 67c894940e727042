#!/usr/bin/python3
"""End to end: a real small sweep (2 local workers), `fleetsweep report`, then the page opened
in headless Chromium: the screenshot must exist and be non-trivial, the DOM must hold every
section, and Chromium must log no console error and no resource load. Skips (77) only when
chromium is not installed. Set FLEETSWEEP_REPORT_SCREENSHOT=PATH to keep the screenshot."""
import os
import re
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_helpers import DATA, fail, fleetsweep, run, run_sweep  # noqa: E402

SECTIONS = ["verdict", "summary", "ranking", "heatmap", "effects", "infeasible", "nodes",
            "fingerprints"]


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
        keep = os.environ.get("FLEETSWEEP_REPORT_SCREENSHOT")
        if keep:
            shutil.copyfile(png, keep)
        print("ok: report.html rendered, %dx%d screenshot (%d bytes)" % (width, height, len(data)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
