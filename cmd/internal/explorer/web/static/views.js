// Views of data: hex dump, JSON tree, table, text.
import { el, clear, human, num, getJSON, getRange, errorBox, aborted, button } from './dom.js';

export const HEX_PAGE = 4096;
export const TEXT_MAX = 256 << 10;

// hexLines formats bytes read at offset base as lines of 16:
// offset, hex bytes, ASCII.
export function hexLines(bytes, base) {
  const out = [];
  for (let i = 0; i < bytes.length; i += 16) {
    let h = '', a = '';
    for (let j = 0; j < 16; j++) {
      if (j === 8) h += ' ';
      if (i + j < bytes.length) {
        const b = bytes[i + j];
        h += b.toString(16).padStart(2, '0') + ' ';
        a += b >= 32 && b < 127 ? String.fromCharCode(b) : '.';
      } else h += '   ';
    }
    out.push((base + i).toString(16).padStart(8, '0') + '  ' + h + ' ' + a);
  }
  return out.join('\n') + '\n';
}

// hexView shows bytes HEX_PAGE at a time; page(off, len, signal) returns
// {bytes, total}. size, when known, avoids asking past the end.
export function hexView(page, signal, size) {
  const pre = el('pre', { class: 'hex', tabindex: '0', 'aria-label': 'Hex view' });
  const info = el('p', { class: 'meta' });
  const more = button('more', () => load());
  const box = el('div', { class: 'hexbox' }, info, pre, more);
  let off = 0, total = size;
  async function load() {
    more.disabled = true;
    try {
      if (total !== undefined && off >= total) {
        if (total === 0) info.textContent = 'empty';
        more.hidden = true;
        return;
      }
      const r = await page(off, HEX_PAGE, signal);
      if (!isNaN(r.total)) total = r.total;
      pre.append(hexLines(r.bytes, off));
      off += r.bytes.length;
      info.textContent = `bytes 0–${num(off)} of ${num(total)} (${human(total)})`;
      more.hidden = r.bytes.length === 0 || off >= total;
    } catch (err) {
      if (!aborted(err)) box.insertBefore(errorBox(err, 'reading bytes'), pre);
      more.hidden = true;
    } finally {
      more.disabled = false;
    }
  }
  load();
  return box;
}

// rawHex is the hex view of a URL that answers Range requests.
export const rawHex = (url, signal, size) => hexView((off, len, s) => getRange(url, off, len, s), signal, size);

// textView shows the first TEXT_MAX bytes of url as text.
export function textView(url, signal, size) {
  const pre = el('pre', { class: 'text', tabindex: '0' });
  const info = el('p', { class: 'meta' });
  const box = el('div', {}, info, pre);
  if (size === 0) {
    info.textContent = 'empty';
    return box;
  }
  getRange(url, 0, TEXT_MAX, signal).then((r) => {
    pre.textContent = new TextDecoder('utf-8').decode(r.bytes);
    info.textContent = r.total > r.bytes.length ?
      `the first ${human(r.bytes.length)} of ${human(r.total)}` : human(r.total);
  }).catch((err) => { if (!aborted(err)) box.append(errorBox(err, 'reading text')); });
  return box;
}

const CHUNK = 500; // children shown at once in a JSON tree node

// jsonTree is a collapsible tree of a JSON value, built lazily: a node's
// children are made when it is first opened.
export function jsonTree(value) {
  return el('div', { class: 'json' }, jsonNode(null, value, 0));
}

