{{- define "svc66.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
