//! The geolocation operations over a pack registry's sets: the position of an IP address and
//! the timezone of a coordinate. The indexes (IP ranges, timezone polygons) are built once per
//! pack set and rebuilt when the set changes; [`Geolocation::prepare`] builds them ahead of
//! the first request. The [`crate::Engine`] methods delegate here, as they do to
//! [`crate::localities::Localities`] and [`crate::distance::Distance`].
use std::sync::Arc;

use crate::api::{
    FieldError, GeolocationResult, LatLng, PositionRequest, PositionResponse, TimezoneRequest,
    TimezoneResponse, Viewport,
};
use crate::distance::LocalTime;
use crate::error::{ApiError, ErrorCode};
use crate::geo::Pt;
use crate::operation::Call;
use crate::packs::registry::{LoadedPack, PackSet, PackSetCache, SQLITE_FILE};
use crate::packs::schema::layers;

use super::ip::{IpIndex, WORLD_IP_FILES, is_local};
use super::layer_attribution;
use super::timezone::{TimezoneIndex, TimezoneIndexBuilder, nautical_zone, offsets};

/// The geolocation indexes of the current pack set.
#[derive(Debug, Default)]
pub struct Geolocation {
    /// Timezone polygons of the current pack set.
    tz_index: PackSetCache<TimezoneIndex>,
    /// IP ranges of the current pack set.
    ip_index: PackSetCache<IpIndex>,
}

impl Geolocation {
    /// Builds the indexes of `set` now (they are otherwise built by the first request that
    /// needs them, which then waits). Missing layers are not an error here: the requests will
    /// answer 503.
    pub fn prepare(&self, set: &Arc<PackSet>) {
        let _ = self.timezone_index(set.clone());
        let _ = self.ip_index(set.clone());
    }

    /// `GET /geolocation/position`: the position of `ip_address` (honoured only with a
    /// private key) or of the calling connection, from the packs' IP ranges; the attribution
    /// of the ranges that answered is recorded on the call.
    pub fn position(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &PositionRequest,
    ) -> Result<PositionResponse, ApiError> {
        let grant = call.grant();
        // The spec: `ip_address` is honoured only for calls with a private key.
        let ip = match (grant.is_private(), req.ip_address) {
            (true, Some(ip)) => ip,
            _ => grant.peer_ip.ok_or_else(|| {
                ApiError::not_found(
                    "the caller's address is unknown; pass `ip_address` with a private key",
                )
            })?,
        };
        let ip = crate::auth::restrictions::canonical_ip(ip);
        if is_local(ip) {
            return Err(ApiError::not_found(format!(
                "{ip} is a local or private address and has no geographic position; \
                 pass a public `ip_address` with a private key"
            )));
        }
        let unknown = || {
            ApiError::not_found(format!(
                "no position is known for {ip} in the installed packs"
            ))
        };
        let index = self.ip_index(set.clone())?;
        let hit = index.find(ip).ok_or_else(unknown)?;
        let record = hit.record.as_ref();
        let code = record.country_code.as_deref();
        let country = code.and_then(|c| index.country(c));
        let (lat, lng) = record
            .position
            .or_else(|| country.and_then(|c| c.position))
            .ok_or_else(unknown)?;
        call.charge()?;
        let tz = self.offsets_at(set, lat, lng, chrono::Utc::now())?;
        let r = record.accuracy_km;
        let dlat = r / 111.32;
        let dlng = r / (111.32 * lat.to_radians().cos().abs().max(0.01));
        call.attribute(index.attribution(&hit, country));
        Ok(GeolocationResult {
            viewport: Viewport {
                northeast: LatLng {
                    lat: (lat + dlat).min(90.0),
                    lng: (lng + dlng).min(180.0),
                },
                southwest: LatLng {
                    lat: (lat - dlat).max(-90.0),
                    lng: (lng - dlng).max(-180.0),
                },
            },
            accuracy: r,
            latitude: lat,
            longitude: lng,
            country_code: code.map(str::to_string),
            country_name: country
                .map_or_else(|| code.unwrap_or_default().to_string(), |c| c.name.clone()),
            continent: country.map(|c| c.continent.clone()).unwrap_or_default(),
            region_state: record.region.as_deref().map(str::to_string),
            city: record.city.as_deref().map(str::to_string),
            postal_code: record.postal_code.as_deref().map(str::to_string),
            timezone: tz.timezone,
            raw_offset: tz.raw_offset,
            dst_offset: tz.dst_offset,
        })
    }

