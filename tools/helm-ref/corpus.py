#!/usr/bin/env python3
"""Reference outputs of the real `helm template` for kubepkg's chart corpus.

  corpus.py sync       copy the charts shipped in Helm's Go module testdata (helm.sh/helm/v4 at
                       HELM_VERSION, from the Go module cache) into testdata/charts/helm/ and
                       the charts shipped in other Go modules (OTHER_CHARTS) into
                       testdata/charts/modules/
  corpus.py generate [ID...]
                       run `helm template` (built by install-helm.sh) for every case (or only the
                       cases whose id contains one of the IDs) and write
                       testdata/helm-reference/cases/<case>/{args,stdout,stderr,exit}

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


# Charts shipped inside other Go modules (popular public charts), as module@version, path. The
# chart is read from the module's zip in the Go module cache (`go mod download` fetches it), so a
# module that needs a newer Go than the local one still serves its charts.
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
    ("github.com/cilium/cilium@v1.20.2", "install/kubernetes/cilium"),
    ("github.com/cilium/cilium@v1.20.2", "examples/kubernetes/addons/prometheus"),
    ("istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad", "manifests/charts/base"),
    ("istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad", "manifests/charts/default"),
    ("istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad", "manifests/charts/gateway"),
    ("istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad", "manifests/charts/gateways/istio-egress"),
    ("istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad", "manifests/charts/gateways/istio-ingress"),
    ("istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad", "manifests/charts/istio-cni"),
    ("istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad", "manifests/charts/istio-control/istio-discovery"),
    ("istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad", "manifests/charts/ztunnel"),
    ("istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad", "manifests/sample-charts/ambient"),
    ("istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad", "samples/ambient-argo/tag-chart"),
    ("github.com/dapr/dapr@v1.14.0", "charts/dapr"),
    ("github.com/envoyproxy/gateway@v1.9.1", "charts/gateway-helm"),
    ("github.com/envoyproxy/gateway@v1.9.1", "charts/gateway-crds-helm"),
    ("github.com/envoyproxy/gateway@v1.9.1", "charts/gateway-addons-helm"),
    ("github.com/flannel-io/flannel@v0.28.10", "chart/kube-flannel"),
    ("github.com/fluxcd/flagger@v1.36.1", "charts/flagger"),
    ("github.com/fluxcd/flagger@v1.36.1", "charts/grafana"),
    ("github.com/fluxcd/flagger@v1.36.1", "charts/loadtester"),
    ("github.com/fluxcd/flagger@v1.36.1", "charts/podinfo"),
    ("github.com/projectcalico/calico@v1.11.0-cni-plugin.0.20250813170300-a0db560f0520", "charts/calico"),
    ("github.com/projectcalico/calico@v1.11.0-cni-plugin.0.20250813170300-a0db560f0520", "charts/tigera-operator"),
    ("go.universe.tf/metallb@v0.16.2", "charts/metallb"),
    ("k8s.io/autoscaler/vertical-pod-autoscaler@v1.8.1", "charts/vertical-pod-autoscaler"),
    ("sigs.k8s.io/descheduler@v0.36.0", "charts/descheduler"),
    ("sigs.k8s.io/external-dns@v0.23.0", "charts/external-dns"),
    ("sigs.k8s.io/kueue@v0.17.0", "charts/kueue"),
    ("sigs.k8s.io/kwok@v0.8.0", "charts/kwok"),
    ("sigs.k8s.io/kwok@v0.8.0", "charts/metrics-usage"),
    ("sigs.k8s.io/kwok@v0.8.0", "charts/stage-fast"),
    ("github.com/NVIDIA/gpu-operator@v0.0.0-20250917190837-d73a0086a6ba", "deployments/gpu-operator"),
    ("github.com/aws/karpenter-provider-aws@v1.15.2", "charts/karpenter"),
    ("github.com/aws/karpenter-provider-aws@v1.15.2", "charts/karpenter-crd"),
    ("github.com/bitnami-labs/sealed-secrets@v0.40.0", "helm/sealed-secrets"),
    ("github.com/cert-manager/trust-manager@v0.25.0", "deploy/charts/trust-manager"),
    ("github.com/chaos-mesh/chaos-mesh@v0.9.1-0.20260902003049-47411975a8cb", "helm/chaos-mesh"),
    ("github.com/aws/amazon-vpc-cni-k8s@v1.23.2", "charts/aws-vpc-cni"),
    ("github.com/aws/amazon-vpc-cni-k8s@v1.23.2", "charts/cni-metrics-helper"),
    ("github.com/cert-manager/approver-policy@v0.28.0", "deploy/charts/approver-policy"),
    ("sigs.k8s.io/cluster-api-operator@v0.29.0", "hack/charts/cluster-api-operator"),
    ("github.com/kubeflow/trainer/v2@v2.0.0", "charts/kubeflow-trainer"),
    ("github.com/aquasecurity/trivy@v0.74.0", "helm/trivy"),
    ("k8s.io/cloud-provider-aws@v1.37.1", "charts/aws-cloud-controller-manager"),
    # Argo CD's module: its HA redis chart, an old stable prometheus-operator chart, test charts.
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "manifests/ha/base/redis-ha/chart"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "applicationset/examples/matrix/cluster-addons/prometheus-operator"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "util/helm/testdata/minio"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "util/helm/testdata/redis"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "util/helm/testdata/api-versions"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "util/helm/testdata/crds"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "util/helm/testdata/dependency"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "util/helm/testdata/tests"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "test/e2e/testdata/helm-guestbook"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "test/e2e/testdata/helm-kube-version"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "test/e2e/testdata/helm-api-versions"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "test/e2e/testdata/helm-values"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "test/e2e/testdata/helm-glob-values"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "test/e2e/testdata/helm3-crd"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "test/e2e/testdata/helm"),
    ("github.com/argoproj/argo-cd/v3@v3.6.1", "util/io/files/testdata/helm-app/charts/podinfo"),
]


def module_zip(modver):
    """Path of the module's zip in the Go module cache, downloading it if needed."""
    import json

    p = subprocess.run(["go", "mod", "download", "-json", modver], capture_output=True, text=True)
    info = json.loads(p.stdout)
    z = info.get("Zip")
    if not z or not os.path.exists(z):
        raise SystemExit(f"{modver}: {info.get('Error') or p.stderr}")
    return z


