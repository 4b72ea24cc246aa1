{{- define "svc24.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
