// The explorer page: files, listing, preview. The URL hash holds the
// state (dir, filter, selection, tab), so reload and back work.
import { el, clear, human, num, getJSON, errorBox, aborted, button, rawURL } from './dom.js';
import { preview, header } from './preview.js';
import { containerView } from './container.js';

const MAX_INLINE_FILES = 4; // more files go in a drop-down list
const PAGE = 500; // listing entries per request (the server allows more)
const $ = (id) => document.getElementById(id);
const KIND_TAG = { dir: 'dir', image: 'img', text: 'txt', blk: 'blk', bo3d: '3d', bpx: 'bpx', file: '' };

let files = [];        // /api/files
let state = {};        // the hash's state
let listing = null;    // the current listing: {key, offset, total, gen}
let listGen = 0;       // bumps on every new listing, to drop stale pages
let rightAbort = null; // cancels the right pane's requests
let rightKey = '';
let invalidTop;        // the top-level directory whose invalid names show

// The hash: dir, q, deep, sel (a path), file (a file id), tab.
function parseHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  return { dir: h.get('dir') || '', q: h.get('q') || '', deep: h.get('deep') === '1',
    sel: h.get('sel'), file: h.get('file'), tab: h.get('tab') || 'preview' };
}
function hashOf(s) {
  const h = new URLSearchParams();
  if (s.dir) h.set('dir', s.dir);
  if (s.q) h.set('q', s.q);
  if (s.deep) h.set('deep', '1');
  if (s.sel != null) h.set('sel', s.sel);
  if (s.file != null) h.set('file', s.file);
  if (s.tab && s.tab !== 'preview') h.set('tab', s.tab);
  return '#' + h.toString();
}
// go changes the state: a new history entry, or the current one replaced.
function go(change, replace) {
  const s = { ...state, ...change };
  const h = hashOf(s);
  if (replace) {
    history.replaceState(null, '', h);
    apply();
  } else if (h !== location.hash) location.hash = h;
  else apply();
}

function apply() {
  const prev = state;
  state = parseHash();
  if ($('q').value.trim() !== state.q) $('q').value = state.q; // keep what is being typed
  $('deep').checked = state.deep;
  if (!listing || prev.dir !== state.dir || prev.q !== state.q || prev.deep !== state.deep) loadListing();
  else markSelected();
  loadInvalid(false);
  showRight();
}

// ---- files ----

async function loadFiles() {
  try {
    const f = await getJSON('/api/files');
    files = f.files || [];
    const ul = el('ul', { class: 'files' });
    if (f.layered) ul.append(el('li', { class: 'meta', text: `${files.length} layers, the last on top:` }));
    for (const x of files) {
      const label = el('a', { href: hashOf(fileState(x)), text: x.label || x.name, title: x.name });
      const facts = x.error ? el('span', { class: 'bad', text: x.error }) :
        el('span', { class: 'meta', text: `${x.typeName || 'type ' + JSON.stringify(x.type)} v${x.version} · ${human(x.size)}` });
      ul.append(el('li', { class: x.error ? 'file broken' : 'file' }, label, ' ', facts));
    }
    const bad = files.filter((x) => x.error).length;
    if (files.length <= MAX_INLINE_FILES) clear($('files')).append(ul);
    else { // many files: a list to open; the tree's top level has them too
      const sum = `${files.length} ${f.layered ? 'layers' : 'files'}` + (bad ? `, ${bad} with errors` : '');
      clear($('files')).append(el('details', { class: 'files-menu' },
        el('summary', {}, sum, bad ? el('span', { class: 'bad', text: ' ⚠' }) : null), ul));
    }
    const banner = $('banner');
    if (f.treeError) {
      banner.textContent = 'The packages cannot be layered: ' + f.treeError;
      banner.hidden = false;
    }
    loadInvalid(true);
  } catch (err) {
    $('banner').textContent = 'Cannot list the files: ' + err.message;
    $('banner').hidden = false;
  }
}

