/** The console page: plain HTML and CSS; all data comes from `console.js` over the API (no CDN, works offline). */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>kapi storage-version console</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
  h1 { font-size: 1.3em; margin: 0 0 .2em; }
  h2 { font-size: 1.1em; margin: 1.4em 0 .4em; }
  table { border-collapse: collapse; width: 100%; }
  th, td { border-bottom: 1px solid #ddd; padding: .25em .5em; text-align: left; vertical-align: top; }
  th { background: #f4f4f4; }
  code { font-size: .95em; }
  .note { color: #666; }
  .bad, tr.disagree td { background: #fde2e1; }
  .ok { color: #17702e; }
  .warn { color: #a35200; }
  progress { width: 10em; }
  #status { float: right; color: #666; }
</style>
</head>
<body>
<span id="status">connecting…</span>
<h1>Storage versions</h1>
<p class="note">Live over watches, with your own credentials: sections you may not read say so.
Disagreement between servers is highlighted.</p>
<h2>Servers (identity leases)</h2>
<div id="servers"></div>
<h2>Storage versions (KEP-2339)</h2>
<div id="storageversions"></div>
<h2>Votes (coordinated storage version)</h2>
<div id="votes"></div>
<h2>Migrations</h2>
<div id="migrations"></div>
<h2>Watch caches (this server)</h2>
<div id="caches"></div>
<script src="console.js"></script>
</body>
</html>
`;
