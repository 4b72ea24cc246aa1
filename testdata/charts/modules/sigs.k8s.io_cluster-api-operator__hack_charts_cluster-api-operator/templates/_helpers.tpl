{{/* vim: set filetype=mustache: */}}
{{/*
Expand the name of the chart.
*/}}
{{- define "capi-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Create a default fully qualified app name.
We truncate at 63 chars because some Kubernetes name fields are limited to this (by the DNS naming spec).
*/}}
{{- define "capi-operator.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "capi-operator.configSecret" -}}
{{- $ := .ROOT -}}
{{- $arg := .ARGUMENT -}}
configSecret:
  name: {{ default (($arg).configSecret).name (($.Values).configSecret).name }}
  {{- if (default (($arg).configSecret).namespace (($.Values).configSecret).namespace) }}
  namespace: {{ default (($arg).configSecret).namespace (($.Values).configSecret).namespace }}
  {{- end }}
{{- end -}}
