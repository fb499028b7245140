{{/*
Names, labels and the pieces all three Deployments share.
Components are named "operator", "gateway" and "status-api"; their values live under
.Values.operator, .Values.gateway and .Values.statusApi. Component helpers take the context
(dict "root" $ "component" "status-api" "values" $.Values.statusApi).
*/}}

{{- define "slipway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Resource-name prefix; component suffixes (at most 19 characters: -status-api-metrics) keep names within 63. */}}
{{- define "slipway.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 44 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 44 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 44 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "slipway.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fixed container ports: every process serves its public port on 8080, admin on 8081. */}}
{{- define "slipway.publicPort" -}}8080{{- end }}
{{- define "slipway.adminPort" -}}8081{{- end }}
{{- define "slipway.archiveDir" -}}/var/lib/slipway/archives{{- end }}

{{- define "slipway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "slipway.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Labels for a component's resources. */}}
{{- define "slipway.labels" -}}
helm.sh/chart: {{ include "slipway.chart" .root }}
{{ include "slipway.selectorLabels" . }}
app.kubernetes.io/part-of: slipway
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "slipway.componentName" -}}
{{ include "slipway.fullname" .root }}-{{ .component }}
{{- end }}

{{- define "slipway.serviceAccountName" -}}
{{- $v := .values }}
{{- if $v.serviceAccount.create }}
{{- default (include "slipway.componentName" .) $v.serviceAccount.name }}
{{- else if $v.serviceAccount.name }}
{{- $v.serviceAccount.name }}
{{- else }}
{{- /* Binding the component's Role to the namespace's "default" account would hand it to every pod there. */}}
{{- fail (printf "%s: serviceAccount.name is required when serviceAccount.create is false" .component) }}
{{- end }}
{{- end }}

{{- define "slipway.image" -}}
{{- $img := .Values.image }}
{{- if $img.digest }}
{{- printf "%s@%s" $img.repository $img.digest }}
{{- else }}
{{- printf "%s:%s" $img.repository (default .Chart.AppVersion $img.tag) }}
{{- end }}
{{- end }}

{{/*
Namespace of the StatusPage, the only one the status API reads: statusNamespace, else
watchNamespace, else the release namespace. With watchNamespace set it must be that
namespace, or the operator would never assign the ids the API serves.
*/}}
{{- define "slipway.statusNamespace" -}}
{{- $ns := .Values.statusApi.statusNamespace | default .Values.watchNamespace | default .Release.Namespace }}
{{- if and .Values.watchNamespace (ne $ns .Values.watchNamespace) }}
{{- fail (printf "statusApi.statusNamespace (%s) must equal watchNamespace (%s): the operator only reconciles status objects there" $ns .Values.watchNamespace) }}
{{- end }}
{{- $ns }}
{{- end }}

{{/* Public base URL of a component with a public port: publicUrl, ingress host, or Service. */}}
{{- define "slipway.publicUrl" -}}
{{- $v := .values }}
{{- if $v.publicUrl }}
{{- trimSuffix "/" $v.publicUrl }}
{{- else if $v.ingress.enabled }}
{{- printf "%s://%s%s" (ternary "https" "http" $v.ingress.tls.enabled) $v.ingress.host (trimSuffix "/" $v.ingress.path) }}
{{- else }}
{{- include "slipway.serviceUrl" . }}
{{- end }}
{{- end }}

{{/* In-cluster URL of a component's public Service. */}}
{{- define "slipway.serviceUrl" -}}
{{- $port := int .values.service.port }}
{{- printf "http://%s.%s.svc%s" (include "slipway.componentName" .) .root.Release.Namespace (ternary "" (printf ":%d" $port) (eq $port 80)) }}
{{- end }}

{{- define "slipway.gatewayUrl" -}}
{{ include "slipway.publicUrl" (dict "root" . "component" "gateway" "values" .Values.gateway) }}
{{- end }}

{{/* In-cluster URL of the gateway: build Jobs download uploaded archives from it. */}}
{{- define "slipway.gatewayServiceUrl" -}}
{{ include "slipway.serviceUrl" (dict "root" . "component" "gateway" "values" .Values.gateway) }}
{{- end }}

{{/* Where build Jobs download uploaded archives: the gateway stores them there, and the operator signs no other archive URL. */}}
{{- define "slipway.archiveBaseUrl" -}}
{{ .Values.gateway.archiveBaseUrl | default (include "slipway.gatewayServiceUrl" .) | trimSuffix "/" }}
{{- end }}

{{- define "slipway.statusApiUrl" -}}
{{ include "slipway.publicUrl" (dict "root" . "component" "status-api" "values" .Values.statusApi) }}
{{- end }}

{{/* Environment every process reads. */}}
{{- define "slipway.commonEnv" -}}
- name: SLIPWAY_PROCESS
  value: {{ .component | quote }}
- name: SLIPWAY_LOG_LEVEL
  value: {{ .root.Values.logLevel | quote }}
- name: SLIPWAY_ADMIN_PORT
  value: {{ include "slipway.adminPort" .root | quote }}
- name: SLIPWAY_WATCH_NAMESPACE
  value: {{ .root.Values.watchNamespace | quote }}
- name: SLIPWAY_BUILD_NAMESPACE
  value: {{ .root.Values.operator.buildNamespace | quote }}
{{- end }}

{{/* Pod-level settings of a component. */}}
{{- define "slipway.podSpecCommon" -}}
{{- $v := .values -}}
serviceAccountName: {{ include "slipway.serviceAccountName" . }}
automountServiceAccountToken: true
enableServiceLinks: false
terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- range . }}
  - name: {{ . }}
  {{- end }}
{{- end }}
{{- with $v.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with $v.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* Container-level settings every container shares: image, securityContext, probes, resources. */}}
{{- define "slipway.containerCommon" -}}
{{- $v := .values -}}
image: {{ include "slipway.image" .root | quote }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
securityContext:
  {{- toYaml .root.Values.containerSecurityContext | nindent 2 }}
livenessProbe:
  httpGet:
    path: /healthz
    port: admin
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /readyz
    port: admin
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 3
resources:
  {{- toYaml $v.resources | nindent 2 }}
{{- end }}

{{/* The scratch /tmp every process gets, since the root filesystem is read-only. */}}
{{- define "slipway.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 256Mi
{{- end }}

{{- define "slipway.tmpVolumeMount" -}}
- name: tmp
  mountPath: /tmp
{{- end }}

{{/* The archive-URL signing key: the operator signs build Jobs' download URLs, the gateway verifies them. */}}
{{- define "slipway.archiveUrlKeyEnv" -}}
- name: SLIPWAY_ARCHIVE_URL_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "slipway.archiveUrlKeySecretName" . }}
      key: {{ include "slipway.archiveUrlKeySecretKey" . }}
{{- end }}

{{/* The registry token endpoint's settings (docs/adr/0006): on when builds use tokens. */}}
{{- define "slipway.registryTokenEnv" -}}
{{- if eq .Values.operator.registryAuth "tokens" }}
{{- $t := .Values.gateway.registryTokens }}
- name: SLIPWAY_REGISTRY_TOKEN_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "slipway.registryTokenKeySecretName" . }}
      key: {{ if $t.existingSecret }}{{ $t.existingSecretKey }}{{ else }}key.pem{{ end }}
