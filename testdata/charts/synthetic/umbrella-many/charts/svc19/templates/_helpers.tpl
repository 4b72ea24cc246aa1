{{- define "svc19.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
