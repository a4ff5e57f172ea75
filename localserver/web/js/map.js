// An offline map on a <canvas>: Web Mercator, drag to pan, wheel / pinch / buttons to zoom,
// click to pick a point. It draws the base layer (roads, places, points of interest) that
// `GET /map/features` returns and overlays (a route, an isochrone, markers, stores) on top.
// No tiles, no network beyond the local server.

const TILE = 256;
const MIN_ZOOM = 3;
const MAX_ZOOM = 19.5;

/** Road styles by OSM highway class: [width at zoom 16 in px, fill, casing]. */
const ROAD_STYLE = {
  motorway: [9, '#f2a65a', '#c9803b'],
  trunk: [8.5, '#f7be6d', '#cf9547'],
  primary: [8, '#fbd683', '#d3ac58'],
  secondary: [7, '#fdf0b5', '#cdbb79'],
  tertiary: [6.5, '#ffffff', '#c3bcae'],
  motorway_link: [5, '#f2a65a', '#c9803b'],
  trunk_link: [5, '#f7be6d', '#cf9547'],
  primary_link: [5, '#fbd683', '#d3ac58'],
  secondary_link: [5, '#fdf0b5', '#cdbb79'],
  tertiary_link: [4.5, '#ffffff', '#c3bcae'],
  unclassified: [5, '#ffffff', '#c8c1b4'],
  residential: [5, '#ffffff', '#c8c1b4'],
  living_street: [4.5, '#f4f2ee', '#c8c1b4'],
  pedestrian: [4.5, '#eeeaf2', '#c9c2d2'],
  road: [4, '#ffffff', '#c8c1b4'],
  service: [3, '#ffffff', '#cfc9bd'],
  track: [1.6, '#b59a6a', null],
  cycleway: [1.6, '#4f8fd6', null],
  footway: [1.3, '#e08a7a', null],
  path: [1.2, '#c5927f', null],
  steps: [1.6, '#e08a7a', null],
  bridleway: [1.2, '#6f9e6a', null],
  ferry: [1.5, '#5b8fd1', null],
};
const DASHED = new Set(['footway', 'path', 'steps', 'track', 'bridleway', 'ferry', 'cycleway']);
/** Zoom from which a class is drawn (others: always). */
const MIN_ZOOM_OF = {
  footway: 15, path: 15, steps: 15.5, track: 15, bridleway: 15.5, cycleway: 15, service: 14.5,
};

/** Web Mercator: [x, y] in 0..1 of the world. */
export function mercator(lat, lng) {
  const s = Math.sin((Math.max(-85.05, Math.min(85.05, lat)) * Math.PI) / 180);
  return [(lng + 180) / 360, 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)];
}

/** Inverse of `mercator`. */
export function unmercator(x, y) {
  const lng = x * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180) / Math.PI;
  return { lat, lng };
}

