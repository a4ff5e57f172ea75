// The Waymark demo page: a hybrid app's view of the local server. Everything it shows comes
// from the REST contract (api.js) with a public key; the base map from `GET /map/features`.
//
// Page address: `/?at=<lat>,<lng>` opens the map on that point and describes it (the form the
// `map` link of a three-word address uses); `&z=<zoom>` sets the zoom; `&key=<public key>`
// replaces the key the server filled in.
import { WaymarkClient, decodePolyline } from './api.js';
import { CanvasMap } from './map.js';

const $ = (id) => document.getElementById(id);

/** Timings the browser test reads (`window.waymarkDemo.metrics`). */
const metrics = { suggest: [], mapDrawn: null, featuresLoaded: null };

/** The key: `?key=` of the address (kept for the tab, then taken out of the address so that
 *  it does not travel in every `Referer`), else the one the server wrote into the page. */
function pageKey() {
  const params = new URLSearchParams(location.search);
  const fromUrl = params.get('key');
  if (fromUrl) {
    sessionStorage.setItem('waymark.key', fromUrl);
    params.delete('key');
    const rest = params.toString();
    history.replaceState(null, '', `${location.pathname}${rest ? `?${rest}` : ''}`);
    return fromUrl;
  }
  return sessionStorage.getItem('waymark.key')
    || document.querySelector('meta[name="waymark-key"]')?.content
    || '';
}

const waymark = new WaymarkClient({ key: pageKey() });

// ----- alerts: every refused answer is shown in words -----

function showError(err, context) {
  if (err?.name === 'AbortError') return;
  const text = context ? `${context}: ${err.message ?? err}` : String(err.message ?? err);
  $('alert-text').textContent = text;
  $('alert').hidden = false;
  $('alert').dataset.status = String(err.status ?? '');
}
$('alert-close').addEventListener('click', () => {
  $('alert').hidden = true;
});

// ----- the map -----

const state = {
  mode: 'explore',
  travel: 'driving',
  minutes: 10,
  routeFrom: null,
  routeTo: null,
  loadedBox: null,
  packBox: null,
  point: null,
};

const map = new CanvasMap($('map'), {
  onPick: (p) => pick(p),
  onViewChange: () => scheduleFeatures(),
});
$('map').addEventListener('drawn', () => {
  if (metrics.mapDrawn === null && map.roads.length) metrics.mapDrawn = performance.now();
}, { once: false });
$('zoom-in').addEventListener('click', () => map.zoomAround(1));
$('zoom-out').addEventListener('click', () => map.zoomAround(-1));
$('zoom-fit').addEventListener('click', () => state.packBox && map.fit(state.packBox));

let featuresTimer = 0;
let featuresAbort = null;

/** Loads the base layer for the view when it leaves the loaded box or needs more detail. */
function scheduleFeatures() {
  clearTimeout(featuresTimer);
  featuresTimer = setTimeout(() => {
    const view = map.bounds();
    const box = state.loadedBox;
    if (!box) return;
    const inside = view[0] >= box[0] && view[1] >= box[1] && view[2] <= box[2] && view[3] <= box[3];
    const spanView = Math.max(view[2] - view[0], view[3] - view[1]);
    const spanBox = Math.max(box[2] - box[0], box[3] - box[1]);
    const needsDetail = state.loadedTruncated && spanView < spanBox / 3;
    if (!inside || needsDetail) {
      const padX = (view[2] - view[0]) / 2;
      const padY = (view[3] - view[1]) / 2;
      loadFeatures([
        Math.max(-180, view[0] - padX), Math.max(-85, view[1] - padY),
        Math.min(180, view[2] + padX), Math.min(85, view[3] + padY),
      ]);
    }
  }, 250);
}

async function loadFeatures(bbox) {
  featuresAbort?.abort();
  featuresAbort = new AbortController();
  const params = bbox ? { bbox: bbox.map((v) => v.toFixed(5)).join(',') } : {};
  try {
    const fc = await waymark.get('/map/features', params, { signal: featuresAbort.signal });
    state.loadedBox = fc.bbox;
    state.loadedTruncated = fc.truncated || Math.max(fc.bbox[2] - fc.bbox[0], fc.bbox[3] - fc.bbox[1]) > 0.07;
    map.setFeatures(fc);
    showPacks(fc.packs ?? []);
    if (!bbox) {
      state.packBox = fc.bbox;
      if (!state.point) map.fit(fc.bbox);
    }
    metrics.featuresLoaded = performance.now();
    $('map-status').hidden = true;
  } catch (e) {
    if (e.name === 'AbortError') return;
    $('map-status').textContent = 'The map could not be loaded.';
    showError(e, 'Map');
  }
}

