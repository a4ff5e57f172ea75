//! The in-memory index of the stores layers of a pack set.
use std::collections::HashMap;
use std::sync::Arc;

use ::geo::{Contains, Point};
use chrono::{DateTime, Utc};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{AABB, RTree};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use waymark_storequery::StoreFields;

use super::edits::{ZoneEdit, ZoneOverlay};
use super::hours::{CompiledHours, OpeningHours};
use super::packed::{self, PackedZone};
use super::zone::zone_shape;
use crate::api::{JsonObject, PointGeometry, StoreAddress, StoreFeature, StoreProperties};
use crate::error::{ApiError, ErrorCode};
use crate::geo::{EARTH_RADIUS_M, Pt, xyz};
use crate::packs::PackSet;
use crate::packs::schema::layers;

/// One store, as read from a pack.
#[derive(Debug, Clone)]
pub struct StoreRecord {
    /// Store id.
    pub store_id: String,
    /// Name.
    pub name: String,
    /// Address lines.
    pub lines: Vec<String>,
    /// City.
    pub city: String,
    /// Postal code.
    pub zipcode: String,
    /// Country code, upper case.
    pub country_code: Option<String>,
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
    /// Types.
    pub types: Vec<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// Names by language.
    pub localized_names: Map<String, Value>,
    /// Free properties.
    pub user_properties: Map<String, Value>,
    /// Contact details.
    pub contact: Map<String, Value>,
    /// Opening hours.
    pub opening_hours: Option<OpeningHours>,
    /// The same, made ready for the opening filter of the search.
    pub compiled_hours: Option<CompiledHours>,
}

impl StoreRecord {
    /// Position.
    pub fn pt(&self) -> Pt {
        Pt::new(self.lat, self.lng)
    }
}

impl StoreFields for StoreRecord {
    fn types(&self) -> &[String] {
        &self.types
    }
    fn tags(&self) -> &[String] {
        &self.tags
    }
    fn city(&self) -> &str {
        &self.city
    }
    fn country_code(&self) -> Option<&str> {
        self.country_code.as_deref()
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn store_id(&self) -> &str {
        &self.store_id
    }
    fn localized_names(&self) -> impl Iterator<Item = &str> {
        self.localized_names.values().filter_map(Value::as_str)
    }
    fn user_property(&self, name: &str) -> Option<&Value> {
        self.user_properties.get(name)
    }
}

/// The shape of a zone and the store it belongs to.
#[derive(Debug)]
pub struct ZoneShape {
    /// The store (its place in the index).
    pub store: u32,
    /// The polygon or multipolygon, `x` = longitude.
    pub shape: ::geo::Geometry<f64>,
}

/// A zone as a pack brings it: the fields an edit keeps when it does not give them, and what
/// identifies the content an edit was made on.
#[derive(Debug)]
pub struct PackZone {
    /// The zone's id.
    pub zone_id: String,
    /// Well-known text, as the pack holds it.
    pub polygon: String,
    /// Shape and store.
    pub zone: ZoneShape,
    /// The pack.
    pub pack_id: Arc<str>,
    /// The pack's version.
    pub pack_version: Arc<str>,
    /// SHA-256 (hex) of the zone's row: store, description, polygon, types, status.
    pub digest: String,
    /// Description.
    pub description: Option<String>,
    /// Types.
    pub types: Vec<String>,
    /// Status.
    pub status: Option<String>,
}

/// The stores of a pack set, with their positions and zones indexed.
#[derive(Debug)]
pub struct StoreIndex {
    stores: Vec<StoreRecord>,
    /// The stores' positions on the sphere ([`crate::geo::xyz`]), in index order.
    positions: Vec<[f64; 3]>,
    points: RTree<GeomWithData<[f64; 3], u32>>,
    /// The first store with each id (packs in the set's order).
    store_ids: HashMap<String, u32>,
    /// The stores of each type (lower case), in index order.
    by_type: HashMap<String, Vec<u32>>,
    /// The stores of each tag (lower case), in index order.
    by_tag: HashMap<String, Vec<u32>>,
    /// The stores of each country code (lower case), in index order.
    by_country: HashMap<String, Vec<u32>>,
    /// The `user_properties` attributes some store has.
    user_attributes: std::collections::HashSet<String>,
    /// The columns of the attributes queries have read (see [`UserCell`]).
    user_columns: parking_lot::RwLock<HashMap<String, Arc<[UserCell]>>>,
    zones: Vec<PackZone>,
    /// The first zone with each id.
    zone_ids: HashMap<String, u32>,
    /// The zones of each store id, in index order.
    store_zones: HashMap<String, Vec<u32>>,
    zone_boxes: RTree<GeomWithData<Rectangle<[f64; 2]>, u32>>,
}

/// One store's value of a `user_properties` attribute, as a column keeps it: numbers inline,
/// so numeric clauses never touch the store's record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UserCell {
    /// The store does not have the attribute.
    Absent,
    /// A number.
    Number(f64),
    /// Text or a boolean: the clause reads the record.
    Other,
}