export class CanvasMap {
  /** `canvas`: the element; `onPick(latlng)`: called on a click (not a drag). */
  constructor(canvas, { onPick = () => {}, onViewChange = () => {} } = {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.onPick = onPick;
    this.onViewChange = onViewChange;
    this.center = { lat: 0, lng: 0 };
    this.zoom = 3;
    this.roads = [];
    this.points = [];
    this.overlays = { isochrone: null, route: null, markers: [], stores: [] };
    this.frame = 0;
    this.drawnOnce = false;
    this.pointers = new Map();
    this.resize();
    new ResizeObserver(() => this.resize()).observe(canvas);
    this.listen();
  }

  // ----- view -----

  resize() {
    const r = this.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    this.width = Math.max(1, r.width);
    this.height = Math.max(1, r.height);
    this.canvas.width = Math.round(this.width * dpr);
    this.canvas.height = Math.round(this.height * dpr);
    this.dpr = dpr;
    this.redraw();
  }

  get scale() {
    return TILE * 2 ** this.zoom;
  }

  /** Screen position (CSS px, relative to the canvas) of a point. */
  toScreen(lat, lng) {
    const [x, y] = mercator(lat, lng);
    const [cx, cy] = mercator(this.center.lat, this.center.lng);
    return [(x - cx) * this.scale + this.width / 2, (y - cy) * this.scale + this.height / 2];
  }

  /** The point under a screen position. */
  fromScreen(sx, sy) {
    const [cx, cy] = mercator(this.center.lat, this.center.lng);
    return unmercator(cx + (sx - this.width / 2) / this.scale,
      cy + (sy - this.height / 2) / this.scale);
  }

  /** `[west, south, east, north]` of the view. */
  bounds() {
    const nw = this.fromScreen(0, 0);
    const se = this.fromScreen(this.width, this.height);
    return [nw.lng, se.lat, se.lng, nw.lat];
  }

  setView(center, zoom = this.zoom) {
    this.center = { lat: center.lat, lng: center.lng };
    this.zoom = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, zoom));
    this.redraw();
    this.onViewChange();
  }

  /** Fits `[west, south, east, north]` in the view. */
  fit([w, s, e, n], padding = 24) {
    const [x0, y0] = mercator(n, w);
    const [x1, y1] = mercator(s, e);
    const zx = Math.log2((this.width - 2 * padding) / Math.max(1e-12, (x1 - x0) * TILE));
    const zy = Math.log2((this.height - 2 * padding) / Math.max(1e-12, (y1 - y0) * TILE));
    this.setView(unmercator((x0 + x1) / 2, (y0 + y1) / 2), Math.min(zx, zy, 18));
  }

  zoomAround(delta, sx = this.width / 2, sy = this.height / 2) {
    const before = this.fromScreen(sx, sy);
    this.zoom = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, this.zoom + delta));
    const [bx, by] = mercator(before.lat, before.lng);
    this.center = unmercator(bx - (sx - this.width / 2) / this.scale,
      by - (sy - this.height / 2) / this.scale);
    this.redraw();
    this.onViewChange();
  }

  panBy(dx, dy) {
    const [cx, cy] = mercator(this.center.lat, this.center.lng);
    this.center = unmercator(cx - dx / this.scale, cy - dy / this.scale);
    this.redraw();
    this.onViewChange();
  }

  // ----- data -----

  /** Takes a `/map/features` answer: projects every position once. */
  setFeatures(collection) {
    const roads = [];
    const points = [];
    for (const f of collection.features ?? []) {
      const p = f.properties ?? {};
      if (f.geometry?.type === 'LineString') {
        const xy = new Float64Array(f.geometry.coordinates.length * 2);
        f.geometry.coordinates.forEach(([lng, lat], i) => {
          const [x, y] = mercator(lat, lng);
          xy[2 * i] = x;
          xy[2 * i + 1] = y;
        });
        roads.push({ cls: p.class, name: p.name, xy });
      } else if (f.geometry?.type === 'Point') {
        const [lng, lat] = f.geometry.coordinates;
        const [x, y] = mercator(lat, lng);
        points.push({ layer: p.layer, cls: p.class, name: p.name, x, y });
      }
    }
    // Minor roads first, so that major roads are drawn over them.
    roads.reverse();
    this.roads = roads;
    this.points = points;
    this.redraw();
  }

  setOverlay(name, value) {
    this.overlays[name] = value;
    this.redraw();
  }

  // ----- drawing -----

  redraw() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  draw() {
    const { ctx, dpr } = this;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#f1eee7';
    ctx.fillRect(0, 0, this.width, this.height);
    const [cx, cy] = mercator(this.center.lat, this.center.lng);
    const s = this.scale;
    const ox = this.width / 2 - cx * s;
    const oy = this.height / 2 - cy * s;
    const k = 2 ** (this.zoom - 16);
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    const path = (xy) => {
      ctx.beginPath();
      ctx.moveTo(xy[0] * s + ox, xy[1] * s + oy);
      for (let i = 2; i < xy.length; i += 2) ctx.lineTo(xy[i] * s + ox, xy[i + 1] * s + oy);
    };
    const widthOf = (style) => Math.max(0.6, style[0] * Math.min(1.6, Math.max(0.18, k)));
    // Casings, then fills, so that crossings look joined.
    const shown = this.roads.filter((r) => this.zoom >= (MIN_ZOOM_OF[r.cls] ?? 0));
    for (const r of shown) {
      const st = ROAD_STYLE[r.cls] ?? ROAD_STYLE.road;
      if (!st[2] || k < 0.25) continue;
      path(r.xy);
      ctx.strokeStyle = st[2];
      ctx.lineWidth = widthOf(st) + 1.6;
      ctx.stroke();
    }
    for (const r of shown) {
      const st = ROAD_STYLE[r.cls] ?? ROAD_STYLE.road;
      path(r.xy);
      ctx.setLineDash(DASHED.has(r.cls) ? [3, 3] : []);
      // Paths fade in with the zoom, so that they do not crowd the streets.
      ctx.globalAlpha = DASHED.has(r.cls) && this.zoom < 16 ? 0.3 + (this.zoom - 15) * 0.7 : 1;
      ctx.strokeStyle = st[1];
      ctx.lineWidth = widthOf(st);
      ctx.stroke();
    }
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;
    this.drawIsochrone(ox, oy, s);
    this.drawRoadNames(shown, ox, oy, s);
    this.drawRoute(ox, oy, s);
    this.drawPoints(ox, oy, s);
    this.drawStores();
    this.drawMarkers();
    this.drawnOnce = true;
    this.canvas.dispatchEvent(new CustomEvent('drawn'));
  }

  /** Street names along their longest straight piece, where they fit and do not collide. */
  drawRoadNames(roads, ox, oy, s) {
    this.nameBoxes = [];
    if (this.zoom < 15) return;
    const { ctx } = this;
    ctx.font = '500 11px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    const seen = new Set();
    // Major roads were sorted last: name them first.
    for (let i = roads.length - 1; i >= 0; i--) {
      const r = roads[i];
      if (!r.name || DASHED.has(r.cls) || seen.has(r.name)) continue;
      let best = null;
      for (let j = 0; j + 3 < r.xy.length; j += 2) {
        const x0 = r.xy[j] * s + ox;
        const y0 = r.xy[j + 1] * s + oy;
        const x1 = r.xy[j + 2] * s + ox;
        const y1 = r.xy[j + 3] * s + oy;
        const len = Math.hypot(x1 - x0, y1 - y0);
        if (!best || len > best.len) best = { x0, y0, x1, y1, len };
      }
      if (!best) continue;
      const w = ctx.measureText(r.name).width;
      const cx = (best.x0 + best.x1) / 2;
      const cy = (best.y0 + best.y1) / 2;
      if (best.len < w + 16 || cx < 0 || cy < 0 || cx > this.width || cy > this.height) continue;
      let angle = Math.atan2(best.y1 - best.y0, best.x1 - best.x0);
      if (angle > Math.PI / 2) angle -= Math.PI;
      if (angle < -Math.PI / 2) angle += Math.PI;
      // The screen box of the rotated label.
      const hw = (Math.abs(w * Math.cos(angle)) + Math.abs(14 * Math.sin(angle))) / 2 + 3;
      const hh = (Math.abs(w * Math.sin(angle)) + Math.abs(14 * Math.cos(angle))) / 2 + 3;
      const box = [cx - hw, cy - hh, cx + hw, cy + hh];
      if (this.nameBoxes.some((b) => box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3])) {
        continue;
      }
      this.nameBoxes.push(box);
      seen.add(r.name);
      ctx.save();
      ctx.translate(cx, cy);
      ctx.rotate(angle);
      ctx.lineWidth = 3;
      ctx.strokeStyle = 'rgba(255,255,255,0.92)';
      ctx.strokeText(r.name, 0, 0);
      ctx.fillStyle = '#4a4540';
      ctx.fillText(r.name, 0, 0);
      ctx.restore();
    }
  }

  drawIsochrone(ox, oy, s) {
    const iso = this.overlays.isochrone;
    if (!iso || iso.length < 3) return;
    const { ctx } = this;
    ctx.beginPath();
    iso.forEach(([lat, lng], i) => {
      const [x, y] = mercator(lat, lng);
      if (i === 0) ctx.moveTo(x * s + ox, y * s + oy);
      else ctx.lineTo(x * s + ox, y * s + oy);
    });
    ctx.closePath();
    ctx.fillStyle = 'rgba(124, 77, 255, 0.16)';
    ctx.fill();
    ctx.strokeStyle = 'rgba(98, 52, 220, 0.85)';
    ctx.lineWidth = 2;
    ctx.stroke();
  }

  drawRoute(ox, oy, s) {
    const route = this.overlays.route;
    if (!route || route.length < 2) return;
    const { ctx } = this;
    ctx.beginPath();
    route.forEach(([lat, lng], i) => {
      const [x, y] = mercator(lat, lng);
      if (i === 0) ctx.moveTo(x * s + ox, y * s + oy);
      else ctx.lineTo(x * s + ox, y * s + oy);
    });
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 9;
    ctx.stroke();
    ctx.strokeStyle = '#1a73e8';
    ctx.lineWidth = 5.5;
    ctx.stroke();
  }

  drawPoints(ox, oy, s) {
    const { ctx } = this;
    // Street names were placed first: labels of points keep clear of them.
    const placed = (this.nameBoxes ?? []).map((b) => [b[0], b[1], b[2] - b[0], b[3] - b[1]]);
    const free = (x, y, w, h) => {
      for (const b of placed) {
        if (x < b[0] + b[2] && b[0] < x + w && y < b[1] + b[3] && b[1] < y + h) return false;
      }
      placed.push([x, y, w, h]);
      return true;
    };
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    // Places (largest first, as the server sorts them), then points of interest at street zoom.
    for (const p of this.points) {
      if (p.layer !== 'place' || !p.name) continue;
      const x = p.x * s + ox;
      const y = p.y * s + oy;
      if (x < -50 || y < -20 || x > this.width + 50 || y > this.height + 20) continue;
      const big = p.cls === 'city' || p.cls === 'town';
      ctx.font = `${big ? 600 : 500} ${big ? 15 : 12.5}px system-ui, sans-serif`;
      const label = big ? p.name : p.name.toUpperCase();
      const w = ctx.measureText(label).width;
      if (!free(x - w / 2 - 4, y - 9, w + 8, 18)) continue;
      ctx.lineWidth = 3.5;
      ctx.strokeStyle = 'rgba(255,255,255,0.9)';
      ctx.strokeText(label, x, y);
      ctx.fillStyle = big ? '#2d2a26' : '#6d665c';
      ctx.fillText(label, x, y);
    }
    if (this.zoom < 16.3) return;
    ctx.textAlign = 'left';
    for (const p of this.points) {
      if (p.layer !== 'poi') continue;
      const x = p.x * s + ox;
      const y = p.y * s + oy;
      if (x < -10 || y < -10 || x > this.width + 10 || y > this.height + 10) continue;
      ctx.font = '500 11px system-ui, sans-serif';
      const w = this.zoom >= 16.8 && p.name ? ctx.measureText(p.name).width : 0;
      if (!free(x - 4, y - 7, w + 14, 14)) continue;
      ctx.beginPath();
      ctx.arc(x, y, 3, 0, Math.PI * 2);
      ctx.fillStyle = poiColour(p.cls);
      ctx.fill();
      if (w) {
        ctx.lineWidth = 3;
        ctx.strokeStyle = 'rgba(255,255,255,0.9)';
        ctx.strokeText(p.name, x + 6, y);
        ctx.fillStyle = '#5c564d';
        ctx.fillText(p.name, x + 6, y);
      }
    }
  }

  drawStores() {
    const { ctx } = this;
    for (const st of this.overlays.stores) {
      const [x, y] = this.toScreen(st.lat, st.lng);
      ctx.beginPath();
      ctx.roundRect(x - 7, y - 7, 14, 14, 4);
      ctx.fillStyle = '#0f9d58';
      ctx.fill();
      ctx.strokeStyle = '#fff';
      ctx.lineWidth = 2;
      ctx.stroke();
      ctx.fillStyle = '#fff';
      ctx.font = '700 9px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText('S', x, y + 0.5);
    }
  }

  drawMarkers() {
    const { ctx } = this;
    for (const m of this.overlays.markers) {
      const [x, y] = this.toScreen(m.lat, m.lng);
      ctx.beginPath();
      ctx.moveTo(x, y);
      ctx.bezierCurveTo(x - 4, y - 9, x - 11, y - 13, x - 11, y - 21);
      ctx.arc(x, y - 21, 11, Math.PI, 0);
      ctx.bezierCurveTo(x + 11, y - 13, x + 4, y - 9, x, y);
      ctx.fillStyle = m.colour ?? '#d93025';
      ctx.shadowColor = 'rgba(0,0,0,0.3)';
      ctx.shadowBlur = 4;
      ctx.fill();
      ctx.shadowBlur = 0;
      ctx.fillStyle = '#fff';
      ctx.font = '700 11px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText(m.label ?? '', x, y - 21);
    }
  }

  // ----- input -----

  listen() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener('pointerdown', (e) => {
      c.setPointerCapture(e.pointerId);
      this.pointers.set(e.pointerId, [e.offsetX, e.offsetY]);
      if (this.pointers.size === 1) drag = { x: e.offsetX, y: e.offsetY, moved: 0 };
      else drag = null;
    });
    c.addEventListener('pointermove', (e) => {
      if (!this.pointers.has(e.pointerId)) return;
      const prev = this.pointers.get(e.pointerId);
      if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const before = Math.hypot(a[0] - b[0], a[1] - b[1]);
        this.pointers.set(e.pointerId, [e.offsetX, e.offsetY]);
        const [a2, b2] = [...this.pointers.values()];
        const after = Math.hypot(a2[0] - b2[0], a2[1] - b2[1]);
        if (before > 0 && after > 0) {
          this.zoomAround(Math.log2(after / before), (a2[0] + b2[0]) / 2, (a2[1] + b2[1]) / 2);
        }
        return;
      }
      this.pointers.set(e.pointerId, [e.offsetX, e.offsetY]);
      if (drag) {
        const dx = e.offsetX - prev[0];
        const dy = e.offsetY - prev[1];
        drag.moved += Math.abs(dx) + Math.abs(dy);
        if (drag.moved > 4) {
          c.classList.add('dragging');
          this.panBy(dx, dy);
        }
      }
    });
    const end = (e) => {
      this.pointers.delete(e.pointerId);
      c.classList.remove('dragging');
      if (drag && drag.moved <= 4 && e.type === 'pointerup') {
        this.onPick(this.fromScreen(e.offsetX, e.offsetY));
      }
      drag = null;
    };
    c.addEventListener('pointerup', end);
    c.addEventListener('pointercancel', end);
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const step = e.deltaMode === 1 ? e.deltaY / 3 : e.deltaY / 100;
      this.zoomAround(-Math.max(-1, Math.min(1, step)) * 0.5, e.offsetX, e.offsetY);
    }, { passive: false });
    c.addEventListener('dblclick', (e) => this.zoomAround(1, e.offsetX, e.offsetY));
    c.addEventListener('keydown', (e) => {
      const moves = { ArrowLeft: [60, 0], ArrowRight: [-60, 0], ArrowUp: [0, 60], ArrowDown: [0, -60] };
      if (moves[e.key]) {
        e.preventDefault();
        this.panBy(...moves[e.key]);
      } else if (e.key === '+' || e.key === '=') this.zoomAround(1);
      else if (e.key === '-') this.zoomAround(-1);
    });
  }
}

function poiColour(cls = '') {
  if (cls.startsWith('business.food')) return '#e8710a';
  if (cls.startsWith('business')) return '#a142f4';
  if (cls.startsWith('tourism')) return '#d01884';
  if (cls.startsWith('transit')) return '#1967d2';
  if (cls.startsWith('education')) return '#795548';
  if (cls.startsWith('medical')) return '#d93025';
  if (cls.startsWith('park')) return '#188038';
  return '#80868b';
}