function showPacks(packs) {
  const el = $('packs');
  el.textContent = '';
  if (!packs.length) {
    el.textContent = 'No data pack installed.';
    return;
  }
  const label = document.createElement('strong');
  label.textContent = 'Packs ';
  el.append(label);
  packs.forEach((p, i) => {
    const span = document.createElement('span');
    span.className = 'pack';
    span.textContent = `${p.id} ${p.version}`;
    span.title = (p.attribution ?? []).map((a) => `${a.attribution} (${a.licence})`).join('\n');
    el.append(span);
    if (i < packs.length - 1) el.append(document.createTextNode(', '));
  });
  // Each source's attribution once, whichever packs carry it.
  const sources = new Map();
  for (const p of packs) {
    for (const a of p.attribution ?? []) sources.set(a.attribution, a.licence);
  }
  const attr = document.createElement('span');
  attr.className = 'attr';
  attr.textContent = [...sources.keys()].join(' · ');
  el.append(attr);
}

// ----- modes -----

function setMode(mode) {
  state.mode = mode;
  for (const b of document.querySelectorAll('.tabs button')) {
    b.setAttribute('aria-selected', String(b.dataset.mode === mode));
  }
  $('travel').hidden = mode === 'explore';
  $('minutes-row').hidden = mode !== 'reach';
  $('hint').textContent = {
    explore: 'Click the map to see the address, the local time, the stores near the point and its three-word address.',
    route: 'Click the start, then the destination.',
    reach: 'Click the map: the area reachable from there in the chosen time is drawn.',
  }[mode];
  $('hint').hidden = mode === 'explore' ? Boolean(state.point)
    : mode === 'route' ? Boolean(state.routeFrom) : Boolean(state.reachFrom);
  document.body.dataset.mode = mode;
  // Each mode shows its own overlays; the others are kept for when it comes back.
  map.setOverlay('route', mode === 'route' ? state.routeLine : null);
  map.setOverlay('isochrone', mode === 'reach' ? state.reachRing : null);
  map.setOverlay('stores', mode === 'explore' ? state.stores ?? [] : []);
  setMarkers();
  refreshMode();
}
for (const b of document.querySelectorAll('.tabs button')) {
  b.addEventListener('click', () => setMode(b.dataset.mode));
}
for (const r of document.querySelectorAll('input[name="mode"]')) {
  r.addEventListener('change', () => {
    state.travel = r.value;
    refreshMode();
  });
}
$('minutes').addEventListener('input', () => {
  state.minutes = Number($('minutes').value);
  $('minutes-out').textContent = `${state.minutes} min`;
});
$('minutes').addEventListener('change', () => refreshMode());

/** Recomputes the current mode's answer when it was made for another travel mode or time. */
function refreshMode() {
  if (state.mode === 'route' && state.routeFrom && state.routeTo
    && state.routeFor !== state.travel) {
    drawRoute();
  }
  if (state.mode === 'reach' && state.reachFrom
    && state.reachFor !== `${state.travel}/${state.minutes}`) {
    drawReach(state.reachFrom);
  }
}

function pick(p) {
  if (state.mode === 'route') {
    if (!state.routeFrom || state.routeTo) {
      state.routeFrom = p;
      state.routeTo = null;
      state.routeLine = null;
      routeSeq += 1;
      map.setOverlay('route', null);
      setMarkers();
      $('route').hidden = false;
      $('route-summary').textContent = 'Now click the destination.';
      $('route-ends').textContent = '';
      $('route-steps').textContent = '';
      delete $('route').dataset.metres;
    } else {
      state.routeTo = p;
      setMarkers();
      drawRoute();
    }
  } else if (state.mode === 'reach') {
    drawReach(p);
  } else {
    describePoint(p);
  }
}

function setMarkers() {
  const markers = [];
  if (state.mode === 'explore' && state.point) markers.push({ ...state.point, label: '' });
  if (state.mode === 'route') {
    if (state.routeFrom) markers.push({ ...state.routeFrom, label: 'A', colour: '#188038' });
    if (state.routeTo) markers.push({ ...state.routeTo, label: 'B', colour: '#d93025' });
  }
  if (state.mode === 'reach' && state.reachFrom) markers.push({ ...state.reachFrom, label: '', colour: '#6234dc' });
  map.setOverlay('markers', markers);
}

