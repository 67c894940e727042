{{/* Names, labels and the small pieces every template shares. */}}

{{/* The chart name, overridable. */}}
{{- define "fleetsweep.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The object-name prefix: "<release>-fleetsweep", or the release name when it holds the chart name. */}}
{{- define "fleetsweep.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* "<fullname>-<suffix>", kept within 63 characters. Call with (list $ "suffix"). */}}
{{- define "fleetsweep.componentName" -}}
{{- $root := index . 0 -}}
{{- $suffix := index . 1 -}}
{{- printf "%s-%s" (include "fleetsweep.fullname" $root | trunc (int (sub 62 (len $suffix))) | trimSuffix "-") $suffix -}}
{{- end -}}

{{- define "fleetsweep.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "fleetsweep.labels" -}}
helm.sh/chart: {{ include "fleetsweep.chart" . }}
{{ include "fleetsweep.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: fleetsweep
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels shared by all components (add app.kubernetes.io/component per object). */}}
{{- define "fleetsweep.selectorLabels" -}}
app.kubernetes.io/name: {{ include "fleetsweep.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Labels + component. Call with (list $ "component"). */}}
{{- define "fleetsweep.componentLabels" -}}
{{ include "fleetsweep.labels" (index . 0) }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{/* Selector labels + component. Call with (list $ "component"). */}}
{{- define "fleetsweep.componentSelectorLabels" -}}
{{ include "fleetsweep.selectorLabels" (index . 0) }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{/* "registry/repository:tag" for a component's image values. Call with (list $ .Values.x.image). */}}
{{- define "fleetsweep.image" -}}
{{- $root := index . 0 -}}
{{- $img := index . 1 -}}
{{- $repo := required "image.repository must be set" $img.repository -}}
{{- $tag := default $root.Chart.AppVersion (toString (default "" $img.tag)) -}}
{{- if $root.Values.imageRegistry -}}
{{- printf "%s/%s:%s" (trimSuffix "/" $root.Values.imageRegistry) $repo $tag -}}
{{- else -}}
{{- printf "%s:%s" $repo $tag -}}
{{- end -}}
{{- end -}}

{{- define "fleetsweep.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "fleetsweep.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* ---- Redis ---- */}}

{{- define "fleetsweep.redis.bundled" -}}
{{- if not .Values.redis.external.url -}}true{{- end -}}
{{- end -}}

{{- define "fleetsweep.redis.fullname" -}}
{{- include "fleetsweep.componentName" (list . "redis") -}}
{{- end -}}

{{/* The URL clients get: never with the password in it (that comes from the environment). */}}
{{- define "fleetsweep.redis.url" -}}
{{- if .Values.redis.external.url -}}
{{- if not (hasPrefix "redis://" .Values.redis.external.url) -}}
{{- fail "redis.external.url must start with redis://" -}}
{{- end -}}
{{- .Values.redis.external.url -}}
{{- else -}}
{{- printf "redis://%s:%d" (include "fleetsweep.redis.fullname" .) (int .Values.redis.port) -}}
{{- end -}}
{{- end -}}

{{- define "fleetsweep.redis.secretName" -}}
{{- if .Values.redis.auth.existingSecret -}}
{{- .Values.redis.auth.existingSecret -}}
{{- else -}}
{{- include "fleetsweep.componentName" (list . "redis-auth") -}}
{{- end -}}
{{- end -}}

{{/* The env entry that hands clients the Redis password (nothing when auth is off). */}}
{{- define "fleetsweep.redis.passwordEnv" -}}
{{- if .Values.redis.auth.enabled -}}
- name: FLEETSWEEP_REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "fleetsweep.redis.secretName" . }}
      key: {{ .Values.redis.auth.secretKey }}
{{- end -}}
{{- end -}}

{{/* ---- CurveZMQ ---- */}}

{{/* "true" when the chart itself creates the key Secrets (all inline keys given). */}}
{{- define "fleetsweep.curve.create" -}}
{{- $c := .Values.security.curve -}}
{{- if not .Values.security.insecure -}}
{{- $given := 0 -}}
{{- if $c.coordinatorSecretKey }}{{ $given = add1 $given }}{{ end -}}
{{- if $c.coordinatorPublicKey }}{{ $given = add1 $given }}{{ end -}}
{{- if $c.workerSecretKey }}{{ $given = add1 $given }}{{ end -}}
{{- if $c.authorizedWorkerKeys }}{{ $given = add1 $given }}{{ end -}}
{{- if eq $given 4 -}}
true
{{- else if ne $given 0 -}}
{{- fail "security.curve: give all of coordinatorSecretKey, coordinatorPublicKey, workerSecretKey and authorizedWorkerKeys, or none (and bring existing Secrets)" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "fleetsweep.curve.coordinatorSecretName" -}}
{{- default (include "fleetsweep.componentName" (list . "curve-coordinator")) .Values.security.curve.existingCoordinatorSecret -}}
{{- end -}}

{{- define "fleetsweep.curve.workerSecretName" -}}
{{- default (include "fleetsweep.componentName" (list . "curve-worker")) .Values.security.curve.existingWorkerSecret -}}
{{- end -}}

{{/* A Z85 key is 40 characters of the Z85 alphabet. Call with (list "value.path" value). */}}
{{- define "fleetsweep.curve.checkKey" -}}
{{- $what := index . 0 -}}
{{- $key := index . 1 -}}
{{- if not (regexMatch "^[0-9a-zA-Z.:+=^!/*?&<>()\\[\\]{}@%$#-]{40}$" $key) -}}
{{- fail (printf "%s must be a 40-character Z85 key (as written by `fleetsweep keygen`)" $what) -}}
{{- end -}}
{{- end -}}

{{/* Probe body: GET /metrics on the named port. Call with (dict "probe" .Values.x.livenessProbe). */}}
{{- define "fleetsweep.httpProbe" -}}
httpGet:
  path: /metrics
  port: metrics
initialDelaySeconds: {{ .probe.initialDelaySeconds }}
periodSeconds: {{ .probe.periodSeconds }}
timeoutSeconds: {{ .probe.timeoutSeconds }}
failureThreshold: {{ .probe.failureThreshold }}
{{- end -}}

{{/* Validations that concern several templates; included once from NOTES-independent places. */}}
{{- define "fleetsweep.validate" -}}
{{- if lt (int .Values.worker.gpusPerNode) 1 -}}
{{- fail "worker.gpusPerNode must be at least 1 (it is the GPU request and --slots)" -}}
{{- end -}}
{{- if not (has .Values.worker.kind (list "DaemonSet" "StatefulSet")) -}}
{{- fail "worker.kind must be DaemonSet or StatefulSet" -}}
{{- end -}}
{{- if not .Values.worker.gpuResourceName -}}
{{- fail "worker.gpuResourceName must be set (e.g. iluvatar.com/gpu)" -}}
{{- end -}}
{{- if not (regexMatch "^[A-Za-z_][A-Za-z0-9_]*$" .Values.worker.deviceEnv) -}}
{{- fail "worker.deviceEnv must be an environment variable name" -}}
{{- end -}}
{{- if not (has .Values.redis.appendfsync (list "always" "everysec" "no")) -}}
{{- fail "redis.appendfsync must be always, everysec or no" -}}
{{- end -}}
{{- if regexMatch "[\"\\\\[:space:]]" (toString .Values.redis.auth.password) -}}
{{- fail "redis.auth.password must not hold quotes, backslashes or white space (it goes into redis.conf)" -}}
{{- end -}}
{{- if and (not .Values.specConfigMap.existingName) (not .Values.spec) -}}
{{- fail "set spec (inline sweep spec) or specConfigMap.existingName" -}}
{{- end -}}
{{- end -}}
