{{- define "svc31.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
