#!/usr/bin/env bash
# Regenerates testdata/template-corpus/toml.jsonl: the TOML documents of toml-cases.py fed to
# Helm's `fromToml` (BurntSushi/toml, the version Helm's go.mod pins), results recorded by the
# oracle. Needs Go (the oracle is built and cached by build.sh). regen.sh re-records the same
# file's results too; this script also rewrites its inputs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/../testdata/template-corpus/toml.jsonl"
oracle="$("$here/build.sh")"
python3 "$here/toml-cases.py" "$out"
TZ=UTC "$oracle" regen "$out"
