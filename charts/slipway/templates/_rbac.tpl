{{/*
Each process's API permissions are generated into _rules.tpl from its rbac.ts list
(operator/, webhook-gateway/, status-api/): nothing more than it uses. test/unit/chart
checks every rendered rule against those lists.
*/}}

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
