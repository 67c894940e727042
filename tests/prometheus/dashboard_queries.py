"""Reads the Grafana dashboards in dashboards/ and yields their PromQL, with Grafana's variables
substituted the way Grafana would. Shared by check_dashboards.py and dashboards_e2e_test.py.

Standard library only (/usr/bin/python3).
"""
import glob
import json
import os
import re

# Grafana's built-in interval variables, with values that suit a 1 s scrape interval.
BUILTIN_VARS = {
    "__rate_interval": "10s",
    "__interval": "5s",
    "__range": "1m",
    "__interval_ms": "5000",
    "__range_s": "60",
}

LABEL_VALUES_RE = re.compile(r"^\s*label_values\(\s*([^,()]+?)\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*$")
VAR_RE = re.compile(r"\$\{([A-Za-z0-9_]+)(?::[a-z]+)?\}|\$([A-Za-z0-9_]+)|\[\[([A-Za-z0-9_]+)\]\]")


def dashboard_paths(src):
    return sorted(glob.glob(os.path.join(src, "dashboards", "*.json")))


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def all_panels(dashboard):
    """Panels, including those nested in collapsed rows."""
    for p in dashboard.get("panels", []):
        yield p
        for q in p.get("panels", []) or []:
            yield q


def targets(dashboard):
    """(panel title, refId, expr) for every query of every panel."""
    for p in all_panels(dashboard):
        for t in p.get("targets", []) or []:
            yield p.get("title", "?"), t.get("refId", "?"), t.get("expr", "")


def query_variables(dashboard):
    """[(name, metric_selector, label, multi)] of the dashboard's label_values() variables."""
    out = []
    for v in dashboard.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        q = v.get("query")
        if isinstance(q, dict):
            q = q.get("query", "")
        m = LABEL_VALUES_RE.match(q or "")
        if not m:
            raise ValueError("variable %s: query %r is not label_values(METRIC, LABEL)" %
                             (v.get("name"), q))
        out.append((v["name"], m.group(1), m.group(2), bool(v.get("multi"))))
    return out


def regex_escape(value):
    return re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", value)


def substitute(expr, values):
    """Replaces $var, ${var} and [[var]]. `values` maps a name to a list of values; a list of
    several becomes a regex alternation (how Grafana renders a multi-value variable in =~)."""
    def repl(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name in BUILTIN_VARS:
            return BUILTIN_VARS[name]
        if name not in values:
            raise KeyError("unknown variable $%s" % name)
        vals = values[name]
        if len(vals) == 1:
            return vals[0]
        return "(" + "|".join(regex_escape(v) for v in vals) + ")"
    return VAR_RE.sub(repl, expr)


METRIC_RE = re.compile(r"\bfleetsweep_[a-z0-9_]+")


def metric_names(expr):
    """fleetsweep_* metric names an expression uses, histogram suffixes removed."""
    names = set()
    for n in METRIC_RE.findall(expr):
        for suffix in ("_bucket", "_sum", "_count"):
            if n.endswith(suffix) and "duration_seconds" in n:
                n = n[: -len(suffix)]
        names.add(n)
    return names
