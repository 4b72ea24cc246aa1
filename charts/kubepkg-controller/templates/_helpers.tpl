{{/*
The chart's name, or nameOverride.
*/}}
{{- define "kubepkg-controller.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The objects' full name: fullnameOverride, or RELEASE-NAME (RELEASE alone when it already
contains NAME), cut to 63 characters.
*/}}
{{- define "kubepkg-controller.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
CHART-VERSION for the helm.sh/chart label.
*/}}
{{- define "kubepkg-controller.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The labels that select the controller's pods.
*/}}
{{- define "kubepkg-controller.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kubepkg-controller.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The labels of every object of the chart.
*/}}
{{- define "kubepkg-controller.labels" -}}
helm.sh/chart: {{ include "kubepkg-controller.chart" . }}
{{ include "kubepkg-controller.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: controller
app.kubernetes.io/part-of: kubepkg
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
The ServiceAccount the controller runs as.
*/}}
{{- define "kubepkg-controller.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "kubepkg-controller.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The image reference: REPOSITORY@DIGEST, or REPOSITORY:TAG (the tag defaulting to appVersion).
*/}}
{{- define "kubepkg-controller.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
Refuses values that cannot work together.
*/}}
{{- define "kubepkg-controller.validate" -}}
{{- if and (gt (int .Values.replicas) 1) (not .Values.leaderElection.enabled) }}
{{- fail "replicas > 1 needs leaderElection.enabled=true: two controllers without the leader Lease would reconcile the same Packages at once" }}
{{- end }}
{{- if and (eq .Values.rbac.packageContents "rules") (empty .Values.rbac.packageContentsRules) }}
{{- fail "rbac.packageContents=rules needs rbac.packageContentsRules (a list of RBAC rules)" }}
{{- end }}
{{- if and .Values.tenancy.enabled (ne .Values.rbac.packageContents "none") }}
{{- fail "tenancy.enabled applies every Package as a ServiceAccount of its namespace, so the controller's own ServiceAccount gets no package contents: set rbac.packageContents=none and grant the tenants' ServiceAccounts instead (README.md#tenancy)" }}
{{- end }}
{{- if and .Values.tenancy.enabled (empty .Values.tenancy.defaultServiceAccount) }}
{{- fail "tenancy.enabled needs tenancy.defaultServiceAccount (e.g. default): a Package naming no serviceAccountName would otherwise be applied as the controller itself" }}
{{- end }}
{{- end }}
