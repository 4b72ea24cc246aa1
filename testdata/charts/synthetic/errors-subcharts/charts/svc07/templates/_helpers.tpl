{{- define "svc07.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
