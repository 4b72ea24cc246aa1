#!/usr/bin/env bash
# Differential fuzzing of kubepkg's template engine against Helm's.
#   oracle/fuzz.sh [ROUNDS] [CASES_PER_ROUND] [FIRST_SEED] [KEEP_PER_ROUND]
# Each round the oracle generates random templates + values and records Helm's results
# (`oracle fuzz`); the corpus runner then renders them with kubepkg (KUBEPKG_CORPUS=...). Cases
# that differ are appended (at most KEEP_PER_ROUND per round, smallest first) to
# testdata/template-corpus/fuzz-findings.jsonl, where `cargo test` keeps checking them.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/.."
rounds="${1:-10}"; per="${2:-500}"; seed="${3:-$(date +%s)}"; keep="${4:-5}"
findings="$root/testdata/template-corpus/fuzz-findings.jsonl"
oracle="$("$here/build.sh")"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
(cd "$root" && cargo test -q --release -p kubepkg-funcs --test it corpus --no-run >&2)
ran=0; differing=0
touch "$findings"
for ((r = 0; r < rounds; r++)); do
  s=$((seed + r * per))
  TZ=UTC "$oracle" fuzz "$per" "$s" > "$work/round.jsonl"
  : > "$work/failed.txt"
  (cd "$root" && KUBEPKG_CORPUS="$work/round.jsonl" KUBEPKG_CORPUS_SHOW=0 KUBEPKG_CORPUS_FAILED="$work/failed.txt" \
     cargo test -q --release -p kubepkg-funcs --test it corpus > "$work/test.log" 2>&1) || true
  n=$(wc -l < "$work/round.jsonl"); f=$(grep -c . "$work/failed.txt" || true)
  ran=$((ran + n)); differing=$((differing + f))
  # keep the shortest differing cases not already kept
  python3 - "$work/round.jsonl" "$work/failed.txt" "$findings" "$keep" <<'PY'
import json, sys
cases, failed, findings, keep = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
names = {l.strip() for l in open(failed) if l.strip()}
have = {json.loads(l)["name"] for l in open(findings) if l.strip()}
lines = [l for l in open(cases) if json.loads(l)["name"] in names and json.loads(l)["name"] not in have]
lines.sort(key=len)
with open(findings, "a") as out:
    out.writelines(lines[:keep])
PY
  echo "round $((r + 1))/$rounds seed $s: $n cases, $f differ from Helm" >&2
done
echo "fuzz: $ran cases run, $differing differed from Helm; findings in $findings ($(grep -c . "$findings" || true) kept)"
