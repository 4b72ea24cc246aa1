#!/usr/bin/env bash
# Reads and writes a generated 1.7 MB values file with kubepkg-yaml (release build) and with
# Go's sigs.k8s.io/yaml (the oracle), printing both timings. Needs Go and cargo.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$work/big.yaml" <<'PY'
import sys
lines = ["big:"] + [f"  key{i}: value {i}" for i in range(20000)] + ["list:"]
for i in range(20000):
    lines.append(f"- name: item{i}\n  port: {i}\n  enabled: yes\n  tags: [a, b, c]")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
(cd "$here" && go build -o "$work/yaml-oracle" .)
"$work/yaml-oracle" bench "$work/big.yaml"
(cd "$here/../.." && cargo run -q --release -p kubepkg-yaml --example readbench "$work/big.yaml")