/// The stores having each member of `members(store)` (lower-cased), in index order.
fn members_index<'a>(
    stores: &'a [StoreRecord],
    members: impl Fn(&'a StoreRecord) -> Box<dyn Iterator<Item = &'a str> + 'a>,
) -> HashMap<String, Vec<u32>> {
    let mut index: HashMap<String, Vec<u32>> = HashMap::new();
    for (i, s) in stores.iter().enumerate() {
        for m in members(s) {
            let list = index.entry(lower(m)).or_default();
            if list.last() != Some(&(i as u32)) {
                list.push(i as u32);
            }
        }
    }
    index
}

/// The bounding box of `shape`, tagged `i`, for an R-tree of zones (`x` = longitude).
pub fn zone_box(
    shape: &::geo::Geometry<f64>,
    i: u32,
) -> Option<GeomWithData<Rectangle<[f64; 2]>, u32>> {
    use ::geo::BoundingRect;
    let r = shape.bounding_rect()?;
    Some(GeomWithData::new(
        Rectangle::from_corners([r.min().x, r.min().y], [r.max().x, r.max().y]),
        i,
    ))
}

/// The digest identifying a zone row's content.
pub(super) fn zone_digest(
    store_id: &str,
    description: Option<&str>,
    polygon: &str,
    types: &[String],
    status: Option<&str>,
) -> String {
    let canonical = serde_json::json!([store_id, description, polygon, types, status]).to_string();
    crate::packs::install::hex(&Sha256::digest(canonical.as_bytes()))
}

/// `t` in lower case, as the query language compares types.
fn lower(t: &str) -> String {
    t.chars().flat_map(char::to_lowercase).collect()
}

fn unreadable(pack: &str, e: &dyn std::error::Error) -> ApiError {
    tracing::error!(pack, error = %e, "the stores layer cannot be read");
    ApiError::internal(e)
}