const ll = (p) => `${p.lat.toFixed(6)},${p.lng.toFixed(6)}`;

// ----- explore: reverse geocoding, local time, three words, stores -----

let pointSeq = 0;

async function describePoint(p, { centre = false } = {}) {
  const seq = ++pointSeq;
  state.point = p;
  setMarkers();
  if (centre) map.setView(p, Math.max(map.zoom, 16.5));
  $('hint').hidden = true;
  $('point').hidden = false;
  $('point-coords').textContent = `${p.lat.toFixed(5)}, ${p.lng.toFixed(5)}`;
  for (const id of ['point-address', 'point-time', 'point-words']) {
    $(id).textContent = '…';
    $(id).dataset.state = 'loading';
  }
  $('point-stores').textContent = '';
  history.replaceState(null, '', `?at=${p.lat.toFixed(6)},${p.lng.toFixed(6)}`);
  const current = () => seq === pointSeq;
  const set = (id, text, st = 'ok') => {
    if (!current()) return;
    $(id).textContent = text;
    $(id).dataset.state = st;
  };

  const address = waymark.get('/localities/geocode', { latlng: ll(p) }).then((r) => {
    const first = (r.results ?? [])[0];
    set('point-address', first?.formatted_address ?? 'No address here', first ? 'ok' : 'empty');
  }, (e) => {
    set('point-address', 'Unavailable', 'error');
    showError(e, 'Address');
  });

  const time = waymark.get('/geolocation/timezone', { location: ll(p) }).then((tz) => {
    const offset = (tz.raw_offset ?? 0) + (tz.dst_offset ?? 0);
    const local = new Date(Date.now() + offset * 1000);
    const hhmm = local.toISOString().slice(11, 16);
    const sign = offset < 0 ? '−' : '+';
    const h = Math.floor(Math.abs(offset) / 3600);
    const m = Math.round((Math.abs(offset) % 3600) / 60);
    set('point-time', `${hhmm} ${tz.timezone_name} (UTC${sign}${h}${m ? `:${String(m).padStart(2, '0')}` : ''}) · ${tz.timezone}`);
  }, (e) => {
    set('point-time', 'Unavailable', 'error');
    showError(e, 'Timezone');
  });

  const words = waymark.get('/threewords/convert-to-3wa', { coordinates: ll(p) }).then((w) => {
    if (!current()) return;
    const el = $('point-words');
    el.textContent = '';
    const strong = document.createElement('strong');
    strong.textContent = `///${w.words}`;
    el.append(strong);
    if (w.nearestPlace) el.append(document.createTextNode(` near ${w.nearestPlace}`));
    el.dataset.state = 'ok';
  }, (e) => {
    if (e.notAvailable) {
      set('point-words', 'Not available in this build', 'unavailable');
    } else {
      set('point-words', 'Unavailable', 'error');
      showError(e, 'Three-word address');
    }
  });

  const stores = waymark.get('/stores/search', { lat: p.lat.toFixed(6), lng: p.lng.toFixed(6), radius: 3000, stores_by_page: 5 })
    .then((r) => {
      if (!current()) return;
      const list = $('point-stores');
      const features = r.features ?? [];
      list.textContent = '';
      if (!features.length) {
        const li = document.createElement('li');
        li.className = 'muted';
        li.textContent = 'No store within 3 km.';
        list.append(li);
      }
      for (const f of features) {
        const props = f.properties ?? {};
        const li = document.createElement('li');
        const name = document.createElement('span');
        name.textContent = props.name ?? props.store_id ?? 'Store';
        const dist = document.createElement('span');
        dist.className = 'muted';
        const d = props.distance ?? props.distance_m;
        dist.textContent = typeof d === 'number' ? (d >= 1000 ? `${(d / 1000).toFixed(1)} km` : `${Math.round(d)} m`) : '';
        const addr = document.createElement('small');
        addr.textContent = [...(props.address?.lines ?? []), props.address?.city].filter(Boolean).join(', ');
        li.append(name, dist, addr);
        list.append(li);
      }
      state.stores = features.map((f) => ({ lat: f.geometry.coordinates[1], lng: f.geometry.coordinates[0] }));
      map.setOverlay('stores', state.stores);
    }, (e) => {
      if (!current()) return;
      const li = document.createElement('li');
      li.className = 'muted';
      li.textContent = e.notAvailable ? 'Not available in this build' : 'Unavailable';
      $('point-stores').replaceChildren(li);
      if (!e.notAvailable) showError(e, 'Stores');
    });

  await Promise.allSettled([address, time, words, stores]);
}

