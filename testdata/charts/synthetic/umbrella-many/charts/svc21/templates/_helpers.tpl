{{- define "svc21.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