impl StoreIndex {
    /// Reads the stores layers of `set`; 503 when no pack has one.
    pub fn load(set: &PackSet) -> Result<StoreIndex, ApiError> {
        let packs = set.with_layer(layers::STORES);
        if packs.is_empty() {
            return Err(ApiError::new(
                ErrorCode::DataUnavailable,
                "no installed pack has the stores layer; import stores into a pack \
                 (`waymark-packs import-stores`, see docs/stores-layer.md) and install it",
            ));
        }
        let mut stores = Vec::new();
        let mut zones: Vec<PackZone> = Vec::new();
        let mut store_ids = HashMap::new();
        let mut zone_ids = HashMap::new();
        let mut store_zones: HashMap<String, Vec<u32>> = HashMap::new();
        for pack in packs {
            let pack_id: Arc<str> = Arc::from(pack.id());
            let pack_version: Arc<str> = Arc::from(pack.version());
            let conn = pack.sqlite().map_err(|e| unreadable(pack.id(), &e))?;
            let (packed_stores, packed_zones) =
                packed::read(&conn).map_err(|e| unreadable(pack.id(), &e))?;
            let first = stores.len() as u32;
            let mut by_id = std::collections::HashMap::new();
            for s in packed_stores {
                let record = StoreRecord {
                    store_id: s.store_id,
                    name: s.name.unwrap_or_default(),
                    lines: s.address_lines,
                    city: s.city.unwrap_or_default(),
                    zipcode: s.zipcode.unwrap_or_default(),
                    country_code: s.country_code,
                    lat: s.lat,
                    lng: s.lng,
                    types: s.types,
                    tags: s.tags,
                    localized_names: s.localized_names,
                    user_properties: s.user_properties,
                    contact: s.contact,
                    opening_hours: s.opening_hours.and_then(|h| serde_json::from_value(h).ok()),
                    compiled_hours: None,
                };
                let record = StoreRecord {
                    compiled_hours: record.opening_hours.as_ref().map(CompiledHours::new),
                    ..record
                };
                let at = first + by_id.len() as u32;
                by_id.insert(record.store_id.clone(), at);
                store_ids.entry(record.store_id.clone()).or_insert(at);
                stores.push(record);
            }
            for z in packed_zones {
                let PackedZone {
                    zone_id,
                    store_id,
                    description,
                    polygon_wkt: wkt_text,
                    types,
                    status,
                } = z;
                let (Some(store), Some(shape)) = (by_id.get(&store_id), zone_shape(&wkt_text).ok())
                else {
                    tracing::warn!(pack = pack.id(), store = %store_id, "zone skipped: unknown store or unreadable polygon");
                    continue;
                };
                let digest = zone_digest(
                    &store_id,
                    description.as_deref(),
                    &wkt_text,
                    &types,
                    status.as_deref(),
                );
                zone_ids
                    .entry(zone_id.clone())
                    .or_insert(zones.len() as u32);
                store_zones
                    .entry(store_id)
                    .or_default()
                    .push(zones.len() as u32);
                zones.push(PackZone {
                    zone_id,
                    polygon: wkt_text,
                    zone: ZoneShape {
                        store: *store,
                        shape,
                    },
                    pack_id: pack_id.clone(),
                    pack_version: pack_version.clone(),
                    digest,
                    description,
                    types,
                    status,
                });
            }
        }
        let positions: Vec<[f64; 3]> = stores.iter().map(|s| xyz(s.pt())).collect();
        let points = RTree::bulk_load(
            positions
                .iter()
                .enumerate()
                .map(|(i, p)| GeomWithData::new(*p, i as u32))
                .collect(),
        );
        let zone_boxes = RTree::bulk_load(
            zones
                .iter()
                .enumerate()
                .filter_map(|(i, z)| zone_box(&z.zone.shape, i as u32))
                .collect(),
        );
        let by_type = members_index(&stores, |s| Box::new(s.types.iter().map(String::as_str)));
        let by_tag = members_index(&stores, |s| Box::new(s.tags.iter().map(String::as_str)));
        let by_country =
            members_index(&stores, |s| Box::new(s.country_code.as_deref().into_iter()));
        let user_attributes = stores
            .iter()
            .flat_map(|s| s.user_properties.keys())
            .cloned()
            .collect();
        Ok(StoreIndex {
            stores,
            positions,
            points,
            store_ids,
            by_type,
            by_tag,
            by_country,
            user_attributes,
            user_columns: Default::default(),
            zones,
            zone_ids,
            store_zones,
            zone_boxes,
        })
    }

    /// The store at `i`.
    pub fn record(&self, i: u32) -> &StoreRecord {
        &self.stores[i as usize]
    }

    /// The square of the chord distance (metres²) from store `i` to `c` (a position from
    /// [`crate::geo::xyz`]): it orders stores exactly as their great-circle distance to `c`.
    pub fn chord2(&self, i: u32, c: [f64; 3]) -> f64 {
        let p = self.positions[i as usize];
        (p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2) + (p[2] - c[2]).powi(2)
    }

    /// Every store.
    pub fn all(&self) -> Vec<u32> {
        (0..self.stores.len() as u32).collect()
    }

    /// How many stores.
    pub fn len(&self) -> usize {
        self.stores.len()
    }

    /// Whether the index has no store.
    pub fn is_empty(&self) -> bool {
        self.stores.is_empty()
    }

    /// The stores of type `t` (lower case: types are compared ignoring case), in index order.
    pub fn with_type(&self, t: &str) -> &[u32] {
        self.by_type.get(t).map_or(&[], Vec::as_slice)
    }

    /// The stores with tag `t` (lower case), in index order.
    pub fn with_tag(&self, t: &str) -> &[u32] {
        self.by_tag.get(t).map_or(&[], Vec::as_slice)
    }

    /// The stores in country `c` (lower case), in index order.
    pub fn in_country(&self, c: &str) -> &[u32] {
        self.by_country.get(c).map_or(&[], Vec::as_slice)
    }

    /// The column of `user_properties` attribute `name`, one cell per store in index order;
    /// `None` when no store has the attribute. Built on first use and kept.
    pub fn user_column(&self, name: &str) -> Option<Arc<[UserCell]>> {
        if !self.user_attributes.contains(name) {
            return None;
        }
        if let Some(c) = self.user_columns.read().get(name) {
            return Some(c.clone());
        }
        let column: Arc<[UserCell]> = self
            .stores
            .iter()
            .map(|s| match s.user_properties.get(name) {
                None => UserCell::Absent,
                Some(Value::Number(n)) => n.as_f64().map_or(UserCell::Other, UserCell::Number),
                Some(_) => UserCell::Other,
            })
            .collect();
        self.user_columns
            .write()
            .insert(name.to_owned(), column.clone());
        Some(column)
    }

