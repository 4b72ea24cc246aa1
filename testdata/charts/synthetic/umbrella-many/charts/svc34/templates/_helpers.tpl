{{- define "svc34.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
