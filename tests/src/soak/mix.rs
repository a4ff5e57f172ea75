//! The request mix: every built endpoint with the statuses each request may get.

use super::*;

/// One request of the mix and the statuses it may get.
#[derive(Debug, Clone)]
pub struct Case {
    /// Label for the report.
    pub label: String,
    /// Method.
    pub method: &'static str,
    /// Path and query.
    pub target: String,
    /// Body.
    pub body: String,
    /// Statuses that are not errors.
    pub expect: Vec<u16>,
}

pub(super) fn case(
    label: &str,
    method: &'static str,
    target: String,
    body: &str,
    expect: &[u16],
) -> Case {
    Case {
        label: label.to_string(),
        method,
        target,
        body: body.to_string(),
        expect: expect.to_vec(),
    }
}

pub(super) fn json_of(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or(Value::Null)
}

/// Polls `target` until its `status` is one of `done`; returns the last body.
pub(super) fn poll(
    conn: &mut Conn,
    key: &str,
    target: &str,
    done: &[&str],
    limit: Duration,
) -> Result<Value, String> {
    let started = Instant::now();
    loop {
        let (status, body) = conn
            .send("GET", target, key, "")
            .ok_or_else(|| format!("{target}: connection failed"))?;
        let v = json_of(&body);
        if status != 200 {
            return Err(format!("{target}: {status} {body}"));
        }
        if done.contains(&v["status"].as_str().unwrap_or_default()) {
            return Ok(v);
        }
        if started.elapsed() > limit {
            return Err(format!("{target}: still {v} after {limit:?}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The request mix over the running server (discovering the ids it needs).
pub(super) fn mix(conn: &mut Conn, key: &str, packs: &Path, dataset_url: &str) -> Vec<Case> {
    let golden: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/parity/cases.json"),
        )
        .unwrap(),
    )
    .unwrap();
    // The reading cases: the writes (zones created and deleted, with setup steps of their own)
    // would fail on their second round, and the mix has its own zone write below.
    let mut cases: Vec<Case> = golden
        .iter()
        .filter(|c| c["endpoint"].as_str().unwrap().starts_with("GET ") && c.get("setup").is_none())
        .map(|c| {
            let (_, path) = c["endpoint"].as_str().unwrap().split_once(' ').unwrap();
            let q = c["query"].as_str().unwrap();
            let target = if q.is_empty() {
                path.to_string()
            } else {
                format!("{path}?{q}")
            };
            case(c["name"].as_str().unwrap(), "GET", target, "", &[200])
        })
        .collect();
    // A place id for details.
    let (_, body) = conn
        .send("GET", "/localities/autocomplete?input=Andorra", key, "")
        .unwrap();
    let place = json_of(&body)["localities"][0]["public_id"]
        .as_str()
        .expect("autocomplete finds Andorra")
        .to_string();
    cases.push(case(
        "details",
        "GET",
        format!("/localities/details?public_id={place}"),
        "",
        &[200],
    ));
    cases.push(case(
        "geocode",
        "GET",
        "/localities/geocode?address=Avinguda%20Meritxell".into(),
        "",
        &[200],
    ));
    // An address the world IP pack places in Andorra.
    let world_ip = std::fs::read_dir(packs.join(waymark_packs::build::WORLD_IP_PACK))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let ip = crate::first_ipv4_in_country(&world_ip, "AD").unwrap();
    cases.push(case(
        "position",
        "GET",
        format!("/geolocation/position?ip_address={ip}"),
        "",
        &[200],
    ));
    // A zone of a store, updated with its own polygon.
    let db = std::fs::read_dir(packs.join("andorra"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("data.sqlite");
    let conn_db = rusqlite::Connection::open(&db).unwrap();
    let zone = waymark_core::stores::packed::read(&conn_db)
        .expect("the parity pack's stores layer reads")
        .1
        .into_iter()
        .next()
        .expect("the parity pack has zones");
    let (zone_id, store_id, wkt) = (zone.zone_id, zone.store_id, zone.polygon_wkt);
    let zones =
        json!({"zones": [{"zone_id": zone_id, "store_id": store_id, "polygon": wkt}]}).to_string();
    cases.push(case("zones-update", "PUT", "/zones".into(), &zones, &[200]));
    cases.push(case(
        "map",
        "GET",
        "/map/features?bbox=1.51,42.50,1.53,42.52".into(),
        "",
        &[200],
    ));
    cases.push(case("packs-list", "GET", "/packs".into(), "", &[200]));
    // A dataset, imported before the load starts.
    let (status, body) = conn
        .send(
            "POST",
            "/datasets",
            key,
            &json!({"name": "soak buildings", "url": dataset_url}).to_string(),
        )
        .unwrap();
    assert_eq!(status, 202, "{body}");
    let id = json_of(&body)["id"].as_str().unwrap().to_string();
    poll(
        conn,
        key,
        &format!("/datasets/{id}/status"),
        &["success"],
        Duration::from_secs(120),
    )
    .unwrap();
    let (status, body) = conn
        .send(
            "POST",
            &format!("/datasets/{id}/features/search?per_page=5"),
            key,
            r#"{"where": "levels:>=3"}"#,
        )
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let feature = json_of(&body)["features"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    cases.push(case("datasets-list", "GET", "/datasets".into(), "", &[200]));
    cases.push(case(
        "dataset-get",
        "GET",
        format!("/datasets/{id}"),
        "",
        &[200],
    ));
    cases.push(case(
        "dataset-status",
        "GET",
        format!("/datasets/{id}/status"),
        "",
        &[200],
    ));
    cases.push(case(
        "feature-get",
        "GET",
        format!("/datasets/{id}/features/{feature}"),
        "",
        &[200],
    ));
    cases.push(case(
        "feature-search",
        "POST",
        format!("/datasets/{id}/features/search?per_page=10"),
        r#"{"where": "levels:>=3"}"#,
        &[200],
    ));
    cases.push(case(
        "feature-contains",
        "POST",
        format!("/datasets/{id}/features/contains"),
        r#"{"geometry": "42.5051,1.5151"}"#,
        &[200],
    ));
    // Requests meant to fail.
    cases.push(case(
        "bad-coordinates",
        "GET",
        "/geolocation/timezone?location=95,0".into(),
        "",
        &[422],
    ));
    cases.push(case("bad-waypoints", "GET", "/distance/route/json?origin=42.5078,1.5211&destination=42.5346,1.5806&waypoints=optimize:true|x".into(), "", &[422]));
    cases.push(case(
        "unknown-venue",
        "GET",
        "/indoor/venues/nope".into(),
        "",
        &[404],
    ));
    cases.push(case(
        "unknown-matrix",
        "GET",
        "/distance/matrix/async/nope/status".into(),
        "",
        &[404],
    ));
    cases
}
