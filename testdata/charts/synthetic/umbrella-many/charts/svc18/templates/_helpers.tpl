{{- define "svc18.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
