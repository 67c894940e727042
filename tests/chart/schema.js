// Kubernetes schema validation of rendered objects, with the models of the npm package
// kubernetes-models (and @kubernetes-models/prometheus-operator for ServiceMonitor).
//
// validateObject(obj) returns a list of problems ([] when valid): schema errors from the model's
// validate(), plus fields the schema does not know (what `kubectl apply --validate=strict`
// refuses). The models' schemas allow unknown fields, so unknown ones are found by watching
// which properties the compiled validator reads: a property of a plain object that validation
// never looked at is not in the schema (maps such as labels are iterated, so their keys count
// as read).
'use strict';

const GROUP_PATHS = {
  'v1': 'kubernetes-models/v1',
  'apps/v1': 'kubernetes-models/apps/v1',
  'batch/v1': 'kubernetes-models/batch/v1',
  'policy/v1': 'kubernetes-models/policy/v1',
  'networking.k8s.io/v1': 'kubernetes-models/networking.k8s.io/v1',
  'rbac.authorization.k8s.io/v1': 'kubernetes-models/rbac.authorization.k8s.io/v1',
  'monitoring.coreos.com/v1': '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
};

function modelClass(apiVersion, kind) {
  const base = GROUP_PATHS[apiVersion];
  if (!base || !/^[A-Z][A-Za-z]+$/.test(kind || '')) return null;
  try {
    return require(`${base}/${kind}`)[kind] || null;
  } catch (e) {
    return null;
  }
}

// Wraps `root` so that every property read on it (deeply) is recorded in `seen`.
function watch(root, seen) {
  const proxies = new Map();
  const wrap = (o) => {
    if (o === null || typeof o !== 'object') return o;
    let entry = seen.get(o);
    if (!entry) {
      entry = new Set();
      seen.set(o, entry);
    }
    if (!proxies.has(o)) {
      proxies.set(o, new Proxy(o, {
        get(target, key, receiver) {
          if (typeof key === 'string') entry.add(key);
          return wrap(Reflect.get(target, key, receiver));
        },
      }));
    }
    return proxies.get(o);
  };
  return wrap(root);
}

function pathOf(parents, o) {
  const parts = [];
  for (let cur = o; parents.has(cur); cur = parents.get(cur).parent) {
    parts.unshift(parents.get(cur).key);
  }
  return parts.join('.');
}

function validateObject(obj) {
  const Model = modelClass(obj.apiVersion, obj.kind);
  if (!Model) return [`no schema for ${obj.apiVersion}/${obj.kind}`];
  const model = new Model(obj);
  try {
    model.validate();
  } catch (e) {
    return [`schema: ${e.message}`];
  }
  // Second pass on the raw data, watched, for unknown fields.
  const seen = new Map();
  const watched = watch(obj, seen);
  try {
    model.validate.call(watched);
  } catch (e) {
    return [`schema (watched pass): ${e.message}`];
  }
  const parents = new Map();
  const walk = (o) => {
    for (const [k, v] of Object.entries(o)) {
      if (v && typeof v === 'object') {
        parents.set(v, {parent: o, key: k});
        walk(v);
      }
    }
  };
  walk(obj);
  const problems = [];
  for (const [o, keys] of seen) {
    if (Array.isArray(o)) continue;
    for (const k of Object.keys(o)) {
      if (!keys.has(k)) {
        const where = pathOf(parents, o);
        problems.push(`unknown field ${where ? where + '.' : ''}${k}`);
      }
    }
  }
  // An object the validator never entered at all (nested under an unknown field) is reported by
  // its parent's unknown key already.
  return problems;
}

// Checks that the checker itself catches what it must; returns problems with the checker.
function selfTest() {
  const problems = [];
  const good = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: {name: 'x', labels: {a: 'b'}},
    spec: {selector: {matchLabels: {a: 'b'}}, template: {metadata: {labels: {a: 'b'}},
      spec: {containers: [{name: 'c', image: 'i', resources: {limits: {'example.com/gpu': 2}},
        readinessProbe: {httpGet: {path: '/metrics', port: 'metrics'}}}]}}},
  };
  const clone = () => JSON.parse(JSON.stringify(good));
  if (validateObject(good).length) problems.push(`a valid Deployment was refused: ${validateObject(good)}`);
  const typo = clone();
  typo.spec.template.spec.containers[0].readinesProbe = typo.spec.template.spec.containers[0].readinessProbe;
  if (!validateObject(typo).some((p) => p.includes('readinesProbe'))) problems.push('a misspelt field passed');
  const badType = clone();
  badType.spec.template.spec.containers[0].ports = [{containerPort: '80'}];
  if (!validateObject(badType).length) problems.push('a string containerPort passed');
  const noImage = clone();
  delete noImage.spec.template.spec.containers[0].name;
  if (!validateObject(noImage).length) problems.push('a container without a name passed');
  const sm = {apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor', metadata: {name: 's'},
    spec: {selector: {}, endpoints: [{port: 'metrics', intervall: '15s'}]}};
  if (!validateObject(sm).some((p) => p.includes('intervall'))) problems.push('a misspelt ServiceMonitor field passed');
  return problems;
}

module.exports = {validateObject, selfTest};
