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

use std::fmt;
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

vocabulary! {
    /// Locality types (14 values). `locality` is an alias grouping the settlement types, see
    /// [`LocalityType::settlement_types`].
    pub enum LocalityType ("locality type") {
        /// `country`
        Country => "country",
        /// `admin_level`: an administrative area of any level.
        AdminLevel => "admin_level",
        /// `postal_code`
        PostalCode => "postal_code",
        /// `address`
        Address => "address",
        /// `route`: a street.
        Route => "route",
        /// `locality`: alias of every settlement type.
        Locality => "locality",
        /// `city`
        City => "city",
        /// `town`
        Town => "town",
        /// `village`
        Village => "village",
        /// `hamlet`
        Hamlet => "hamlet",
        /// `borough`
        Borough => "borough",
        /// `suburb`
        Suburb => "suburb",
        /// `quarter`
        Quarter => "quarter",
        /// `neighbourhood`
        Neighbourhood => "neighbourhood",
    }
}

impl LocalityType {
    /// The settlement types that the alias `locality` groups: `city`, `town`, `village`,
    /// `hamlet`, `borough`, `suburb`, `quarter`, `neighbourhood`.
    ///
    /// The spec only says "`locality` is an alias grouping the settlement types"; Waymark takes
    /// every locality type that names an inhabited place or a part of one, that is all of them
    /// except `country`, `admin_level`, `postal_code`, `address`, `route` and `locality` itself.
    pub const fn settlement_types() -> &'static [LocalityType] {
        &[
            Self::City,
            Self::Town,
            Self::Village,
            Self::Hamlet,
            Self::Borough,
            Self::Suburb,
            Self::Quarter,
            Self::Neighbourhood,
        ]
    }

    /// Whether this type is one of [`LocalityType::settlement_types`].
    pub fn is_settlement(&self) -> bool {
        Self::settlement_types().contains(self)
    }
}

