#!/usr/bin/env bash
# Regenerates the golden release records from real Helm: `helm install --dry-run=client -o json`
# prints the release exactly as json.Marshal writes it into storage (plus a newline).
# Helm 3 needs a reachable cluster even for a client dry run, so only Helm 4 is used here;
# Helm 3 records are covered by the cluster interop tests.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../../.." && pwd)"
helm="$("$repo/tools/helm-ref/install-helm.sh" v4.3.1)"
cd "$here"
KUBECONFIG=/nonexistent "$helm" install rel chart --dry-run=client -n demo \
  --set replicas=3 --set-string s=x -o json > helm-v4.3.1-install.json
