#!/usr/bin/env python3
"""Reference outputs of the real `helm template` for kubepkg's chart corpus.

  corpus.py sync       copy the charts shipped in Helm's Go module testdata (helm.sh/helm/v4 at
                       HELM_VERSION, from the Go module cache) into testdata/charts/helm/ and
                       the charts shipped in other Go modules (OTHER_CHARTS) into
                       testdata/charts/modules/
  corpus.py generate   run `helm template` (built by install-helm.sh) for every case and write
                       testdata/helm-reference/<case>/{args,stdout,stderr,exit}

Cases: every chart under testdata/charts/ (directories with a Chart.yaml that are not
subcharts, and standalone .tgz archives) rendered as `template release-name <chart>`, plus
the extra cases of testdata/helm-reference/cases.txt (`ID<TAB>ARGS`, ARGS split like a shell;
`{charts}` stands for testdata/charts). Paths are relative to the repository root, which is
also the working directory helm runs in, so outputs are reproducible.
"""
import os
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HELM_VERSION = os.environ.get("HELM_VERSION", "v4.3.1")
CHARTS = "testdata/charts"
REF = "testdata/helm-reference"
# Directories of Helm's module whose testdata hold charts worth rendering.
HELM_TESTDATA = [
    "pkg/cmd/testdata/testcharts",
    "pkg/chart/v2/util/testdata",
    "pkg/chart/v2/loader/testdata",
    "pkg/chart/v2/lint/rules/testdata",
    "pkg/action/testdata/charts",
    "pkg/downloader/testdata",
    "pkg/repo/v1/repotest/testdata",
    "pkg/provenance/testdata",
    "internal/resolver/testdata/chartpath",
]


# Charts shipped inside other Go modules (popular public charts), as module@version, path.
OTHER_CHARTS = [
    ("k8s.io/ingress-nginx@v0.0.0-20240708192948-52c50467d67d", "charts/ingress-nginx"),
    ("sigs.k8s.io/metrics-server@v0.9.0", "charts/metrics-server"),
    ("github.com/cert-manager/cert-manager@v1.21.2", "deploy/charts/cert-manager"),
    ("github.com/cert-manager/cert-manager@v1.21.2", "make/config/pebble/chart"),
    ("github.com/cert-manager/cert-manager@v1.21.2", "make/config/samplewebhook/chart"),
    ("github.com/external-secrets/external-secrets@v1.3.2", "deploy/charts/external-secrets"),
    ("github.com/kyverno/kyverno@v1.19.1", "charts/kyverno"),
    ("github.com/kyverno/kyverno@v1.19.1", "charts/kyverno-policies"),
    ("github.com/open-policy-agent/gatekeeper/v3@v3.23.1", "charts/gatekeeper"),
    ("sigs.k8s.io/kustomize/api@v0.21.1", "krusty/testdata/helmcharts/test-chart"),
]


def module_dir(modver):
    out = subprocess.check_output(["go", "mod", "download", "-json", modver], text=True)
    import json

    return json.loads(out)["Dir"]


def sync_modules():
    dest_root = os.path.join(ROOT, CHARTS, "modules")
    shutil.rmtree(dest_root, ignore_errors=True)
    for modver, rel in OTHER_CHARTS:
        src = os.path.join(module_dir(modver), rel)
        name = modver.split("@")[0].replace("/", "_") + "__" + rel.replace("/", "_")
        copy_chart(src, os.path.join(dest_root, name))
    print(f"synced {len(OTHER_CHARTS)} charts from other Go modules into {dest_root}")


def go_modcache():
    return subprocess.check_output(["go", "env", "GOMODCACHE"], text=True).strip()


