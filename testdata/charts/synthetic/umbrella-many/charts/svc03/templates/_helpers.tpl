{{- define "svc03.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
