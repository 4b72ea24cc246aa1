{{- define "svc61.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
