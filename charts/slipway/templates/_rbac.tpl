{{/*
The exact API permissions of the gateway and the status API: nothing more than they use.
The operator's rules are generated from operator/rbac.ts into _operator-rules.tpl.
test/unit/chart checks every rendered rule.
*/}}

{{- define "slipway.gateway.rules" -}}
- apiGroups: [slipway.dev]
  resources: [projects, webhooks, bundles]
  verbs: [get, list, watch]
- apiGroups: [slipway.dev]
  resources: [bundles]
  verbs: [create]
# Verifying deliveries against the projects' webhook secrets.
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list, watch]
- apiGroups: [events.k8s.io]
  resources: [events]
  verbs: [create]
{{- end }}

{{/* The status API is read-only, and reads one namespace only. */}}
{{- define "slipway.status-api.rules" -}}
- apiGroups: [slipway.dev]
  resources: [statuspages, statuscomponents, statusnotices]
  verbs: [get, list, watch]
{{- end }}

{{/*
A Role and RoleBinding in .namespace, or a ClusterRole and ClusterRoleBinding when it is
empty: (dict "root" $ "component" "gateway" "values" $.Values.gateway "namespace" "" "rules" "..." "suffix" "")
*/}}
{{- define "slipway.roleAndBinding" -}}
{{- $name := printf "%s%s" (include "slipway.componentName" .) (.suffix | default "") }}
{{- $kind := ternary "Role" "ClusterRole" (ne .namespace "") }}
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ $kind }}
metadata:
  name: {{ $name }}
  {{- if .namespace }}
  namespace: {{ .namespace }}
  {{- end }}
  labels:
    {{- include "slipway.labels" . | nindent 4 }}
rules:
  {{- .rules | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ $kind }}Binding
metadata:
  name: {{ $name }}
  {{- if .namespace }}
  namespace: {{ .namespace }}
  {{- end }}
  labels:
    {{- include "slipway.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: {{ $kind }}
  name: {{ $name }}
subjects:
  - kind: ServiceAccount
    name: {{ include "slipway.serviceAccountName" . }}
    namespace: {{ .root.Release.Namespace }}
{{- end }}
