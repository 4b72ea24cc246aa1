{{- define "svc10.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}
