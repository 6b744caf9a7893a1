// The mesh viewer: WebGL, drag to rotate, wheel to zoom.

// parseMesh decodes /api/mesh: u32 vertexCount, u32 indexCount,
// f32 positions[3n], f32 normals[3n], u32 indices[m], little-endian.
export function parseMesh(buf) {
  const dv = new DataView(buf);
  if (buf.byteLength < 8) throw new Error(`mesh: ${buf.byteLength} bytes, want at least 8`);
  const n = dv.getUint32(0, true), m = dv.getUint32(4, true);
  const want = 8 + 24 * n + 4 * m;
  if (buf.byteLength !== want) throw new Error(`mesh: ${buf.byteLength} bytes, want ${want} for ${n} vertices and ${m} indices`);
  if (m % 3 !== 0) throw new Error(`mesh: ${m} indices is no whole number of triangles`);
  const le = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  const f32 = (off, len) => {
    if (le) return new Float32Array(buf.slice(off, off + 4 * len));
    const a = new Float32Array(len);
    for (let i = 0; i < len; i++) a[i] = dv.getFloat32(off + 4 * i, true);
    return a;
  };
  const pos = f32(8, 3 * n), nrm = f32(8 + 12 * n, 3 * n);
  const off = 8 + 24 * n;
  const idx = le ? new Uint32Array(buf.slice(off, off + 4 * m)) : new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    if (!le) idx[i] = dv.getUint32(off + 4 * i, true);
    if (idx[i] >= n) throw new Error(`mesh: index ${i} is ${idx[i]}, beyond ${n} vertices`);
  }
  if (nrm.every((v) => v === 0)) computeNormals(pos, idx, nrm);
  return { pos, nrm, idx, vertices: n, triangles: m / 3 };
}

// computeNormals sets each vertex normal to the sum of its triangles'
// (area-weighted) face normals, normalised.
export function computeNormals(pos, idx, nrm) {
  for (let t = 0; t < idx.length; t += 3) {
    const a = idx[t] * 3, b = idx[t + 1] * 3, c = idx[t + 2] * 3;
    const ux = pos[b] - pos[a], uy = pos[b + 1] - pos[a + 1], uz = pos[b + 2] - pos[a + 2];
    const vx = pos[c] - pos[a], vy = pos[c + 1] - pos[a + 1], vz = pos[c + 2] - pos[a + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    for (const i of [a, b, c]) { nrm[i] += nx; nrm[i + 1] += ny; nrm[i + 2] += nz; }
  }
  for (let i = 0; i < nrm.length; i += 3) {
    const l = Math.hypot(nrm[i], nrm[i + 1], nrm[i + 2]) || 1;
    nrm[i] /= l; nrm[i + 1] /= l; nrm[i + 2] /= l;
  }
}

// bounds returns the centre and radius of the finite positions.
function bounds(pos) {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < pos.length; i += 3) {
    if (!isFinite(pos[i]) || !isFinite(pos[i + 1]) || !isFinite(pos[i + 2])) continue;
    for (let k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], pos[i + k]); hi[k] = Math.max(hi[k], pos[i + k]); }
  }
  if (lo[0] > hi[0]) return { c: [0, 0, 0], r: 1 };
  const c = lo.map((v, k) => (v + hi[k]) / 2);
  return { c, r: Math.max(Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) / 2, 1e-6) };
}

// Column-major 4x4 matrices.
function mul(a, b) {
  const o = new Float32Array(16);
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) {
    let s = 0;
    for (let k = 0; k < 4; k++) s += a[k * 4 + j] * b[i * 4 + k];
    o[i * 4 + j] = s;
  }
  return o;
}
function perspective(fovy, aspect, near, far) {
  const f = 1 / Math.tan(fovy / 2), nf = 1 / (near - far);
  return new Float32Array([f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) * nf, -1, 0, 0, 2 * far * near * nf, 0]);
}
const translate = (x, y, z) => new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1]);
function rotX(a) {
  const c = Math.cos(a), s = Math.sin(a);
  return new Float32Array([1, 0, 0, 0, 0, c, s, 0, 0, -s, c, 0, 0, 0, 0, 1]);
}
function rotY(a) {
  const c = Math.cos(a), s = Math.sin(a);
  return new Float32Array([c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, 0, 0, 0, 1]);
}

const VS = `attribute vec3 p; attribute vec3 n; uniform mat4 mvp; uniform mat4 rot; varying vec3 vn;
void main() { gl_Position = mvp * vec4(p, 1.0); vn = (rot * vec4(n, 0.0)).xyz; }`;
const FS = `precision mediump float; varying vec3 vn;
void main() {
  vec3 N = length(vn) > 0.0 ? normalize(vn) : vec3(0.0, 0.0, 1.0);
  if (N.z < 0.0) N = -N; // light the side facing the viewer: the winding is no guide (D3D assets wind clockwise)
  float d = max(dot(N, normalize(vec3(0.4, 0.6, 1.0))), 0.0);
  gl_FragColor = vec4(vec3(0.80, 0.72, 0.55) * (0.25 + 0.75 * d), 1.0);
}`;

// BACKGROUND is the clear colour (the test compares pixels against it).
export const BACKGROUND = [0.16, 0.18, 0.22];

