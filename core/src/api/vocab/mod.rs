//! Vocabularies of the contract: every closed set of strings the spec names.
//!
//! Each vocabulary is a plain Rust enum whose serde form is the exact string of the spec
//! (`"transit.station.airport"`, `"inProgress"`, `"MAX_ELEMENTS_EXCEEDED"`, ...). Every enum has:
//!
//! - `as_str()` giving the spec string, and [`std::fmt::Display`] writing it;
//! - [`std::str::FromStr`] accepting exactly that string, failing with [`UnknownValue`] which
//!   names the bad value and the accepted ones;
//! - `ALL` (every variant, in spec order) and `NAMES` (their strings), both `const` slices;
//! - the [`Vocabulary`] trait, so that generic code (the query reader, error messages) can list
//!   the accepted values.
//!
//! Place types deserve a note: result `types` arrays may hold values outside the three
//! place-type vocabularies (for example `transit.station.rail.train`), so request and response
//! fields holding place types are `Vec<String>`; [`PlaceType::parse`] classifies one string.
//!
//! ```
//! use waymark_core::api::{PoiType, TravelMode, Vocabulary};
//!
//! let mode: TravelMode = "cycling".parse().unwrap();
//! assert_eq!(mode, TravelMode::Cycling);
//! assert_eq!(PoiType::TransitStationAirport.as_str(), "transit.station.airport");
//! assert_eq!(PoiType::ALL.len(), 72);
//! let err = "walk".parse::<TravelMode>().unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "unknown travel mode `walk`: expected one of `driving`, `walking`, `cycling`, `truck`"
//! );
//! assert_eq!(<TravelMode as Vocabulary>::LABEL, "travel mode");
//! ```

use std::str::FromStr;

/// Error of [`FromStr`] on a vocabulary: the value is not one of the accepted strings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {vocabulary} `{value}`: expected one of {}", list_names(.expected))]
pub struct UnknownValue {
    /// Human name of the vocabulary, e.g. `travel mode`.
    pub vocabulary: &'static str,
    /// The rejected value, as given.
    pub value: String,
    /// Every accepted string, in spec order.
    pub expected: &'static [&'static str],
}

/// Formats accepted values as `` `a`, `b`, `c` `` for error messages.
pub fn list_names(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    quoted.join(", ")
}

/// What every vocabulary enum offers to generic code.
pub trait Vocabulary: Copy + Sized + FromStr<Err = UnknownValue> + 'static {
    /// Human name of the vocabulary, used in error messages (e.g. `travel mode`).
    const LABEL: &'static str;
    /// Every accepted string, in spec order.
    const NAMES: &'static [&'static str];
    /// Every variant, in spec order (same order as [`Vocabulary::NAMES`]).
    fn all() -> &'static [Self];
    /// The exact string of the spec.
    fn as_str(&self) -> &'static str;
}

/// Declares a vocabulary enum with its serde renames, `as_str`, `FromStr`, `Display`, `ALL`,
/// `NAMES` and [`Vocabulary`].
macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($label:literal) {
            $( $(#[$vmeta:meta])* $variant:ident => $s:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize,
        )]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
        $vis enum $name {
            $( $(#[$vmeta])* #[serde(rename = $s)] $variant, )+
        }

        impl $name {
            /// Every variant, in spec order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            /// The string of every variant, in spec order.
            pub const NAMES: &'static [&'static str] = &[$($s),+];

            /// The exact string of the spec.
            pub const fn as_str(&self) -> &'static str {
                match self {
                    $(Self::$variant => $s,)+
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownValue;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($s => Ok(Self::$variant),)+
                    _ => Err(UnknownValue {
                        vocabulary: $label,
                        value: s.to_owned(),
                        expected: Self::NAMES,
                    }),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Vocabulary for $name {
            const LABEL: &'static str = $label;
            const NAMES: &'static [&'static str] = $name::NAMES;

            fn all() -> &'static [Self] {
                Self::ALL
            }

            fn as_str(&self) -> &'static str {
                $name::as_str(self)
            }
        }
    };
}

mod places;
mod travel;

pub use places::*;
pub use travel::*;

