// DOM and HTTP helpers. Data never becomes HTML: text goes in with
// textContent or text nodes only.

// el makes an element. attrs: "text" sets textContent, "class" the class,
// "on<event>" adds a listener, anything else is an attribute (null skips).
// kids: nodes or strings (as text), null and false skipped.
export function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of kids) if (c != null && c !== false) e.append(c);
  return e;
}

// clear empties e and returns it.
export function clear(e) {
  e.replaceChildren();
  return e;
}

// human is a byte count in binary units: 512 B, 1.5 KiB, 20 MiB.
export function human(n) {
  if (n == null || isNaN(n)) return '';
  if (n < 1024) return n + ' B';
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n, u = -1;
  do { v /= 1024; u++; } while (v >= 1024 && u < units.length - 1);
  return (v < 10 ? v.toFixed(1) : Math.round(v)) + ' ' + units[u];
}

// num is a count with thousands separators: 1,000,000.
export const num = (n) => Number(n).toLocaleString('en-US');

// hex is n in hexadecimal with 0x.
export const hex = (n) => n == null ? '' : '0x' + Number(n).toString(16);

// encPath encodes a tree path for a URL path, element by element.
export const encPath = (p) => p.split('/').map(encodeURIComponent).join('/');

// rawURL is the URL of a tree file's bytes.
export const rawURL = (p, download) => '/raw/' + encPath(p) + (download ? '?download=1' : '');

// HTTPError is a failed request: the server's {"error"} text and status.
export class HTTPError extends Error {
  constructor(status, msg) {
    super(msg);
    this.status = status;
  }
}

// failure turns a response that is not ok into an HTTPError.
async function failure(r) {
  let msg = r.status + ' ' + r.statusText;
  try {
    const j = await r.json();
    if (j && j.error) msg = j.error;
  } catch (e) { /* not JSON */ }
  return new HTTPError(r.status, msg);
}

// getJSON fetches url and decodes the JSON answer.
export async function getJSON(url, signal) {
  const r = await fetch(url, { signal });
  if (!r.ok) throw await failure(r);
  return r.json();
}

// getRange fetches bytes [off, off+len) of url with a Range request.
// total comes from Content-Range, or from header when given.
export async function getRange(url, off, len, signal, header) {
  const r = await fetch(url, { signal, headers: { Range: `bytes=${off}-${off + len - 1}` } });
  if (!r.ok) throw await failure(r);
  let bytes = new Uint8Array(await r.arrayBuffer());
  let total;
  if (header) total = Number(r.headers.get(header));
  else if (r.status === 206) {
    const m = /\/(\d+)\s*$/.exec(r.headers.get('Content-Range') || '');
    total = m ? Number(m[1]) : NaN;
  } else {
    total = bytes.length;
    bytes = bytes.subarray(off, off + len);
  }
  return { bytes, total };
}

// getBytes fetches url whole (for endpoints that take offset and length).
export async function getBytes(url, signal, header) {
  const r = await fetch(url, { signal });
  if (!r.ok) throw await failure(r);
  return { bytes: new Uint8Array(await r.arrayBuffer()), total: Number(r.headers.get(header)) };
}

// errorBox shows an error (an Error or a string) as an alert.
export function errorBox(err, what) {
  const msg = err instanceof Error ? err.message : String(err);
  return el('div', { class: 'error', role: 'alert' }, what ? el('strong', { text: what + ': ' }) : null, msg);
}

// aborted reports whether err is a cancelled fetch: no error to show.
export const aborted = (err) => err && err.name === 'AbortError';

// guard runs the async f and shows its failure in box (not the console).
export function guard(box, what, f) {
  return f().catch((err) => {
    if (!aborted(err)) box.append(errorBox(err, what));
  });
}

// dl is a definition list of [term, value] pairs (values: nodes or text),
// skipping pairs whose value is null or "".
export function dl(pairs) {
  const d = el('dl', { class: 'facts' });
  for (const [k, v] of pairs) {
    if (v == null || v === '') continue;
    d.append(el('dt', { text: k }), el('dd', {}, typeof v === 'object' ? v : String(v)));
  }
  return d;
}

// button is a plain button.
export const button = (text, onclick, attrs) => el('button', { type: 'button', onclick, ...attrs }, text);
