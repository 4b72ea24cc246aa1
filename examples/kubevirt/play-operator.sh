#!/usr/bin/env bash
# Plays virt-operator on the local control plane, whose simulated nodes run no containers:
# whenever the KubeVirt resource in NAMESPACE has a spec generation the "operator" has not
# reported on yet, it reports the stack deployed for that generation (status.conditions
# Available=True with observedGeneration, and observedKubeVirtVersion from the virt-operator
# Deployment's image), as the real operator does once virt-api, virt-controller and
# virt-handler are up. Runs until killed (or for --once: one pass).
# Usage: play-operator.sh NAMESPACE [--once]     (KUBECONFIG must point at the cluster)
set -euo pipefail
ns="${1:?usage: play-operator.sh NAMESPACE [--once]}"
once="${2:-}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
kubectl="${KUBECTL:-${KUBEPKG_TESTENV_DIR:-$repo/.testenv}/bin/kubectl}"
while :; do
	gen="$("$kubectl" -n "$ns" get kubevirt kubevirt -o 'jsonpath={.metadata.generation}' 2>/dev/null || true)"
	seen="$("$kubectl" -n "$ns" get kubevirt kubevirt -o 'jsonpath={.status.observedGeneration}' 2>/dev/null || true)"
	if [ -n "$gen" ] && [ "$gen" != "$seen" ]; then
		image="$("$kubectl" -n "$ns" get deployment virt-operator -o 'jsonpath={.spec.template.spec.containers[0].image}' 2>/dev/null || true)"
		version="${image##*:}"
		sleep 2 # deploying virt-api, virt-controller, virt-handler...
		"$kubectl" -n "$ns" patch kubevirt kubevirt --subresource=status --type=merge -p "{\"status\":{
			\"phase\":\"Deployed\",\"observedGeneration\":$gen,\"observedKubeVirtVersion\":\"$version\",
			\"conditions\":[
			{\"type\":\"Available\",\"status\":\"True\",\"observedGeneration\":$gen,\"reason\":\"AllComponentsReady\",\"message\":\"All components are ready.\"},
			{\"type\":\"Progressing\",\"status\":\"False\",\"observedGeneration\":$gen,\"reason\":\"AllComponentsReady\",\"message\":\"All components are ready.\"},
			{\"type\":\"Degraded\",\"status\":\"False\",\"observedGeneration\":$gen,\"reason\":\"AllComponentsReady\",\"message\":\"All components are ready.\"}]}}" >/dev/null
		echo "play-operator: KubeVirt $ns/kubevirt generation $gen deployed ($version)" >&2
	fi
	[ "$once" = --once ] && exit 0
	sleep 1
done
