{{- define "svc25.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
