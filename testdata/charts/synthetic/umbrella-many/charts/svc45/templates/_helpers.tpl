{{- define "svc45.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
