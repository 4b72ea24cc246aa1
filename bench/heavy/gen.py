#!/usr/bin/env python3
"""Writes the synthetic heavy charts of bench/README.md ("Heavy charts") into OUT (default
bench/heavy/out, git-ignored), each built to one pattern that made kubepkg slow on real charts
(issue 17):

  tpl-library   an application chart whose 40 templates render every value through `tpl` by
                way of a library chart's helper (bitnami common's `tplvalues.render` idiom)
  umbrella-50   an umbrella chart with 50 subcharts (each the `helm create` scaffold under its
                own name, enabled by a condition), global values passed down
  big-schema    a ~500 KB values.schema.json (230 component objects, $refs, patterns, enums)
                with values that satisfy it
  rsa-keys      10 RSA keys: genCA, genSelfSignedCert and 8 genSignedCert

Deterministic: the same files on every run (no randomness here; the RSA keys are made by the
templates at render time).  Usage: bench/heavy/gen.py [OUT]

bench/heavy/gen.py --umbrellas [OUT] writes only umbrella-50, umbrella-100 and umbrella-200 (the
same umbrella at three sizes, for bench/umbrella-scaling.sh); --library-umbrellas [OUT] writes
umbrella-lib-50, -100 and -200: the same umbrellas whose every subchart also depends on a library
chart of its own (as each bitnami chart carries `common`), so the subcharts have subcharts too.
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCAFFOLD = os.path.join(ROOT, "crates", "kubepkg-chart", "src", "scaffold")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def chart_yaml(name, type_="application", deps=()):
    out = f"apiVersion: v2\nname: {name}\nversion: 1.0.0\nappVersion: \"1.0\"\ntype: {type_}\n"
    if deps:
        out += "dependencies:\n"
        for d in deps:
            out += f"  - name: {d['name']}\n    version: 1.0.0\n"
            if "condition" in d:
                out += f"    condition: {d['condition']}\n"
    return out


def tpl_library(out):
    root = os.path.join(out, "tpl-library")
    lib = os.path.join(root, "charts", "tpllib")
    write(os.path.join(lib, "Chart.yaml"), chart_yaml("tpllib", "library"))
    write(os.path.join(lib, "templates", "_tplvalues.tpl"), """{{/*
Renders a value that contains template (bitnami common's tplvalues.render).
*/}}
{{- define "tpllib.tplvalues.render" -}}
{{- $value := typeIs "string" .value | ternary .value (.value | toYaml) }}
{{- if contains "{{" (toJson .value) }}
  {{- tpl $value .context }}
{{- else }}
  {{- $value }}
{{- end }}
{{- end -}}
{{- define "tpllib.labels" -}}
app.kubernetes.io/name: {{ include "tpllib.tplvalues.render" (dict "value" .Values.nameTemplate "context" .) }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- with .Values.commonLabels }}
{{ include "tpllib.tplvalues.render" (dict "value" . "context" $) }}
{{- end }}
{{- end -}}
""")
    write(os.path.join(root, "Chart.yaml"), chart_yaml("tpl-library", deps=[{"name": "tpllib"}]))
    values = {
        "nameTemplate": "{{ .Release.Name }}-{{ .Chart.Name }}",
        "commonLabels": {f"team-{i}": "{{ .Release.Namespace }}-" + str(i) for i in range(5)},
        "components": {},
    }
    for c in range(40):
        values["components"][f"c{c:02d}"] = {
            "enabled": True,
            "image": "registry.example/{{ .Release.Name }}/c%02d:{{ .Chart.AppVersion }}" % c,
            "env": {f"KEY_{k}": "{{ .Release.Name }}-c%02d-%d" % (c, k) for k in range(20)},
            "annotations": {f"example.com/a{k}": "{{ .Values.nameTemplate }}-%d" % k for k in range(5)},
            "args": ["--name={{ .Release.Name }}", "--ns={{ .Release.Namespace }}", "--level=%d" % c],
        }
    write(os.path.join(root, "values.yaml"), json.dumps(values, indent=2) + "\n")
    for c in range(40):
        name = f"c{c:02d}"
        write(os.path.join(root, "templates", f"{name}.yaml"), """{{- $c := .Values.components.%(n)s }}
{{- if $c.enabled }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "tpllib.tplvalues.render" (dict "value" .Values.nameTemplate "context" $) }}-%(n)s
  labels: {{- include "tpllib.labels" . | nindent 4 }}
  annotations: {{- include "tpllib.tplvalues.render" (dict "value" $c.annotations "context" $) | nindent 4 }}
