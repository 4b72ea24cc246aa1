{{- define "svc04.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