// fileState is where a click on file x goes: its directory in the tree
// and its container view.
function fileState(x) {
  if (typeof x.mount === 'string' && x.package && !x.error) return { dir: x.mount, q: '', deep: false, sel: null, file: String(x.id), tab: 'container' };
  if (typeof x.mount === 'string' && x.mount !== '') return { sel: x.mount, file: null, tab: x.error ? 'preview' : 'container' };
  return { sel: null, file: String(x.id), tab: 'container' };
}

// ---- listing ----

function crumbs() {
  const nav = clear($('crumbs'));
  nav.append(el('a', { href: hashOf({ dir: '' }), text: 'root' }));
  let acc = '';
  for (const part of state.dir ? state.dir.split('/') : []) {
    acc = acc ? acc + '/' + part : part;
    nav.append(' / ', el('a', { href: hashOf({ dir: acc }), text: part }));
  }
  const last = nav.lastElementChild;
  last.setAttribute('aria-current', 'location');
}

function loadListing() {
  crumbs();
  clear($('list'));
  $('count').textContent = 'loading…';
  listing = { offset: 0, total: 0, gen: ++listGen };
  nextPage();
}

async function nextPage() {
  const l = listing;
  if (l.busy) return;
  l.busy = true;
  $('more').hidden = true;
  const p = new URLSearchParams({ dir: state.dir, offset: String(l.offset), limit: String(PAGE) });
  if (state.q) p.set('q', state.q);
  if (state.deep) p.set('deep', '1');
  try {
    const r = await getJSON('/api/list?' + p);
    if (l.gen !== listGen) return;
    const list = $('list');
    const frag = document.createDocumentFragment();
    for (const e of r.entries) frag.append(row(e, list.children.length + frag.childNodes.length));
    list.append(frag);
    l.offset = r.entries.length ? r.next : r.total; // a page ends early when its names are long
    l.total = r.total;
    const n = `${num(r.total)} ${state.deep ? (r.total === 1 ? 'file' : 'files') : (r.total === 1 ? 'entry' : 'entries')}`;
    const what = state.q ? `${n} ${state.deep ? 'below' : ''} matching “${state.q}”`.replace('  ', ' ') : n;
    $('count').textContent = l.offset < r.total ? `${what}, ${num(l.offset)} shown` : what;
    $('more').hidden = !(r.entries.length > 0 && l.offset < r.total);
    if (!list.querySelector('[aria-selected="true"]')) markSelected();
    if (list.children.length && !list.getAttribute('aria-activedescendant')) setActive(0, false);
  } catch (err) {
    if (l.gen !== listGen) return;
    $('count').textContent = '';
    $('list').append(el('li', { class: 'error', role: 'alert', text: err.message }));
  } finally {
    l.busy = false;
  }
}

function row(e, i) {
  const shown = state.deep ? e.path.slice(state.dir ? state.dir.length + 1 : 0) : e.name;
  const li = el('li', { role: 'option', id: 'opt-' + i, 'data-path': e.path, 'data-kind': e.kind, 'aria-selected': 'false' },
    el('span', { class: 'icon', 'aria-hidden': 'true', text: KIND_TAG[e.dir ? 'dir' : e.kind] || '' }),
    el('span', { class: 'name', text: shown + (e.dir ? '/' : ''), title: e.path }),
    el('span', { class: 'size', text: e.dir ? '' : human(e.size) }));
  const f = !state.dir && !state.deep && files.find((x) => x.error && x.label === e.path);
  if (f) li.append(el('span', { class: 'bad', text: '⚠', title: f.error, 'aria-label': 'cannot be opened: ' + f.error }));
  if (e.dir) li.dataset.dir = '1';
  else li.append(el('a', { class: 'dl', href: rawURL(e.path, true), title: 'download ' + e.name, 'aria-label': 'download ' + e.name, tabindex: '-1', text: '⤓' }));
  return li;
}

