#!/usr/bin/env bash
# The in-process render API (kubepkg_package::render::LoadedChart, what a controller rendering
# many charts in one process calls) against Helm's SDK in one process (bench/peer: the chart
# loaded once with loader.Load, then action.Install with a client-only dry run, as `helm
# template` runs it), in one run: per chart N renders after a warm-up, median time per render
# and renders per second of each, and the ratio (Helm median / kubepkg median).
#
#   bench/render-api.sh [N] [CHART...]
#
# Default charts: the `helm create` scaffold (a typical chart, written here with `kubepkg
# create`), the ordinary charts metrics-server, cert-manager and ingress-nginx, and the heavy
# charts kueue and istio's ambient umbrella. Goal (issue 17): a typical chart in ≤2 ms.
# Needs Go (builds bench/peer, cached) and cargo (release builds of the example and kubepkg).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-200}"; shift || true
peer="$(bench/peer/build.sh)"
cargo build -q --release -p kubepkg-package --example render_api >&2
ours="${CARGO_TARGET_DIR:-target}/release/examples/render_api"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
charts=("$@")
if [[ ${#charts[@]} -eq 0 ]]; then
  # shellcheck source=bench/lib/tools.sh
  source bench/lib/tools.sh
  bench_kubepkg -q
  (cd "$tmp" && "$KUBEPKG" create --chart scaffold >/dev/null)
  m=testdata/charts/modules
  charts=("$tmp/scaffold" "$m/sigs.k8s.io_metrics-server__charts_metrics-server"
    "$m/github.com_cert-manager_cert-manager__deploy_charts_cert-manager"
    "$m/k8s.io_ingress-nginx__charts_ingress-nginx" "$m/sigs.k8s.io_kueue__charts_kueue"
    "$m/istio.io_istio__manifests_sample-charts_ambient")
fi
printf "%-60s %10s %10s %9s %9s %7s\n" chart helm_ms kp_ms helm_r/s kp_r/s ratio
for c in "${charts[@]}"; do
  read -r _ gn gr < <("$peer" render "$n" "$c")
  read -r _ kn kr < <("$ours" "$n" "$c")
  label="$c"; [[ "$label" == "$tmp/"* ]] && label="(helm create scaffold)"
  (( ${#label} > 60 )) && label="...${label:${#label}-57}"
  printf "%-60s %10.3f %10.3f %9s %9s %7.1f\n" "$label" "$(awk -v t="$gn" 'BEGIN{print t/1e6}')" \
    "$(awk -v t="$kn" 'BEGIN{print t/1e6}')" "$gr" "$kr" "$(awk -v g="$gn" -v k="$kn" 'BEGIN{print g/k}')"
done
echo "renders per chart: $n (after one warm-up); ratio: Helm SDK median / kubepkg median"
