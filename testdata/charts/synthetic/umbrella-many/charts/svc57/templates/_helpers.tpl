{{- define "svc57.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
