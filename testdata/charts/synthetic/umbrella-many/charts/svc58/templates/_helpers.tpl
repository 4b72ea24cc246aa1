{{- define "svc58.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
