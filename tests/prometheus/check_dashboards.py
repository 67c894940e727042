#!/usr/bin/python3
"""Static checks of dashboards/*.json: valid JSON with what Grafana needs to provision it, the
`sweep` and `node` variables, a datasource variable, every panel with queries, every query's
PromQL accepted by `promtool check rules`, and every metric it names documented in
docs/metrics.md and registered in common/metrics/. Exit 0 on success, 1 on failure.

Usage: check_dashboards.py [REPO_ROOT]   (default: $FLEETSWEEP_SRC or this file's repo)
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dashboard_queries as dq  # noqa: E402

SRC = (sys.argv[1] if len(sys.argv) > 1 else
       os.environ.get("FLEETSWEEP_SRC") or
       os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")))

errors = []


def fail(msg):
    errors.append(msg)


def check_dashboard(path, uids, all_exprs):
    name = os.path.basename(path)
    try:
        d = dq.load(path)
    except ValueError as e:
        fail("%s: not valid JSON: %s" % (name, e))
        return
    for key in ("title", "uid", "panels", "templating", "schemaVersion"):
        if key not in d:
            fail("%s: missing top-level %r" % (name, key))
    if not isinstance(d.get("schemaVersion"), int) or d.get("schemaVersion", 0) < 36:
        fail("%s: schemaVersion should be an int >= 36, is %r" % (name, d.get("schemaVersion")))
    if d.get("id") not in (None,):
        fail("%s: a provisioned dashboard must not carry a fixed numeric id" % name)
    uid = d.get("uid", "")
    if not uid or len(uid) > 40 or uid in uids:
        fail("%s: uid %r must be non-empty, <= 40 chars and unique" % (name, uid))
    uids.add(uid)

    variables = {v.get("name"): v for v in d.get("templating", {}).get("list", [])}
    ds = variables.get("DS_PROMETHEUS")
    if not ds or ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        fail("%s: needs a datasource variable DS_PROMETHEUS of type prometheus" % name)
    for needed in ("sweep", "node"):
        if needed not in variables:
            fail("%s: missing template variable %r" % (name, needed))
    try:
        qvars = dq.query_variables(d)
    except ValueError as e:
        fail("%s: %s" % (name, e))
        qvars = []
    values = {n: (["a", "b"] if multi else ["a"]) for n, _, _, multi in qvars}
    multi_vars = {n for n, _, _, multi in qvars if multi}

    ids = set()
    panels = list(dq.all_panels(d))
    if not panels:
        fail("%s: no panels" % name)
    for p in panels:
        title = p.get("title")
        where = "%s: panel %r" % (name, title)
        if not title:
            fail("%s: a panel has no title" % name)
        if p.get("id") in ids:
            fail("%s: duplicate id %r" % (where, p.get("id")))
        ids.add(p.get("id"))
        gp = p.get("gridPos", {})
        if not all(isinstance(gp.get(k), int) for k in ("h", "w", "x", "y")) or \
                gp.get("x", 0) + gp.get("w", 0) > 24:
            fail("%s: bad gridPos %r" % (where, gp))
        if p.get("type") == "row":
            continue
        if p.get("datasource", {}).get("uid") != "${DS_PROMETHEUS}":
            fail("%s: datasource must be the ${DS_PROMETHEUS} variable" % where)
        ts = p.get("targets") or []
        if not ts:
            fail("%s: no targets" % where)
        refs = [t.get("refId") for t in ts]
        if len(set(refs)) != len(refs) or not all(refs):
            fail("%s: refIds must be present and unique: %r" % (where, refs))
        for t in ts:
            expr = t.get("expr", "")
            if not expr.strip():
                fail("%s: target %s has no expr" % (where, t.get("refId")))
                continue
            for mv in multi_vars:
                if ("$" + mv) in expr and ('=~"$' + mv) not in expr:
                    fail("%s: multi-value $%s must be matched with =~" % (where, mv))
            try:
                all_exprs.append((where, dq.substitute(expr, values)))
            except KeyError as e:
                fail("%s: %s" % (where, e))


def check_promql(all_exprs):
    promtool = shutil.which("promtool")
    if not promtool:
        print("SKIP PromQL syntax check: promtool not found (Debian package `prometheus`)")
        return
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        f.write("groups:\n- name: dashboards\n  rules:\n")
        for i, (_, expr) in enumerate(all_exprs):
            f.write("  - record: dashboard:q%d\n    expr: %s\n" % (i, json_str(expr)))
        rules = f.name
    try:
        r = subprocess.run([promtool, "check", "rules", rules], capture_output=True, text=True,
                           timeout=30)
        if r.returncode != 0:
            fail("promtool check rules rejected a dashboard query:\n" + r.stdout + r.stderr)
    finally:
        os.unlink(rules)


def json_str(s):
    import json
    return json.dumps(s)  # a JSON string is a valid YAML double-quoted scalar


def check_metric_names(all_exprs):
    with open(os.path.join(SRC, "docs", "metrics.md"), encoding="utf-8") as f:
        doc = f.read()
    code = ""
    for fn in os.listdir(os.path.join(SRC, "common", "metrics")):
        if fn.endswith(".cc") and not fn.endswith("_test.cc"):
            with open(os.path.join(SRC, "common", "metrics", fn), encoding="utf-8") as f:
                code += f.read()
    for where, expr in all_exprs:
        for m in dq.metric_names(expr):
            if "`%s`" % m not in doc:
                fail("%s: metric %s is not documented in docs/metrics.md" % (where, m))
            if '"%s"' % m not in code:
                fail("%s: metric %s is not registered in common/metrics/*.cc" % (where, m))


def main():
    paths = dq.dashboard_paths(SRC)
    if len(paths) < 2:
        fail("expected the sweep and nodes dashboards in %s/dashboards" % SRC)
    uids, all_exprs = set(), []
    for p in paths:
        check_dashboard(p, uids, all_exprs)
    check_promql(all_exprs)
    check_metric_names(all_exprs)
    for e in errors:
        print("FAIL " + e)
    print("%d dashboards, %d queries checked, %d problems" % (len(paths), len(all_exprs),
                                                              len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
