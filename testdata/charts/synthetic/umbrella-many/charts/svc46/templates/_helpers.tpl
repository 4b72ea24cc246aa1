{{- define "svc46.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
