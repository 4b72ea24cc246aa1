#!/usr/bin/env bash
# The kill-trial harness by hand: SIGKILL an upgrade at a random point, apply again, check every
# package revision, Helm record (also through the real `helm history`) and Lease; N trials
# (default 300). CI runs 10 (`cargo test -p kubepkg-engine --test crash`).
#   testenv/kill-trials.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
export KUBEPKG_KILL_TRIALS="${1:-300}"
exec cargo test -p kubepkg-engine --test crash -- kill_trials