vocabulary! {
    /// Point-of-interest types (72 values, dotted hierarchy: `business.shop.bakery` is a kind of
    /// `business.shop`, itself a kind of `business`).
    pub enum PoiType ("point-of-interest type") {
        /// `point_of_interest`
        PointOfInterest => "point_of_interest",
        /// `transit.station`
        TransitStation => "transit.station",
        /// `transit.station.airport`
        TransitStationAirport => "transit.station.airport",
        /// `transit.station.rail`
        TransitStationRail => "transit.station.rail",
        /// `beach`
        Beach => "beach",
        /// `business`
        Business => "business",
        /// `business.car_repair`
        BusinessCarRepair => "business.car_repair",
        /// `business.car_rental`
        BusinessCarRental => "business.car_rental",
        /// `business.cinema`
        BusinessCinema => "business.cinema",
        /// `business.conference_centre`
        BusinessConferenceCentre => "business.conference_centre",
        /// `business.exhibition_centre`
        BusinessExhibitionCentre => "business.exhibition_centre",
        /// `business.theatre`
        BusinessTheatre => "business.theatre",
        /// `business.nightclub`
        BusinessNightclub => "business.nightclub",
        /// `business.finance`
        BusinessFinance => "business.finance",
        /// `business.finance.bank`
        BusinessFinanceBank => "business.finance.bank",
        /// `business.fuel`
        BusinessFuel => "business.fuel",
        /// `business.parking`
        BusinessParking => "business.parking",
        /// `business.mall`
        BusinessMall => "business.mall",
        /// `business.food_and_drinks`
        BusinessFoodAndDrinks => "business.food_and_drinks",
        /// `business.food_and_drinks.bar`
        BusinessFoodAndDrinksBar => "business.food_and_drinks.bar",
        /// `business.food_and_drinks.biergarten`
        BusinessFoodAndDrinksBiergarten => "business.food_and_drinks.biergarten",
        /// `business.food_and_drinks.cafe`
        BusinessFoodAndDrinksCafe => "business.food_and_drinks.cafe",
        /// `business.food_and_drinks.fast_food`
        BusinessFoodAndDrinksFastFood => "business.food_and_drinks.fast_food",
        /// `business.food_and_drinks.pub`
        BusinessFoodAndDrinksPub => "business.food_and_drinks.pub",
        /// `business.food_and_drinks.restaurant`
        BusinessFoodAndDrinksRestaurant => "business.food_and_drinks.restaurant",
        /// `business.food_and_drinks.food_court`
        BusinessFoodAndDrinksFoodCourt => "business.food_and_drinks.food_court",
        /// `business.shop`
        BusinessShop => "business.shop",
        /// `business.shop.mall`
        BusinessShopMall => "business.shop.mall",
        /// `business.shop.bakery`
        BusinessShopBakery => "business.shop.bakery",
        /// `business.shop.butcher`
        BusinessShopButcher => "business.shop.butcher",
        /// `business.shop.library`
        BusinessShopLibrary => "business.shop.library",
        /// `business.shop.grocery`
        BusinessShopGrocery => "business.shop.grocery",
        /// `business.shop.sports`
        BusinessShopSports => "business.shop.sports",
        /// `business.shop.toys`
        BusinessShopToys => "business.shop.toys",
        /// `business.shop.clothes`
        BusinessShopClothes => "business.shop.clothes",
        /// `business.shop.furniture`
        BusinessShopFurniture => "business.shop.furniture",
        /// `business.shop.electronics`
        BusinessShopElectronics => "business.shop.electronics",
        /// `business.shop.doityourself`
        BusinessShopDoityourself => "business.shop.doityourself",
        /// `business.shop.craft`
        BusinessShopCraft => "business.shop.craft",
        /// `education`
        Education => "education",
        /// `education.school`
        EducationSchool => "education.school",
        /// `education.kindergarten`
        EducationKindergarten => "education.kindergarten",
        /// `education.university`
        EducationUniversity => "education.university",
        /// `education.college`
        EducationCollege => "education.college",
        /// `education.library`
        EducationLibrary => "education.library",
        /// `hospitality`
        Hospitality => "hospitality",
        /// `hospitality.hotel`
        HospitalityHotel => "hospitality.hotel",
        /// `hospitality.hostel`
        HospitalityHostel => "hospitality.hostel",
        /// `hospitality.guest_house`
        HospitalityGuestHouse => "hospitality.guest_house",
        /// `hospitality.bed_and_breakfast`
        HospitalityBedAndBreakfast => "hospitality.bed_and_breakfast",
        /// `hospitality.motel`
        HospitalityMotel => "hospitality.motel",
        /// `medical`
        Medical => "medical",
        /// `medical.hospital`
        MedicalHospital => "medical.hospital",
        /// `medical.pharmacy`
        MedicalPharmacy => "medical.pharmacy",
        /// `medical.clinic`
        MedicalClinic => "medical.clinic",
        /// `tourism`
        Tourism => "tourism",
        /// `tourism.attraction`
        TourismAttraction => "tourism.attraction",
        /// `tourism.attraction.amusement_park`
        TourismAttractionAmusementPark => "tourism.attraction.amusement_park",
        /// `tourism.attraction.zoo`
        TourismAttractionZoo => "tourism.attraction.zoo",
        /// `tourism.attraction.aquarium`
        TourismAttractionAquarium => "tourism.attraction.aquarium",
        /// `tourism.monument`
        TourismMonument => "tourism.monument",
        /// `tourism.monument.castle`
        TourismMonumentCastle => "tourism.monument.castle",
        /// `tourism.museum`
        TourismMuseum => "tourism.museum",
        /// `government`
        Government => "government",
        /// `park`
        Park => "park",
        /// `park.national`
        ParkNational => "park.national",
        /// `place_of_worship`
        PlaceOfWorship => "place_of_worship",
        /// `police`
        Police => "police",
        /// `post_office`
        PostOffice => "post_office",
        /// `sports`
        Sports => "sports",
        /// `sports.golf`
        SportsGolf => "sports.golf",
        /// `sports.winter`
        SportsWinter => "sports.winter",
    }
}

impl PoiType {
    /// The parent type in the dotted hierarchy (`business.shop.bakery` -> `business.shop`), or
    /// `None` for a top-level type or when the parent is not itself a listed type.
    pub fn parent(&self) -> Option<PoiType> {
        let s = self.as_str();
        let (parent, _) = s.rsplit_once('.')?;
        parent.parse().ok()
    }

    /// Whether `self` is `other` or a descendant of it (`business.shop.bakery` is within
    /// `business`).
    pub fn is_within(&self, other: PoiType) -> bool {
        let s = self.as_str();
        let o = other.as_str();
        s == o || (s.starts_with(o) && s.as_bytes().get(o.len()) == Some(&b'.'))
    }
}