def sync():
    src_root = os.path.join(go_modcache(), "helm.sh", "helm", f"v4@{HELM_VERSION}")
    if not os.path.isdir(src_root):
        subprocess.check_call(["go", "mod", "download", f"helm.sh/helm/v4@{HELM_VERSION}"])
    dest_root = os.path.join(ROOT, CHARTS, "helm")
    shutil.rmtree(dest_root, ignore_errors=True)
    for rel in HELM_TESTDATA:
        src = os.path.join(src_root, rel)
        if not os.path.isdir(src):
            continue
        for dirpath, dirnames, filenames in os.walk(src):
            if "Chart.yaml" in filenames and "/charts/" not in dirpath[len(src):] + "/":
                dest = os.path.join(dest_root, rel, os.path.relpath(dirpath, src))
                copy_chart(dirpath, dest)
                dirnames[:] = []
                continue
            for f in filenames:
                if f.endswith(".tgz") and "/charts" not in dirpath[len(src):]:
                    dest = os.path.join(dest_root, rel, os.path.relpath(dirpath, src), f)
                    os.makedirs(os.path.dirname(dest), exist_ok=True)
                    shutil.copyfile(os.path.join(dirpath, f), dest)
                    os.chmod(dest, 0o644)
    print(f"synced Helm {HELM_VERSION} testdata charts into {dest_root}")


def copy_chart(src, dest):
    def ignore(d, names):
        # Device files and links pointing outside the chart cannot live in git.
        out = []
        for n in names:
            p = os.path.join(d, n)
            if os.path.islink(p):
                target = os.path.realpath(p)
                if not target.startswith(os.path.realpath(src)) or not os.path.exists(p):
                    out.append(n)
        return out

    shutil.copytree(src, dest, symlinks=True, ignore=ignore, dirs_exist_ok=True)
    for dirpath, dirnames, filenames in os.walk(dest):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                os.chmod(p, 0o644)


def discover():
    """Case id -> argument list for every chart of the corpus."""
    cases = {}
    base = os.path.join(ROOT, CHARTS)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        rel = os.path.relpath(dirpath, ROOT)
        if "Chart.yaml" in filenames:
            cases[os.path.relpath(dirpath, base)] = ["template", rel]
            dirnames[:] = []
            continue
        for f in sorted(filenames):
            if f.endswith(".tgz"):
                cid = os.path.relpath(os.path.join(dirpath, f), base)
                cases[cid] = ["template", os.path.join(rel, f)]
    extra = os.path.join(ROOT, REF, "cases.txt")
    if os.path.exists(extra):
        for line in open(extra):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cid, args = line.split("\t", 1)
            cases["case/" + cid] = shlex.split(args.replace("{charts}", CHARTS))
    return cases


def generate():
    helm = subprocess.check_output(
        [os.path.join(ROOT, "tools/helm-ref/install-helm.sh"), HELM_VERSION], text=True
    ).strip()
    out_root = os.path.join(ROOT, REF, "cases")
    shutil.rmtree(out_root, ignore_errors=True)
    env = dict(os.environ)
    env.update({"HOME": "/nonexistent-kubepkg-home", "KUBECONFIG": "/nonexistent", "HELM_NAMESPACE": ""})
    env.pop("HELM_NAMESPACE")
    n = 0
    for cid, args in sorted(discover().items()):
        d = os.path.join(out_root, cid.replace("/", "__"))
        os.makedirs(d, exist_ok=True)
        p = subprocess.run([helm] + args, cwd=ROOT, capture_output=True, env=env, timeout=120)
        open(os.path.join(d, "args"), "w").write(shlex.join(args) + "\n")
        open(os.path.join(d, "stdout"), "wb").write(p.stdout)
        open(os.path.join(d, "stderr"), "wb").write(p.stderr)
        open(os.path.join(d, "exit"), "w").write(f"{p.returncode}\n")
        n += 1
    open(os.path.join(ROOT, REF, "HELM_VERSION"), "w").write(HELM_VERSION + "\n")
    print(f"generated {n} reference cases with helm {HELM_VERSION}")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "generate"
    {"sync": lambda: (sync(), sync_modules()), "generate": generate}[cmd]()