function jsonNode(key, v, depth) {
  const k = key == null ? null : el('span', { class: 'k', text: key });
  if (v === null || typeof v !== 'object') {
    const t = v === null ? 'null' : typeof v;
    return el('div', { class: 'leaf' }, k, k && ': ', el('span', { class: 'v-' + t, text: JSON.stringify(v) }));
  }
  const arr = Array.isArray(v);
  const keys = arr ? null : Object.keys(v);
  const n = arr ? v.length : keys.length;
  const sum = el('summary', {}, k, k && ': ', el('span', { class: 'count', text: arr ? `[${n}]` : `{${n}}` }));
  const d = el('details', {}, sum);
  let shown = 0;
  function fill() {
    const end = Math.min(n, shown + CHUNK);
    const frag = document.createDocumentFragment();
    for (; shown < end; shown++) {
      frag.append(arr ? jsonNode(String(shown), v[shown], depth + 1) : jsonNode(keys[shown], v[keys[shown]], depth + 1));
    }
    d.append(frag);
    if (shown < n) {
      const b = button(`${n - shown} more`, () => { b.remove(); fill(); }, { class: 'more' });
      d.append(b);
    }
  }
  d.addEventListener('toggle', () => { if (d.open && shown === 0 && n > 0) fill(); });
  if (depth < 2 && n <= CHUNK) d.open = true;
  return d;
}

// switcher shows one of several views, chosen with buttons. views: a
// list of [label, make()], make returning an element (made once).
export function switcher(views, start) {
  const bar = el('div', { class: 'switch', role: 'group' });
  const body = el('div');
  const made = new Map();
  function show(i) {
    if (!made.has(i)) made.set(i, views[i][1]());
    clear(body).append(made.get(i));
    for (const [j, b] of [...bar.children].entries()) b.setAttribute('aria-pressed', String(i === j));
  }
  views.forEach(([label], i) => bar.append(button(label, () => show(i))));
  show(start || 0);
  return el('div', {}, bar, body);
}

// jsonFrom is a view that fetches url and shows it as a JSON tree.
export function jsonFrom(url, signal) {
  const box = el('div', { class: 'loading' });
  getJSON(url, signal).then((v) => { box.className = ''; box.append(jsonTree(v)); })
    .catch((err) => { box.className = ''; if (!aborted(err)) box.append(errorBox(err)); });
  return box;
}

// textFrom is a view that fetches url and shows the text.
export function textFrom(url, signal) {
  const pre = el('pre', { class: 'text', tabindex: '0' });
  const box = el('div', {}, pre);
  fetch(url, { signal }).then(async (r) => {
    if (!r.ok) {
      let msg = r.status + ' ' + r.statusText;
      try { msg = (await r.json()).error || msg; } catch (e) { /* not JSON */ }
      throw new Error(msg);
    }
    pre.textContent = await r.text();
  }).catch((err) => { if (!aborted(err)) box.append(errorBox(err)); });
  return box;
}

const ROWS = 100;

// tableView pages through /api/table rows of url (without offset/limit).
export function tableView(url, signal) {
  const info = el('p', { class: 'meta' });
  const wrap = el('div', { class: 'tablewrap' });
  const prev = button('previous', () => load(off - ROWS));
  // A page may end before ROWS rows (the server bounds its bytes): the
  // next starts after the rows shown.
  const next = button('next', () => load(off + shown));
  const box = el('div', {}, info, el('div', { class: 'pager' }, prev, next), wrap);
  let off = 0, shown = 0;
  async function load(o) {
    off = Math.max(0, o);
    try {
      const t = await getJSON(`${url}&offset=${off}&limit=${ROWS}`, signal);
      const head = el('tr', {}, ...t.columns.map((c) =>
        el('th', { scope: 'col', title: `${c.type}${c.len ? ' × ' + c.len : ''}` }, c.name, el('small', { text: ' ' + c.type }))));
      const body = el('tbody');
      t.rows.forEach((row, i) => body.append(el('tr', {}, el('th', { scope: 'row', text: String(off + i) }),
        ...row.map((c) => el('td', { text: typeof c === 'object' ? JSON.stringify(c) : String(c) })))));
      head.prepend(el('th', { text: '#' }));
      clear(wrap).append(el('table', {}, el('thead', {}, head), body));
      shown = t.rows.length;
      info.textContent = `${t.name || 'table'}: rows ${num(off)}–${num(off + t.rows.length)} of ${num(t.total)}`;
      prev.disabled = off === 0;
      next.disabled = off + t.rows.length >= t.total;
    } catch (err) {
      if (!aborted(err)) clear(wrap).append(errorBox(err, 'reading the table'));
    }
  }
  load(0);
  return box;
}
