//! Geolocation group (`/geolocation`): location of an IP address, timezone of a coordinate.
//!
//! | endpoint | request | response |
//! |---|---|---|
//! | `GET /geolocation/position` | [`PositionRequest`] | [`PositionResponse`] = [`GeolocationResult`] |
//! | `GET /geolocation/timezone` | [`TimezoneRequest`] | [`TimezoneResponse`] = [`TimezoneResult`] |
//!
//! Both answers are the resource itself (no wrapping object).
//!
//! ```
//! use waymark_core::api::{FromQuery, PositionRequest, RequestHeaders, pairs};
//!
//! let req = PositionRequest::from_query(&pairs([("ip_address", "81.2.69.160")]), &RequestHeaders::default(), &[]).unwrap();
//! assert_eq!(req.ip_address.unwrap().to_string(), "81.2.69.160");
//! ```

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use super::common::{LatLng, Viewport};
use super::query::FromQuery;
use super::validation::{Checks, FieldError, Loc, Validate, kinds, shown};

/// Parses an IPv4 or IPv6 address.
pub fn parse_ip(loc: Loc, name: &str, s: &str) -> Result<IpAddr, FieldError> {
    s.trim().parse().map_err(|_| {
        FieldError::invalid(
            loc,
            name,
            kinds::VALUE,
            format!(
                "value is not a valid ip address: give an ipv4 or ipv6 address, got {}",
                shown(s)
            ),
        )
    })
}

/// `GET /geolocation/position` (K1).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PositionRequest {
    /// Address to locate; honoured only for calls with a private key. When absent (or ignored),
    /// the address of the calling connection is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_ip)]
    pub ip_address: Option<IpAddr>,
}

impl Validate for PositionRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        Ok(())
    }
}

/// Location of an IP address.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct GeolocationResult {
    /// Area of the location.
    pub viewport: Viewport,
    /// Radius in kilometres of the circle where the address probably is; 50 or less means a
    /// strong chance of a correct location.
    pub accuracy: f64,
    /// Latitude of the centre.
    pub latitude: f64,
    /// Longitude of the centre.
    pub longitude: f64,
    /// ISO 3166-1 alpha-2 code, or `null` (always present).
    #[serde(default)]
    pub country_code: Option<String>,
    /// Country name.
    pub country_name: String,
    /// Continent name.
    pub continent: String,
    /// Region or state, when available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region_state: Option<String>,
    /// City, when available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    /// Postal code, when available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_code: Option<String>,
    /// tz database identifier, e.g. `Europe/Paris`.
    pub timezone: String,
    /// Seconds from UTC, without daylight saving time.
    pub raw_offset: i32,
    /// Daylight saving time offset in seconds.
    pub dst_offset: i32,
}

/// Answer of `GET /geolocation/position`: the [`GeolocationResult`] itself.
pub type PositionResponse = GeolocationResult;

/// `GET /geolocation/timezone` (K1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TimezoneRequest {
    /// Required point.
    pub location: LatLng,
    /// UTC timestamp (seconds) at which offsets are computed; defaults to the current time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub timestamp: Option<i64>,
}

impl Validate for TimezoneRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        c.latlng(Loc::Query, "location", &self.location);
        c.finish()
    }
}

/// Timezone of a point.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TimezoneResult {
    /// tz database identifier, e.g. `Europe/Paris`.
    pub timezone: String,
    /// Abbreviated name at the requested time, e.g. `CEST`.
    pub timezone_name: String,
    /// Seconds from UTC; never includes daylight saving time.
    pub raw_offset: i32,
    /// Daylight saving time offset in seconds at the requested time.
    pub dst_offset: i32,
}

/// Answer of `GET /geolocation/timezone`: the [`TimezoneResult`] itself.
pub type TimezoneResponse = TimezoneResult;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::{RequestHeaders, pairs};
    use crate::api::testing::{assert_errors, round_trip};
    use serde_json::json;

    #[test]
    fn geolocation_round_trip() {
        let g: PositionResponse = round_trip(json!({
            "viewport": {
                "northeast": {"lat": 51.6, "lng": 0.1},
                "southwest": {"lat": 51.4, "lng": -0.3}
            },
            "accuracy": 20.5,
            "latitude": 51.5,
            "longitude": -0.12,
            "country_code": "GB",
            "country_name": "United Kingdom",
            "continent": "Europe",
            "region_state": "England",
            "city": "London",
            "postal_code": "EC1A",
            "timezone": "Europe/London",
            "raw_offset": 0,
            "dst_offset": 3600
        }));
        assert_eq!(g.dst_offset, 3600);
        let v = serde_json::to_value(GeolocationResult::default()).unwrap();
        assert_eq!(
            v["country_code"],
            json!(null),
            "country_code is string or null, always present"
        );
        assert!(v.get("city").is_none());
    }

    #[test]
    fn timezone_round_trip() {
        let t: TimezoneResponse = round_trip(json!({
            "timezone": "Europe/Paris",
            "timezone_name": "CEST",
            "raw_offset": 3600,
            "dst_offset": 3600
        }));
        assert_eq!(t.timezone_name, "CEST");
    }

    #[test]
    fn queries() {
        let h = RequestHeaders::default();
        let r =
            PositionRequest::from_query(&pairs([("ip_address", "2001:db8::1")]), &h, &[]).unwrap();
        assert!(r.ip_address.unwrap().is_ipv6());
        assert_eq!(
            PositionRequest::from_query(&pairs([]), &h, &[]).unwrap(),
            PositionRequest::default()
        );
        let errs = PositionRequest::from_query(&pairs([("ip_address", "999.1.1.1")]), &h, &[])
            .unwrap_err();
        assert_errors(&errs, &[(json!(["query", "ip_address"]), kinds::VALUE)]);

        let r = TimezoneRequest::from_query(
            &pairs([("location", "48.85,2.35"), ("timestamp", "1700000000")]),
            &h,
            &[],
        )
        .unwrap();
        assert_eq!(r.timestamp, Some(1_700_000_000));
        let errs =
            TimezoneRequest::from_query(&pairs([("timestamp", "soon"), ("tz", "x")]), &h, &[])
                .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "location"]), kinds::MISSING),
                (json!(["query", "timestamp"]), kinds::INTEGER),
                (json!(["query", "tz"]), kinds::EXTRA),
            ],
        );
    }
}
