#!/usr/bin/env bash
# Check that a performance change changed no output: runs two kubepkg binaries (OLD, NEW) on
# every case of the Helm reference corpus (testdata/helm-reference/cases/*/args, from the
# repository root) and requires byte-identical stdout, stderr and exit status. Cases whose
# output differs between two runs of OLD (random functions: genCA, randAlpha, uuidv4...) are
# reported as nondeterministic and not compared.
#
#   bench/same-output.sh OLD NEW
#
# Exit status 1 if any deterministic case differs. The Helm comparison itself is
# `cargo test -p kubepkg --test it helm_template_reference`; this is the cheaper check that an
# optimisation kept the bytes, usable on two release builds.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -eq 2 ]] || { echo "usage: $0 OLD NEW" >&2; exit 2; }
old="$(realpath "$1")"; new="$(realpath "$2")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
run() { # run BIN CASE OUTPREFIX
  local args
  args="$(cat "$2/args")"
  set +e
  eval "env -u HELM_NAMESPACE \"\$1\" $args" > "$3.out" 2> "$3.err" < /dev/null
  echo "$?" > "$3.rc"
  set -e
}
same() { cmp -s "$1.out" "$2.out" && cmp -s "$1.err" "$2.err" && cmp -s "$1.rc" "$2.rc"; }
total=0; identical=0; random=0; differ=0
for c in testdata/helm-reference/cases/*/; do
  total=$((total + 1))
  run "$old" "$c" "$tmp/a"; run "$new" "$c" "$tmp/b"
  if same "$tmp/a" "$tmp/b"; then identical=$((identical + 1)); continue; fi
  run "$old" "$c" "$tmp/a2"
  if ! same "$tmp/a" "$tmp/a2"; then random=$((random + 1)); continue; fi
  differ=$((differ + 1))
  echo "DIFFERS: $c"
  diff <(cat "$tmp/a.rc" "$tmp/a.err" "$tmp/a.out") <(cat "$tmp/b.rc" "$tmp/b.err" "$tmp/b.out") | head -10 || true
done
echo "cases: $total  identical: $identical  nondeterministic: $random  different: $differ"
[[ $differ -eq 0 ]]