def extract_chart(zip_path, modver, rel, dest):
    """Copy the chart directory `rel` of a module zip to `dest` (files only: zips hold no links)."""
    import zipfile

    prefix = f"{modver}/{rel}/"
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():
            if not info.filename.startswith(prefix) or info.is_dir():
                continue
            out = os.path.join(dest, info.filename[len(prefix):])
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with zf.open(info) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.chmod(out, 0o644)


def file_dependencies(chart_yaml):
    """(name, path) of each `repository: file://PATH` dependency in a Chart.yaml (the name is the
    dependency's chart name as its own Chart.yaml gives it; a plain line scan, no YAML library)."""
    deps, cur = [], {}
    in_deps = False
    for line in open(chart_yaml):
        if not line.startswith((" ", "-", "#")) and line.strip():
            in_deps = line.startswith("dependencies:")
            continue
        if not in_deps:
            continue
        item = line.strip()
        if item.startswith("- "):
            if cur:
                deps.append(cur)
            cur = {}
            item = item[2:]
        if ":" in item:
            k, v = item.split(":", 1)
            cur[k.strip()] = v.strip().strip("\"'")
    if cur:
        deps.append(cur)
    return [(d["name"], d["repository"][len("file://"):]) for d in deps
            if d.get("repository", "").startswith("file://") and "name" in d]


def sync_modules():
    dest_root = os.path.join(ROOT, CHARTS, "modules")
    shutil.rmtree(dest_root, ignore_errors=True)
    zips = {}
    for modver, rel in OTHER_CHARTS:
        if modver not in zips:
            zips[modver] = module_zip(modver)
        name = modver.split("@")[0].replace("/", "_") + "__" + rel.replace("/", "_")
        dest = os.path.join(dest_root, name)
        extract_chart(zips[modver], modver, rel, dest)
        # What `helm dependency build` does for `file://` dependencies: the chart at that path
        # (inside the same module) becomes charts/<name>.
        for dep_name, dep_path in file_dependencies(os.path.join(dest, "Chart.yaml")):
            dep_rel = os.path.normpath(os.path.join(rel, dep_path))
            extract_chart(zips[modver], modver, dep_rel, os.path.join(dest, "charts", dep_name))
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


def generate(only=()):
    helm = subprocess.check_output(
        [os.path.join(ROOT, "tools/helm-ref/install-helm.sh"), HELM_VERSION], text=True
    ).strip()
    out_root = os.path.join(ROOT, REF, "cases")
    if not only:
        shutil.rmtree(out_root, ignore_errors=True)
    env = dict(os.environ)
    env.update({"HOME": "/nonexistent-kubepkg-home", "KUBECONFIG": "/nonexistent", "HELM_NAMESPACE": ""})
    env.pop("HELM_NAMESPACE")
    n = 0
    for cid, args in sorted(discover().items()):
        if only and not any(o in cid for o in only):
            continue
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
    {"sync": lambda: (sync(), sync_modules()), "generate": lambda: generate(sys.argv[2:])}[cmd]()
