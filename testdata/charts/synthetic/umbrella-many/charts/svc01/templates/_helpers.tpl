{{- define "svc01.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
