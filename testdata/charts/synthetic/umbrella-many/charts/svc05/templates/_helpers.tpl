{{- define "svc05.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