$('route-from').addEventListener('click', () => {
  if (!state.point) return;
  const from = state.point;
  setMode('route');
  state.routeFrom = null;
  pick(from);
});
$('reach-from').addEventListener('click', () => {
  if (!state.point) return;
  const from = state.point;
  setMode('reach');
  drawReach(from);
});

// ----- route -----

let routeSeq = 0;

async function drawRoute() {
  const seq = ++routeSeq;
  const { routeFrom: a, routeTo: b } = state;
  $('route').hidden = false;
  $('hint').hidden = true;
  $('route-summary').textContent = 'Finding the route…';
  try {
    const r = await waymark.get('/distance/route/json', {
      origin: ll(a), destination: ll(b), mode: state.travel, details: 'full',
    });
    if (seq !== routeSeq) return;
    const route = r.routes?.[0];
    const leg = route?.legs?.[0];
    if (!route || !leg) throw new Error('The answer has no route');
    state.routeLine = decodePolyline(route.overview_polyline.points);
    state.routeFor = state.travel;
    if (state.mode === 'route') map.setOverlay('route', state.routeLine);
    $('route-summary').textContent = `${leg.distance.text} · ${leg.duration.text}`;
    $('route').dataset.metres = String(leg.distance.value);
    $('route-ends').textContent = [leg.start_address, leg.end_address].filter(Boolean).join(' → ');
    const steps = $('route-steps');
    steps.textContent = '';
    for (const s of leg.steps ?? []) {
      const li = document.createElement('li');
      const text = document.createElement('span');
      text.textContent = s.instruction;
      const dist = document.createElement('span');
      dist.className = 'muted';
      dist.textContent = s.distance?.text ?? '';
      li.append(text, dist);
      steps.append(li);
    }
  } catch (e) {
    if (seq !== routeSeq) return;
    $('route-summary').textContent = 'No route.';
    showError(e, 'Route');
  }
}

// ----- isochrone -----

let reachSeq = 0;

async function drawReach(p) {
  const seq = ++reachSeq;
  state.reachFrom = p;
  setMarkers();
  $('reach').hidden = false;
  $('hint').hidden = true;
  $('reach-summary').textContent = 'Computing…';
  $('reach-origin').textContent = `From ${p.lat.toFixed(5)}, ${p.lng.toFixed(5)}`;
  try {
    const r = await waymark.get('/distance/isochrone/json', {
      origin: ll(p), mode: state.travel, method: 'time', value: state.minutes,
    });
    if (seq !== reachSeq) return;
    const ring = decodePolyline(r.isoline.geometry);
    state.reachRing = ring;
    state.reachFor = `${state.travel}/${state.minutes}`;
    if (state.mode === 'reach') map.setOverlay('isochrone', ring);
    $('reach').dataset.points = String(ring.length);
    const travel = { driving: 'driving', walking: 'walking', cycling: 'cycling' }[state.travel];
    $('reach-summary').textContent = `Within ${r.isoline.time?.text ?? `${state.minutes} min`} ${travel}`;
  } catch (e) {
    if (seq !== reachSeq) return;
    state.reachRing = null;
    map.setOverlay('isochrone', null);
    $('reach-summary').textContent = 'No area.';
    showError(e, 'Isochrone');
  }
}

// ----- search: autocomplete as you type, details on selection -----

const input = $('search');
const list = $('suggestions');
let suggestAbort = null;
let suggestSeq = 0;
let active = -1;

function closeSuggestions() {
  list.hidden = true;
  list.parentElement.setAttribute('aria-expanded', 'false');
  active = -1;
}

input.addEventListener('input', async (event) => {
  const started = event.timeStamp || performance.now();
  const text = input.value.trim();
  const seq = ++suggestSeq;
  suggestAbort?.abort();
  if (!text) {
    closeSuggestions();
    return;
  }
  suggestAbort = new AbortController();
  try {
    const r = await waymark.get('/localities/autocomplete', {
      input: text,
      types: 'address|route|locality|postal_code|point_of_interest',
      location: ll(map.center),
      radius: 20000,
    }, { signal: suggestAbort.signal });
    if (seq !== suggestSeq) return;
    renderSuggestions(r.localities ?? [], text);
    requestAnimationFrame(() => setTimeout(() => {
      metrics.suggest.push({ input: text, ms: performance.now() - started, count: list.children.length });
    }, 0));
  } catch (e) {
    if (e.name === 'AbortError' || seq !== suggestSeq) return;
    closeSuggestions();
    showError(e, 'Search');
  }
});

