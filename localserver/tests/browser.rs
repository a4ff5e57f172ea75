//! The demo page in a real browser: headless Chromium from Debian's packages (`chromium`,
//! `chromium-driver`; `.ci/run` installs them), driven over WebDriver by fantoccini, against
//! the local server on 127.0.0.1 with the Helsinki sample pack built from `../shared/data/osm`.
//!
//! It checks what a hybrid app's user does: typing an address shows suggestions, choosing one
//! centres the map, two clicks draw a route whose length the page shows, a click in "Reach"
//! draws an isochrone polygon, a click in "Explore" describes the point; that refused answers
//! are shown in words; that a page on another origin can call the server only when the key's
//! domains allow that origin (CORS preflight in the browser, and the 403 the server answers
//! otherwise); and that a page reached under a foreign host name (DNS rebinding) is refused.
//! It measures the first contentful paint and the keystroke-to-suggestions latency in the
//! page and prints them (no timing is asserted), and saves screenshots at laptop and phone
//! sizes in `CARGO_TARGET_TMPDIR` (`demo-laptop.png`, `demo-phone.png`).
//!
//! Without `chromium` and `chromedriver` on the PATH the test fails (CI installs them).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Req, Server};
use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use waymark_core::auth::RateLimitMode;
use waymark_core::auth::keys::{KeyClaims, KeyScope, PublicRestrictions};
use waymark_localserver::ServerConfig;
use waymark_packs::build;
use waymark_packs::sources::Sources;

/// Host name the browser resolves to 127.0.0.1 (`--host-resolver-rules`): a rebinding attack.
const REBIND_HOST: &str = "rebind.test";

/// A program on the PATH (or `None`).
fn which(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// chromedriver, started by this test and stopped when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    fn start() -> Driver {
        let exe = which(&["chromedriver"]).unwrap_or_else(|| {
            panic!(
                "chromedriver is not installed: the browser test needs Debian's chromium and \
                 chromium-driver packages (apt-get install chromium chromium-driver; .ci/run does)"
            )
        });
        let port = free_port();
        let mut command = Command::new(exe);
        command
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // A process group of its own, so that the browsers it starts are stopped with it even
        // when a failed assertion leaves a session open.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command.spawn().expect("chromedriver starts");
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        #[cfg(unix)]
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A headless Chromium session; `phone` emulates a 390×844 phone web view.
async fn browser(driver: &Driver, phone: bool) -> Client {
    let chromium = which(&["chromium", "chromium-browser"]).unwrap_or_else(|| {
        panic!("chromium is not installed (apt-get install chromium chromium-driver)")
    });
    let mut options = json!({
        "binary": chromium,
        "args": [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--window-size=1280,800", "--hide-scrollbars", "--lang=en-US",
            "--disable-extensions", "--no-first-run", "--disable-breakpad",
            "--disable-crash-reporter",
            format!("--host-resolver-rules=MAP {REBIND_HOST} 127.0.0.1"),
        ],
    });
    if phone {
        options["mobileEmulation"] = json!({
            "deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2, "touch": true},
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 \
                (KHTML, like Gecko) Version/4.0 Chrome/120.0 Mobile Safari/537.36 wv",
        });
    }
    let mut caps = serde_json::Map::new();
    caps.insert("browserName".into(), json!("chrome"));
    caps.insert("goog:chromeOptions".into(), options);
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&driver.url)
        .await
        .expect("a chromium session")
}

/// Evaluates `expr` in the page until it is truthy; returns it.
async fn wait_for(c: &Client, expr: &str, what: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v = c
            .execute(&format!("return ({expr});"), vec![])
            .await
            .unwrap_or(Value::Null);
        let truthy = match &v {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => n.as_f64() != Some(0.0),
            Value::String(s) => !s.is_empty(),
            _ => true,
        };
        if truthy {
            return v;
        }
        if Instant::now() > deadline {
            let alert = c
                .execute(
                    "return document.getElementById('alert').hidden ? '' : document.getElementById('alert-text').textContent;",
                    vec![],
                )
                .await
                .unwrap_or(Value::Null);
            panic!("timed out waiting for {what} ({expr}); page alert: {alert}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.expect(script)
}

/// Clicks the map canvas at a coordinate (a real pointer down and up).
async fn click_map(c: &Client, lat: f64, lng: f64) {
    let p = js(
        c,
        &format!(
            "const r = document.getElementById('map').getBoundingClientRect(); \
             const [x, y] = window.waymarkDemo.map.toScreen({lat}, {lng}); \
             return [r.left + x, r.top + y];"
        ),
    )
    .await;
    let (x, y) = (p[0].as_f64().unwrap(), p[1].as_f64().unwrap());
    let actions = MouseActions::new("mouse".into())
        .then(PointerAction::MoveTo {
            duration: None,
            x: x.round(),
            y: y.round(),
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        });
    c.perform_actions(actions).await.unwrap();
    c.release_actions().await.unwrap();
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * q).round() as usize]
}

