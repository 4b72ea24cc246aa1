{{- define "svc36.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
