//! Vocabularies of the distance group's requests: travel mode, route method, unit system, route
//! language (with its `Accept-Language` negotiation) and details level.

use super::{UnknownValue, Vocabulary};

vocabulary! {
    /// Travel mode of the distance group. Route and isochrone take `driving`, `walking` and
    /// `cycling`; tolls adds `truck`; the matrix takes `driving` and `truck`.
    pub enum TravelMode ("travel mode") {
        /// `driving` (the default everywhere).
        Driving => "driving",
        /// `walking`
        Walking => "walking",
        /// `cycling`
        Cycling => "cycling",
        /// `truck`
        Truck => "truck",
    }
}

impl Default for TravelMode {
    /// The spec's default mode is `driving`.
    fn default() -> Self {
        Self::Driving
    }
}

vocabulary! {
    /// Optimisation criterion of a route (`method`).
    pub enum RouteMethod ("route method") {
        /// `time`: fastest (the default).
        Time => "time",
        /// `distance`: shortest.
        Distance => "distance",
    }
}

impl Default for RouteMethod {
    /// The spec's default method is `time`.
    fn default() -> Self {
        Self::Time
    }
}

vocabulary! {
    /// Unit system of the human-readable `text` of distances.
    pub enum Units ("unit system") {
        /// `metric` (the default).
        Metric => "metric",
        /// `imperial`
        Imperial => "imperial",
    }
}

impl Default for Units {
    /// The spec's default unit system is `metric`.
    fn default() -> Self {
        Self::Metric
    }
}

vocabulary! {
    /// Languages of route instructions and texts (the 20 languages of `GET /distance/route/json`).
    pub enum RouteLanguage ("route language") {
        /// English (the default).
        En => "en",
        /// French.
        Fr => "fr",
        /// Catalan.
        Ca => "ca",
        /// Danish.
        Da => "da",
        /// German.
        De => "de",
        /// Spanish.
        Es => "es",
        /// Estonian.
        Et => "et",
        /// Finnish.
        Fi => "fi",
        /// Hebrew.
        He => "he",
        /// Italian.
        It => "it",
        /// Japanese.
        Ja => "ja",
        /// Norwegian Bokmål.
        Nb => "nb",
        /// Dutch.
        Nl => "nl",
        /// Polish.
        Pl => "pl",
        /// Portuguese.
        Pt => "pt",
        /// Romanian.
        Ro => "ro",
        /// Russian.
        Ru => "ru",
        /// Swedish.
        Sv => "sv",
        /// Ukrainian.
        Uk => "uk",
        /// Chinese.
        Zh => "zh",
    }
}

impl Default for RouteLanguage {
    /// The spec's last fallback is `en`.
    fn default() -> Self {
        Self::En
    }
}

impl RouteLanguage {
    /// The supported language preferred by an `Accept-Language` header value, if any.
    ///
    /// Entries are `tag[;q=weight]` separated by commas; only the primary subtag counts
    /// (`fr-CH` means `fr`), case-insensitively. The entry with the highest weight wins, the
    /// first one on ties; entries with weight 0 and unsupported languages are skipped.
    pub fn from_accept_language(header: &str) -> Option<RouteLanguage> {
        let mut best: Option<(f32, RouteLanguage)> = None;
        for entry in header.split(',') {
            let mut parts = entry.split(';');
            let tag = parts.next().unwrap_or_default().trim();
            let primary = tag.split(['-', '_']).next().unwrap_or_default();
            let Ok(lang) = primary.to_ascii_lowercase().parse::<RouteLanguage>() else {
                continue;
            };
            let mut weight = 1.0_f32;
            for param in parts {
                if let Some(q) = param.trim().strip_prefix("q=") {
                    weight = q.trim().parse().unwrap_or(0.0);
                }
            }
            if weight > 0.0 && best.is_none_or(|(w, _)| weight > w) {
                best = Some((weight, lang));
            }
        }
        best.map(|(_, lang)| lang)
    }
}

vocabulary! {
    /// Detail level of a route (`details`).
    pub enum DetailsLevel ("details level") {
        /// `none`: no steps (the default).
        None => "none",
        /// `full`: legs carry their `steps`.
        Full => "full",
    }
}

impl Default for DetailsLevel {
    /// The spec's default is `none`.
    fn default() -> Self {
        Self::None
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn accept_language() {
        let f = RouteLanguage::from_accept_language;
        assert_eq!(f("fr-CH, fr;q=0.9, en;q=0.8"), Some(RouteLanguage::Fr));
        assert_eq!(f("xx, de;q=0.5, it;q=0.7"), Some(RouteLanguage::It));
        assert_eq!(f("en;q=0, nb"), Some(RouteLanguage::Nb));
        assert_eq!(f("ZH_tw"), Some(RouteLanguage::Zh));
        assert_eq!(f("xx, *"), None);
        assert_eq!(f(""), None);
    }
}
