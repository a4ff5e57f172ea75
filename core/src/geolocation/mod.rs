//! Geolocation: the timezone of a coordinate ([`timezone`]) and the position of an IP address
//! ([`ip`]), answered from the packs' `timezones` and `ip` layers.
pub mod ip;
pub mod timezone;

use crate::packs::manifest::Manifest;

/// The attribution lines (`"<attribution>, <licence>"`) of the sources a pack's `layer` was
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
        let line = if s.licence.is_empty() {
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
