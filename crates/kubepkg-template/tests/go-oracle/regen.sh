#!/usr/bin/env bash
# Regenerates ../go-cases.jsonl: case inputs from cases.py, expectations from Go's text/template.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$(mktemp -d)/go-oracle"
(cd "$here" && go build -o "$bin" .)
python3 "$here/cases.py" | "$bin" > "$here/../go-cases.jsonl"
echo "wrote $(wc -l < "$here/../go-cases.jsonl") cases"
# Helm-engine cases go through the project's Helm oracle (oracle/ at the repository root).
oracle="$("$here/../../../../oracle/build.sh")"
python3 "$here/helm_cases.py" | "$oracle" render > "$here/../helm-cases.jsonl"
echo "wrote $(wc -l < "$here/../helm-cases.jsonl") Helm cases"