vocabulary! {
    /// Accuracy of a locality location (`geometry.accuracy`). `DISTRICT` and `POSTAL_CODE` occur
    /// for the United Kingdom only.
    pub enum Accuracy ("accuracy") {
        /// `ROOFTOP`: the exact address point.
        Rooftop => "ROOFTOP",
        /// `ROUTE`: a point on the street.
        Route => "ROUTE",
        /// `GEOMETRIC_CENTER`: the centre of a shape.
        GeometricCenter => "GEOMETRIC_CENTER",
        /// `DISTRICT` (United Kingdom only).
        District => "DISTRICT",
        /// `POSTAL_CODE` (United Kingdom only).
        PostalCode => "POSTAL_CODE",
        /// `RANGE_INTERPOLATED`: interpolated between two numbered points.
        RangeInterpolated => "RANGE_INTERPOLATED",
        /// `APPROXIMATE`
        Approximate => "APPROXIMATE",
    }
}

vocabulary! {
    /// `status` of a distance answer (route, tolls, isochrone), reported inside a 200 body.
    pub enum DistanceStatus ("distance status") {
        /// `OK`
        Ok => "OK",
        /// `INVALID_REQUEST`
        InvalidRequest => "INVALID_REQUEST",
        /// `MAX_ELEMENTS_EXCEEDED`: origins times destinations above 200 elements per query.
        MaxElementsExceeded => "MAX_ELEMENTS_EXCEEDED",
        /// `MAX_ROUTE_LENGTH_EXCEEDED`: a route over 500 km.
        MaxRouteLengthExceeded => "MAX_ROUTE_LENGTH_EXCEEDED",
        /// `REQUEST_DENIED`: key invalid or service not allowed.
        RequestDenied => "REQUEST_DENIED",
        /// `BACKEND_ERROR`
        BackendError => "BACKEND_ERROR",
        /// `OVER_QUERY_LIMIT`: rate limit.
        OverQueryLimit => "OVER_QUERY_LIMIT",
        /// `ZERO_RESULTS`: no route found.
        ZeroResults => "ZERO_RESULTS",
    }
}

impl Default for DistanceStatus {
    /// The spec's default `status` is `OK`.
    fn default() -> Self {
        Self::Ok
    }
}

vocabulary! {
    /// State of an asynchronous matrix calculation.
    pub enum MatrixStatus ("matrix status") {
        /// `accepted`: the request was accepted; the first state.
        Accepted => "accepted",
        /// `inProgress`
        InProgress => "inProgress",
        /// `completed`: the result can be fetched.
        Completed => "completed",
        /// `timeout`
        Timeout => "timeout",
        /// `error`
        Error => "error",
    }
}

impl Default for MatrixStatus {
    /// The first state, `accepted`.
    fn default() -> Self {
        Self::Accepted
    }
}

vocabulary! {
    /// State of a dataset import run and of each of its steps.
    pub enum ImportStatus ("import status") {
        /// `success`
        Success => "success",
        /// `in_progress`
        InProgress => "in_progress",
        /// `failed`
        Failed => "failed",
    }
}

vocabulary! {
    /// Name of a step of a dataset import run.
    pub enum ImportStepName ("import step name") {
        /// `fetch`: downloading the data from the dataset `url`.
        Fetch => "fetch",
        /// `import`: loading the fetched data.
        Import => "import",
    }
}

vocabulary! {
    /// Level of an entry of an import step log.
    pub enum LogLevel ("log level") {
        /// `info`
        Info => "info",
        /// `warning`
        Warning => "warning",
        /// `error`
        Error => "error",
    }
}

vocabulary! {
    /// Geometry format of dataset features (`format`).
    pub enum DatasetFormat ("dataset geometry format") {
        /// `geojson`: GeoJSON geometry objects (the default).
        Geojson => "geojson",
        /// `wkb`: base64 Well-Known Binary strings.
        Wkb => "wkb",
    }
}

impl Default for DatasetFormat {
    /// The spec's default is `geojson`.
    fn default() -> Self {
        Self::Geojson
    }
}

vocabulary! {
    /// Country code format in `short_name` of country address components (`cc_format`).
    pub enum CcFormat ("country code format") {
        /// `alpha2`: ISO 3166-1 alpha-2 (`FR`).
        Alpha2 => "alpha2",
        /// `alpha3`: ISO 3166-1 alpha-3 (`FRA`).
        Alpha3 => "alpha3",
    }
}

impl Default for CcFormat {
    /// `alpha2` when nothing else decides.
    fn default() -> Self {
        Self::Alpha2
    }
}

vocabulary! {
    /// Response format of the three-word conversion (`format`).
    pub enum ThreeWordsFormat ("three-word format") {
        /// `json` (the default).
        Json => "json",
        /// `geojson`
        Geojson => "geojson",
    }
}

