//! Geolocation: the timezone of a coordinate ([`timezone`]) and the position of an IP address
//! ([`ip`]), answered from the packs' `timezones` and `ip` layers.
pub mod ip;
mod service;
pub mod timezone;

pub use service::Geolocation;

use crate::packs::manifest::Manifest;

/// Whether `text` already names `licence` (`ODbL 1.0` names `ODbL-1.0`).
fn mentions(text: &str, licence: &str) -> bool {
    let fold = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    fold(text).contains(&fold(licence))
}

/// The attribution lines (`"<attribution>, <licence>"`, the licence left out when the text
/// already names it) of the sources a pack's `layer` was
/// built from. Packs whose manifest does not say which layers its sources fed (built before
/// sources carried `layers`) give every source: over-attributing is safe, under-attributing
/// is not.
pub fn layer_attribution(manifest: &Manifest, layer: &str) -> Vec<String> {
    let tagged = manifest.sources.iter().any(|s| !s.layers.is_empty());
    let mut lines: Vec<String> = Vec::new();
    for s in &manifest.sources {
        if tagged && !s.layers.iter().any(|l| l == layer) {
            continue;
        }
        let line = if s.licence.is_empty() || mentions(&s.attribution, &s.licence) {
            s.attribution.clone()
        } else {
            format!("{}, {}", s.attribution, s.licence)
        };
        if !s.attribution.is_empty() && !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::packs::PackSource;

    fn source(id: &str, licence: &str, attribution: &str, layers: &[&str]) -> PackSource {
        PackSource {
            id: id.into(),
            licence: licence.into(),
            attribution: attribution.into(),
            version: None,
            sha256: None,
            notes: None,
            layers: layers.iter().map(|l| l.to_string()).collect(),
        }
    }

    #[test]
    fn attribution_of_a_layer_comes_from_its_sources() {
        let mut m = Manifest::new("base", "1", vec!["ip".into(), "places".into()]);
        m.sources = vec![
            source(
                "dbip-country",
                "CC-BY-4.0",
                "IP geolocation by DB-IP (https://db-ip.com)",
                &["ip"],
            ),
            source(
                "countries",
                "ODbL-1.0",
                "Country data (x), ODbL 1.0",
                &["places", "ip"],
            ),
            source(
                "osm",
                "ODbL-1.0",
                "© OpenStreetMap contributors",
                &["roads"],
            ),
        ];
        assert_eq!(
            layer_attribution(&m, "ip"),
            vec![
                "IP geolocation by DB-IP (https://db-ip.com), CC-BY-4.0".to_string(),
                "Country data (x), ODbL 1.0".to_string()
            ]
        );
        // Older manifests without layers: every source.
        for s in &mut m.sources {
            s.layers.clear();
        }
        assert_eq!(layer_attribution(&m, "ip").len(), 3);
    }
}
