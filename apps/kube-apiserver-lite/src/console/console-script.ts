/**
 * The console's browser script (plain ES2020, no dependencies): lists and watches the objects it shows
 * with the page's own credentials, re-renders on every event, and polls `/metrics` for the watch caches.
 * Written without backticks or template placeholders so it can live in this string.
 */
export const CONSOLE_SCRIPT = String.raw`'use strict';
const sources = {
  leases: { path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', items: new Map(), state: 'loading' },
  storageversions: { path: '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions', items: new Map(), state: 'loading' },
  votes: { path: '/apis/kube-apiserver.internal.k8s.io/v1alpha1/storageversions', items: new Map(), state: 'loading' },
  migrations: { path: '/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations', items: new Map(), state: 'loading' },
};
const metrics = { state: 'loading', text: '' };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== undefined && value !== null && value !== false) element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

function table(headers, rows) {
  return h('table', {}, h('thead', {}, h('tr', {}, headers.map((header) => h('th', {}, header)))), h('tbody', {}, rows));
}

function unavailable(state) {
  if (state === 'forbidden') return h('p', { class: 'warn', 'data-state': 'forbidden' }, 'Forbidden: your user may not list these.');
  if (state === 'absent') return h('p', { class: 'note', 'data-state': 'absent' }, 'Not served by this server.');
  if (state === 'loading') return h('p', { class: 'note', 'data-state': 'loading' }, 'Loading…');
  return undefined;
}

function seconds(ms) {
  if (!Number.isFinite(ms)) return '?';
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? s + 's' : s < 7200 ? Math.round(s / 60) + 'm' : Math.round(s / 3600) + 'h';
}

const keyOf = (object) => (object.metadata.namespace ? object.metadata.namespace + '/' : '') + object.metadata.name;

/** List, then watch from the list's resourceVersion; resume after a clean end, relist after an error or 410. */
async function listWatch(source) {
  for (;;) {
    try {
      const list = await fetch(source.path, { headers: { Accept: 'application/json' } });
      if (list.status === 403 || list.status === 401) { source.state = 'forbidden'; render(); await sleep(5000); continue; }
      if (list.status === 404) { source.state = 'absent'; render(); await sleep(5000); continue; }
      if (!list.ok) throw new Error('list ' + source.path + ': ' + list.status);
      const body = await list.json();
      source.items = new Map(body.items.map((item) => [keyOf(item), item]));
      source.state = 'ok';
      render();
      let rv = body.metadata.resourceVersion;
      for (;;) {
        const ended = await watchFrom(source, rv);
        if (!ended.ok) break;
        rv = ended.rv;
      }
    } catch (error) {
      setStatus('reconnecting (' + (error && error.message ? error.message : error) + ')');
    }
    await sleep(1000);
  }
}

async function watchFrom(source, rv) {
  const url = source.path + '?watch=1&allowWatchBookmarks=true&resourceVersion=' + encodeURIComponent(rv);
  const response = await fetch(url, { headers: { Accept: 'application/json' } });
  if (!response.ok || !response.body) return { ok: false };
  setStatus('live');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { ok: true, rv };
    buffer += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (!line) continue;
      const event = JSON.parse(line);
      if (event.type === 'ERROR') { reader.cancel(); return { ok: false }; }
      rv = event.object.metadata.resourceVersion || rv;
      if (event.type === 'BOOKMARK') continue;
      if (event.type === 'DELETED') source.items.delete(keyOf(event.object));
      else source.items.set(keyOf(event.object), event.object);
      render();
    }
  }
}

async function pollMetrics() {
  for (;;) {
    try {
      const response = await fetch('/metrics');
      metrics.state = response.status === 403 || response.status === 401 ? 'forbidden' : response.ok ? 'ok' : 'absent';
      metrics.text = response.ok ? await response.text() : '';
      render();
    } catch (error) {
      metrics.state = 'loading';
    }
    await sleep(3000);
  }
}

function setStatus(text) {
  document.getElementById('status').textContent = text;
}

function renderServers() {
  const { items, state } = sources.leases;
  const leases = [...items.values()];
  const identities = leases.filter((lease) => (lease.metadata.labels || {})['apiserver.kubernetes.io/identity']);
  const gcLeader = leases.find((lease) => lease.metadata.name === 'storage-version-garbage-collector');
  const leader = gcLeader && gcLeader.spec ? gcLeader.spec.holderIdentity || '' : '';
  const now = Date.now();
  const rows = identities.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)).map((lease) => {
    const spec = lease.spec || {};
    const renewed = Date.parse(spec.renewTime || '');
    const expired = now - renewed > (spec.leaseDurationSeconds || 0) * 1000;
    const leads = leader !== '' && (leader === lease.metadata.name || leader.startsWith(lease.metadata.name + '_'));
    return h('tr', { 'data-server': lease.metadata.name, class: expired ? 'bad' : undefined },
      h('td', {}, h('code', {}, lease.metadata.name)), h('td', {}, h('code', {}, spec.holderIdentity || '')),
      h('td', {}, seconds(now - Date.parse(lease.metadata.creationTimestamp || ''))), h('td', {}, seconds(now - renewed)),
      h('td', {}, expired ? 'expired' : h('span', { class: 'ok' }, 'live')), h('td', { 'data-gc-leader': leads }, leads ? 'StorageVersion GC leader' : ''));
  });
  return unavailable(state) || table(['Server (lease)', 'Holder', 'Age', 'Renew lag', 'State', ''], rows);
}

function renderStorageVersions() {
  const { items, state } = sources.storageversions;
  const rows = [...items.values()].map((object) => {
    const entries = (object.status && object.status.storageVersions) || [];
    const condition = ((object.status && object.status.conditions) || []).find((c) => c.type === 'AllEncodingVersionsEqual');
    const encodings = new Set(entries.map((entry) => entry.encodingVersion));
    const agree = encodings.size <= 1 && (!condition || condition.status === 'True');
    return { name: object.metadata.name, agree, object, entries, condition };
  }).sort((a, b) => Number(a.agree) - Number(b.agree) || a.name.localeCompare(b.name));
  return unavailable(state) || table(['Resource', 'Common encoding version', 'AllEncodingVersionsEqual', 'Servers: encoding / decodable / served'], rows.map((row) =>
    h('tr', { 'data-resource': row.name, 'data-agreement': row.agree ? 'agree' : 'disagree', class: row.agree ? undefined : 'disagree' },
      h('td', {}, h('code', {}, row.name)),
      h('td', { 'data-common': '' }, (row.object.status && row.object.status.commonEncodingVersion) || '—'),
      h('td', {}, row.condition ? row.condition.status + (row.condition.reason ? ' (' + row.condition.reason + ')' : '') : '—'),
      h('td', {}, row.entries.map((entry) => h('div', { 'data-entry': entry.apiServerID },
        h('code', {}, entry.apiServerID), ': ', h('b', {}, entry.encodingVersion), ' / ',
        (entry.decodableVersions || []).join(', '), ' / ', (entry.servedVersions || []).join(', ')))))));
}

function renderVotes() {
  const { items, state } = sources.votes;
  if (state === 'absent') return h('p', { class: 'note' }, 'Voting mode is off (--storage-version-mode=publish).');
  const rows = [...items.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)).map((vote) => {
    const candidates = vote.candidateVersions || [];
    const agree = candidates.every((candidate) => candidate.preferredVersion === vote.selectedVersion);
    return h('tr', { 'data-vote': vote.metadata.name, 'data-agreement': agree ? 'agree' : 'disagree', class: agree ? undefined : 'disagree' },
      h('td', {}, h('code', {}, vote.metadata.name)), h('td', {}, h('b', {}, vote.selectedVersion)),
      h('td', {}, candidates.map((candidate) => h('div', {}, h('code', {}, candidate.apiServerID), ' prefers ', candidate.preferredVersion))));
  });
  return unavailable(state) || table(['Resource', 'Selected version', 'Votes'], rows);
}

function renderMigrations() {
  const { items, state } = sources.migrations;
  const rows = [...items.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)).map((migration) => {
    const status = migration.status || {};
    const conditions = (status.conditions || []).filter((c) => c.status === 'True').map((c) => c.type);
    const progress = status.progress || {};
    const done = (progress.migratedObjects || 0) + (progress.skippedObjects || 0);
    const total = progress.remainingObjects === undefined ? undefined : done + progress.remainingObjects;
    const failed = conditions.includes('Failed');
    const resource = (migration.spec && migration.spec.resource) || {};
    return h('tr', { 'data-migration': migration.metadata.name, class: failed ? 'bad' : undefined },
      h('td', {}, h('code', {}, migration.metadata.name)), h('td', {}, [resource.resource, resource.group].filter(Boolean).join('.')),
      h('td', {}, conditions.join(', ') || 'Pending', failed ? h('div', { class: 'warn' }, ((status.conditions || []).find((c) => c.type === 'Failed') || {}).message || '') : ''),
      h('td', {}, conditions.includes('Succeeded') ? h('progress', { max: 1, value: 1 }) : total ? h('progress', { max: total, value: done }) : ''),
      h('td', {}, String(progress.migratedObjects || 0) + ' migrated, ' + (progress.skippedObjects || 0) + ' skipped' +
        (progress.remainingObjects === undefined ? '' : ', ' + progress.remainingObjects + ' remaining')));
  });
  return unavailable(state) || table(['Migration', 'Resource', 'State', 'Progress', 'Objects'], rows);
}

function parseMetrics(text) {
  const byResource = new Map();
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{([^}]*)\}\s+(\S+)/.exec(line);
    if (!match) continue;
    const resource = /(?:^|,)resource="([^"]*)"/.exec(match[2]);
    if (!resource) continue;
    const group = /(?:^|,)group="([^"]*)"/.exec(match[2]);
    const key = group && group[1] ? resource[1] + '.' + group[1] : resource[1];
    const row = byResource.get(key) || {};
    row[match[1]] = (row[match[1]] || 0) + Number(match[3]);
    byResource.set(key, row);
  }
  return byResource;
}

/** Where a watch can resume from: the oldest resumable RV, the events held of the capacity, the oldest event's age. */
function historyWindow(row) {
  const oldest = row.kapi_watch_cache_history_oldest_resource_version;
  if (oldest === undefined) return h('td', {}, '—');
  return h('td', { 'data-history-oldest': oldest, 'data-history-events': row.kapi_watch_cache_history_events },
    'from RV ', h('b', {}, oldest), ' · ', row.kapi_watch_cache_history_events, '/', row.apiserver_watch_cache_capacity, ' events · ',
    seconds((row.kapi_watch_cache_history_age_seconds || 0) * 1000));
}

/** How far the bookmarks trail: revisions behind the storage, and the time since the last bookmark sent. */
function bookmarkLag(row) {
  const revisions = row.kapi_watch_cache_resource_version_lag;
  const sent = row.kapi_watch_cache_bookmark_lag_seconds;
  return h('td', { 'data-bookmark-lag': revisions },
    revisions === undefined ? '—' : revisions + ' RV behind storage', ' · ',
    sent === undefined ? 'no bookmark sent yet' : 'last bookmark ' + seconds(sent * 1000) + ' ago');
}

function renderCaches() {
  const state = unavailable(metrics.state);
  if (state) return state;
  const rows = [...parseMetrics(metrics.text)].filter(([, row]) => row.apiserver_watch_cache_resource_version !== undefined)
    .sort(([a], [b]) => a.localeCompare(b)).map(([resource, row]) => h('tr', { 'data-cache': resource },
      h('td', {}, h('code', {}, resource)), h('td', {}, row.apiserver_watch_cache_resource_version),
      historyWindow(row), bookmarkLag(row), h('td', { 'data-cache-watchers': row.kapi_watch_cache_watchers }, row.kapi_watch_cache_watchers ?? '—'),
      h('td', {}, row.apiserver_watch_cache_events_received_total || 0), h('td', {}, row.etcd_bookmark_counts || 0),
      h('td', {}, row.apiserver_storage_objects === undefined ? '—' : row.apiserver_storage_objects)));
  const watchers = [];
  for (const line of metrics.text.split('\n')) {
    const match = /^apiserver_registered_watchers\{([^}]*)\}\s+(\S+)/.exec(line);
    if (!match || Number(match[2]) <= 0) continue;
    const label = (name) => (new RegExp(name + '="([^"]*)"').exec(match[1]) || [])[1] || '';
    watchers.push(h('tr', { 'data-watchers': label('kind') }, h('td', {}, h('code', {}, [label('group') || 'core', label('version'), label('kind')].join('/'))), h('td', {}, match[2])));
  }
  return h('div', {}, table(['Resource', 'Cache RV', 'History window', 'Bookmark lag', 'Watchers', 'Events received', 'Storage progress notifications', 'Stored objects'], rows),
    h('h3', {}, 'Open watches'), watchers.length ? table(['Group/version/kind', 'Watchers'], watchers) : h('p', { class: 'note' }, 'No open watches.'));
}

let scheduled = false;
function render() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    for (const [id, view] of [['servers', renderServers], ['storageversions', renderStorageVersions], ['votes', renderVotes],
      ['migrations', renderMigrations], ['caches', renderCaches]]) {
      document.getElementById(id).replaceChildren(view());
    }
  });
}

for (const source of Object.values(sources)) listWatch(source);
pollMetrics();
setInterval(render, 1000);
`;
