{{- /*
werft.workerPrevious: the worker image that sessions checkpointed before this revision may
still need. kubepkg gives this chart (upgradeContext: true) the values of the deployed
revision as .Values.kubepkg.previous, so:
  - first install: previous is {} -> no previous image;
  - the worker image changes: the deployed revision's worker image becomes the previous one;
  - the worker image stays: the deployed revision's own previous image is kept if it was
    given as a value (kubepkg.previous holds values, not what this template derived).
An explicit images.workerPrevious wins.
*/}}
{{- define "werft.workerPrevious" -}}
{{- $deployed := dig "images" "worker" "" .Values.kubepkg.previous -}}
{{- $deployedPrevious := dig "images" "workerPrevious" "" .Values.kubepkg.previous -}}
{{- if .Values.images.workerPrevious -}}
{{- .Values.images.workerPrevious -}}
{{- else if and $deployed (ne $deployed .Values.images.worker) -}}
{{- $deployed -}}
{{- else if ne $deployedPrevious .Values.images.worker -}}
{{- $deployedPrevious -}}
{{- end -}}
{{- end -}}
