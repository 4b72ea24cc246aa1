{{- define "svc11.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