- name: SLIPWAY_REGISTRY_TOKEN_SERVICE
  value: {{ $t.service | quote }}
- name: SLIPWAY_REGISTRY_TOKEN_ISSUER
  value: {{ $t.issuer | quote }}
- name: SLIPWAY_REGISTRY_PUBLIC_REPOSITORIES
  value: {{ join "," $t.publicRepositories | quote }}
- name: SLIPWAY_REGISTRY_TOKEN_SECONDS
  value: {{ $t.lifetimeSeconds | int | quote }}
{{- end }}
{{- end }}

{{- define "slipway.registryTokenKeySecretName" -}}
{{- default (printf "%s-registry-token-key" (include "slipway.fullname" .)) .Values.gateway.registryTokens.existingSecret }}
{{- end }}

{{- define "slipway.archiveUrlKeySecretName" -}}
{{- default (printf "%s-archive-url-key" (include "slipway.fullname" .)) .Values.gateway.archiveUrlKey.existingSecret }}
{{- end }}

{{- define "slipway.archiveUrlKeySecretKey" -}}
{{- if .Values.gateway.archiveUrlKey.existingSecret }}{{ .Values.gateway.archiveUrlKey.existingSecretKey }}{{ else }}key{{ end }}
{{- end }}

{{/* Whether the gateway's archive volume can be mounted by several pods at once. */}}
{{- define "slipway.archiveShared" -}}
{{- $p := .Values.gateway.archive.persistence }}
{{- if and $p.enabled (has "ReadWriteMany" $p.accessModes) }}true{{ end }}
{{- end }}

{{/* A map as "key=value,key=value", sorted by key. */}}
{{- define "slipway.keyValues" -}}
{{- $pairs := list }}
{{- range $k, $v := . }}
{{- $pairs = append $pairs (printf "%s=%s" $k $v) }}
{{- end }}
{{- join "," $pairs }}
{{- end }}
