{{- define "svc08.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