function open(li) {
  if (!li) return;
  if (li.dataset.dir) go({ dir: li.dataset.path, q: '', deep: false });
  else go({ sel: li.dataset.path, file: null, tab: state.tab === 'container' ? 'container' : 'preview' });
}

function setActive(i, focus) {
  const list = $('list');
  const items = list.children;
  if (!items.length) return;
  i = Math.max(0, Math.min(items.length - 1, i));
  const old = list.querySelector('.active');
  if (old) old.classList.remove('active');
  items[i].classList.add('active');
  list.setAttribute('aria-activedescendant', items[i].id);
  if (focus) items[i].scrollIntoView({ block: 'nearest' });
  if (i >= items.length - 5 && !$('more').hidden) nextPage();
}

function markSelected() {
  for (const li of $('list').querySelectorAll('[aria-selected="true"]')) li.setAttribute('aria-selected', 'false');
  if (state.sel == null) return;
  for (const li of $('list').children) {
    if (li.dataset.path === state.sel) {
      li.setAttribute('aria-selected', 'true');
      setActive([...$('list').children].indexOf(li), false);
    }
  }
}

function activeIndex() {
  const a = $('list').querySelector('.active');
  return a ? [...$('list').children].indexOf(a) : -1;
}

function parentDir() {
  if (!state.dir) return;
  go({ dir: state.dir.includes('/') ? state.dir.slice(0, state.dir.lastIndexOf('/')) : '', q: '', deep: false });
}

function listKeys(e) {
  const i = activeIndex();
  const page = Math.max(1, Math.floor($('scroller').clientHeight / 28));
  const moves = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: $('list').children.length - 1, PageDown: i + page, PageUp: i - page };
  if (e.key in moves) {
    e.preventDefault();
    setActive(moves[e.key], true);
  } else if (e.key === 'Enter' || e.key === 'ArrowRight' || e.key === ' ') {
    e.preventDefault();
    open($('list').children[i]);
  } else if (e.key === 'Backspace' || e.key === 'ArrowLeft') {
    e.preventDefault();
    parentDir();
  }
}

// ---- invalid names ----

// loadInvalid shows the invalid names of the packages under the current
// top-level directory (of all packages at the root), when that changed.
function loadInvalid(force) {
  const top = (state.dir || '').split('/')[0];
  if (top === invalidTop && !force) return;
  invalidTop = top;
  const box = el('div'); // answers still on their way go to the old one
  clear($('invalid')).append(box);
  const shown = (f) => top === '' || typeof f.mount !== 'string' || f.mount === '' || f.mount === top;
  box.dataset.loading = 'true'; // until every first page is in (the tests wait for it)
  Promise.allSettled(files.filter((f) => f.package && !f.error && shown(f)).map((f) => invalidOf(f, box)))
    .then(() => { box.dataset.loading = 'false'; });
}

async function invalidOf(f, box) {
  let sec = null, list = null, off = 0;
  const more = button('more', () => page());
  async function page() {
    try {
      const r = await getJSON(`/api/invalid?file=${f.id}&offset=${off}&limit=200`);
      if (!r.total) return;
      if (!sec) {
        list = el('ol', { class: 'invalid-list' });
        sec = el('details', { class: 'invalid', open: true },
          el('summary', {}, el('strong', { text: `⚠ ${r.total === 1 ? '1 object' : r.total + ' objects'} of ${f.label || f.name}: names that are not valid paths` })),
          el('p', { class: 'meta', text: 'They are not in the tree; download them by index. Names are shown quoted.' }), list, more);
        box.append(sec);
      }
      for (const e of r.entries) {
        // A long name comes cut (ending in …), with its length.
        const cut = e.name.endsWith('…') ? el('span', { class: 'meta', text: ` (a name of ${num(e.length)} bytes)` }) : null;
        list.append(el('li', { title: e.why }, el('span', { class: 'name', text: e.name }), cut, ' ', el('span', { class: 'size', text: human(e.size) }), ' ',
          el('a', { href: `/api/object?file=${f.id}&index=${e.index}`, text: `download #${e.index}` })));
      }
      off = r.entries.length ? r.next : r.total;
      more.hidden = off >= r.total || !r.entries.length;
    } catch (err) {
      if (!aborted(err)) box.append(errorBox(err, `invalid names of ${f.label || f.name}`));
    }
  }
  await page();
}

