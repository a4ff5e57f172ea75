// Waymark REST client for web pages and web views: the Location Platform contract over the
// local server, with a public key. Copy this file into a hybrid app as it is.
//
// The key goes in the `key` query parameter; the browser sends the `Referer` itself (the
// page's origin must match one of the key's domains). Every answer that is not a success
// becomes an `ApiError` whose `message` says, in words, what went wrong and what to do.
//
//   import { WaymarkClient } from './api.js';
//   const waymark = new WaymarkClient({ key: 'pk_...', server: 'http://127.0.0.1:8787' });
//   const { localities } = await waymark.get('/localities/autocomplete', { input: 'Mannerheim' });

/** An answer that is not a success: `status` (HTTP), `code` (distance `status` or ''),
 *  `message` for people, `body` as received. `status` 0 means the server did not answer. */
export class ApiError extends Error {
  constructor(status, message, body = null, code = '') {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.code = code;
  }

  /** Whether the operation is not part of this build of the server (501). */
  get notAvailable() {
    return this.status === 501;
  }
}

const STATUS_WORDS = {
  400: 'The request was malformed',
  401: 'The key was refused',
  402: 'The free quota of this key is used up',
  403: 'This key may not be used here',
  404: 'Nothing was found',
  405: 'The server does not allow this method here',
  413: 'The request is too large',
  422: 'The request has invalid parameters',
  429: 'Too many requests',
  500: 'The server failed',
  501: 'Not available in this build',
  503: 'The data for this is not installed',
};

/** Text of the error body: `detail` (string or list of field errors), `details`, `value`. */
function bodyText(body) {
  if (!body || typeof body !== 'object') return '';
  const d = body.detail ?? body.details ?? body.value;
  if (typeof d === 'string') return d;
  if (Array.isArray(d)) {
    return d
      .map((e) => {
        const where = Array.isArray(e.loc) ? e.loc.filter((p) => p !== 'query').join('.') : '';
        return where ? `${where}: ${e.msg}` : e.msg;
      })
      .join('; ');
  }
  return '';
}

/** Describes a refused answer in words. */
export function describe(status, body, retryAfter) {
  const head = STATUS_WORDS[status] ?? `The server answered ${status}`;
  let text = `${head} (${status})`;
  const detail = bodyText(body);
  if (detail) text += `: ${detail}`;
  if (!/[.!?]$/.test(text)) text += '.';
  if (status === 429 && retryAfter && !/retry/i.test(detail)) text += ` Try again in ${retryAfter} s.`;
  if (status === 401 || status === 403) {
    text += status === 401
      ? ' Give the page a valid public key (?key=... in its address).'
      : ' The key\'s domain restrictions must allow this page\'s address.';
  }
  return text;
}

/** Words for the `status` of a distance answer that is not OK. */
const DISTANCE_STATUS = {
  ZERO_RESULTS: 'No route was found between these points',
  MAX_ROUTE_LENGTH_EXCEEDED: 'The route is longer than 500 km',
  MAX_ELEMENTS_EXCEEDED: 'Too many points for one request',
  INVALID_REQUEST: 'The request was refused',
  REQUEST_DENIED: 'The key may not use this service',
  OVER_QUERY_LIMIT: 'Too many requests',
  BACKEND_ERROR: 'The routing engine failed',
};

export class WaymarkClient {
  /** `key`: public key; `server`: base URL ('' for the page's own origin). */
  constructor({ key = '', server = '' } = {}) {
    this.key = key;
    this.server = server.replace(/\/$/, '');
  }

  /** The URL of `path` with `params` (undefined/null/'' skipped) and the key. */
  url(path, params = {}) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) {
      if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
    }
    if (this.key) q.set('key', this.key);
    return `${this.server}${path}?${q}`;
  }

  /** GET `path`; resolves to the JSON answer, rejects with an `ApiError`. `signal` aborts. */
  async get(path, params = {}, { signal } = {}) {
    let resp;
    try {
      resp = await fetch(this.url(path, params), {
        signal,
        headers: { Accept: 'application/json' },
      });
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      throw new ApiError(0, 'The local server did not answer: is `waymark serve` running, and '
        + 'does it allow this page\'s origin?');
    }
    let body = null;
    try {
      body = await resp.json();
    } catch {
      body = null;
    }
    if (!resp.ok) {
      throw new ApiError(resp.status, describe(resp.status, body, resp.headers.get('retry-after')),
        body);
    }
    if (body && typeof body.status === 'string' && body.status in DISTANCE_STATUS) {
      throw new ApiError(resp.status, `${DISTANCE_STATUS[body.status]} (${body.status})`, body,
        body.status);
    }
    return body;
  }
}

/** Decodes a Google encoded polyline (precision 5 by default) into `[lat, lng]` pairs. */
export function decodePolyline(text, precision = 5) {
  const factor = 10 ** precision;
  const out = [];
  let lat = 0;
  let lng = 0;
  let i = 0;
  const next = () => {
    let result = 0;
    let shift = 0;
    let b;
    do {
      b = text.charCodeAt(i++) - 63;
      result |= (b & 0x1f) << shift;
      shift += 5;
    } while (b >= 0x20);
    return result & 1 ? ~(result >> 1) : result >> 1;
  };
  while (i < text.length) {
    lat += next();
    lng += next();
    out.push([lat / factor, lng / factor]);
  }
  return out;
}
