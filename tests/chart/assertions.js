// Chart-specific facts about one rendered value set: what the fleetsweep binaries and the cluster
// need that a schema cannot say (flags match values, references resolve, security settings hold).
//
// checkChart(objects, values, ctx) returns a list of failed facts ([] when all hold).
// ctx: {release, namespace, dashboards (how many dashboard files the chart copy holds)}.
'use strict';

const WORKLOADS = ['Deployment', 'DaemonSet', 'StatefulSet'];

function argValue(args, flag) {
  const i = args.indexOf(flag);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : undefined;
}
function argValues(args, flag) {
  const out = [];
  args.forEach((a, i) => { if (a === flag && i + 1 < args.length) out.push(args[i + 1]); });
  return out;
}
const isSubset = (small, big) => Object.entries(small || {}).every(([k, v]) => (big || {})[k] === v);
const eq = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function checkChart(objects, values, ctx) {
  const fails = [];
  const fail = (msg) => fails.push(msg);
  const expect = (cond, msg) => { if (!cond) fail(msg); };
  const all = objects.map((o) => o.object);
  const byKind = (kind) => all.filter((o) => o.kind === kind);
  const find = (kind, name) => all.find((o) => o.kind === kind && o.metadata.name === name);
  const component = (o, c) => ((o.metadata || {}).labels || {})['app.kubernetes.io/component'] === c;
  const fullname = values.fullnameOverride || `${ctx.release}-fleetsweep`;
  const secure = !values.security.insecure;
  const curve = values.security.curve;
  const curveCreated = secure && !!curve.coordinatorSecretKey;
  const bundledRedis = !values.redis.external.url;

  // ---- every object ----
  const keys = new Set();
  for (const o of all) {
    const id = `${o.kind}/${o.metadata.name}`;
    const key = `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;
    expect(!keys.has(key), `${id}: rendered twice`);
    keys.add(key);
    expect(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(o.metadata.name) && o.metadata.name.length <= 63,
        `${id}: name is not a DNS-1123 label of at most 63 characters`);
    for (const [k, v] of Object.entries(o.metadata.labels || {})) {
      expect(typeof v === 'string' && v.length <= 63 && /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(v),
          `${id}: label ${k}=${v} is not a valid label value`);
    }
    const ns = o.kind === 'ServiceMonitor' && values.serviceMonitor.namespace ? values.serviceMonitor.namespace : ctx.namespace;
    expect(o.metadata.namespace === ns || (o.kind === 'ConfigMap' && values.dashboards.namespace),
        `${id}: namespace ${o.metadata.namespace}, expected ${ns}`);
    expect(o.metadata.labels && o.metadata.labels['app.kubernetes.io/instance'] === ctx.release,
        `${id}: no app.kubernetes.io/instance=${ctx.release} label`);
  }

  // Names of Secrets/ConfigMaps that values say exist outside the chart.
  const externalSecrets = new Set([values.redis.auth.existingSecret].filter(Boolean));
  if (secure && !curveCreated) {
    externalSecrets.add(curve.existingCoordinatorSecret || `${fullname}-curve-coordinator`);
    externalSecrets.add(curve.existingWorkerSecret || `${fullname}-curve-worker`);
  }
  const externalConfigMaps = new Set([values.specConfigMap.existingName,
    values.worker.platformSurface.existingConfigMap].filter(Boolean));
  const secretKeys = (name) => {
    const s = find('Secret', name);
    return s ? Object.keys(Object.assign({}, s.data, s.stringData)) : null;
  };

  // ---- workloads: references, probes, security ----
  const workloads = all.filter((o) => WORKLOADS.includes(o.kind));
  for (const w of workloads) {
    const id = `${w.kind}/${w.metadata.name}`;
    const tpl = w.spec.template;
    const pod = tpl.spec;
    expect(isSubset(w.spec.selector.matchLabels, tpl.metadata.labels), `${id}: selector does not match the pod labels`);
    const psc = pod.securityContext || {};
    const volumes = new Map((pod.volumes || []).map((v) => [v.name, v]));
    const claims = new Set(((w.spec.volumeClaimTemplates) || []).map((c) => c.metadata.name));
    for (const c of pod.containers) {
      const cid = `${id} container ${c.name}`;
      const csc = c.securityContext || {};
      expect(psc.runAsNonRoot === true || csc.runAsNonRoot === true, `${cid}: runAsNonRoot is not true`);
      expect((csc.runAsUser ?? psc.runAsUser) !== 0, `${cid}: runs as uid 0`);
      expect(csc.allowPrivilegeEscalation === false, `${cid}: allowPrivilegeEscalation is not false`);
      expect(csc.readOnlyRootFilesystem === true, `${cid}: readOnlyRootFilesystem is not true`);
      expect(c.resources && c.resources.requests && c.resources.limits, `${cid}: no resource requests and limits`);
      expect(c.livenessProbe && c.readinessProbe, `${cid}: liveness and readiness probes missing`);
      for (const m of c.volumeMounts || []) {
        expect(volumes.has(m.name) || claims.has(m.name), `${cid}: mounts undeclared volume ${m.name}`);
      }
      for (const e of c.env || []) {
        const ref = e.valueFrom && e.valueFrom.secretKeyRef;
        if (!ref) continue;
        const ks = secretKeys(ref.name);
        if (ks) expect(ks.includes(ref.key), `${cid}: env ${e.name} wants key ${ref.key} of Secret ${ref.name}, which lacks it`);
        else expect(externalSecrets.has(ref.name), `${cid}: env ${e.name} refers to Secret ${ref.name}, neither rendered nor named in values`);
      }
    }
    for (const v of volumes.values()) {
      if (v.secret) {
        expect(find('Secret', v.secret.secretName) || externalSecrets.has(v.secret.secretName),
            `${id}: volume ${v.name} refers to Secret ${v.secret.secretName}, neither rendered nor named in values`);
      }
      if (v.configMap) {
        const cm = find('ConfigMap', v.configMap.name);
        expect(cm || externalConfigMaps.has(v.configMap.name),
            `${id}: volume ${v.name} refers to ConfigMap ${v.configMap.name}, neither rendered nor named in values`);
        for (const item of (cm && v.configMap.items) || []) {
          expect(item.key in (cm.data || {}), `${id}: volume ${v.name} wants key ${item.key} of ConfigMap ${v.configMap.name}`);
        }
      }
    }
    if (w.kind === 'StatefulSet') {
      const svc = find('Service', w.spec.serviceName);
      expect(svc && svc.spec.clusterIP === 'None', `${id}: serviceName ${w.spec.serviceName} is not a rendered headless Service`);
    }
  }

  // fleetsweep containers: probes GET /metrics on the port --metrics-port names.
  const fsContainers = [];
  for (const w of workloads.filter((w) => component(w, 'coordinator') || component(w, 'worker'))) {
    for (const c of w.spec.template.spec.containers) {
      fsContainers.push({w, c});
      const cid = `${w.kind}/${w.metadata.name} container ${c.name}`;
      const port = (c.ports || []).find((p) => p.name === 'metrics');
      expect(port && String(port.containerPort) === argValue(c.args, '--metrics-port'),
          `${cid}: the port named metrics does not match --metrics-port`);
      for (const probe of [c.livenessProbe, c.readinessProbe]) {
        expect(probe && probe.httpGet && probe.httpGet.path === '/metrics' && probe.httpGet.port === 'metrics',
            `${cid}: a probe is not httpGet /metrics on the metrics port`);
      }
      const mountFor = (file) => (c.volumeMounts || []).find((m) => file.startsWith(m.mountPath + '/'));
      if (secure) {
        expect(!c.args.includes('--insecure'), `${cid}: --insecure although security.insecure is false`);
        const files = component(w, 'coordinator')
          ? [argValue(c.args, '--curve-secret-key'), argValue(c.args, '--authorized-keys')]
          : [argValue(c.args, '--curve-server-key'), argValue(c.args, '--curve-secret-key')];
        for (const f of files) {
          const m = f && mountFor(f);
          expect(m, `${cid}: CurveZMQ key file ${f} is not on a mounted volume`);
          if (!m) continue;
          const vol = w.spec.template.spec.volumes.find((v) => v.name === m.name);
          expect(vol && vol.secret, `${cid}: ${f} is not mounted from a Secret`);
          const ks = vol && vol.secret && secretKeys(vol.secret.secretName);
          if (ks) expect(ks.includes(f.slice(m.mountPath.length + 1)), `${cid}: Secret ${vol.secret.secretName} lacks ${f}`);
        }
      } else {
        expect(c.args.includes('--insecure'), `${cid}: no --insecure although security.insecure is true`);
        expect(!c.args.some((a) => a.startsWith('--curve') || a === '--authorized-keys'), `${cid}: curve flags in insecure mode`);
      }
    }
  }

  // ---- coordinator ----
  const coords = workloads.filter((w) => component(w, 'coordinator'));
  expect(coords.length === 1 && coords[0].kind === 'Deployment' && coords[0].spec.replicas === 1,
      'exactly one coordinator Deployment with one replica');
  const coordSvc = byKind('Service').find((s) => component(s, 'coordinator'));
  expect(coordSvc, 'no coordinator Service');
  if (coords.length === 1 && coordSvc) {
    const pod = coords[0].spec.template.spec;
    const c = pod.containers[0];
    expect(isSubset(coordSvc.spec.selector, coords[0].spec.template.metadata.labels), 'coordinator Service does not select the coordinator pod');
    const zmq = coordSvc.spec.ports.find((p) => p.name === 'zmq');
    expect(zmq && zmq.port === values.coordinator.zmqPort, `coordinator Service: no zmq port ${values.coordinator.zmqPort}`);
    expect(coordSvc.spec.ports.some((p) => p.name === 'metrics' && p.port === values.coordinator.metricsPort), 'coordinator Service: no metrics port');
    expect(argValue(c.args, '--bind') === `tcp://*:${values.coordinator.zmqPort}`, 'coordinator --bind does not use the ZeroMQ port');
    expect(c.ports.some((p) => p.name === 'zmq' && p.containerPort === values.coordinator.zmqPort), 'coordinator: no zmq container port');
    expect(argValue(c.args, '--metrics-port') === String(values.coordinator.metricsPort), 'coordinator --metrics-port differs from values');
    expect(argValue(c.args, '--lease-timeout') === (values.coordinator.leaseTimeoutSeconds ? String(values.coordinator.leaseTimeoutSeconds) : undefined),
        'coordinator --lease-timeout differs from values');
    expect(argValue(c.args, '--heartbeat') === String(values.coordinator.heartbeatSeconds), 'coordinator --heartbeat differs from values');
    expect(c.args.includes('--exit-when-finished') === !!values.coordinator.exitWhenDone, 'coordinator --exit-when-finished differs from values');
    const spec = argValue(c.args, '--spec');
    const specMount = c.volumeMounts.find((m) => spec && spec.startsWith(m.mountPath + '/'));
    expect(specMount, 'coordinator --spec is not on a mounted volume');
    if (specMount) {
      const vol = pod.volumes.find((v) => v.name === specMount.name);
      const key = spec.slice(specMount.mountPath.length + 1);
      expect(key === values.specConfigMap.key, `coordinator --spec file ${key} is not specConfigMap.key`);
      if (values.specConfigMap.existingName) {
        expect(vol.configMap.name === values.specConfigMap.existingName, 'coordinator does not mount the existing spec ConfigMap');
      } else {
        const cm = find('ConfigMap', vol.configMap.name);
        expect(cm && typeof cm.data[key] === 'string' && cm.data[key].includes('name:'), 'spec ConfigMap lacks the spec');
        expect(cm && !cm.data[key].includes('{{'), 'spec ConfigMap holds unrendered template text');
      }
    }
    // Redis: the URL, never the password, on the command line.
    const url = argValue(c.args, '--redis');
    if (bundledRedis) {
      const rs = byKind('Service').find((s) => component(s, 'redis'));
      expect(rs && url === `redis://${rs.metadata.name}:${rs.spec.ports[0].port}`, `coordinator --redis ${url} is not the bundled Redis Service`);
    } else {
      expect(url === values.redis.external.url, `coordinator --redis ${url} is not redis.external.url`);
    }
  }

  // ---- workers ----
  const workers = workloads.filter((w) => component(w, 'worker'));
  const wv = values.worker;
  expect(workers.length === 1 && workers[0].kind === wv.kind, `expected one worker ${wv.kind}, got ${workers.map((w) => w.kind)}`);
  if (workers.length === 1) {
    const w = workers[0];
    const pod = w.spec.template.spec;
    const c = pod.containers[0];
    const gpus = wv.gpusPerNode;
    expect(c.resources.limits[wv.gpuResourceName] === gpus, `worker: limits.${wv.gpuResourceName} is not ${gpus}`);
    expect(c.resources.requests[wv.gpuResourceName] === gpus, `worker: requests.${wv.gpuResourceName} is not ${gpus}`);
    expect(argValue(c.args, '--slots') === String(gpus), `worker: --slots ${argValue(c.args, '--slots')} is not gpusPerNode ${gpus}`);
    expect(argValue(c.args, '--device-env') === wv.deviceEnv, `worker: --device-env is not ${wv.deviceEnv}`);
    expect(argValue(c.args, '--devices') === (wv.devices || undefined), 'worker: --devices differs from values');
    expect(eq(argValues(c.args, '--allow-exec'), wv.allowExec || []), 'worker: --allow-exec differs from values');
    expect(c.args.includes('--allow-any-exec') === Boolean(wv.allowAnyExec), 'worker: --allow-any-exec differs from values');
    expect(argValues(c.args, '--allow-exec').length > 0 || c.args.includes('--allow-any-exec'),
      'worker: neither --allow-exec nor --allow-any-exec (a cluster worker refuses to start)');
    if (w.kind === 'StatefulSet') expect(w.spec.replicas === wv.replicas, 'worker StatefulSet: replicas differ from values');
    expect(eq(pod.nodeSelector || {}, wv.nodeSelector || {}), 'worker: nodeSelector differs from values');
    expect(eq(pod.tolerations || [], wv.tolerations || []), 'worker: tolerations differ from values');
    expect(eq(pod.affinity || {}, wv.affinity || {}), 'worker: affinity differs from values');
    const node = argValue(c.args, '--node');
    const nodeEnv = node && /^\$\((\w+)\)$/.exec(node);
    const envDef = nodeEnv && c.env.find((e) => e.name === nodeEnv[1]);
    expect(envDef && envDef.valueFrom.fieldRef.fieldPath === 'spec.nodeName', 'worker: --node is not the node name');
    const coordSvcName = coordSvc && coordSvc.metadata.name;
    expect(argValue(c.args, '--coordinator') === `tcp://${coordSvcName}:${values.coordinator.zmqPort}`,
        'worker: --coordinator is not the coordinator Service ZeroMQ port');
    expect(c.args.includes('--redis') === !!wv.useRedis, 'worker: --redis differs from worker.useRedis');
    const surface = argValue(c.args, '--platform-surface');
    expect(!!surface === !!wv.platformSurface.enabled, 'worker: --platform-surface differs from values');
    if (surface) expect(c.volumeMounts.some((m) => surface.startsWith(m.mountPath + '/')), 'worker: platform surface not mounted');
    const svc = byKind('Service').find((s) => component(s, 'worker'));
    expect(svc && isSubset(svc.spec.selector, w.spec.template.metadata.labels), 'no worker Service selecting the worker pods');
  }

  // ---- Redis ----
  const redisSts = byKind('StatefulSet').filter((s) => component(s, 'redis'));
  if (bundledRedis) {
    expect(redisSts.length === 1, 'bundled Redis: no Redis StatefulSet');
    const conf = all.find((o) => o.kind === 'ConfigMap' && component(o, 'redis'));
    const text = conf && conf.data['redis.conf'];
    expect(text && /^appendonly yes$/m.test(text), 'bundled Redis: redis.conf lacks "appendonly yes"');
    expect(text && new RegExp(`^appendfsync ${values.redis.appendfsync}$`, 'm').test(text), 'bundled Redis: appendfsync differs from values');
    expect(text && /^dir \/data$/m.test(text), 'bundled Redis: dir is not /data');
    expect(text && !/requirepass/.test(text.replace(/^#.*$/mg, '')), 'bundled Redis: requirepass written into the ConfigMap');
    if (redisSts.length === 1) {
      const sts = redisSts[0];
      const vct = (sts.spec.volumeClaimTemplates || [])[0];
      expect(vct && vct.spec.resources.requests.storage === values.redis.persistence.size, 'bundled Redis: no PVC of persistence.size');
      expect(vct && (vct.spec.storageClassName || '') === values.redis.persistence.storageClass, 'bundled Redis: storageClassName differs');
      const rc = sts.spec.template.spec.containers[0];
      expect(vct && rc.volumeMounts.some((m) => m.name === vct.metadata.name && m.mountPath === '/data'), 'bundled Redis: the PVC is not at /data');
      const script = (rc.args || []).join('\n');
      if (values.redis.auth.enabled) {
        expect(/requirepass/.test(script) && /\$REDIS_PASSWORD/.test(script) && rc.env.some((e) => e.name === 'REDIS_PASSWORD' && e.valueFrom.secretKeyRef),
            'bundled Redis: requirepass is not set from the Secret');
      } else {
        expect(!/requirepass/.test(script), 'bundled Redis: requirepass although auth is off');
      }
    }
  } else {
    expect(redisSts.length === 0 && !byKind('Service').some((s) => component(s, 'redis')), 'external Redis: a Redis StatefulSet/Service is still rendered');
  }
  // The password reaches clients through FLEETSWEEP_REDIS_PASSWORD, and never through args.
  for (const {w, c} of fsContainers) {
    const cid = `${w.kind}/${w.metadata.name}`;
    const usesRedis = c.args.includes('--redis');
    const pw = (c.env || []).find((e) => e.name === 'FLEETSWEEP_REDIS_PASSWORD');
    expect(!!pw === (usesRedis && values.redis.auth.enabled), `${cid}: FLEETSWEEP_REDIS_PASSWORD presence is wrong`);
    expect(!(argValue(c.args, '--redis') || '').includes('@'), `${cid}: credentials in the --redis URL`);
  }
  const pwSecret = find('Secret', `${fullname}-redis-auth`);
  if (pwSecret) {
    const pw = Buffer.from(pwSecret.data[values.redis.auth.secretKey], 'base64').toString();
    expect(pw.length >= 16 || pw === values.redis.auth.password, 'generated Redis password is too short');
    const text = JSON.stringify(workloads);
    expect(!text.includes(pw), 'the Redis password appears in a workload spec');
  }

  // ---- ServiceMonitor ----
  const sms = byKind('ServiceMonitor');
  expect(sms.length === (values.serviceMonitor.enabled ? 1 : 0), `ServiceMonitor count ${sms.length} does not follow serviceMonitor.enabled`);
  for (const sm of sms) {
    const sel = sm.spec.selector;
    const matches = (s) => isSubset(sel.matchLabels, s.metadata.labels) &&
        (sel.matchExpressions || []).every((e) => e.operator === 'In' && e.values.includes(s.metadata.labels[e.key]));
    const selected = byKind('Service').filter(matches);
    const comps = selected.map((s) => s.metadata.labels['app.kubernetes.io/component']).sort();
    expect(eq(comps, ['coordinator', 'worker']), `ServiceMonitor selects ${comps}, expected coordinator and worker`);
    for (const ep of sm.spec.endpoints) {
      expect(selected.every((s) => s.spec.ports.some((p) => p.name === ep.port)), `ServiceMonitor endpoint port ${ep.port} missing on a selected Service`);
    }
    expect(isSubset(values.serviceMonitor.labels, sm.metadata.labels), 'ServiceMonitor lacks serviceMonitor.labels');
    expect(eq(sm.spec.namespaceSelector.matchNames, [ctx.namespace]), 'ServiceMonitor does not watch the release namespace');
  }

  // ---- dashboards ----
  const dash = byKind('ConfigMap').filter((c) => component(c, undefined) && c.metadata.name.endsWith('-dashboards'));
  expect(dash.length === (ctx.dashboards > 0 && values.dashboards.enabled ? 1 : 0),
      `dashboards ConfigMap count ${dash.length}, chart copy holds ${ctx.dashboards} dashboards`);
  for (const d of dash) {
    expect(d.metadata.labels[values.dashboards.label] === values.dashboards.labelValue, 'dashboards ConfigMap lacks the sidecar label');
    expect(Object.keys(d.data).length === ctx.dashboards, 'dashboards ConfigMap does not hold every dashboard');
    for (const [k, v] of Object.entries(d.data)) {
      try { JSON.parse(v); } catch (e) { fail(`dashboard ${k} is not valid JSON: ${e.message}`); }
    }
  }
  return fails;
}

module.exports = {checkChart};
