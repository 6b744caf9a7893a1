// The container view: main header, TypeExt, sections, verify.
import { el, clear, human, hex, num, getJSON, getBytes, errorBox, aborted, button, dl } from './dom.js';
import { hexView, jsonFrom, jsonTree, switcher, tableView } from './views.js';

// containerView shows the container that query names ("file=N" or
// "path=P", URL-encoded).
export function containerView(query, signal) {
  const box = el('div', { class: 'container loading' });
  getJSON('/api/container?' + query, signal).then((c) => {
    box.classList.remove('loading');
    box.append(render(c, query, signal));
  }).catch((err) => {
    box.classList.remove('loading');
    if (!aborted(err)) box.append(errorBox(err, 'cannot read the container'));
  });
  return box;
}

function render(c, query, signal) {
  const facts = dl([
    ['name', c.name],
    ['type', `${typeof c.type === 'string' ? JSON.stringify(c.type) : hex(c.type)} ${c.typeName ? `(${c.typeName})` : '(a type this tool does not know)'}`],
    ['version', c.version], ['size', `${c.size} (${human(c.size)})`],
    ['file size', c.fileSize !== c.size ? c.fileSize : null], ['checksum', hex(c.checksum)],
    ['TypeExt', c.typeExt], ['decoded', c.typeExtText],
    ['objects', c.objects], ['dead bytes', c.deadBytes != null ? `${c.deadBytes} (${human(c.deadBytes)})` : null],
    ['shader', c.shader ? jsonTree(c.shader) : null],
    ['signature', c.signature ? c.signature.summary : null],
  ]);
  const out = el('div', { class: 'section-view' });
  const statuses = [];
  const row = (s) => {
    const st = el('td', { class: 'status' });
    statuses.push([s.index, st]);
    const open = button(s.view === 'hex' ? 'bytes' : s.view, () => showSection(out, query, s, signal),
      { title: `show section ${s.index}` });
    return el('tr', {},
      el('td', { text: String(s.index) }),
      el('td', { text: s.typeName ? `${s.typeName} (${s.type})` : String(s.type) }),
      el('td', { text: s.flagNames || hex(s.flags) }),
      el('td', { class: 'num', text: String(s.csize), title: human(s.csize) }),
      el('td', { class: 'num', text: String(s.usize), title: human(s.usize) }),
      el('td', { text: hex(s.checksum) }),
      el('td', {}, open, ' ', button('verify', () => verify(query, s.index, st, signal))),
      st);
  };
  const all = button('verify all', async () => {
    all.disabled = true;
    for (const [i, st] of statuses) {
      if (signal.aborted) break;
      await verify(query, i, st, signal);
    }
    all.disabled = false;
  }, { class: 'verify-all', title: 'verify the sections shown' });
  const body = el('tbody', {}, ...(c.sections || []).map(row));
  const table = el('table', { class: 'sections' },
    el('thead', {}, el('tr', {}, ...['#', 'type', 'flags', 'compressed', 'size', 'checksum', '', 'verified']
      .map((h) => el('th', { scope: 'col', text: h })))),
    body);
  const total = c.sectionCount ?? body.children.length;
  const shown = el('span', { class: 'meta' });
  // The server answers the section table a page at a time: "more" (or
  // scrolling to it) loads the next page from /api/sections.
  let next = c.sectionsNext ?? total, busy = false;
  const more = button('more sections', () => page(), { class: 'more-sections' });
  const update = () => {
    more.hidden = next >= total;
    shown.textContent = next < total ? ` ${num(next)} shown` : '';
  };
  async function page() {
    if (busy || next >= total) return;
    busy = true;
    more.disabled = true;
    try {
      const r = await getJSON(`/api/sections?${query}&offset=${next}&limit=${SECTIONS_PAGE}`, signal);
      body.append(...r.entries.map(row));
      next = r.entries.length ? r.next : total;
    } catch (err) {
      if (!aborted(err)) more.after(errorBox(err, 'cannot read the section table'));
      next = total;
    } finally {
      busy = false;
      more.disabled = false;
      update();
    }
  }
  update();
  new IntersectionObserver((es) => {
    if (es.some((x) => x.isIntersecting) && !more.hidden) page();
  }).observe(more);
  return el('div', {}, el('h3', { text: 'Header' }), facts,
    el('h3', {}, `Sections (${num(total)})`, shown, ' ', all), el('div', { class: 'tablewrap' }, table, more), out);
}

// SECTIONS_PAGE is how many sections a request asks for (the server may
// answer fewer: a page is bounded in bytes too).
const SECTIONS_PAGE = 500;

// verify checks one section and shows the result in cell st.
async function verify(query, i, st, signal) {
  st.textContent = '…';
  st.className = 'status';
  try {
    const v = await getJSON(`/api/verify?${query}&section=${i}`, signal);
    st.textContent = v.ok ? 'ok' : v.error;
    st.className = 'status ' + (v.ok ? 'ok' : 'bad');
  } catch (err) {
    if (aborted(err)) return;
    st.textContent = err.message;
    st.className = 'status bad';
  }
}

// showSection shows section s in out, as its view says.
function showSection(out, query, s, signal) {
  const base = `${query}&section=${s.index}`;
  let body;
  switch (s.view) {
  case 'sd':
    body = switcher([['plain', () => jsonFrom('/api/sd?' + base, signal)], ['typed', () => jsonFrom(`/api/sd?${base}&typed=1`, signal)]]);
    break;
  case 'table':
    body = tableView('/api/table?' + base, signal);
    break;
  case 'strings':
    body = switcher([['strings', () => stringsView(base, signal)], ['bytes', () => sectionHex(base, signal, s.usize)]]);
    break;
  default:
    body = sectionHex(base, signal, s.usize);
  }
  clear(out).append(el('h3', { text: `Section ${s.index}: ${s.typeName || s.type}` }), body);
  out.scrollIntoView({ block: 'nearest' });
}

const sectionHex = (base, signal, size) => hexView((off, len, sig) =>
  getBytes(`/api/section?${base}&offset=${off}&length=${len}`, sig, 'X-Section-Size'), signal, size);

const STRINGS_MAX = 64 << 10;

// stringsView lists the NUL-terminated strings at the start of a strings
// section, with their offsets (what pointers into it name).
function stringsView(base, signal) {
  const list = el('ol', { class: 'strings' });
  const info = el('p', { class: 'meta' });
  const box = el('div', {}, info, list);
  getBytes(`/api/section?${base}&offset=0&length=${STRINGS_MAX}`, signal, 'X-Section-Size').then(({ bytes, total }) => {
    const dec = new TextDecoder('utf-8');
    let start = 0, n = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i < bytes.length && bytes[i] !== 0) continue;
      if (i > start || i < bytes.length) {
        list.append(el('li', {}, el('code', { text: hex(start) }), ' ', JSON.stringify(dec.decode(bytes.subarray(start, i)))));
        n++;
      }
      start = i + 1;
    }
    info.textContent = `${n} strings in the first ${human(bytes.length)} of ${human(total)}`;
  }).catch((err) => { if (!aborted(err)) box.append(errorBox(err)); });
  return box;
}
