#!/usr/bin/env bash
# Differential fuzzing of kubepkg-template against Go's text/template. Usage: fuzz.sh [count] [seed]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$(mktemp -d)/go-oracle"
(cd "$here" && go build -o "$bin" .)
(cd "$here/../.." && cargo build -q --release --example run_cases)
runner="${CARGO_TARGET_DIR:-$here/../../../../target}/release/examples/run_cases"
python3 "$here/fuzz.py" "$bin" "$runner" "${1:-2000}" "${2:-1}"
