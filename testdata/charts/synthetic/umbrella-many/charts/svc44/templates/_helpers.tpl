{{- define "svc44.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
