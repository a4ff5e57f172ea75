//! Zones as a managed resource (Waymark extensions beside the spec's `PUT /zones`): read one
//! zone, list a store's zones, create zones, delete a zone, and export the device's edits as a
//! stores file that `waymark-packs import-stores` reads.
//!
//! A zone answers as the device's edit when there is one (created, updated or deleted on this
//! device, see [`super::edits`]), else as the installed pack brings it. Every write goes
//! through [`super::edits::ZoneEdits::commit`]: one SQLite transaction, all or nothing.
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use chrono::Utc;
use serde_json::{Map, Value, json};

use super::Stores;
use super::edits::{EditSet, ZoneEdit};
use super::index::StoreIndex;
use crate::api::{
    FieldError, JsonObject, LatLng, Loc, PointGeometry, ZoneDeleteRequest, ZoneDeleteResponse,
    ZoneEditInfo, ZoneGetRequest, ZoneRecord, ZonesCreateRequest, ZonesCreateResponse,
    ZonesExportFeature, ZonesExportRequest, ZonesExportResponse, ZonesListRequest,
    ZonesListResponse, ZonesPagination, kinds,
};
use crate::error::{ApiError, ErrorCode};
use crate::operation::Call;
use crate::packs::PackSet;

/// What the device's edit `e` is and how it stands against the installed packs.
pub(super) fn edit_info(index: &StoreIndex, e: &ZoneEdit) -> ZoneEditInfo {
    let now = index.zone_by_id(&e.zone_id).map(|(_, z)| z);
    let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    ZoneEditInfo {
        zone_id: e.zone_id.clone(),
        store_id: e.store_id.clone(),
        change: match (e.deleted, e.base.is_empty()) {
            (true, _) => "deleted",
            (false, true) => "created",
            (false, false) => "updated",
        }
        .into(),
        conflict: index.conflict(e),
        edit_pack_id: some(&e.pack_id),
        edit_pack_version: some(&e.pack_id).and_then(|_| some(&e.pack_version)),
        pack_id: now.map(|z| z.pack_id.to_string()),
        pack_version: now.map(|z| z.pack_version.to_string()),
        updated_at: e.updated_at.clone(),
    }
}

/// The device's edit `e` as a zone (a deleted zone as it was deleted).
fn edit_record(index: &StoreIndex, e: &ZoneEdit) -> ZoneRecord {
    ZoneRecord {
        zone_id: e.zone_id.clone(),
        store_id: e.store_id.clone(),
        description: e.description.clone(),
        polygon: e.polygon.clone(),
        types: e.types.clone(),
        status: e.status.clone(),
        origin: "device".into(),
        conflict: index.conflict(e),
        edit: Some(edit_info(index, e)),
    }
}

/// The zone `zone_id` as it answers on this device; `None` when no pack and no edit has it,
/// or the device deleted it.
pub(super) fn zone_record(
    index: &StoreIndex,
    edits: &EditSet,
    zone_id: &str,
) -> Option<ZoneRecord> {
    match edits.zones.get(zone_id) {
        Some(e) if e.deleted => None,
        Some(e) => Some(edit_record(index, e)),
        None => {
            let (_, z) = index.zone_by_id(zone_id)?;
            Some(ZoneRecord {
                zone_id: zone_id.to_owned(),
                store_id: index.record(z.zone.store).store_id.clone(),
                description: z.description.clone(),
                polygon: z.polygon.clone(),
                types: z.types.clone(),
                status: z.status.clone(),
                origin: "pack".into(),
                conflict: false,
                edit: None,
            })
        }
    }
}

/// The zones of store `store_id` as they answer on this device, by `zone_id`.
fn zones_of(index: &StoreIndex, edits: &EditSet, store_id: &str) -> Vec<ZoneRecord> {
    let ids: BTreeSet<&str> = index
        .zone_ids_of_store(store_id)
        .chain(
            edits
                .zones
                .values()
                .filter(|e| e.store_id == store_id)
                .map(|e| e.zone_id.as_str()),
        )
        .collect();
    ids.into_iter()
        .filter_map(|id| zone_record(index, edits, id))
        .filter(|z| z.store_id == store_id)
        .collect()
}

fn zone_not_found(zone_id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        format!(
            "no zone {} on this device: list a store's zones with GET /zones?store_id=...",
            crate::api::shown(zone_id)
        ),
    )
}

fn success(message: String) -> ZonesCreateResponse {
    ZonesCreateResponse {
        status: "success".into(),
        message,
    }
}

