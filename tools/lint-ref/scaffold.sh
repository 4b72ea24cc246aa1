#!/usr/bin/env bash
# Regenerate crates/kubepkg-chart/src/scaffold/: the files `helm create NAME` writes (Helm
# v4.3.1, built by tools/helm-ref/install-helm.sh), with the chart name replaced by Helm's own
# placeholder `<CHARTNAME>` (which `kubepkg create` substitutes back, as Helm does).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
helm="$(bash "$root/tools/helm-ref/install-helm.sh" v4.3.1)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sentinel=zzchartnamezz
(cd "$tmp" && HELM_CACHE_HOME="$tmp/c" HELM_CONFIG_HOME="$tmp/f" HELM_DATA_HOME="$tmp/d" "$helm" create "$sentinel" >/dev/null)
out="$root/crates/kubepkg-chart/src/scaffold"
rm -rf "$out"
mkdir -p "$out"
(cd "$tmp/$sentinel" && find . -type f | sort) | while read -r f; do
  f="${f#./}"
  dest="$out/${f//\//__}"
  [[ "$f" == .helmignore ]] && dest="$out/helmignore"
  sed "s/$sentinel/<CHARTNAME>/g" "$tmp/$sentinel/$f" > "$dest"
done
ls "$out"