impl Default for ThreeWordsFormat {
    /// The spec's default is `json`.
    fn default() -> Self {
        Self::Json
    }
}

vocabulary! {
    /// Kind of input of three-word autosuggest (`input-type`).
    pub enum InputType ("input type") {
        /// `text`: typed text (the default).
        Text => "text",
        /// `vocon-hybrid`: output of a Vocon Hybrid speech recogniser.
        VoconHybrid => "vocon-hybrid",
        /// `nmdp-asr`: output of an NMDP speech recogniser.
        NmdpAsr => "nmdp-asr",
        /// `generic-voice`: output of another speech recogniser.
        GenericVoice => "generic-voice",
    }
}

impl Default for InputType {
    /// The spec's default is `text`.
    fn default() -> Self {
        Self::Text
    }
}

vocabulary! {
    /// The REST groups of the API, as enabled per key (`"localities"`, `"distance"`, ...).
    pub enum ApiGroup ("api group") {
        /// `/localities`
        Localities => "localities",
        /// `/geolocation`
        Geolocation => "geolocation",
        /// `/stores/search`
        Stores => "stores",
        /// `/zones`
        Zones => "zones",
        /// `/datasets`
        Datasets => "datasets",
        /// `/indoor`
        Indoor => "indoor",
        /// `/distance`
        Distance => "distance",
        /// `/threewords`
        Threewords => "threewords",
        /// `/packs`: Waymark's own pack management on the local server (not in the spec).
        Packs => "packs",
    }
}

impl ApiGroup {
    /// The path prefix of the group (`/stores/search` for [`ApiGroup::Stores`]).
    pub const fn path_prefix(&self) -> &'static str {
        match self {
            Self::Localities => "/localities",
            Self::Geolocation => "/geolocation",
            Self::Stores => "/stores/search",
            Self::Zones => "/zones",
            Self::Datasets => "/datasets",
            Self::Indoor => "/indoor",
            Self::Distance => "/distance",
            Self::Threewords => "/threewords",
            Self::Packs => "/packs",
        }
    }
}

vocabulary! {
    /// Parts of a locality details answer (`fields` of details and geocode).
    pub enum DetailsField ("details field") {
        /// `geometry`
        Geometry => "geometry",
        /// `address_components`
        AddressComponents => "address_components",
        /// `shape`: the outline of the place in `geometry.shape`.
        Shape => "shape",
    }
}

impl DetailsField {
    /// The spec's default `fields`: `geometry|address_components`.
    pub fn default_fields() -> Vec<DetailsField> {
        vec![Self::Geometry, Self::AddressComponents]
    }
}

vocabulary! {
    /// Data set of autocomplete (`data`).
    pub enum AutocompleteData ("autocomplete data") {
        /// `standard` (the default).
        Standard => "standard",
        /// `advanced`: worldwide postal codes; needs a dedicated licence option.
        Advanced => "advanced",
    }
}

impl Default for AutocompleteData {
    /// The spec's default is `standard`.
    fn default() -> Self {
        Self::Standard
    }
}

vocabulary! {
    /// Extended autocomplete mode (`extended`); its only value is `postal_code`.
    pub enum AutocompleteExtended ("autocomplete extended mode") {
        /// `postal_code`: refines search on locality names sharing a postal code.
        PostalCode => "postal_code",
    }
}

vocabulary! {
    /// Extended indoor POI search (`extended`); its only value is `full`.
    pub enum PoiSearchExtended ("poi search extended mode") {
        /// `full`: also searches non-searchable POIs.
        Full => "full",
    }
}

vocabulary! {
    /// `status` of a locality details result; its only value is `not_yet_built`.
    pub enum AddressStatus ("address status") {
        /// `not_yet_built`: a United Kingdom address flagged as not yet built.
        NotYetBuilt => "not_yet_built",
    }
}

