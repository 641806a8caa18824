/* global process, setTimeout, URL, console */
// Runs the installed custom apiserver (dist/main.js of the consumer project in the current directory)
// and checks it as a client would: over HTTPS with its CA, with and without a token, and with kubectl.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import assert from 'node:assert/strict';

const dataDir = 'data';
mkdirSync(dataDir, { recursive: true });
writeFileSync(`${dataDir}/tokens.csv`, 'secret-token,admin,1,"system:masters"\n');

const child = spawn(process.execPath, ['dist/main.js'], {
  env: { ...process.env, DATA_DIR: dataDir, PORT: '0' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    const match = /serving on (https:\/\/\S+)/.exec(out);
    if (match) resolve(match[1]);
  });
  child.once('exit', (code) => reject(new Error(`the server exited with ${code} before serving:\n${out}`)));
  setTimeout(() => reject(new Error(`the server did not start:\n${out}`)), 30_000).unref();
});
const ca = readFileSync(`${dataDir}/ca.crt`);

function call(method, path, { body, token = 'secret-token' } = {}) {
  return new Promise((resolve, reject) => {
    const headers = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const req = request(new URL(path, url), { method, headers, ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: text ? JSON.parse(text) : {} }));
    });
    req.once('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const widgets = '/apis/example.com/v1/namespaces/default/widgets';
try {
  const anonymous = await call('GET', widgets, { token: '' });
  assert.equal(anonymous.status, 401, 'a request without a token is refused');
  assert.equal(anonymous.body.reason, 'Unauthorized');

  const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'first' }, spec: { size: 3 } };
  const created = await call('POST', widgets, { body: widget });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.spec.color, 'blue', 'the schema default is applied');
  assert.ok(created.body.metadata.uid);

  const read = await call('GET', `${widgets}/first`);
  assert.equal(read.status, 200);
  assert.deepEqual(read.body.spec, { size: 3, color: 'blue' });
  assert.equal(read.body.metadata.uid, created.body.metadata.uid);

  const invalid = await call('POST', widgets, { body: { ...widget, metadata: { name: 'bad' }, spec: { size: -1 } } });
  assert.equal(invalid.status, 422, JSON.stringify(invalid.body));
  assert.equal(invalid.body.reason, 'Invalid');
  assert.equal((await call('GET', `${widgets}/bad`)).status, 404, 'nothing of the refused create was stored');

  // @kapi/admission: a ValidatingAdmissionPolicy stored in this server refuses large widgets.
  const admissionregistration = '/apis/admissionregistration.k8s.io/v1';
  const policy = await call('POST', `${admissionregistration}/validatingadmissionpolicies`, {
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'small-widgets.example.com' },
      spec: {
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }] },
        validations: [{ expression: 'object.spec.size <= 10', message: 'widgets are at most 10 big' }],
      },
    },
  });
  assert.equal(policy.status, 201, JSON.stringify(policy.body));
  const binding = await call('POST', `${admissionregistration}/validatingadmissionpolicybindings`, {
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'small-widgets' },
      spec: { policyName: 'small-widgets.example.com', validationActions: ['Deny'] },
    },
  });
  assert.equal(binding.status, 201, JSON.stringify(binding.body));
  let big;
  for (let attempt = 0; attempt < 50; attempt++) {
    big = await call('POST', `${widgets}?dryRun=All`, { body: { ...widget, metadata: { name: 'big' }, spec: { size: 20 } } });
    if (big.status !== 201) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(big.status, 422, JSON.stringify(big.body));
  assert.equal(
    big.body.message,
    "ValidatingAdmissionPolicy 'small-widgets.example.com' with binding 'small-widgets' denied request: widgets are at most 10 big",
  );
  assert.equal((await call('POST', widgets, { body: { ...widget, metadata: { name: 'small' }, spec: { size: 5 } } })).status, 201);

  if (existsSync('/usr/bin/kubectl')) {
    const flags = [`--server=${url}`, `--certificate-authority=${dataDir}/ca.crt`, '--token=secret-token'];
    const names = execFileSync('/usr/bin/kubectl', [...flags, 'get', 'widgets', '-n', 'default', '-o', 'name'], {
      encoding: 'utf8',
    });
    assert.equal(names.trim(), 'widget.example.com/first\nwidget.example.com/small');
  }
  console.log(`consumer apiserver OK at ${url}`);
} finally {
  child.kill('SIGTERM');
}
