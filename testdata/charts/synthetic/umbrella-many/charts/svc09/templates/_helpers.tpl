{{- define "svc09.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
