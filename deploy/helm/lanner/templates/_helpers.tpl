{{- define "lanner.labels" -}}
app.kubernetes.io/name: lanner
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{- define "lanner.commonEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.database.urlSecret }}
      key: DATABASE_URL
- name: KAFKA_BROKERS
  value: {{ .Values.kafka.brokers | quote }}
- name: LANNER_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}
