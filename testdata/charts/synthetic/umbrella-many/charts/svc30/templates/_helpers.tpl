{{- define "svc30.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
