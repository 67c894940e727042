// Validates the objects rendered from helm/fleetsweep (tests/chart/render writes them).
// Usage: node validate.js CASE:DIR:RELEASE:NAMESPACE:DASHBOARDS ...
//   DIR holds objects.json and values.json; DASHBOARDS is how many dashboard JSON files the
//   rendered chart copy held. Exits 0 when every object passes the Kubernetes schema (strict:
//   unknown fields fail) and every chart fact holds, 1 otherwise; prints one line per case.
'use strict';

const fs = require('fs');
const path = require('path');
const {validateObject, selfTest} = require('./schema.js');
const {checkChart} = require('./assertions.js');

function main(argv) {
  let failed = 0;
  const broken = selfTest();
  if (broken.length) {
    console.log(`FAIL validator self-test: ${broken.join('; ')}`);
    return 1;
  }
  console.log('ok   validator self-test (typos, wrong types and missing names are caught)');
  for (const arg of argv) {
    const [name, dir, release, namespace, dashboards] = arg.split(':');
    const objects = JSON.parse(fs.readFileSync(path.join(dir, 'objects.json'), 'utf8'));
    const values = JSON.parse(fs.readFileSync(path.join(dir, 'values.json'), 'utf8'));
    const problems = [];
    for (const {template, object} of objects) {
      for (const p of validateObject(object)) {
        problems.push(`${path.basename(template)} ${object.kind}/${object.metadata && object.metadata.name}: ${p}`);
      }
    }
    const facts = checkChart(objects, values, {release, namespace, dashboards: Number(dashboards)});
    problems.push(...facts);
    const kinds = {};
    for (const {object} of objects) kinds[object.kind] = (kinds[object.kind] || 0) + 1;
    const summary = Object.entries(kinds).map(([k, n]) => `${n} ${k}`).join(', ');
    if (problems.length) {
      failed++;
      console.log(`FAIL ${name}: ${problems.length} problem(s) in ${objects.length} objects`);
      for (const p of problems) console.log(`       - ${p}`);
    } else {
      console.log(`ok   ${name}: ${objects.length} objects valid (${summary})`);
    }
  }
  return failed ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
