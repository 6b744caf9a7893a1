// Previews of one entry, by the kind /api/preview gives.
import { el, human, errorBox, aborted, button, dl } from './dom.js';
import { rawHex, textView, jsonFrom, textFrom, switcher, tableView } from './views.js';
import { parseMesh, meshViewer } from './mesh.js';

export const CUBE_FACES = ['+X', '-X', '+Y', '-Y', '+Z', '-Z'];

// kinds maps a preview kind to the function that shows it.
const kinds = {
  texture: texturePreview,
  model: meshPreview,
  bo3d: meshPreview,
  image: imagePreview,
  text: (p, signal) => textView(p.url, signal, p.size),
  sd: (p, signal) => switcher([['plain', () => jsonFrom(p.url, signal)], ['typed', () => jsonFrom(p.typedUrl, signal)]]),
  blk: (p, signal) => switcher([['text', () => textFrom(p.text, signal)], ['JSON', () => jsonFrom(p.json, signal)]]),
  table: (p, signal) => tableView(p.url, signal),
  hex: (p, signal) => p.url ? rawHex(p.url, signal, p.size) : el('p', { class: 'meta', text: 'no bytes to show' }),
};

// preview shows p (an /api/preview answer). The container kind is shown
// by the caller.
export function preview(p, signal) {
  const box = el('div', { class: 'preview', 'data-kind': p.kind });
  if (p.error) box.append(errorBox(p.error, `cannot show this ${p.kind === 'hex' ? 'file' : p.kind}; its bytes follow`));
  const f = kinds[p.kind] || kinds.hex;
  try {
    box.append(f(p, signal));
  } catch (err) {
    box.append(errorBox(err));
  }
  return box;
}

function texturePreview(p) {
  const layers = p.layers || 1;
  const img = el('img', { class: 'tex', alt: `${p.name}, layer 0` });
  const pick = el('select', { 'aria-label': 'Layer' });
  for (let i = 0; i < layers; i++) {
    pick.append(el('option', { value: String(i), text: p.cubeMap && layers === 6 ? `face ${CUBE_FACES[i]}` : `layer ${i}` }));
  }
  const zoom = el('select', { 'aria-label': 'Zoom' },
    ...['fit', '1', '2', '4', '8'].map((z) => el('option', { value: z, text: z === 'fit' ? 'fit' : z + '×' })));
  const fit = () => {
    const z = zoom.value;
    const s = z === 'fit' ? Math.max(1, Math.floor(512 / Math.max(p.width, p.height))) : Number(z);
    img.style.width = p.width * s + 'px';
    img.classList.toggle('fitmax', z === 'fit');
    img.classList.toggle('pixelated', s > 1);
  };
  const load = () => {
    img.src = p.png + encodeURIComponent(pick.value);
    img.alt = `${p.name}, ${pick.selectedOptions[0].textContent}`;
  };
  pick.addEventListener('change', load);
  zoom.addEventListener('change', fit);
  fit();
  load();
  const facts = dl([
    ['size', `${p.width} × ${p.height}`], ['format', p.format],
    ['layers', layers > 1 ? String(layers) + (p.cubeMap ? ' (cube map)' : '') : null],
    ['mipmaps', p.mipmaps ? String(p.mipmaps) : null],
  ]);
  const tools = el('div', { class: 'tools' }, layers > 1 ? el('label', {}, 'Layer ', pick) : null, el('label', {}, 'Zoom ', zoom));
  return el('div', {}, facts, tools, el('div', { class: 'checker' }, img));
}

function imagePreview(p) {
  const img = el('img', { class: 'tex fitmax', src: p.url, alt: p.name });
  const size = el('dd');
  img.addEventListener('load', () => { size.textContent = `${img.naturalWidth} × ${img.naturalHeight}`; });
  img.addEventListener('error', () => { size.textContent = 'the browser cannot decode this image'; });
  const facts = dl([['type', p.contentType]]);
  facts.append(el('dt', { text: 'size' }), size);
  return el('div', {}, facts, el('div', { class: 'checker' }, img));
}

function meshPreview(p, signal) {
  const canvas = el('canvas', { class: 'mesh', tabindex: '0', 'aria-label': `3D view of ${p.name}: drag to rotate, wheel or + and - to zoom, arrows to turn` });
  const status = el('p', { class: 'meta', text: 'loading the mesh…' });
  const facts = dl([
    ['vertices', String(p.vertices)], ['triangles', String(p.triangles)], ['bones', String(p.bones ?? 0)],
    ['vertex format', p.vertexFormat],
  ]);
  let viewer = null;
  const reset = button('fit', () => viewer && viewer.reset(), { title: 'fit the mesh to the view (key 0)' });
  const box = el('div', { class: 'meshbox' }, facts, el('div', { class: 'tools' }, reset, status), canvas);
  signal.addEventListener('abort', () => viewer && viewer.destroy());
  fetch(p.mesh, { signal }).then(async (r) => {
    if (!r.ok) {
      let msg = r.status + ' ' + r.statusText;
      try { msg = (await r.json()).error || msg; } catch (e) { /* not JSON */ }
      throw new Error(msg);
    }
    const mesh = parseMesh(await r.arrayBuffer());
    if (signal.aborted) return;
    viewer = meshViewer(canvas, mesh);
    status.textContent = `${mesh.vertices} vertices, ${mesh.triangles} triangles drawn · drag to rotate, wheel to zoom`;
  }).catch((err) => {
    if (aborted(err)) return;
    status.textContent = '';
    canvas.replaceWith(errorBox(err, 'cannot draw the mesh'));
  });
  return box;
}

// header is the title of a preview: name, kind, size and links.
export function header(p, links) {
  return el('div', { class: 'phead' },
    el('h2', { text: p.name || '' }),
    el('p', { class: 'meta' }, `${p.kind} · ${human(p.size)}`, ...links));
}
