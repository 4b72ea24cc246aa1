#!/usr/bin/env bash
# Regenerates the template corpus: case inputs from oracle/cases*.go, expectations from Helm's
# real engine (helm.sh/helm/v4, pinned in oracle/go.mod), and the list of Helm's function names.
# Needs Go (the oracle is built and cached by oracle/build.sh). TZ is fixed because Sprig's
# date functions format in the local zone.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
corpus="$here/../testdata/template-corpus"
oracle="$("$here/build.sh")"
export TZ=UTC
"$oracle" gencases "$corpus"
"$oracle" regen "$corpus"/*.jsonl
"$oracle" funcs > "$corpus/helm-functions.txt"
echo "regen.sh: $(cat "$corpus"/*.jsonl | wc -l) cases, $(wc -l < "$corpus/helm-functions.txt") functions" >&2