data:
  image: {{ include "tpllib.tplvalues.render" (dict "value" $c.image "context" $) | quote }}
  env.yaml: |
    {{- include "tpllib.tplvalues.render" (dict "value" $c.env "context" $) | nindent 4 }}
  args.yaml: |
    {{- include "tpllib.tplvalues.render" (dict "value" $c.args "context" $) | nindent 4 }}
{{- end }}
""" % {"n": name})


def scaffold_files(name):
    files = {}
    for f in sorted(os.listdir(SCAFFOLD)):
        if f == "helmignore":
            target = ".helmignore"
        else:
            target = f.replace("__", "/")
        with open(os.path.join(SCAFFOLD, f)) as fh:
            files[target] = fh.read().replace("<CHARTNAME>", name)
    return files


def umbrella(out, n=50, library=False):
    name = f"umbrella-lib-{n}" if library else f"umbrella-{n}"
    root = os.path.join(out, name)
    subs = [f"svc{i:03d}" if n > 100 else f"svc{i:02d}" for i in range(n)]
    write(os.path.join(root, "Chart.yaml"), chart_yaml(
        name, deps=[{"name": s, "condition": f"{s}.enabled"} for s in subs]))
    values = "global:\n  imageRegistry: registry.example\n  labels:\n    tier: bench\n"
    for i, s in enumerate(subs):
        values += f"{s}:\n  enabled: true\n  replicaCount: {1 + i % 3}\n"
        values += f"  service:\n    port: {8000 + i}\n"
        values += "  ingress:\n    enabled: %s\n" % ("true" if i % 5 == 0 else "false")
        values += "  autoscaling:\n    enabled: %s\n" % ("true" if i % 7 == 0 else "false")
    write(os.path.join(root, "values.yaml"), values)
    write(os.path.join(root, "templates", "configmap.yaml"), """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-umbrella