impl Stores {
    /// `GET /zones/{zone_id}`: the zone as it answers on this device; 404 when no installed
    /// pack and no device edit has it, or the device deleted it.
    pub fn zone_get(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &ZoneGetRequest,
    ) -> Result<ZoneRecord, ApiError> {
        let index = self.index(set)?;
        let edits = self.edits.current();
        let record = zone_record(&index, &edits, &req.zone_id)
            .ok_or_else(|| zone_not_found(&req.zone_id))?;
        call.charge()?;
        Ok(record)
    }

    /// `GET /zones?store_id=...`: the store's zones, paged; 404 for a store no installed pack
    /// has.
    pub fn zones_list(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &ZonesListRequest,
    ) -> Result<ZonesListResponse, ApiError> {
        let index = self.index(set)?;
        if index.store_by_id(&req.store_id).is_none() {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!(
                    "unknown store_id {}: give the id of a store of the installed packs",
                    crate::api::shown(&req.store_id)
                ),
            ));
        }
        let edits = self.edits.current();
        let all = zones_of(&index, &edits, &req.store_id);
        let per = req.zones_by_page.max(1) as usize;
        let total = all.len();
        let start = (req.page.max(1) as usize - 1).saturating_mul(per);
        call.charge()?;
        Ok(ZonesListResponse {
            zones: all.into_iter().skip(start).take(per).collect(),
            pagination: ZonesPagination {
                page: req.page,
                page_count: total.div_ceil(per) as u32,
                total: total as u32,
            },
        })
    }

    /// `POST /zones`: every zone must be new on this device (no pack zone that answers, no
    /// device zone), belong to a known store and have a valid polygon, or nothing is written
    /// (422 naming each refused item).
    pub fn create_zones(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &ZonesCreateRequest,
    ) -> Result<ZonesCreateResponse, ApiError> {
        let index = self.index(set)?;
        let updated_at = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let count = self.edits.commit(|current| {
            let mut errors = Vec::new();
            let mut batch = Vec::with_capacity(req.zones.len());
            for (i, z) in req.zones.iter().enumerate() {
                let mut refuse = |field: &str, msg: String| {
                    errors.push(FieldError::at(
                        Loc::Body,
                        vec![Value::from("zones"), Value::from(i), Value::from(field)],
                        kinds::VALUE,
                        msg,
                    ))
                };
                let exists = zone_record(&index, current, &z.zone_id).is_some();
                if exists {
                    refuse(
                        "zone_id",
                        format!(
                            "zone_id {} exists: update it with PUT /zones, or give a new id",
                            crate::api::shown(&z.zone_id)
                        ),
                    );
                }
                let shape = super::check_store_and_polygon(&index, z, &mut refuse);
                let (false, Ok(shape)) = (exists, shape) else {
                    continue;
                };
                // A pack zone the device deleted and now creates again: made on that zone.
                let pack_zone = index.zone_by_id(&z.zone_id).map(|(_, p)| p);
                batch.push(ZoneEdit {
                    zone_id: z.zone_id.clone(),
                    pack_id: pack_zone.map(|p| p.pack_id.to_string()).unwrap_or_default(),
                    pack_version: pack_zone
                        .map(|p| p.pack_version.to_string())
                        .unwrap_or_default(),
                    base: pack_zone.map(|p| p.digest.clone()).unwrap_or_default(),
                    store_id: z.store_id.clone(),
                    description: z.description.clone(),
                    polygon: z.polygon.clone(),
                    types: z.types.clone().unwrap_or_default(),
                    status: z.status.clone(),
                    updated_at: updated_at.clone(),
                    deleted: false,
                    shape,
                });
            }
            if !errors.is_empty() {
                return Err(ApiError::validation(errors));
            }
            call.charge()?;
            Ok::<_, ApiError>((batch, Vec::new()))
        })?;
        Ok(success(match count {
            1 => "1 zone created".into(),
            n => format!("{n} zones created"),
        }))
    }

    /// `DELETE /zones/{zone_id}`: a pack's zone is hidden by a deletion kept in the device's
    /// edits (so that the export carries it and a newer pack that changes the zone puts it in
    /// conflict); a zone only the device has is removed. 404 when the zone does not answer.
    pub fn delete_zone(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &ZoneDeleteRequest,
    ) -> Result<ZoneDeleteResponse, ApiError> {
        let index = self.index(set)?;
        let updated_at = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        self.edits.commit(|current| {
            let record = zone_record(&index, current, &req.zone_id)
                .ok_or_else(|| zone_not_found(&req.zone_id))?;
            call.charge()?;
            let Some((_, pack_zone)) = index.zone_by_id(&req.zone_id) else {
                return Ok::<_, ApiError>((Vec::new(), vec![req.zone_id.clone()]));
            };
            let tombstone = ZoneEdit {
                zone_id: req.zone_id.clone(),
                pack_id: pack_zone.pack_id.to_string(),
                pack_version: pack_zone.pack_version.to_string(),
                base: pack_zone.digest.clone(),
                store_id: record.store_id,
                description: record.description,
                polygon: record.polygon,
                types: record.types,
                status: record.status,
                updated_at: updated_at.clone(),
                deleted: true,
                shape: pack_zone.zone.shape.clone(),
            };
            Ok((vec![tombstone], Vec::new()))
        })?;
        Ok(success(format!(
            "zone {} deleted",
            crate::api::shown(&req.zone_id)
        )))
    }

    /// `GET /zones/export`: the device's edits as a stores file of `waymark-packs
    /// import-stores` (one feature per store whose zones the device changed, with its zones
    /// as they answer now) and the list of edits with their conflict state.
    pub fn export_zones(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &ZonesExportRequest,
    ) -> Result<ZonesExportResponse, ApiError> {
        let index = self.index(set)?;
        let edits = self.edits.current();
        // Each edit with the stores it touches: its own, and the one the pack gives the zone.
        let mut ordered: Vec<(&Arc<ZoneEdit>, Vec<String>)> = edits
            .zones
            .values()
            .map(|e| {
                let pack_store = index
                    .zone_by_id(&e.zone_id)
                    .map(|(_, z)| index.record(z.zone.store).store_id.clone());
                let touched = std::iter::once(e.store_id.clone()).chain(pack_store);
                (e, touched.collect::<Vec<String>>())
            })
            .filter(|(_, touched)| {
                req.store_id
                    .as_ref()
                    .is_none_or(|s| touched.iter().any(|t| t == s))
            })
            .collect();
        ordered.sort_by(|a, b| a.0.zone_id.cmp(&b.0.zone_id));
        let mut stores: BTreeMap<String, u32> = BTreeMap::new();
        for id in ordered.iter().flat_map(|(_, touched)| touched) {
            if let Some(i) = index.store_by_id(id) {
                stores.insert(id.to_string(), i);
            }
        }
        let features = stores
            .iter()
            .map(|(id, i)| {
                let s = index.record(*i);
                let zones: Vec<Value> = zones_of(&index, &edits, id)
                    .into_iter()
                    .map(|z| {
                        let mut o = Map::new();
                        o.insert("zone_id".into(), z.zone_id.into());
                        o.insert("polygon".into(), z.polygon.into());
                        if let Some(d) = z.description {
                            o.insert("description".into(), d.into());
                        }
                        o.insert("types".into(), z.types.into());
                        if let Some(st) = z.status {
                            o.insert("status".into(), st.into());
                        }
                        Value::Object(o)
                    })
                    .collect();
                let mut p = Map::new();
                p.insert("store_id".into(), s.store_id.clone().into());
                p.insert("name".into(), s.name.clone().into());
                let mut address = json!({
                    "lines": s.lines,
                    "city": (!s.city.is_empty()).then(|| s.city.clone()),
                    "zipcode": (!s.zipcode.is_empty()).then(|| s.zipcode.clone()),
                });
                if let (Some(cc), Some(a)) = (&s.country_code, address.as_object_mut()) {
                    a.insert("country_code".into(), cc.clone().into());
                }
                p.insert("address".into(), address);
                p.insert("contact".into(), Value::Object(s.contact.clone()));
                p.insert("types".into(), s.types.clone().into());
                p.insert("tags".into(), s.tags.clone().into());
                p.insert(
                    "user_properties".into(),
                    Value::Object(s.user_properties.clone()),
                );
                p.insert(
                    "localized_names".into(),
                    Value::Object(s.localized_names.clone()),
                );
                if let Some(h) = &s.opening_hours {
                    p.insert(
                        "opening_hours".into(),
                        serde_json::to_value(h).map_err(|e| ApiError::internal(&e))?,
                    );
                }
                p.insert("zones".into(), Value::Array(zones));
                let conflicts = ordered
                    .iter()
                    .filter(|(e, touched)| touched.contains(id) && index.conflict(e))
                    .map(|(e, _)| e.zone_id.clone())
                    .collect();
                Ok(ZonesExportFeature {
                    kind: "Feature".into(),
                    geometry: PointGeometry::new(LatLng {
                        lat: s.lat,
                        lng: s.lng,
                    }),
                    properties: JsonObject::from(p),
                    conflicts,
                })
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        call.charge()?;
        Ok(ZonesExportResponse {
            kind: "FeatureCollection".into(),
            features,
            edits: ordered
                .iter()
                .map(|(e, _)| edit_record(&index, e))
                .collect(),
        })
    }
}
