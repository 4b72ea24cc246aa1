{{- define "cloud-controller-manager.name" -}}
{{- .Values.nameOverride }}
{{- end -}}