    /// `GET /geolocation/timezone`: the zone containing `location` (nautical `Etc/GMT±N` at
    /// sea where no polygon covers it) and the offsets in force at `timestamp` (default now).
    pub fn timezone(
        &self,
        set: Arc<PackSet>,
        call: &Call<'_>,
        req: &TimezoneRequest,
    ) -> Result<TimezoneResponse, ApiError> {
        let instant = match req.timestamp {
            None => chrono::Utc::now(),
            Some(t) => chrono::DateTime::from_timestamp(t, 0).ok_or_else(|| {
                ApiError::validation(vec![FieldError::new(
                    vec!["query".into(), "timestamp".into()],
                    "value_error",
                    "timestamp is outside the supported range of dates; give UNIX seconds",
                )])
            })?,
        };
        let index = self.timezone_index(set)?;
        call.charge()?;
        offsets(index.lookup(req.location.lat, req.location.lng), instant)
            .map_err(|e| ApiError::internal(&e))
    }

    /// The zone at a point (the timezones layer, else the nautical zone of the longitude) and
    /// its offsets at `at`.
    fn offsets_at(
        &self,
        set: Arc<PackSet>,
        lat: f64,
        lng: f64,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<crate::api::TimezoneResult, ApiError> {
        let result = match self.timezone_index(set) {
            Ok(index) => offsets(index.lookup(lat, lng), at),
            Err(_) => offsets(nautical_zone(lng), at),
        };
        result.map_err(|e| ApiError::internal(&e))
    }

    /// The IP index of `set` (city-level packs first), built once per pack set.
    fn ip_index(&self, set: Arc<PackSet>) -> Result<Arc<IpIndex>, ApiError> {
        self.ip_index.get_or_build(set, |set| {
            let mut packs = set.with_layer(layers::IP);
            // The most precise first: region packs (city-level ranges of their area), then
            // world IP packs (city-level everywhere), then the base pack (countries).
            let world_files = |p: &LoadedPack| {
                WORLD_IP_FILES
                    .iter()
                    .all(|f| p.manifest.files.iter().any(|m| m.path == *f))
            };
            packs.sort_by_key(|p| {
                if world_files(p) {
                    1
                } else if p.manifest.coverage.bbox == [-180.0, -90.0, 180.0, 90.0] {
                    2
                } else {
                    0
                }
            });
            let mut index = IpIndex::default();
            for pack in packs {
                let attribution = layer_attribution(&pack.manifest, layers::IP);
                if world_files(pack) {
                    index
                        .add_world_pack(&pack.path(""), attribution)
                        .map_err(|e| {
                            ApiError::new(
                                ErrorCode::DataUnavailable,
                                format!(
                                    "the IP files of pack `{}` cannot be read ({e}); reinstall it",
                                    pack.manifest.id
                                ),
                            )
                        })?;
                } else {
                    // Read into memory in the background (below); queried in SQLite until then.
                    index.add_pack_deferred(&pack.path(SQLITE_FILE), attribution)?;
                }
            }
            // Country names may come from a pack without IP ranges.
            for pack in set.with_layer(layers::PLACES) {
                if !pack.has_layer(layers::IP) {
                    index.add_pack_attributed(
                        &pack.sqlite()?,
                        layer_attribution(&pack.manifest, layers::IP),
                    )?;
                }
            }
            if index.is_empty() {
                return Err(ApiError::new(
                    ErrorCode::DataUnavailable,
                    "no installed pack has the ip layer; install the base pack or a region pack",
                ));
            }
            index.load_in_background();
            Ok(index)
        })
    }

    /// The timezone index of `set`, built once per pack set.
    fn timezone_index(&self, set: Arc<PackSet>) -> Result<Arc<TimezoneIndex>, ApiError> {
        self.tz_index.get_or_build(set, |set| {
            let mut index = TimezoneIndexBuilder::default();
            for pack in set.with_layer(layers::TIMEZONES) {
                index.add_pack(&pack.sqlite()?)?;
            }
            if index.is_empty() {
                return Err(ApiError::new(
                    ErrorCode::DataUnavailable,
                    "no installed pack has the timezones layer; install the base pack \
                     (`waymark-packs build --pack base`, then POST /packs)",
                ));
            }
            // The grid builds in the background; lookups scan the zones until it is ready.
            Ok(index.build_in_background())
        })
    }
}

impl LocalTime for Geolocation {
    /// Local UTC offset (seconds) at a point and instant: the timezones layer, else the
    /// nautical zone of the longitude.
    fn utc_offset(&self, set: &Arc<PackSet>, p: Pt, unix: i64) -> i64 {
        chrono::DateTime::from_timestamp(unix, 0)
            .and_then(|at| self.offsets_at(set.clone(), p.lat, p.lng, at).ok())
            .map_or(0, |o| i64::from(o.raw_offset) + i64::from(o.dst_offset))
    }
}