// meshViewer draws mesh (from parseMesh) in canvas until destroy() is
// called. It throws when the browser has no WebGL.
export function meshViewer(canvas, mesh) {
  const opts = { preserveDrawingBuffer: true, antialias: true };
  let gl = canvas.getContext('webgl2', opts);
  let big = true;
  if (!gl) {
    gl = canvas.getContext('webgl', opts) || canvas.getContext('experimental-webgl', opts);
    if (!gl) throw new Error('this browser has no WebGL: the mesh cannot be drawn');
    big = !!gl.getExtension('OES_element_index_uint');
  }
  let { pos, nrm, idx } = mesh;
  if (!big && mesh.vertices > 65535) { // no 32-bit indices: draw unindexed
    const p = new Float32Array(idx.length * 3), q = new Float32Array(idx.length * 3);
    idx.forEach((v, i) => { p.set(pos.subarray(v * 3, v * 3 + 3), i * 3); q.set(nrm.subarray(v * 3, v * 3 + 3), i * 3); });
    pos = p; nrm = q; idx = null;
  }
  const prog = gl.createProgram();
  for (const [type, src] of [[gl.VERTEX_SHADER, VS], [gl.FRAGMENT_SHADER, FS]]) {
    const s = gl.createShader(type);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error('shader: ' + gl.getShaderInfoLog(s));
    gl.attachShader(prog, s);
  }
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error('shader: ' + gl.getProgramInfoLog(prog));
  gl.useProgram(prog);
  for (const [name, data] of [['p', pos], ['n', nrm]]) {
    const b = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
    const loc = gl.getAttribLocation(prog, name);
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, 3, gl.FLOAT, false, 0, 0);
  }
  let count = pos.length / 3, itype = 0;
  if (idx) {
    const data = big ? idx : Uint16Array.from(idx);
    itype = big ? gl.UNSIGNED_INT : gl.UNSIGNED_SHORT;
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, gl.createBuffer());
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, data, gl.STATIC_DRAW);
    count = idx.length;
  }
  const uMVP = gl.getUniformLocation(prog, 'mvp'), uRot = gl.getUniformLocation(prog, 'rot');
  gl.enable(gl.DEPTH_TEST);
  const { c, r } = bounds(mesh.pos);
  const fov = Math.PI / 4;
  let yaw = -0.6, pitch = 0.4, zoom = 1, frame = 0, gone = false;

  function draw() {
    frame = 0;
    if (gone) return;
    const w = Math.max(1, Math.round(canvas.clientWidth * devicePixelRatio));
    const h = Math.max(1, Math.round(canvas.clientHeight * devicePixelRatio));
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    gl.viewport(0, 0, w, h);
    gl.clearColor(...BACKGROUND, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    const dist = r / Math.sin(fov / 2) * zoom;
    const rot = mul(rotX(pitch), rotY(yaw));
    const view = mul(translate(0, 0, -dist), mul(rot, translate(-c[0], -c[1], -c[2])));
    gl.uniformMatrix4fv(uMVP, false, mul(perspective(fov, w / h, dist / 100, dist + 4 * r), view));
    gl.uniformMatrix4fv(uRot, false, rot);
    if (idx) gl.drawElements(gl.TRIANGLES, count, itype, 0);
    else gl.drawArrays(gl.TRIANGLES, 0, count);
    canvas.dataset.drawn = String(Number(canvas.dataset.drawn || 0) + 1);
  }
  const redraw = () => { if (!frame) frame = requestAnimationFrame(draw); };

  let drag = null;
  const on = (type, f, o) => canvas.addEventListener(type, f, o);
  on('pointerdown', (e) => { drag = [e.clientX, e.clientY]; canvas.setPointerCapture(e.pointerId); });
  on('pointerup', () => { drag = null; });
  on('pointercancel', () => { drag = null; });
  on('pointermove', (e) => {
    if (!drag) return;
    yaw += (e.clientX - drag[0]) * 0.01;
    pitch = Math.max(-1.55, Math.min(1.55, pitch + (e.clientY - drag[1]) * 0.01));
    drag = [e.clientX, e.clientY];
    redraw();
  });
  on('wheel', (e) => {
    e.preventDefault();
    zoom = Math.max(0.05, Math.min(50, zoom * Math.exp(e.deltaY * 0.001)));
    redraw();
  }, { passive: false });
  on('keydown', (e) => {
    const k = { ArrowLeft: () => { yaw -= 0.1; }, ArrowRight: () => { yaw += 0.1; },
      ArrowUp: () => { pitch = Math.max(-1.55, pitch - 0.1); }, ArrowDown: () => { pitch = Math.min(1.55, pitch + 0.1); },
      '+': () => { zoom /= 1.1; }, '-': () => { zoom *= 1.1; }, 0: () => { yaw = -0.6; pitch = 0.4; zoom = 1; } }[e.key];
    if (k) { e.preventDefault(); k(); redraw(); }
  });
  const ro = new ResizeObserver(redraw);
  ro.observe(canvas);
  redraw();
  return {
    reset() { yaw = -0.6; pitch = 0.4; zoom = 1; redraw(); },
    destroy() {
      gone = true;
      ro.disconnect();
      if (frame) cancelAnimationFrame(frame);
      const lose = gl.getExtension('WEBGL_lose_context');
      if (lose) lose.loseContext();
    },
  };
}
