#!/usr/bin/env bash
# Records Go's answers for kubepkg-gostd: testdata/go-stdlib.tsv (compared by src/oracle_tests.rs)
# and src/strconv/isprint.rs (Go's IsPrint table). Needs Go; cargo test does not.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
crate="$(dirname "$here")"
cd "$here"
go run . -golden "$crate/testdata/go-stdlib.tsv" -isprint "$crate/src/strconv/isprint.rs"
echo "wrote $crate/testdata/go-stdlib.tsv and $crate/src/strconv/isprint.rs"
