{{/* Common labels of every object of the release. */}}
{{- define "lanner.labels" -}}
app.kubernetes.io/name: lanner
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
{{- end -}}

{{/* Labels that select one role's pods; call with (dict "root" $ "role" $role). */}}
{{- define "lanner.selectorLabels" -}}
app.kubernetes.io/name: lanner
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{- define "lanner.image" -}}
{{ printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) | quote }}
{{- end -}}

{{- define "lanner.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{ default .Release.Name .Values.serviceAccount.name }}
{{- else -}}
{{ default "default" .Values.serviceAccount.name }}
{{- end -}}
{{- end -}}

{{/* The controllers' headless Service: one DNS A record per ready controller pod. */}}
{{- define "lanner.controllerHeadless" -}}
{{ printf "%s-controller-headless" .Release.Name }}
{{- end -}}

{{/* Environment of the roles that use PostgreSQL and Kafka, and of the migration Job. */}}
{{- define "lanner.clusterEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.database.secretName }}
      key: {{ .Values.database.secretKey }}
- name: KAFKA_BROKERS
  value: {{ .Values.kafka.brokers | quote }}
{{- with .Values.kafka.namespace }}
- name: LANNER_KAFKA_NAMESPACE
  value: {{ . | quote }}
{{- end }}
{{- end -}}

{{/* Pod-level settings shared by every role and the migration Job. */}}
{{- define "lanner.podCommon" -}}
serviceAccountName: {{ include "lanner.serviceAccountName" . }}
automountServiceAccountToken: {{ .Values.serviceAccount.automountServiceAccountToken }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.podSecurityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