// ---- right pane ----

function showRight() {
  const key = `${state.sel}|${state.file}|${state.tab}`;
  if (key === rightKey) return;
  rightKey = key;
  if (rightAbort) rightAbort.abort();
  rightAbort = new AbortController();
  const signal = rightAbort.signal;
  const view = clear($('view'));
  const tabs = $('tabs');
  tabs.hidden = true;
  if (state.file != null && state.sel == null) {
    const f = files.find((x) => String(x.id) === state.file);
    view.append(el('div', { class: 'phead' }, el('h2', { text: f ? f.name : 'file ' + state.file })));
    if (f && f.error) view.append(errorBox(f.error, 'cannot open this file'));
    else view.append(containerView('file=' + encodeURIComponent(state.file), signal));
    return;
  }
  if (state.sel == null) {
    view.append(el('p', { class: 'hint', text: 'Select an entry to preview it. Keys: ↑ ↓ move, Enter opens, Backspace goes up.' }));
    return;
  }
  const sel = state.sel;
  view.classList.add('loading');
  getJSON('/api/preview?path=' + encodeURIComponent(sel), signal).then((p) => {
    view.classList.remove('loading');
    const links = [' · ', el('a', { href: rawURL(sel, true), text: 'download' }), ' · ', el('a', { href: rawURL(sel), target: '_blank', rel: 'noopener', text: 'raw' })];
    view.append(header(p, links));
    const cq = p.container ? new URL(p.container, location.href).search.slice(1) : null;
    if (p.kind === 'container' && !p.error) {
      view.append(containerView(cq, signal));
      return;
    }
    if (cq) {
      tabs.hidden = false;
      for (const b of tabs.children) b.setAttribute('aria-selected', String(b.dataset.tab === state.tab));
    }
    view.append(cq && state.tab === 'container' ? containerView(cq, signal) : preview(p, signal));
  }).catch((err) => {
    view.classList.remove('loading');
    if (!aborted(err)) view.append(errorBox(err, sel));
  });
}

// ---- start ----

function start() {
  $('list').addEventListener('keydown', listKeys);
  $('list').addEventListener('click', (e) => {
    if (e.target.closest('a')) return; // a download link
    const li = e.target.closest('li[role="option"]');
    if (!li) return;
    setActive([...$('list').children].indexOf(li), false);
    open(li);
  });
  $('more').addEventListener('click', nextPage);
  new IntersectionObserver((es) => {
    if (es.some((x) => x.isIntersecting) && !$('more').hidden) nextPage();
  }, { root: $('scroller') }).observe($('more'));
  // Scrolling near the end loads the next page too: an observer can miss
  // the moment when the page renders no frame (a busy or hidden tab).
  $('scroller').addEventListener('scroll', () => {
    const s = $('scroller');
    if (listing && !$('more').hidden && s.scrollTop + s.clientHeight >= s.scrollHeight - 200) nextPage();
  }, { passive: true });
  let timer = 0;
  $('q').addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => go({ q: $('q').value.trim() }, true), 250);
  });
  $('deep').addEventListener('change', () => go({ deep: $('deep').checked }, true));
  $('filter').addEventListener('submit', (e) => { e.preventDefault(); go({ q: $('q').value.trim() }, true); });
  $('tabs').addEventListener('click', (e) => { if (e.target.dataset.tab) go({ tab: e.target.dataset.tab }); });
  $('home').addEventListener('click', (e) => { e.preventDefault(); go({ dir: '', q: '', deep: false, sel: null, file: null, tab: 'preview' }); });
  window.addEventListener('hashchange', apply);
  loadFiles().finally(apply); // a file=N in the hash needs the files
}

start();