function renderSuggestions(items, text) {
  list.textContent = '';
  active = -1;
  if (!items.length) {
    const li = document.createElement('li');
    li.className = 'empty';
    li.textContent = `Nothing found for “${text}”`;
    list.append(li);
  }
  items.forEach((s, i) => {
    const li = document.createElement('li');
    li.role = 'option';
    li.id = `suggestion-${i}`;
    li.dataset.publicId = s.public_id;
    li.dataset.description = s.description ?? '';
    // Bold the matched parts of the description.
    const d = s.description ?? '';
    const marks = [...(s.matched_substrings?.description ?? [])].sort((a, b) => a.offset - b.offset);
    let at = 0;
    for (const m of marks) {
      if (m.offset < at) continue;
      li.append(document.createTextNode(d.slice(at, m.offset)));
      const b = document.createElement('b');
      b.textContent = d.slice(m.offset, m.offset + m.length);
      li.append(b);
      at = m.offset + m.length;
    }
    li.append(document.createTextNode(d.slice(at)));
    const kind = document.createElement('small');
    kind.textContent = (s.types ?? [])[0]?.replace(/[._]/g, ' ') ?? '';
    li.append(kind);
    li.addEventListener('pointerdown', (e) => {
      e.preventDefault();
      choose(s);
    });
    list.append(li);
  });
  list.hidden = false;
  list.parentElement.setAttribute('aria-expanded', 'true');
}

input.addEventListener('keydown', (e) => {
  const options = [...list.querySelectorAll('li[role="option"]')];
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    if (list.hidden || !options.length) return;
    e.preventDefault();
    active = (active + (e.key === 'ArrowDown' ? 1 : -1) + options.length) % options.length;
    options.forEach((o, i) => o.setAttribute('aria-selected', String(i === active)));
    input.setAttribute('aria-activedescendant', options[active].id);
  } else if (e.key === 'Enter') {
    const o = options[Math.max(0, active)];
    if (o && !list.hidden) {
      e.preventDefault();
      choose({ public_id: o.dataset.publicId, description: o.dataset.description });
    }
  } else if (e.key === 'Escape') {
    closeSuggestions();
  }
});
input.addEventListener('blur', () => setTimeout(closeSuggestions, 150));

async function choose(s) {
  closeSuggestions();
  input.value = s.description ?? input.value;
  try {
    const r = await waymark.get('/localities/details', { public_id: s.public_id, fields: 'geometry|address_components' });
    const res = r.result;
    const loc = res.geometry.location;
    setMode('explore');
    $('details').hidden = false;
    $('details-title').textContent = res.formatted_address;
    $('details-sub').textContent = `${(res.types ?? []).join(', ')} · ${loc.lat.toFixed(5)}, ${loc.lng.toFixed(5)}`;
    const dl = $('details-list');
    dl.textContent = '';
    for (const c of res.address_components ?? []) {
      const dt = document.createElement('dt');
      dt.textContent = (c.types ?? [])[0]?.replace(/_/g, ' ') ?? '';
      const dd = document.createElement('dd');
      dd.textContent = Array.isArray(c.long_name) ? c.long_name.join(', ') : c.long_name;
      dl.append(dt, dd);
    }
    const vp = res.geometry.viewport;
    if (vp && (vp.northeast.lat - vp.southwest.lat) > 0.004) {
      map.fit([vp.southwest.lng, vp.southwest.lat, vp.northeast.lng, vp.northeast.lat], 40);
    } else {
      map.setView(loc, Math.max(map.zoom, 17));
    }
    describePoint(loc);
  } catch (e) {
    showError(e, 'Details');
  }
}

// ----- start -----

function start() {
  setMode('explore');
  const at = new URLSearchParams(location.search).get('at');
  const z = Number(new URLSearchParams(location.search).get('z'));
  const m = at?.match(/^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/);
  if (at && !m) showError(new Error(`the address has ?at=${at}; give ?at=<lat>,<lng>`), 'Link');
  if (m && Math.abs(Number(m[1])) <= 90 && Math.abs(Number(m[2])) <= 180) {
    const p = { lat: Number(m[1]), lng: Number(m[2]) };
    map.setView(p, z > 0 ? z : 17);
    describePoint(p);
  }
  if (!waymark.key) {
    showError(new Error('this page has no key: open it with ?key=<your public key>'), 'Key');
  }
  loadFeatures(null);
}

window.waymarkDemo = { map, state, metrics, client: waymark };
start();
