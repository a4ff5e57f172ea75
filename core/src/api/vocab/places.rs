//! Place types: the locality types, the point-of-interest types and the deprecated
//! point-of-interest aliases (three vocabularies), and [`PlaceType`], which classifies one
//! string of a place-type list into them.

use std::fmt;

use super::{UnknownValue, Vocabulary};

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
    /// The parent type in the dotted hierarchy (`business.shop.bakery` -> `business.shop`; the
    /// nearest listed ancestor where a level is not a type); `point_of_interest` is the root
    /// of every top-level type (`business`, `transit.station` -> `point_of_interest`), and the
    /// root has none.
    pub fn parent(&self) -> Option<PoiType> {
        if *self == PoiType::PointOfInterest {
            return None;
        }
        let mut s = self.as_str();
        while let Some((parent, _)) = s.rsplit_once('.') {
            if let Ok(p) = parent.parse() {
                return Some(p);
            }
            s = parent;
        }
        Some(PoiType::PointOfInterest)
    }

    /// Whether `self` is `other` or a descendant of it (`business.shop.bakery` is within
    /// `business`, and every type is within `point_of_interest`).
    pub fn is_within(&self, other: PoiType) -> bool {
        let s = self.as_str();
        let o = other.as_str();
        other == PoiType::PointOfInterest
            || s == o
            || (s.starts_with(o) && s.as_bytes().get(o.len()) == Some(&b'.'))
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

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
        assert_eq!(PoiType::Business.parent(), Some(PoiType::PointOfInterest));
        assert_eq!(PoiType::PointOfInterest.parent(), None);
        assert_eq!(
            PoiType::TransitStation.parent(),
            Some(PoiType::PointOfInterest)
        );
        assert!(PoiType::BusinessShopBakery.is_within(PoiType::PointOfInterest));
        assert!(PoiType::BusinessShopBakery.is_within(PoiType::Business));
        assert!(!PoiType::BusinessShop.is_within(PoiType::BusinessShopBakery));
        assert!(!PoiType::Park.is_within(PoiType::ParkNational));
        assert!(PoiType::ParkNational.is_within(PoiType::Park));
    }
}