vocabulary! {
    /// Geometry type of a locality `shape`, spelled as the spec spells it (`MultiPoligon`).
    pub enum ShapeType ("shape type") {
        /// `Polygon`
        Polygon => "Polygon",
        /// `MultiPoligon` (sic: the spec's spelling, kept on the wire).
        MultiPoligon => "MultiPoligon",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::fmt;

    /// Every variant: `as_str`, `Display`, `FromStr` and serde agree, strings are unique and
    /// `ALL`/`NAMES` are in the same order.
    fn check_vocabulary<T>(expected_len: usize)
    where
        T: Vocabulary
            + fmt::Debug
            + PartialEq
            + fmt::Display
            + serde::Serialize
            + serde::de::DeserializeOwned,
    {
        assert_eq!(T::all().len(), expected_len, "{}", T::LABEL);
        assert_eq!(T::NAMES.len(), expected_len, "{}", T::LABEL);
        let unique: HashSet<&str> = T::NAMES.iter().copied().collect();
        assert_eq!(
            unique.len(),
            expected_len,
            "duplicate string in {}",
            T::LABEL
        );
        for (v, name) in T::all().iter().zip(T::NAMES) {
            assert_eq!(v.as_str(), *name);
            assert_eq!(v.to_string(), *name);
            assert_eq!(&name.parse::<T>().unwrap(), v);
            let json = serde_json::to_value(v).unwrap();
            assert_eq!(json, serde_json::Value::from(*name));
            assert_eq!(&serde_json::from_value::<T>(json).unwrap(), v);
        }
        let err = "not-a-value".parse::<T>().unwrap_err();
        assert_eq!(err.value, "not-a-value");
        assert_eq!(err.vocabulary, T::LABEL);
        assert!(err.to_string().contains("`not-a-value`"));
        assert!(err.to_string().contains(&format!("`{}`", T::NAMES[0])));
        assert!(serde_json::from_value::<T>(serde_json::json!("not-a-value")).is_err());
    }

    #[test]
    fn counts_and_round_trips() {
        check_vocabulary::<LocalityType>(14);
        check_vocabulary::<PoiType>(72);
        check_vocabulary::<DeprecatedPoiAlias>(9);
        check_vocabulary::<Accuracy>(7);
        check_vocabulary::<DistanceStatus>(8);
        check_vocabulary::<MatrixStatus>(5);
        check_vocabulary::<ImportStatus>(3);
        check_vocabulary::<ImportStepName>(2);
        check_vocabulary::<LogLevel>(3);
        check_vocabulary::<TravelMode>(4);
        check_vocabulary::<RouteMethod>(2);
        check_vocabulary::<Units>(2);
        check_vocabulary::<RouteLanguage>(20);
        check_vocabulary::<DetailsLevel>(2);
        check_vocabulary::<DatasetFormat>(2);
        check_vocabulary::<CcFormat>(2);
        check_vocabulary::<ThreeWordsFormat>(2);
        check_vocabulary::<InputType>(4);
        check_vocabulary::<ApiGroup>(9); // the spec's 8 groups + pack management
        check_vocabulary::<DetailsField>(3);
        check_vocabulary::<AutocompleteData>(2);
        check_vocabulary::<AutocompleteExtended>(1);
        check_vocabulary::<PoiSearchExtended>(1);
        check_vocabulary::<AddressStatus>(1);
        check_vocabulary::<ShapeType>(2);
    }

    #[test]
    fn exact_strings_of_camel_and_upper_vocabularies() {
        assert_eq!(MatrixStatus::InProgress.as_str(), "inProgress");
        assert_eq!(
            DistanceStatus::MaxElementsExceeded.as_str(),
            "MAX_ELEMENTS_EXCEEDED"
        );
        assert_eq!(ShapeType::MultiPoligon.as_str(), "MultiPoligon");
        assert_eq!(InputType::VoconHybrid.as_str(), "vocon-hybrid");
        assert_eq!(Accuracy::GeometricCenter.as_str(), "GEOMETRIC_CENTER");
        assert_eq!(ImportStatus::InProgress.as_str(), "in_progress");
        assert_eq!(ApiGroup::Stores.path_prefix(), "/stores/search");
    }

    #[test]
    fn defaults() {
        assert_eq!(TravelMode::default(), TravelMode::Driving);
        assert_eq!(RouteMethod::default(), RouteMethod::Time);
        assert_eq!(Units::default(), Units::Metric);
        assert_eq!(DetailsLevel::default(), DetailsLevel::None);
        assert_eq!(DatasetFormat::default(), DatasetFormat::Geojson);
        assert_eq!(ThreeWordsFormat::default(), ThreeWordsFormat::Json);
        assert_eq!(InputType::default(), InputType::Text);
        assert_eq!(DistanceStatus::default(), DistanceStatus::Ok);
        assert_eq!(MatrixStatus::default(), MatrixStatus::Accepted);
        assert_eq!(
            DetailsField::default_fields(),
            [DetailsField::Geometry, DetailsField::AddressComponents]
        );
    }
}
