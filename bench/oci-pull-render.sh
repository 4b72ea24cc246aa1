#!/usr/bin/env bash
# Benchmark pulling and rendering a 10-component package from a registry: kubepkg against helm,
# side by side in one run, on the same 10 charts (`helm create` charts c01…c10) in the test
# registry (kpk-registry, the CNCF distribution registry on loopback, plain HTTP).
#
#   kubepkg: `kubepkg package pull oci://…/pkgs/bench --version 1.0.0` (one artifact: the package
#            with its 10 components vendored by `package push`), then `kubepkg template` of each
#            component's chart out of the pulled package
#   helm:    `helm pull oci://…/charts/cNN --version 0.1.0` then `helm template` of it, for each
#
# Every run starts from empty caches (kubepkg's and helm's), so every blob is transferred.
# Reports wall time (median of RUNS runs, hyperfine), CPU time (user+system of the whole run,
# children included) and peak RSS (largest process, GNU time), and the ratios helm / kubepkg.
#
#   bench/oci-pull-render.sh
#
# Needs hyperfine and GNU time (apt packages, installed here if missing), helm (built by
# tools/helm-ref/install-helm.sh), kpk-registry (testenv/registry/build.sh) and kubepkg (built
# here in release mode unless KUBEPKG=path). RUNS (default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib/tools.sh
source bench/lib/tools.sh
bench_vs_helm
REGISTRY="$(testenv/registry/build.sh)"
bench_kubepkg

tmp="$(mktemp -d)"
cleanup() { [[ -n "${reg_pid:-}" ]] && kill "$reg_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
export HELM_CONFIG_HOME="$tmp/helm-config" HELM_CACHE_HOME="$tmp/helm-cache" HELM_DATA_HOME="$tmp/helm-data"
export KUBEPKG_CACHE_DIR="$tmp/kubepkg-cache" DOCKER_CONFIG="$tmp/docker"

mkfifo "$tmp/listen"
"$REGISTRY" serve --root "$tmp/registry" > "$tmp/listen" 2>"$tmp/registry.log" < /dev/null &
reg_pid=$!
exec 3<"$tmp/listen"
read -r line <&3
host="${line#listening on }"
[[ "$host" == 127.0.0.1:* ]] || { echo "kpk-registry did not start: $line" >&2; exit 1; }
cat <&3 > /dev/null &

# Ten charts in the registry, and a package of them (locked and vendored by package push).
mkdir -p "$tmp/src" "$tmp/tgz" "$tmp/pkg"
{ echo "package:"; echo "  name: bench"; echo "  version: 1.0.0"; echo "components:"; } > "$tmp/pkg/kubepkg.yaml"
for i in $(seq -w 1 10); do
  "$HELM" create "$tmp/src/c$i" >/dev/null
  "$HELM" package "$tmp/src/c$i" -d "$tmp/tgz" >/dev/null
  "$HELM" push "$tmp/tgz/c$i-0.1.0.tgz" "oci://$host/charts" --plain-http >/dev/null 2>&1
  printf -- "- name: c%s\n  path: oci://%s/charts/c%s\n  version: 0.1.0\n" "$i" "$host" "$i" >> "$tmp/pkg/kubepkg.yaml"
done
"$KUBEPKG" package lock "$tmp/pkg" --plain-http >/dev/null
"$KUBEPKG" package push "$tmp/pkg" "oci://$host/pkgs" --plain-http >/dev/null

cat > "$tmp/kubepkg.sh" <<EOF
set -e
rm -rf "$tmp/kubepkg-cache" "$tmp/out"; mkdir -p "$tmp/out/x"
"$KUBEPKG" package pull oci://$host/pkgs/bench --version 1.0.0 --plain-http -d "$tmp/out" >/dev/null
tar -xzf "$tmp/out/bench-1.0.0.tgz" -C "$tmp/out/x"
for c in "$tmp"/out/x/bench/vendor/charts/*.tgz; do "$KUBEPKG" template rel "\$c" >/dev/null; done
EOF
cat > "$tmp/helm.sh" <<EOF
set -e
rm -rf "$tmp/helm-cache" "$tmp/out"; mkdir -p "$tmp/out"
for i in \$(seq -w 1 10); do
  "$HELM" pull oci://$host/charts/c\$i --version 0.1.0 --plain-http -d "$tmp/out" >/dev/null 2>&1
  "$HELM" template rel "$tmp/out/c\$i-0.1.0.tgz" >/dev/null
done
EOF
# Both give the same manifests.
bash "$tmp/kubepkg.sh"; for c in "$tmp"/out/x/bench/vendor/charts/*.tgz; do "$KUBEPKG" template rel "$c"; done > "$tmp/k.yaml"
bash "$tmp/helm.sh"; for i in $(seq -w 1 10); do "$HELM" template rel "$tmp/out/c$i-0.1.0.tgz"; done > "$tmp/h.yaml"
cmp -s "$tmp/k.yaml" "$tmp/h.yaml" || { echo "the manifests differ" >&2; diff "$tmp/h.yaml" "$tmp/k.yaml" | head >&2; exit 1; }

hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$tmp/h.json" \
  -n kubepkg "bash $tmp/kubepkg.sh" -n helm "bash $tmp/helm.sh" >/dev/null 2>&1
peak_kb() { /usr/bin/time -f "%M" -o "$tmp/t" bash "$1" >/dev/null 2>&1; tail -n 1 "$tmp/t"; }
km=$(peak_kb "$tmp/kubepkg.sh"); hm=$(peak_kb "$tmp/helm.sh")
python3 - "$tmp/h.json" "$km" "$hm" "$RUNS" "$HELM_VERSION" <<'EOF'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
k, h = r["kubepkg"], r["helm"]
km, hm = int(sys.argv[2]), int(sys.argv[3])
kc, hc = k["user"] + k["system"], h["user"] + h["system"]
print(f"{'':8} {'wall_ms':>9} {'cpu_ms':>9} {'peak_MB':>8}")
print(f"{'kubepkg':8} {k['median']*1000:9.1f} {kc*1000:9.1f} {km/1024:8.1f}")
print(f"{'helm':8} {h['median']*1000:9.1f} {hc*1000:9.1f} {hm/1024:8.1f}")
print(f"ratio helm/kubepkg: wall {h['median']/k['median']:.1f}x, CPU {hc/kc:.1f}x, peak RSS {hm/km:.1f}x"
      f"  (10 charts, {sys.argv[4]} runs, helm {sys.argv[5]})")
EOF
