{{- define "svc37.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