vocabulary! {
    /// Deprecated point-of-interest aliases (9 values), accepted by autocomplete only; see
    /// [`DeprecatedPoiAlias::replacement`] for the current type each one stands for.
    pub enum DeprecatedPoiAlias ("deprecated point-of-interest alias") {
        /// `airport`, replaced by `transit.station.airport` (named by the spec).
        Airport => "airport",
        /// `train_station`, replaced by `transit.station.rail.train` (named by the spec).
        TrainStation => "train_station",
        /// `metro_station`
        MetroStation => "metro_station",
        /// `shopping`
        Shopping => "shopping",
        /// `museum`
        Museum => "museum",
        /// `zoo`
        Zoo => "zoo",
        /// `amusement_park`
        AmusementPark => "amusement_park",
        /// `art_gallery`
        ArtGallery => "art_gallery",
        /// `tourist_attraction`
        TouristAttraction => "tourist_attraction",
    }
}

impl DeprecatedPoiAlias {
    /// The current type that replaces the alias.
    ///
    /// The spec names the replacement of `airport` and `train_station` only (the latter,
    /// `transit.station.rail.train`, is outside the 72 listed types, which is why this returns a
    /// string). For the others Waymark picks the closest listed type:
    /// - `metro_station` -> `transit.station`: no metro-specific type exists and `transit.station.rail`
    ///   means rail stations in general, so the generic station type avoids claiming too much;
    /// - `shopping` -> `business.shop`: the parent of every shop type;
    /// - `museum` -> `tourism.museum`: same meaning;
    /// - `zoo` -> `tourism.attraction.zoo`: same meaning;
    /// - `amusement_park` -> `tourism.attraction.amusement_park`: same meaning;
    /// - `art_gallery` -> `tourism.museum`: galleries are mapped with museums (no gallery type);
    /// - `tourist_attraction` -> `tourism.attraction`: the parent of every attraction type.
    pub const fn replacement(&self) -> &'static str {
        match self {
            Self::Airport => "transit.station.airport",
            Self::TrainStation => "transit.station.rail.train",
            Self::MetroStation => "transit.station",
            Self::Shopping => "business.shop",
            Self::Museum => "tourism.museum",
            Self::Zoo => "tourism.attraction.zoo",
            Self::AmusementPark => "tourism.attraction.amusement_park",
            Self::ArtGallery => "tourism.museum",
            Self::TouristAttraction => "tourism.attraction",
        }
    }
}

/// One string of a place-type list classified into the three vocabularies.
///
/// Request fields that take place types are `Vec<String>` (the engine decides which
/// vocabularies an endpoint accepts); this type is how it classifies each value. Its serde form
/// is the plain string (`"city"`, `"business.shop"`, `"zoo"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(untagged)]
pub enum PlaceType {
    /// One of the 14 locality types.
    Locality(LocalityType),
    /// One of the 72 point-of-interest types.
    Poi(PoiType),
    /// One of the 9 deprecated point-of-interest aliases (autocomplete only).
    DeprecatedAlias(DeprecatedPoiAlias),
}

impl PlaceType {
    /// Classifies `s`; `None` when it belongs to no vocabulary (for example
    /// `transit.station.rail.train`, which may appear in results but is not a listed input).
    pub fn parse(s: &str) -> Option<PlaceType> {
        if let Ok(t) = s.parse() {
            return Some(Self::Locality(t));
        }
        if let Ok(t) = s.parse() {
            return Some(Self::Poi(t));
        }
        s.parse().ok().map(Self::DeprecatedAlias)
    }

    /// The exact string of the spec.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Locality(t) => t.as_str(),
            Self::Poi(t) => t.as_str(),
            Self::DeprecatedAlias(t) => t.as_str(),
        }
    }
}

