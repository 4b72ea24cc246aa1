{{/*
Expand the name of the chart.
*/}}
{{- define "cert-manager-approver-policy.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Create chart name and version as used by the chart label.
*/}}
{{- define "cert-manager-approver-policy.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Common labels
*/}}
{{- define "cert-manager-approver-policy.labels" -}}
app.kubernetes.io/name: {{ include "cert-manager-approver-policy.name" . }}
helm.sh/chart: {{ include "cert-manager-approver-policy.chart" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- if .Values.commonLabels}}
{{ toYaml .Values.commonLabels }}
{{- end }}
{{- end -}}

{{/*
Util function for generating the image URL based on the provided options.
IMPORTANT: This function is standardized across all charts in the cert-manager GH organization.
Any changes to this function should also be made in cert-manager, trust-manager, approver-policy, ...
See https://github.com/cert-manager/cert-manager/issues/6329 for a list of linked PRs.
*/}}
{{- define "approver-policy.image" -}}
{{- /*
Calling convention:

- (tuple <imageValues> <imageRegistry> <imageNamespace> <defaultReference>)

We intentionally pass imageRegistry/imageNamespace as explicit arguments rather than reading
from `.Values` inside this helper, because `helm-tool lint` does not reliably track `.Values.*`
usage through tuple/variable indirection.
*/ -}}

{{- if ne (len .) 4 -}}
  {{- fail (printf "ERROR: template \"approver-policy.image\" expects (tuple <imageValues> <imageRegistry> <imageNamespace> <defaultReference>), got %d arguments" (len .)) -}}
{{- end -}}

{{- $image := index . 0 -}}
{{- $imageRegistry := index . 1 | default "" -}}
{{- $imageNamespace := index . 2 | default "" -}}
{{- $defaultReference := index . 3 -}}

{{- $repository := "" -}}
{{- if $image.repository -}}
  {{- $repository = $image.repository -}}

  {{- /*
    Backwards compatibility: if image.registry is set, additionally prefix the repository with this registry.
  */ -}}
  {{- if $image.registry -}}
    {{- $repository = printf "%s/%s" $image.registry $repository -}}
  {{- end -}}
{{- else -}}
  {{- $name := required "ERROR: image.name must be set when image.repository is empty" $image.name -}}
  {{- $repository = $name -}}

  {{- if $imageNamespace -}}
    {{- $repository = printf "%s/%s" $imageNamespace $repository -}}
  {{- end -}}

  {{- if $imageRegistry -}}
    {{- $repository = printf "%s/%s" $imageRegistry $repository -}}
  {{- end -}}

  {{- /*
    Backwards compatibility: if image.registry is set, additionally prefix the repository with this registry.
  */ -}}
  {{- if $image.registry -}}
    {{- $repository = printf "%s/%s" $image.registry $repository -}}
  {{- end -}}
{{- end -}}

{{- $repository -}}
{{- if and $image.tag $image.digest -}}
  {{- printf ":%s@%s" $image.tag $image.digest -}}
{{- else if $image.tag -}}
  {{- printf ":%s" $image.tag -}}
{{- else if $image.digest -}}
  {{- printf "@%s" $image.digest -}}
{{- else -}}
  {{- printf "%s" $defaultReference -}}
{{- end -}}
{{- end }}

{{/*
Copied from
https://github.com/kyverno/kyverno/blob/df5e39c005a78f1ffe6a2eeda3f4497cc9c24384/charts/kyverno/templates/_helpers/_pdb.tpl
*/}}
{{- define "cert-manager-approver-policy.pdb.spec" -}}
{{- if and .minAvailable .maxUnavailable -}}
  {{- fail "Cannot set both .minAvailable and .maxUnavailable" -}}
{{- end -}}
{{- if not .maxUnavailable -}}
minAvailable: {{ default 1 .minAvailable }}
{{- end -}}
{{- if .maxUnavailable -}}
maxUnavailable: {{ .maxUnavailable }}
{{- end -}}
{{- end -}}
