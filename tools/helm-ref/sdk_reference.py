#!/usr/bin/env python3
"""Second, independent reference: Helm's Go SDK as bundled by the PyPI package
`helm-python-sdk` (libhelm_c over Helm v4 `engine.Render`, no helm CLI involved).

  sdk_reference.py [ID...]
                     installs helm-python-sdk==0.2.2 into ~/.cache/kubepkg/helm-python-sdk (a venv)
                     if needed, renders every chart of the corpus with empty user values, release
                     `release-name` in namespace `default`, and writes
                     testdata/helm-reference/sdk/<case>.json (only for the charts whose case id
                     contains one of the IDs, if given):
                     {"ok": true, "files": {template path: rendered text}} or {"ok": false, "error": msg}
"""
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VENV = os.path.join(os.path.expanduser("~"), ".cache", "kubepkg", "helm-python-sdk")
SDK = "helm-python-sdk==0.2.2"


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([py, "-m", "pip", "install", "-q", SDK])
    return py


def main():
    py = ensure_venv()
    if os.path.realpath(sys.prefix) != os.path.realpath(VENV):
        os.execv(py, [py, __file__] + sys.argv[1:])
    import helm_python as h

    sys.path.insert(0, os.path.dirname(__file__))
    import corpus

    out = os.path.join(ROOT, "testdata/helm-reference/sdk")
    os.makedirs(out, exist_ok=True)
    n = 0
    for cid, args in sorted(corpus.discover().items()):
        if cid.startswith("case/"):
            continue
        if sys.argv[1:] and not any(o in cid for o in sys.argv[1:]):
            continue
        path = os.path.join(ROOT, args[-1])
        try:
            files = h.Chart.load(path).render({}, name="release-name", namespace="default")
            doc = {"ok": True, "chart": args[-1], "files": files}
        except Exception as e:  # the SDK's typed errors
            doc = {"ok": False, "chart": args[-1], "error": str(e)}
        with open(os.path.join(out, cid.replace("/", "__") + ".json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
        n += 1
    print(f"wrote {n} SDK references into {out}")


if __name__ == "__main__":
    main()