    /// The stores within `radius_m` of `c` (great-circle distance).
    pub fn within(&self, c: Pt, radius_m: f64) -> Vec<u32> {
        let angle = (radius_m / EARTH_RADIUS_M).min(std::f64::consts::PI);
        let chord = 2.0 * EARTH_RADIUS_M * (angle / 2.0).sin();
        self.points
            .locate_within_distance(xyz(c), chord * chord * (1.0 + 1e-9))
            .map(|g| g.data)
            .collect()
    }

    /// The first store with id `store_id`.
    pub fn store_by_id(&self, store_id: &str) -> Option<u32> {
        self.store_ids.get(store_id).copied()
    }

    /// The first zone with id `zone_id`.
    pub fn zone_by_id(&self, zone_id: &str) -> Option<(u32, &PackZone)> {
        let i = *self.zone_ids.get(zone_id)?;
        Some((i, &self.zones[i as usize]))
    }

    /// The ids of the pack zones of store `store_id`.
    pub fn zone_ids_of_store(&self, store_id: &str) -> impl Iterator<Item = &str> {
        self.store_zones
            .get(store_id)
            .into_iter()
            .flatten()
            .map(|i| self.zones[*i as usize].zone_id.as_str())
    }

    /// The pack zone `edit` replaces: the zone of the same id, whatever the pack did to it
    /// since (an edit is never overridden by a pack; see [`StoreIndex::conflict`]).
    pub fn applies(&self, edit: &ZoneEdit) -> Option<u32> {
        self.zone_by_id(&edit.zone_id).map(|(i, _)| i)
    }

    /// Whether `edit` answers in searches: its store is installed.
    pub fn in_force(&self, edit: &ZoneEdit) -> bool {
        self.store_by_id(&edit.store_id).is_some()
    }

    /// Whether the packs changed the zone since `edit` was made: the pack zone of its id now
    /// (its content digest, or none) differs from the one the edit found, and is not the
    /// edit's own zone (a pack that republishes the edit agrees with it). The edit stays in
    /// force and the zone is in conflict until it is updated again.
    pub fn conflict(&self, edit: &ZoneEdit) -> bool {
        let now = self
            .zone_by_id(&edit.zone_id)
            .map(|(_, z)| z.digest.as_str())
            .unwrap_or("");
        let own = match edit.deleted {
            true => String::new(),
            false => edit.digest(),
        };
        now != edit.base && now != own
    }

    /// The stores one of whose zones (as edited by `overlay`) contains `c`.
    pub fn stores_with_zone_at(&self, c: Pt, overlay: &ZoneOverlay) -> Vec<u32> {
        let p = Point::new(c.lng, c.lat);
        let at = [c.lng, c.lat];
        let mut out: Vec<u32> = self
            .zone_boxes
            .locate_in_envelope_intersecting(&AABB::from_point(at))
            .filter(|g| !overlay.masks(g.data))
            .map(|g| &self.zones[g.data as usize].zone)
            .chain(overlay.candidates(at))
            .filter(|z| z.shape.contains(&p))
            .map(|z| z.store)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The feature of store `i`.
    pub fn feature(
        &self,
        i: u32,
        distance: Option<f64>,
        language: Option<&str>,
        now: DateTime<Utc>,
    ) -> StoreFeature {
        let s = self.record(i);
        let name = language
            .and_then(|l| s.localized_names.get(l))
            .and_then(Value::as_str)
            .unwrap_or(&s.name)
            .to_owned();
        let object = |m: &Map<String, Value>| (!m.is_empty()).then(|| JsonObject::from(m.clone()));
        StoreFeature {
            kind: "Feature".into(),
            properties: StoreProperties {
                store_id: s.store_id.clone(),
                name,
                address: StoreAddress {
                    lines: s.lines.clone(),
                    city: s.city.clone(),
                    zipcode: s.zipcode.clone(),
                    country_code: s.country_code.clone(),
                },
                distance: distance.map(|d| (d * 10.0).round() / 10.0),
                types: s.types.clone(),
                tags: s.tags.clone(),
                localized_names: object(&s.localized_names),
                user_properties: object(&s.user_properties),
                contact: object(&s.contact),
                opening_hours: s.opening_hours.as_ref().and_then(|h| {
                    match serde_json::to_value(h) {
                        Ok(Value::Object(m)) => Some(JsonObject::from(m)),
                        _ => None,
                    }
                }),
                open: s.opening_hours.as_ref().map(|h| h.open_at(now)),
            },
            geometry: PointGeometry::new(crate::api::LatLng::new(s.lat, s.lng)),
        }
    }
}