fn save(name: &str, png: &[u8]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, png).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "{name} is a PNG");
    path
}

/// A second origin: serves one empty page on another port of the loopback.
fn other_origin() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body = "<!doctype html><title>another origin</title><p>another origin</p>";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

/// `fetch` from the current page; answers `{ok, status, body}` or `{error}` when the browser
/// refused to give the page the answer (CORS).
async fn page_fetch(c: &Client, url: &str, preflight: bool) -> Value {
    let headers = if preflight {
        "{'X-Field-Mask': 'timezone'}"
    } else {
        "{}"
    };
    c.execute_async(
        &format!(
            "const done = arguments[arguments.length - 1]; \
             fetch({url:?}, {{headers: {headers}}}) \
               .then(r => r.json().then(b => done({{ok: r.ok, status: r.status, body: b}}))) \
               .catch(e => done({{error: String(e)}}));"
        ),
        vec![],
    )
    .await
    .unwrap()
}

#[test]
fn the_demo_page_works_in_headless_chromium() {
    let driver = Driver::start();
    let s = Server::start_with_config(RateLimitMode::Spec, |p, _| {
        let local = KeyClaims::new(KeyScope::Public(PublicRestrictions {
            domains: vec!["localhost".into(), "127.0.0.1".into()],
            ips: vec![],
        }));
        ServerConfig {
            page_key: Some(p.issue(&local).unwrap()),
            ..ServerConfig::default()
        }
    });
    let started = Instant::now();
    let sources = Sources::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"),
    )
    .unwrap();
    // Helsinki, with the three-word layer the base pack would bring (so the page shows a
    // clicked square's address).
    let mut plan = build::sample_plan("helsinki").unwrap();
    plan.layers
        .push(waymark_core::packs::schema::layers::THREEWORDS.to_string());
    let dir = build::build_pack(
        &plan,
        "1",
        &sources,
        &s.dir.path().join("built"),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    build::sign_pack(&dir, &s.publisher).unwrap();
    let url = format!("file://{}", dir.canonicalize().unwrap().display());
    s.engine.install_pack(&url, &mut |_| {}).unwrap();
    s.engine.prepare_stores();
    s.engine.prepare_threewords();
    eprintln!(
        "helsinki sample pack built and installed in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let base = format!("http://127.0.0.1:{}", s.addr.port());
    // The page's own key, as the server filled it in.
    let page = String::from_utf8(s.http_raw(&Req::get("/"))).unwrap();
    let page_key = page
        .split(r#"<meta name="waymark-key" content=""#)
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    assert!(!page_key.is_empty(), "the server filled the page's key in");

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = browser(&driver, false).await;

        // ----- first paint and the base map -----
        c.goto(&format!("{base}/")).await.unwrap();
        wait_for(&c, "window.waymarkDemo && window.waymarkDemo.metrics.mapDrawn", "the map").await;
        let fcp = wait_for(
            &c,
            "performance.getEntriesByName('first-contentful-paint')[0]?.startTime",
            "first contentful paint",
        )
        .await;
        let drawn = js(&c, "return window.waymarkDemo.metrics.mapDrawn;").await;
        let roads = js(&c, "return window.waymarkDemo.map.roads.length;").await;
        eprintln!(
            "first contentful paint: {:.0} ms; base map drawn at {:.0} ms ({} road lines)",
            fcp.as_f64().unwrap(),
            drawn.as_f64().unwrap(),
            roads
        );
        assert!(roads.as_u64().unwrap() > 100, "the Helsinki roads are drawn");
        let footer = c.find(Locator::Id("packs")).await.unwrap().text().await.unwrap();
        assert!(footer.contains("helsinki") && footer.contains("OpenStreetMap"), "{footer}");

        // ----- typing shows suggestions; latency per keystroke -----
        let search = c.find(Locator::Id("search")).await.unwrap();
        let mut latencies = Vec::new();
        for word in ["Mannerheimintie", "Aleksanterinkatu", "Kamppi", "Esplanadi", "Fredrikinkatu"] {
            js(&c, "const i = document.getElementById('search'); i.value = ''; i.dispatchEvent(new Event('input'));").await;
            for ch in word.chars() {
                let before = js(&c, "return window.waymarkDemo.metrics.suggest.length;")
                    .await
                    .as_u64()
                    .unwrap();
                let typed = Instant::now();
                search.send_keys(&ch.to_string()).await.unwrap();
                wait_for(
                    &c,
                    &format!("window.waymarkDemo.metrics.suggest.length > {before}"),
                    "suggestions",
                )
                .await;
                // A fast typist: about 12 keystrokes a second.
                if let Some(rest) = Duration::from_millis(80).checked_sub(typed.elapsed()) {
                    tokio::time::sleep(rest).await;
                }
            }
            let shown: Vec<f64> = serde_json::from_value(
                js(&c, "return window.waymarkDemo.metrics.suggest.map(m => m.ms);").await,
            )
            .unwrap();
            latencies = shown;
            let items = js(
                &c,
                "return [...document.querySelectorAll('#suggestions li[role=option]')].map(li => li.textContent);",
            )
            .await;
            eprintln!("typed {word:?}: suggestions {items}");
            assert!(
                !items.as_array().unwrap().is_empty(),
                "typing {word} shows suggestions"
            );
        }
        let mut sorted = latencies.clone();
        sorted.sort_by(f64::total_cmp);
        eprintln!(
            "keystroke -> suggestions drawn: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms (n={})",
            percentile(&sorted, 0.5),
            percentile(&sorted, 0.95),
            sorted[sorted.len() - 1],
            sorted.len()
        );

        // ----- choosing a suggestion centres the map on it -----
        js(&c, "const i = document.getElementById('search'); i.value = ''; i.dispatchEvent(new Event('input'));").await;
        search.send_keys("Aleksanterinkatu").await.unwrap();
        wait_for(&c, "document.querySelectorAll('#suggestions li[role=option]').length > 0 && !document.getElementById('suggestions').hidden", "suggestions").await;
        search.send_keys(&Key::Down).await.unwrap();
        search.send_keys(&Key::Enter).await.unwrap();
        wait_for(&c, "!document.getElementById('details').hidden && document.getElementById('details-title').textContent", "details").await;
        let title = c.find(Locator::Id("details-title")).await.unwrap().text().await.unwrap();
        assert!(title.contains("Aleksanterinkatu"), "{title}");
        // The chosen place is at the centre of the map (within a quarter of the view).
        let off = wait_for(
            &c,
            "(() => { const p = window.waymarkDemo.state.point; if (!p) return null; \
               const m = window.waymarkDemo.map; const [x, y] = m.toScreen(p.lat, p.lng); \
               return [Math.abs(x - m.width / 2) / m.width, Math.abs(y - m.height / 2) / m.height, m.zoom]; })()",
            "the chosen point",
        )
        .await;
        eprintln!("chosen {title:?}: offset from the centre {off}");
        assert!(off[0].as_f64().unwrap() < 0.25 && off[1].as_f64().unwrap() < 0.25, "{off}");
        assert!(off[2].as_f64().unwrap() >= 14.0, "zoomed in: {off}");
        // Its point is described: address, local time, three words, stores.
        wait_for(&c, "document.getElementById('point-address').dataset.state !== 'loading' && document.getElementById('point-time').dataset.state !== 'loading' && document.getElementById('point-words').dataset.state !== 'loading'", "the point's description").await;
        let time = c.find(Locator::Id("point-time")).await.unwrap().text().await.unwrap();
        assert!(time.contains("Europe/Helsinki"), "{time}");
        let words = c.find(Locator::Id("point-words")).await.unwrap().text().await.unwrap();
        let words_state = js(&c, "return document.getElementById('point-words').dataset.state;").await;
        eprintln!("three words: {words} ({words_state})");
        assert!(
            words_state == "ok" && words.starts_with("///") && words.split('.').count() == 3,
            "{words} ({words_state})"
        );

        // ----- two clicks draw a route whose length the page shows -----
        c.find(Locator::Css(".tabs button[data-mode=route]")).await.unwrap().click().await.unwrap();
        c.find(Locator::Id("zoom-fit")).await.unwrap().click().await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        click_map(&c, 60.1668, 24.9395).await;
        click_map(&c, 60.1752, 24.9488).await;
        let metres = wait_for(&c, "document.getElementById('route').dataset.metres", "the route").await;
        let summary = c.find(Locator::Id("route-summary")).await.unwrap().text().await.unwrap();
        let steps = js(&c, "return document.querySelectorAll('#route-steps li').length;").await;
        let drawn = js(&c, "return (window.waymarkDemo.map.overlays.route || []).length;").await;
        eprintln!("route: {summary} ({metres} m, {steps} steps, {drawn} points drawn)");
        let metres: f64 = metres.as_str().unwrap().parse().unwrap();
        assert!(metres > 800.0 && metres < 4000.0, "{metres}");
        assert!(summary.contains("km") || summary.contains(" m"), "{summary}");
        assert!(steps.as_u64().unwrap() >= 2 && drawn.as_u64().unwrap() >= 2);
        // A closer look at the route for the screenshot.
        js(&c, "window.waymarkDemo.map.fit([24.9385, 60.1662, 24.9498, 60.1758], 36);").await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        save("demo-route.png", &c.screenshot().await.unwrap());

        // ----- an isochrone polygon is drawn -----
        c.find(Locator::Css(".tabs button[data-mode=reach]")).await.unwrap().click().await.unwrap();
        c.find(Locator::Css("input[name=mode][value=walking] + span")).await.unwrap().click().await.unwrap();
        click_map(&c, 60.1699, 24.9415).await;
        let points = wait_for(&c, "document.getElementById('reach').dataset.points", "the isochrone").await;
        let reach = c.find(Locator::Id("reach-summary")).await.unwrap().text().await.unwrap();
        eprintln!("isochrone: {reach} ({points} points)");
        assert!(points.as_str().unwrap().parse::<u32>().unwrap() >= 4, "{points}");
        // The polygon is painted: the canvas under the origin is tinted.
        let tint = js(
            &c,
            "const m = window.waymarkDemo.map; const c = document.getElementById('map'); \
             const [x, y] = m.toScreen(60.1699, 24.9415); \
             const d = c.getContext('2d').getImageData(Math.round((x + 30) * m.dpr), Math.round((y + 30) * m.dpr), 1, 1).data; \
             return [d[0], d[1], d[2]];",
        )
        .await;
        eprintln!("canvas beside the isochrone origin: rgb{tint}");
        let shot = save("demo-laptop.png", &c.screenshot().await.unwrap());
        eprintln!("screenshot: {}", shot.display());

        // ----- refused answers are shown in words -----
        // 422: an input longer than the contract's 150 characters.
        js(&c, "const i = document.getElementById('search'); i.value = 'x'.repeat(160); i.dispatchEvent(new Event('input'));").await;
        let alert = wait_for(
            &c,
            "!document.getElementById('alert').hidden && document.getElementById('alert-text').textContent",
            "an alert",
        )
        .await;
        eprintln!("with a 160-character search the page says: {alert}");
        assert!(alert.as_str().unwrap().contains("(422)") && alert.as_str().unwrap().contains("input"), "{alert}");
        js(&c, "document.getElementById('alert-close').click();").await;
        // 429: more isochrones in a second than the key may ask for, through the page's client.
        let burst = c
            .execute_async(
                "const done = arguments[arguments.length - 1]; \
                 const w = window.waymarkDemo.client; \
                 Promise.allSettled(Array.from({length: 14}, () => w.get('/distance/isochrone/json', \
                   {origin: '60.1699,24.9415', mode: 'walking', method: 'time', value: 1}))) \
                 .then(rs => done(rs.filter(r => r.status === 'rejected').map(r => [r.reason.status, r.reason.message])));",
                vec![],
            )
            .await
            .unwrap();
        eprintln!("14 isochrones at once: refused {burst}");
        let refused = burst.as_array().unwrap();
        assert!(!refused.is_empty(), "the limit is 10 per 1 s");
        assert!(refused.iter().all(|r| r[0] == 429
            && r[1].as_str().unwrap().contains("Too many requests (429)")
            && r[1].as_str().unwrap().to_lowercase().contains("retry in")), "{burst}");
        c.goto(&format!("{base}/?key={}", s.keys.public)).await.unwrap();
        let alert = wait_for(
            &c,
            "!document.getElementById('alert').hidden && document.getElementById('alert-text').textContent",
            "an alert",
        )
        .await;
        eprintln!("with a key for example.com the page says: {alert}");
        let alert = alert.as_str().unwrap();
        assert!(alert.contains("(403)") && alert.contains("domain"), "{alert}");
        c.goto(&format!("{base}/?key=not-a-key")).await.unwrap();
        let alert = wait_for(&c, "!document.getElementById('alert').hidden && document.getElementById('alert-text').textContent", "an alert").await;
        eprintln!("with a wrong key the page says: {alert}");
        assert!(alert.as_str().unwrap().contains("(401)"), "{alert}");

        // ----- another origin: allowed only when the key's domains allow it -----
        let other = other_origin();
        c.goto(&format!("http://localhost:{other}/")).await.unwrap();
        let tz = |key: &str| format!("{base}/geolocation/timezone?location=60.17,24.94&key={key}");
        let allowed = page_fetch(&c, &tz(&page_key), true).await;
        eprintln!("from http://localhost:{other} with a key for localhost (preflighted): {allowed}");
        assert_eq!(allowed["status"], 200, "{allowed}");
        assert_eq!(allowed["body"]["timezone"], "Europe/Helsinki");
        let simple = page_fetch(&c, &tz(&page_key), false).await;
        assert_eq!(simple["status"], 200, "{simple}");
        for preflight in [true, false] {
            let refused = page_fetch(&c, &tz(&s.keys.public), preflight).await;
            eprintln!(
                "from http://localhost:{other} with a key for example.com (preflight {preflight}): {refused}"
            );
            assert!(
                refused["error"].as_str().is_some_and(|e| e.contains("Failed to fetch")),
                "the browser keeps the answer from the page: {refused}"
            );
        }
        // What the server answered those two requests (the browser hides it from the page).
        let origin = format!("http://localhost:{other}");
        let preflight = s.http(
            &Req::with_method("OPTIONS", format!("/geolocation/timezone?location=60.17,24.94&key={}", s.keys.public))
                .header("Origin", &origin)
                .header("Access-Control-Request-Method", "GET")
                .header("Access-Control-Request-Headers", "x-field-mask"),
        );
        assert_eq!(preflight.status, 403, "{:?}", preflight.body);
        assert!(preflight.header("access-control-allow-origin").is_none());
        let get = s.http(
            &Req::get(format!("/geolocation/timezone?location=60.17,24.94&key={}", s.keys.public))
                .header("Origin", &origin)
                .header("Referer", &format!("{origin}/")),
        );
        assert_eq!(get.status, 403, "{:?}", get.body);
        assert!(get.header("access-control-allow-origin").is_none());
        eprintln!("the server's answers: preflight 403 {}, GET 403 {}", preflight.body, get.body);

        // ----- DNS rebinding: the page under a foreign host name is refused -----
        c.goto(&format!("http://{REBIND_HOST}:{}/", s.addr.port())).await.unwrap();
        let text = js(&c, "return document.body.innerText;").await;
        eprintln!("http://{REBIND_HOST}:{}/ shows: {text}", s.addr.port());
        assert!(text.as_str().unwrap().contains("is not allowed"), "{text}");
        c.close().await.unwrap();

        // ----- a phone-sized web view -----
        let phone = browser(&driver, true).await;
        phone.goto(&format!("{base}/?at=60.16985,24.93870")).await.unwrap();
        wait_for(&phone, "window.waymarkDemo && window.waymarkDemo.metrics.mapDrawn", "the map on a phone").await;
        wait_for(&phone, "document.getElementById('point-address').dataset.state !== 'loading' && document.getElementById('point-time').dataset.state !== 'loading'", "the point on a phone").await;
        let layout = js(
            &phone,
            "const m = document.getElementById('map').getBoundingClientRect(); \
             const p = document.querySelector('.panel').getBoundingClientRect(); \
             return {width: window.innerWidth, map: [m.width, m.height], panelTop: p.top, overflow: document.documentElement.scrollWidth > window.innerWidth};",
        )
        .await;
        eprintln!("phone layout: {layout}");
        assert_eq!(layout["width"], 390);
        assert_eq!(layout["overflow"], false, "nothing wider than the phone");
        assert!(layout["map"][0].as_f64().unwrap() >= 380.0);
        assert!(layout["map"][1].as_f64().unwrap() >= 400.0, "the map takes half the screen");
        let shot = save("demo-phone.png", &phone.screenshot().await.unwrap());
        eprintln!("screenshot: {}", shot.display());
        phone.close().await.unwrap();
    });
}
