#!/usr/bin/env python3
"""Real helm's answers for a values.schema.json whose $refs name documents over HTTP.

  schema_refs.py      for every scenario of testdata/helm-reference/schema-refs/scenarios.tsv:
                      serve docs/ on a loopback port (or, for `down`, use a port nothing
                      listens on), write the chart with the schema's {base} and {name_ref}
                      filled in, run `helm template rel <chart> ARGS` (helm v4.3.1 built by
                      install-helm.sh) and record <id>.{stdout,stderr,exit} with the base URL
                      written back as {base}, its host:port as {addr} and the chart's
                      directory as {chart}.

The Rust test (crates/kubepkg/tests/it/schema_refs.rs) serves the same documents from its own
loopback server and compares kubepkg's answers with these.
"""
import functools
import http.server
import os
import shutil
import socket
import subprocess
import tempfile
import threading

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DIR = os.path.join(ROOT, "testdata/helm-reference/schema-refs")
HELM_VERSION = os.environ.get("HELM_VERSION", "v4.3.1")


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    helm = subprocess.check_output(
        [os.path.join(ROOT, "tools/helm-ref/install-helm.sh"), HELM_VERSION], text=True
    ).strip()
    handler = functools.partial(Quiet, directory=os.path.join(DIR, "docs"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    up = f"http://127.0.0.1:{server.server_address[1]}"
    down = f"http://127.0.0.1:{free_port()}"
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update({"HOME": "/nonexistent-kubepkg-home", "KUBECONFIG": "/nonexistent"})
    env.pop("HELM_NAMESPACE", None)
    template = open(os.path.join(DIR, "chart/values.schema.json.in")).read()
    n = 0
    for line in open(os.path.join(DIR, "scenarios.tsv")):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        sid, name_ref, state = fields[:3]
        args = fields[3].split() if len(fields) > 3 and fields[3] else []
        base = up if state == "up" else down
        with tempfile.TemporaryDirectory() as tmp:
            chart = os.path.join(tmp, "chart")
            shutil.copytree(os.path.join(DIR, "chart"), chart)
            os.remove(os.path.join(chart, "values.schema.json.in"))
            with open(os.path.join(chart, "values.schema.json"), "w") as f:
                f.write(template.replace("{base}", base).replace("{name_ref}", name_ref))
            p = subprocess.run([helm, "template", "rel", chart] + args, capture_output=True,
                               env=env, text=True, timeout=60)

            def generic(s):
                s = s.replace(base, "{base}").replace(chart, "{chart}")
                return s.replace(base[len("http://"):], "{addr}")

            open(os.path.join(DIR, sid + ".stdout"), "w").write(generic(p.stdout))
            open(os.path.join(DIR, sid + ".stderr"), "w").write(generic(p.stderr))
            open(os.path.join(DIR, sid + ".exit"), "w").write(f"{p.returncode}\n")
        n += 1
    server.shutdown()
    print(f"recorded {n} schema-ref scenarios with helm {HELM_VERSION}")


if __name__ == "__main__":
    main()
