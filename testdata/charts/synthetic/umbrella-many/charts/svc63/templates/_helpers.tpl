{{- define "svc63.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
