//! The venue's words: the name of a venue and the names and refs of its levels.

use super::*;

/// A display name for a venue: its outline's name; else the station or mall it holds or
/// stands in; else its address; else its largest named walkable area; else the name of the
/// nearest station or mall within 300 m; else the first named feature's, as
/// `Indoor venue (<name>)`.
pub(super) fn venue_name(
    c: &Container,
    feats: &[&Feature<'_>],
    namers: &[(Pt, String, u8)],
) -> String {
    if let Some(n) = c.tags.get("name") {
        return n.to_owned();
    }
    let inside = namers
        .iter()
        .filter(|(p, _, _)| c.bbox.contains(*p) && c.area.contains(*p))
        .min_by_key(|(_, _, r)| *r);
    if let Some((_, n, _)) = inside {
        return n.clone();
    }
    if let Some(street) = c.tags.get("addr:street") {
        return match c.tags.get("addr:housenumber") {
            Some(h) => format!("{street} {h}"),
            None => street.to_owned(),
        };
    }
    let largest = feats
        .iter()
        .filter(|f| matches!(f.kind, "corridor" | "area" | "level"))
        .filter_map(|f| Some((f.tags.get("name")?, f.bbox.area_deg2())))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((n, _)) = largest {
        return n.to_owned();
    }
    let centre = Pt::new(
        (c.bbox.south + c.bbox.north) / 2.0,
        (c.bbox.west + c.bbox.east) / 2.0,
    );
    let near = namers
        .iter()
        .map(|(p, n, r)| (waymark_core::geo::haversine_m(*p, centre), n, r))
        .filter(|(d, _, _)| *d <= 300.0)
        .min_by(|a, b| a.2.cmp(b.2).then(a.0.total_cmp(&b.0)));
    if let Some((_, n, _)) = near {
        return n.clone();
    }
    match feats.iter().find_map(|f| f.tags.get("name")) {
        Some(n) => format!("Indoor venue ({n})"),
        None => "Indoor venue".to_owned(),
    }
}

pub(super) fn level_json(l: f64) -> serde_json::Value {
    if l.fract() == 0.0 && l.abs() < 1e9 {
        serde_json::Value::from(l as i64)
    } else {
        serde_json::Value::from(l)
    }
}

/// The words a feature gives for the level it is on: `(true, name)` from `level:name`,
/// `level_name` (and `name` of an `indoor=level` outline), `(false, ref)` from `level:ref` (and
/// `ref` of a level outline).
pub(super) fn level_labels<'a>(f: &Feature<'a>) -> Vec<(bool, &'a str)> {
    let outline = f.kind == "level";
    let mut out = Vec::new();
    let name = f
        .tags
        .get("level:name")
        .or_else(|| f.tags.get("level_name"))
        .or_else(|| if outline { f.tags.get("name") } else { None });
    let reference = f
        .tags
        .get("level:ref")
        .or_else(|| if outline { f.tags.get("ref") } else { None });
    // a `level:ref`/`level:name` listing several levels (`U1;U2`) names none of them alone
    if let Some(n) = name.filter(|n| !n.contains(';')) {
        out.push((true, n));
    }
    if let Some(r) = reference.filter(|r| !r.contains(';')) {
        out.push((false, r));
    }
    out
}
