#!/usr/bin/env bash
# Regenerates the kubepkg-yaml golden corpus (testdata/yaml-corpus) with the real Go libraries Helm
# uses (sigs.k8s.io/yaml, go-yaml v2/v3, encoding/json, Sprig, BurntSushi/toml, Helm 4's values
# loader). Needs Go; `cargo test -p kubepkg-yaml` only reads the committed results.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
corpus="$here/../yaml-corpus"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/kubepkg/yaml-oracle/$(sha256sum "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)"
mkdir -p "$cache"
if [ ! -x "$cache/yaml-oracle" ]; then
  (cd "$here" && go build -o "$cache/yaml-oracle" .)
fi
oracle="$cache/yaml-oracle"
python3 "$here/cases.py" "$corpus"
"$oracle" random "${RANDOM_CASES:-1500}" "${RANDOM_SEED:-20261129}" > "$corpus/random-write-cases.jsonl"
"$oracle" randomread "${RANDOM_READ_CASES:-1500}" "${RANDOM_SEED:-20261129}" > "$corpus/random-read-cases.jsonl"
cat "$corpus/read-cases.jsonl" "$corpus/random-read-cases.jsonl" | "$oracle" read > "$corpus/read-expected.jsonl"
cat "$corpus/write-cases.jsonl" "$corpus/random-write-cases.jsonl" | "$oracle" write > "$corpus/write-expected.jsonl"
"$oracle" json  < "$corpus/json-cases.jsonl"  > "$corpus/json-expected.jsonl"
rm -f "$corpus/random-write-cases.jsonl" "$corpus/random-read-cases.jsonl"
wc -l "$corpus"/*-expected.jsonl
