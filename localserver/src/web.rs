//! The demo web page (`GET /`): a hybrid app's view of the server, embedded in the binary.
//!
//! The page (`localserver/web/`: `index.html`, `style.css`, plain JavaScript modules under
//! `js/`, no build step) calls the REST contract with a public key, like any web view would,
//! and draws its base map from `GET /map/features`. It is also the target of map links:
//! `/?at=<lat>,<lng>` opens it on a point (see `docs/decisions/demo-page.md`).
//!
//! Every file is served with its content type, a strong `ETag` (a `304` answers a matching
//! `If-None-Match`), `Cache-Control: no-cache` (revalidate: the files change with the binary),
//! and a Content-Security-Policy that allows nothing but this origin: no CDN, no outside
//! script, style, font, image or connection. In development mode the server fills the
//! development public key into the page's `<meta name="waymark-key">`.
//!
//! ```
//! use waymark_localserver::web::Site;
//! let site = Site::new(Some("pk_dev"));
//! let page = site.get("/").unwrap();
//! assert!(page.content_type.starts_with("text/html"));
//! assert!(String::from_utf8_lossy(&page.body).contains(r#"content="pk_dev""#));
//! assert!(site.get("/assets/js/app.js").is_some());
//! assert!(site.get("/assets/nothing.js").is_none());
//! ```
use std::hash::{Hash, Hasher};

use warp::http::{HeaderMap, HeaderValue, StatusCode, header};
use warp::reply::Response;

/// The page's Content-Security-Policy: this origin only.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
     manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

/// The meta element the development key is filled into.
const KEY_META: &str = r#"<meta name="waymark-key" content="">"#;

/// `(path, content type, bytes)` of every embedded file but the page itself.
const FILES: &[(&str, &str, &[u8])] = &[
    (
        "/assets/style.css",
        "text/css; charset=utf-8",
        include_bytes!("../web/style.css"),
    ),
    (
        "/assets/js/app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../web/js/app.js"),
    ),
    (
        "/assets/js/api.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../web/js/api.js"),
    ),
    (
        "/assets/js/map.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../web/js/map.js"),
    ),
    (
        "/assets/favicon.svg",
        "image/svg+xml",
        include_bytes!("../web/favicon.svg"),
    ),
];

const INDEX: &str = include_str!("../web/index.html");

/// One file of the site.
#[derive(Debug, Clone)]
pub struct File {
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The bytes.
    pub body: bytes::Bytes,
    /// Strong validator, quoted.
    pub etag: String,
}

impl File {
    fn new(content_type: &'static str, body: impl Into<bytes::Bytes>) -> File {
        let body = body.into();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        body.hash(&mut h);
        File {
            content_type,
            etag: format!("\"{:016x}-{:x}\"", h.finish(), body.len()),
            body,
        }
    }
}

/// The embedded site, with the page's key filled in.
#[derive(Debug, Clone)]
pub struct Site {
    index: File,
    files: Vec<(&'static str, File)>,
}

impl Site {
    /// The site; `key` (a public key) is written into the page for it to use.
    pub fn new(key: Option<&str>) -> Site {
        let index = match key {
            Some(k) => INDEX.replacen(
                KEY_META,
                &format!(
                    r#"<meta name="waymark-key" content="{}">"#,
                    escape_attribute(k)
                ),
                1,
            ),
            None => INDEX.to_string(),
        };
        Site {
            index: File::new("text/html; charset=utf-8", index),
            files: FILES
                .iter()
                .map(|(path, ct, body)| (*path, File::new(ct, *body)))
                .collect(),
        }
    }

    /// The file at `path` (`/` and `/index.html` are the page).
    pub fn get(&self, path: &str) -> Option<&File> {
        if path == "/" || path == "/index.html" {
            return Some(&self.index);
        }
        self.files.iter().find(|(p, _)| *p == path).map(|(_, f)| f)
    }

    /// The response for a GET (or, with `head`, a HEAD) of `path`, `None` when the site has
    /// no such file.
    pub fn respond(&self, path: &str, request: &HeaderMap, head: bool) -> Option<Response> {
        let file = self.get(path)?;
        let not_modified = request
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(',')
                    .any(|t| t.trim() == file.etag || t.trim() == "*")
            });
        let body = if head || not_modified {
            bytes::Bytes::new()
        } else {
            file.body.clone()
        };
        let mut resp = Response::new(body.into());
        if not_modified {
            *resp.status_mut() = StatusCode::NOT_MODIFIED;
        }
        let h = resp.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(file.content_type),
        );
        if head && !not_modified {
            h.insert(header::CONTENT_LENGTH, HeaderValue::from(file.body.len()));
        }
        if let Ok(v) = HeaderValue::from_str(&file.etag) {
            h.insert(header::ETAG, v);
        }
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
        h.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        h.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("strict-origin-when-cross-origin"),
        );
        h.insert(
            "cross-origin-resource-policy",
            HeaderValue::from_static("same-origin"),
        );
        Some(resp)
    }
}

/// Escapes a value for a double-quoted HTML attribute.
fn escape_attribute(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn the_page_has_its_key_and_every_asset_it_names() {
        let site = Site::new(Some(r#"a"<b>&"#));
        let page = String::from_utf8(site.get("/").unwrap().body.to_vec()).unwrap();
        assert!(page.contains(r#"content="a&quot;&lt;b&gt;&amp;""#));
        // Every local URL the page and its modules name is served.
        let mut named = Vec::new();
        for text in std::iter::once(page.clone()).chain(
            FILES
                .iter()
                .map(|(_, _, b)| String::from_utf8_lossy(b).into_owned()),
        ) {
            for part in text.split("\"/assets/").skip(1) {
                named.push(format!("/assets/{}", part.split('"').next().unwrap()));
            }
            for part in text.split("from './").skip(1) {
                named.push(format!("/assets/js/{}", part.split('\'').next().unwrap()));
            }
        }
        assert!(named.len() >= 5, "{named:?}");
        for path in named {
            assert!(site.get(&path).is_some(), "{path} is named but not served");
        }
        // Nothing from outside.
        for (_, _, b) in FILES {
            let text = String::from_utf8_lossy(b);
            assert!(!text.contains("https://"), "an asset names an outside URL");
        }
        assert!(!page.contains("https://"));
    }

    #[test]
    fn etags_revalidate() {
        let site = Site::new(None);
        let etag = site.get("/assets/style.css").unwrap().etag.clone();
        let mut h = HeaderMap::new();
        h.insert(header::IF_NONE_MATCH, HeaderValue::from_str(&etag).unwrap());
        let resp = site.respond("/assets/style.css", &h, false).unwrap();
        assert_eq!(resp.status(), StatusCode::NOT_MODIFIED);
        let resp = site
            .respond("/assets/style.css", &HeaderMap::new(), false)
            .unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(
            resp.headers()[header::CONTENT_TYPE],
            "text/css; charset=utf-8"
        );
        assert!(site.respond("/nope", &HeaderMap::new(), false).is_none());
    }
}
