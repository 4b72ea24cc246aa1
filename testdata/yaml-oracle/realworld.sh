#!/usr/bin/env bash
# Differential check on real-world YAML: every *.yaml/*.yml file (< 200 KB) in the local Go
# module cache (Helm, Kubernetes, kustomize, … as downloaded by the project's Go tooling) is read
# by Go (sigs.k8s.io/yaml, Helm 4's loader) and by kubepkg-yaml, and every document Go reads is
# written back by both (toYaml, toYamlPretty, toJson, toPrettyJson, toRawJson, toToml).
# Nothing is committed: the files belong to their projects. Prints the per-function match counts.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="${WORK:-$(mktemp -d)}"
mod="$(go env GOMODCACHE)"
(cd "$here" && go build -o "$work/yaml-oracle" .)
find "$mod" -type f \( -name '*.yaml' -o -name '*.yml' \) -size -200k 2>/dev/null | sort > "$work/files.txt"
python3 - "$work" "$mod" <<'PY'
import json, sys
work, mod = sys.argv[1], sys.argv[2]
seen, rows = set(), []
for p in open(f"{work}/files.txt").read().split("\n"):
    if not p:
        continue
    try:
        t = open(p, encoding="utf-8").read()
    except Exception:
        continue
    if t in seen:
        continue
    seen.add(t)
    rows.append({"name": p[len(mod) + 1:], "yaml": t})
with open(f"{work}/read-cases.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
print(len(rows), "distinct files")
PY
mkdir -p "$work/read" "$work/write"
"$work/yaml-oracle" read < "$work/read-cases.jsonl" > "$work/read/read-expected.jsonl"
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
with open(f"{work}/write-cases.jsonl", "w") as f:
    for l in open(f"{work}/read/read-expected.jsonl"):
        r = json.loads(l)
        v = r["any"].get("value")
        if v is not None and v != "null":
            f.write(json.dumps({"name": r["name"], "value": json.loads(v)}) + "\n")
PY
"$work/yaml-oracle" write < "$work/write-cases.jsonl" > "$work/write/write-expected.jsonl"
cd "$here/../.."
for part in read write; do
  KUBEPKG_YAML_CORPUS="$work/$part" CORPUS_DUMP="$work/$part-mismatches.txt" \
    cargo test -q --release -p kubepkg-yaml --test it corpus -- --nocapture 2>&1 | grep -E "^ +[a-zA-Z.]+: [0-9]+/" || true
done
echo "mismatch details: $work/read-mismatches.txt $work/write-mismatches.txt"