impl fmt::Display for PlaceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

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
    fn poi_types_are_exactly_the_spec_list() {
        const SPEC: &str = "point_of_interest transit.station transit.station.airport \
            transit.station.rail beach business business.car_repair business.car_rental \
            business.cinema business.conference_centre business.exhibition_centre business.theatre \
            business.nightclub business.finance business.finance.bank business.fuel business.parking \
            business.mall business.food_and_drinks business.food_and_drinks.bar \
            business.food_and_drinks.biergarten business.food_and_drinks.cafe \
            business.food_and_drinks.fast_food business.food_and_drinks.pub \
            business.food_and_drinks.restaurant business.food_and_drinks.food_court business.shop \
            business.shop.mall business.shop.bakery business.shop.butcher business.shop.library \
            business.shop.grocery business.shop.sports business.shop.toys business.shop.clothes \
            business.shop.furniture business.shop.electronics business.shop.doityourself \
            business.shop.craft education education.school education.kindergarten \
            education.university education.college education.library hospitality hospitality.hotel \
            hospitality.hostel hospitality.guest_house hospitality.bed_and_breakfast hospitality.motel \
            medical medical.hospital medical.pharmacy medical.clinic tourism tourism.attraction \
            tourism.attraction.amusement_park tourism.attraction.zoo tourism.attraction.aquarium \
            tourism.monument tourism.monument.castle tourism.museum government park park.national \
            place_of_worship police post_office sports sports.golf sports.winter";
        let spec: Vec<&str> = SPEC.split_whitespace().collect();
        assert_eq!(spec.len(), 72);
        assert_eq!(PoiType::NAMES, spec.as_slice());
    }

    #[test]
    fn locality_types_are_exactly_the_spec_list() {
        assert_eq!(
            LocalityType::NAMES,
            [
                "country",
                "admin_level",
                "postal_code",
                "address",
                "route",
                "locality",
                "city",
                "town",
                "village",
                "hamlet",
                "borough",
                "suburb",
                "quarter",
                "neighbourhood"
            ]
        );
        let settlements: Vec<&str> = LocalityType::settlement_types()
            .iter()
            .map(|t| t.as_str())
            .collect();
        assert_eq!(
            settlements,
            [
                "city",
                "town",
                "village",
                "hamlet",
                "borough",
                "suburb",
                "quarter",
                "neighbourhood"
            ]
        );
        assert!(LocalityType::Suburb.is_settlement());
        assert!(!LocalityType::Locality.is_settlement());
        assert!(!LocalityType::PostalCode.is_settlement());
    }

    #[test]
    fn deprecated_aliases() {
        let pairs: Vec<(&str, &str)> = DeprecatedPoiAlias::ALL
            .iter()
            .map(|a| (a.as_str(), a.replacement()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("airport", "transit.station.airport"),
                ("train_station", "transit.station.rail.train"),
                ("metro_station", "transit.station"),
                ("shopping", "business.shop"),
                ("museum", "tourism.museum"),
                ("zoo", "tourism.attraction.zoo"),
                ("amusement_park", "tourism.attraction.amusement_park"),
                ("art_gallery", "tourism.museum"),
                ("tourist_attraction", "tourism.attraction"),
            ]
        );
        // every replacement but the one the spec names outside the list is a listed type
        for a in DeprecatedPoiAlias::ALL {
            if *a != DeprecatedPoiAlias::TrainStation {
                assert!(a.replacement().parse::<PoiType>().is_ok(), "{a}");
            }
        }
    }

    #[test]
    fn place_type_classification() {
        assert_eq!(
            PlaceType::parse("city"),
            Some(PlaceType::Locality(LocalityType::City))
        );
        assert_eq!(
            PlaceType::parse("business.shop"),
            Some(PlaceType::Poi(PoiType::BusinessShop))
        );
        assert_eq!(
            PlaceType::parse("zoo"),
            Some(PlaceType::DeprecatedAlias(DeprecatedPoiAlias::Zoo))
        );
        assert_eq!(PlaceType::parse("transit.station.rail.train"), None);
        assert_eq!(
            PlaceType::parse("zoo").map(|t| t.to_string()).as_deref(),
            Some("zoo")
        );
        for s in ["city", "business.shop", "zoo"] {
            let t = PlaceType::parse(s).unwrap();
            assert_eq!(serde_json::to_value(t).unwrap(), serde_json::json!(s));
            assert_eq!(
                serde_json::from_value::<PlaceType>(serde_json::json!(s)).unwrap(),
                t
            );
        }
        assert!(
            serde_json::from_value::<PlaceType>(serde_json::json!("transit.station.rail.train"))
                .is_err()
        );
        assert_eq!(
            PoiType::BusinessShopBakery.parent(),
            Some(PoiType::BusinessShop)
        );
        assert_eq!(PoiType::Business.parent(), None);
        assert!(PoiType::BusinessShopBakery.is_within(PoiType::Business));
        assert!(!PoiType::BusinessShop.is_within(PoiType::BusinessShopBakery));
        assert!(!PoiType::Park.is_within(PoiType::ParkNational));
        assert!(PoiType::ParkNational.is_within(PoiType::Park));
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
    fn accept_language() {
        let f = RouteLanguage::from_accept_language;
        assert_eq!(f("fr-CH, fr;q=0.9, en;q=0.8"), Some(RouteLanguage::Fr));
        assert_eq!(f("xx, de;q=0.5, it;q=0.7"), Some(RouteLanguage::It));
        assert_eq!(f("en;q=0, nb"), Some(RouteLanguage::Nb));
        assert_eq!(f("ZH_tw"), Some(RouteLanguage::Zh));
        assert_eq!(f("xx, *"), None);
        assert_eq!(f(""), None);
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