data:
{{- range $name, $sub := .Values }}
{{- if and (kindIs "map" $sub) (hasKey $sub "enabled") }}
  {{ $name }}: {{ $sub.service.port | quote }}
{{- end }}
{{- end }}
""")
    for s in subs:
        for path, text in scaffold_files(s).items():
            if path.endswith("NOTES.txt"):
                continue
            if library and path == "Chart.yaml":
                text += "dependencies:\n  - name: common\n    version: 1.0.0\n"
            write(os.path.join(root, "charts", s, path), text)
        if library:
            common = os.path.join(root, "charts", s, "charts", "common")
            write(os.path.join(common, "Chart.yaml"), chart_yaml("common", "library"))
            write(os.path.join(common, "templates", "_names.tpl"),
                  '{{- define "common.names.name" -}}\n'
                  '{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}\n'
                  '{{- end -}}\n')


def big_schema(out):
    root = os.path.join(out, "big-schema")
    write(os.path.join(root, "Chart.yaml"), chart_yaml("big-schema"))
    defs = {
        "image": {
            "type": "object",
            "additionalProperties": False,
            "required": ["repository", "tag"],
            "properties": {
                "registry": {"type": "string", "pattern": "^[a-z0-9.-]+(:[0-9]+)?$"},
                "repository": {"type": "string", "minLength": 1},
                "tag": {"type": "string", "pattern": "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$"},
                "pullPolicy": {"type": "string", "enum": ["Always", "IfNotPresent", "Never"]},
            },
        },
        "resources": {
            "type": "object",
            "properties": {
                k: {"type": "object", "properties": {
                    "cpu": {"type": ["string", "number"], "pattern": "^[0-9]+m?$"},
                    "memory": {"type": "string", "pattern": "^[0-9]+(Ki|Mi|Gi)?$"}}}
                for k in ("limits", "requests")
            },
        },
        "probe": {
            "type": "object",
            "properties": {
                "enabled": {"type": "boolean"},
                "initialDelaySeconds": {"type": "integer", "minimum": 0, "maximum": 3600},
                "periodSeconds": {"type": "integer", "minimum": 1},
                "path": {"type": "string", "pattern": "^/"},
            },
        },
    }
    props = {}
    values = {"components": {}}
    for i in range(230):
        name = f"component{i:03d}"
        props[name] = {
            "type": "object",
            "description": f"Settings of {name}: image, replicas, resources, probes, ports, labels.",
            "additionalProperties": False,
            "required": ["image", "replicas"],
            "properties": {
                "enabled": {"type": "boolean", "default": True},
                "image": {"$ref": "#/$defs/image"},
                "replicas": {"type": "integer", "minimum": 0, "maximum": 100},
                "resources": {"$ref": "#/$defs/resources"},
                "liveness": {"$ref": "#/$defs/probe"},
                "readiness": {"$ref": "#/$defs/probe"},
                "mode": {"type": "string", "enum": ["active", "standby", "disabled", f"mode{i}"]},
                "ports": {"type": "array", "maxItems": 16, "items": {
                    "type": "object", "required": ["port"],
                    "properties": {"name": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
                                   "port": {"type": "integer", "minimum": 1, "maximum": 65535}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 63},
                           "propertyNames": {"pattern": "^[a-z0-9./-]+$"}},
                "oneOfSetting": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            },
        }
        values["components"][name] = {
            "enabled": i % 3 != 0,
            "image": {"registry": "registry.example", "repository": f"team/{name}", "tag": f"1.{i}.0",
                      "pullPolicy": "IfNotPresent"},
            "replicas": i % 5,
            "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "64Mi"}},
            "liveness": {"enabled": True, "initialDelaySeconds": 10, "periodSeconds": 5, "path": "/healthz"},
            "readiness": {"enabled": True, "initialDelaySeconds": 5, "periodSeconds": 5, "path": "/ready"},
            "mode": "active",
            "ports": [{"name": "http", "port": 8080}, {"name": "metrics", "port": 9090}],
            "labels": {"app.kubernetes.io/part-of": "big-schema", "team": f"t{i % 10}"},
            "oneOfSetting": i,
        }
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": defs,
        "properties": {"components": {"type": "object", "additionalProperties": False, "properties": props}},
    }
    write(os.path.join(root, "values.schema.json"), json.dumps(schema, indent=2) + "\n")
    write(os.path.join(root, "values.yaml"), json.dumps(values, indent=2) + "\n")
    write(os.path.join(root, "templates", "components.yaml"), """{{- range $name, $c := .Values.components }}
{{- if $c.enabled }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $.Release.Name }}-{{ $name }}
data:
  image: "{{ $c.image.registry }}/{{ $c.image.repository }}:{{ $c.image.tag }}"
  replicas: {{ $c.replicas | quote }}
{{- end }}
{{- end }}
""")


def rsa_keys(out):
    root = os.path.join(out, "rsa-keys")
    write(os.path.join(root, "Chart.yaml"), chart_yaml("rsa-keys"))
    write(os.path.join(root, "values.yaml"), "services: [api, web, worker, webhook, metrics, grpc, admin, auth]\n")
    write(os.path.join(root, "templates", "certs.yaml"), """{{- $ca := genCA "bench-ca" 365 }}
{{- $self := genSelfSignedCert "self.example" nil (list "self.example") 365 }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-ca
type: kubernetes.io/tls
data:
  tls.crt: {{ $ca.Cert | b64enc }}
  tls.key: {{ $ca.Key | b64enc }}
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-self
type: kubernetes.io/tls
data:
  tls.crt: {{ $self.Cert | b64enc }}
  tls.key: {{ $self.Key | b64enc }}
{{- range .Values.services }}
{{- $name := printf "%s.%s.svc" . $.Release.Namespace }}
{{- $cert := genSignedCert $name nil (list $name) 365 $ca }}
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ $.Release.Name }}-{{ . }}-tls
type: kubernetes.io/tls
data:
  ca.crt: {{ $ca.Cert | b64enc }}
  tls.crt: {{ $cert.Cert | b64enc }}
  tls.key: {{ $cert.Key | b64enc }}
{{- end }}
""")


def main():
    args = sys.argv[1:]
    library = args[:1] == ["--library-umbrellas"]
    umbrellas = args[:1] == ["--umbrellas"] or library
    if umbrellas:
        args = args[1:]
    default = os.path.join(HERE, "out-umbrellas" if umbrellas else "out")
    out = os.path.abspath(args[0] if args else default)
    if os.path.isdir(out):
        shutil.rmtree(out)
    if umbrellas:
        for n in (50, 100, 200):
            umbrella(out, n, library)
    else:
        for gen in (tpl_library, umbrella, big_schema, rsa_keys):
            gen(out)
    for name in sorted(os.listdir(out)):
        print(os.path.join(out, name))


if __name__ == "__main__":
    main()
