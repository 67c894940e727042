{{/* The worker pod template, shared by the DaemonSet and the StatefulSet. */}}
{{- define "fleetsweep.worker.podTemplate" -}}
{{- $w := .Values.worker -}}
{{- $gpus := int $w.gpusPerNode -}}
metadata:
  labels:
    {{- include "fleetsweep.componentSelectorLabels" (list . "worker") | nindent 4 }}
    {{- with $w.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    checksum/curve: {{ include (print $.Template.BasePath "/curve-secrets.yaml") . | sha256sum }}
    checksum/platform: {{ include (print $.Template.BasePath "/platform-configmap.yaml") . | sha256sum }}
    {{- with $w.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "fleetsweep.serviceAccountName" . }}
  automountServiceAccountToken: {{ .Values.serviceAccount.automountToken }}
  terminationGracePeriodSeconds: {{ $w.terminationGracePeriodSeconds }}
  {{- with $w.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  {{- with .Values.imagePullSecrets }}
  imagePullSecrets:
    {{- range . }}
    - name: {{ . }}
    {{- end }}
  {{- end }}
  securityContext:
    {{- toYaml $w.podSecurityContext | nindent 4 }}
  containers:
    - name: worker
      image: {{ include "fleetsweep.image" (list . $w.image) }}
      imagePullPolicy: {{ $w.image.pullPolicy }}
      args:
        - --coordinator
        - {{ printf "tcp://%s:%d" (include "fleetsweep.componentName" (list . "coordinator")) (int .Values.coordinator.zmqPort) | quote }}
        {{- if $w.useRedis }}
        - --redis
        - {{ include "fleetsweep.redis.url" . | quote }}
        {{- end }}
        - --slots
        - {{ $gpus | quote }}
        {{- with $w.devices }}
        - --devices
        - {{ . | quote }}
        {{- end }}
        - --device-env
        - {{ $w.deviceEnv | quote }}
        - --node
        - $(FLEETSWEEP_NODE_NAME)
        - --metrics-port
        - {{ $w.metricsPort | quote }}
        {{- if $w.platformSurface.enabled }}
        - --platform-surface
        - /etc/fleetsweep/platform/surface.yaml
        {{- end }}
        {{- range $w.allowExec }}
        - --allow-exec
        - {{ . | quote }}
        {{- end }}
        {{- if $w.allowAnyExec }}
        - --allow-any-exec
        {{- end }}
        {{- if .Values.security.insecure }}
        - --insecure
        {{- else }}
        - --curve-server-key
        - /etc/fleetsweep/curve/server.pub
        - --curve-secret-key
        - /etc/fleetsweep/curve/secret.key
        {{- end }}
        {{- range $w.extraArgs }}
        - {{ . | quote }}
        {{- end }}
      env:
        # The node the pod runs on names the worker (node effects are per node, not per pod).
        - name: FLEETSWEEP_NODE_NAME
          valueFrom:
            fieldRef:
              fieldPath: spec.nodeName
        # JIT compilers (Triton) write caches under HOME; the root filesystem is read-only.
        - name: HOME
          value: /tmp
        {{- if $w.useRedis }}
        {{- with include "fleetsweep.redis.passwordEnv" . }}
        {{- . | nindent 8 }}
        {{- end }}
        {{- end }}
        {{- with $w.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      ports:
        - name: metrics
          containerPort: {{ $w.metricsPort }}
          protocol: TCP
      {{- if $w.livenessProbe.enabled }}
      livenessProbe:
        {{- include "fleetsweep.httpProbe" (dict "probe" $w.livenessProbe) | nindent 8 }}
      {{- end }}
      {{- if $w.readinessProbe.enabled }}
      readinessProbe:
        {{- include "fleetsweep.httpProbe" (dict "probe" $w.readinessProbe) | nindent 8 }}
      {{- end }}
      resources:
        {{- $res := deepCopy (default dict $w.resources) }}
        {{- $_ := set $res "limits" (merge (dict $w.gpuResourceName $gpus) (default dict $res.limits)) }}
        {{- $_ := set $res "requests" (merge (dict $w.gpuResourceName $gpus) (default dict $res.requests)) }}
        {{- toYaml $res | nindent 8 }}
      securityContext:
        {{- toYaml $w.securityContext | nindent 8 }}
      volumeMounts:
        - name: scratch
          mountPath: /tmp
        {{- if $w.platformSurface.enabled }}
        - name: platform
          mountPath: /etc/fleetsweep/platform
          readOnly: true
        {{- end }}
        {{- if not .Values.security.insecure }}
        - name: curve
          mountPath: /etc/fleetsweep/curve
          readOnly: true
        {{- end }}
  volumes:
    - name: scratch
      emptyDir:
        sizeLimit: {{ $w.scratchSizeLimit }}
    {{- if $w.platformSurface.enabled }}
    - name: platform
      configMap:
        name: {{ default (include "fleetsweep.componentName" (list . "platform")) $w.platformSurface.existingConfigMap }}
        items:
          - key: surface.yaml
            path: surface.yaml
    {{- end }}
    {{- if not .Values.security.insecure }}
    - name: curve
      secret:
        secretName: {{ include "fleetsweep.curve.workerSecretName" . }}
        defaultMode: 288  # 0440: readable by the pod's fsGroup, nobody else
    {{- end }}
  {{- with $w.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $w.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $w.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
