#!/usr/bin/env python3
"""Regenerates helm.json: what real Helm (`helm template`, v4.3.1) gives `.Values` for each case of
cases.json (chart values.yaml = case "chart"; -f files, --set-json, --set, --set-string, --set-file
given as in the case). The oracle for kubepkg-package's values precedence tests.
Usage: python3 gen.py   (builds helm via tools/helm-ref/install-helm.sh, cached)"""
import json, os, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "../../../.."))
helm = subprocess.check_output([os.path.join(root, "tools/helm-ref/install-helm.sh"), "v4.3.1"], text=True).strip()
cases = json.load(open(os.path.join(here, "cases.json")))
out = {}
for case in cases:
    with tempfile.TemporaryDirectory() as d:
        chart = os.path.join(d, "chart")
        os.makedirs(os.path.join(chart, "templates"))
        open(os.path.join(chart, "Chart.yaml"), "w").write("apiVersion: v2\nname: c\nversion: 0.1.0\n")
        open(os.path.join(chart, "values.yaml"), "w").write(json.dumps(case.get("chart", {})))
        open(os.path.join(chart, "templates", "v.yaml"), "w").write("{{ toJson .Values }}\n")
        args = [helm, "template", "x", chart]
        for f in case.get("files", []):
            open(os.path.join(d, f["name"]), "w").write(f["text"])
            args += ["-f", f["name"]]
        for s in case.get("setJson", []):
            args += ["--set-json", s]
        for s in case.get("set", []):
            args += ["--set", s]
        for s in case.get("setString", []):
            args += ["--set-string", s]
        for s in case.get("setFile", []):
            open(os.path.join(d, s["path"]), "w").write(s["text"])
            args += ["--set-file", s["line"]]
        text = subprocess.check_output(args, cwd=d, text=True)
        body = [l for l in text.splitlines() if l and not l.startswith("---") and not l.startswith("#")]
        out[case["name"]] = json.loads("\n".join(body))
json.dump(out, open(os.path.join(here, "helm.json"), "w"), indent=1, sort_keys=True)
open(os.path.join(here, "helm.json"), "a").write("\n")
print("wrote helm.json", file=sys.stderr)
