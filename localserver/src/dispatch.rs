//! From an authorized endpoint to the engine: parse the request into its `core::api` type
//! (422 with every problem found), call the one engine method, serialize the answer.
use serde::Serialize;
use warp::http::StatusCode;
use warp::reply::Response;
use waymark_core::Engine;
use waymark_core::api::*;
use waymark_core::auth::Grant;
use waymark_core::endpoint::Endpoint;
use waymark_core::error::{ApiError, ErrorCode};

/// What an operation answers over HTTP.
#[derive(Debug)]
pub enum Reply {
    /// 200 with a JSON body.
    Json(Vec<u8>),
    /// 202 with a JSON body (a job was started).
    Accepted(Vec<u8>),
    /// 200 with a JSON body and extra response headers (e.g. the data attribution).
    JsonWithHeaders(Vec<u8>, Vec<(&'static str, String)>),
    /// 303 to `location` with a small JSON body saying where the result is.
    SeeOther {
        /// The `Location` header.
        location: String,
        /// JSON body.
        body: Vec<u8>,
    },
}

/// Response header carrying the attribution the licences of the answering data ask for.
pub const ATTRIBUTION_HEADER: &str = "x-data-attribution";

impl Reply {
    /// The HTTP response.
    pub fn into_response(self) -> Response {
        match self {
            Reply::Json(body) => crate::handler::json_response(StatusCode::OK, body),
            Reply::Accepted(body) => crate::handler::json_response(StatusCode::ACCEPTED, body),
            Reply::JsonWithHeaders(body, headers) => {
                let mut resp = crate::handler::json_response(StatusCode::OK, body);
                for (name, value) in headers {
                    // Attribution texts may hold non-ASCII (©): sent as UTF-8 bytes.
                    if let Ok(v) = warp::http::HeaderValue::from_bytes(value.as_bytes()) {
                        resp.headers_mut().insert(name, v);
                    }
                }
                resp
            }
            Reply::SeeOther { location, body } => {
                let mut resp = crate::handler::json_response(StatusCode::SEE_OTHER, body);
                if let Ok(v) = warp::http::HeaderValue::from_str(&location) {
                    resp.headers_mut().insert(warp::http::header::LOCATION, v);
                }
                resp
            }
        }
    }
}

fn json<T: Serialize>(value: Result<T, ApiError>) -> Result<Reply, ApiError> {
    json_as(value, Reply::Json)
}

/// Serializes an answer into the reply kind `wrap` (200 or 202).
fn json_as<T: Serialize>(
    value: Result<T, ApiError>,
    wrap: fn(Vec<u8>) -> Reply,
) -> Result<Reply, ApiError> {
    let value = value?;
    serde_json::to_vec(&value).map(wrap).map_err(|e| {
        tracing::error!(error = %e, "response serialization failed");
        ApiError::new(
            ErrorCode::Internal,
            "internal error; the details are in the waymark log",
        )
    })
}

fn parsed<T>(r: Result<T, Vec<FieldError>>) -> Result<T, ApiError> {
    r.map_err(ApiError::validation)
}

/// Parses the request of `grant.endpoint` and runs it on the engine.
pub fn dispatch(
    engine: &std::sync::Arc<Engine>,
    grant: &Grant,
    pairs: &[(String, String)],
    headers: &RequestHeaders,
    path: &[String],
    body: &[u8],
) -> Result<Reply, ApiError> {
    macro_rules! get {
        ($req:ty, $op:ident) => {{
            let req = parsed(<$req>::from_query(pairs, headers, path))?;
            json(engine.$op(grant, req))
        }};
    }
    macro_rules! with_body {
        ($req:ty, $op:ident) => {{
            let req = parsed(<$req>::from_parts(pairs, headers, path, body))?;
            json(engine.$op(grant, req))
        }};
    }
    match grant.endpoint {
        Endpoint::Autocomplete => get!(AutocompleteRequest, localities_autocomplete),
        Endpoint::Details => get!(DetailsRequest, localities_details),
        Endpoint::Geocode => get!(GeocodeRequest, localities_geocode),
        Endpoint::Nearby => get!(NearbyRequest, localities_nearby),
        Endpoint::Position => {
            let req = parsed(PositionRequest::from_query(pairs, headers, path))?;
            let (position, attribution) = engine.geolocation_position_attributed(grant, req)?;
            let headers = if attribution.is_empty() {
                Vec::new()
            } else {
                vec![(ATTRIBUTION_HEADER, attribution)]
            };
            match json(Ok(position))? {
                Reply::Json(body) => Ok(Reply::JsonWithHeaders(body, headers)),
                other => Ok(other),
            }
        }
        Endpoint::Timezone => get!(TimezoneRequest, geolocation_timezone),
        Endpoint::StoresSearch => get!(StoresSearchRequest, stores_search),
        Endpoint::StoresBounds => get!(StoresBoundsRequest, stores_bounds),
        Endpoint::ZonesUpdate => {
            // The spec gives zones a 400 `{status, value}` when the body is not JSON at all;
            // JSON of the wrong shape is a 422 like everywhere else.
            if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(body) {
                return Err(ApiError::new(
                    ErrorCode::BadRequest,
                    format!("the body is not valid json: {e}"),
                ));
            }
            with_body!(ZonesUpdateRequest, zones_update)
        }
        Endpoint::DatasetList => get!(DatasetListRequest, datasets_list),
        Endpoint::DatasetGet => get!(DatasetGetRequest, datasets_get),
        Endpoint::DatasetUpdate => with_body!(DatasetUpdateRequest, datasets_update),
        Endpoint::DatasetStatus => get!(DatasetStatusRequest, datasets_status),
        Endpoint::FeatureGet => get!(FeatureGetRequest, datasets_feature_get),
        Endpoint::FeatureSearch => with_body!(FeatureSearchRequest, datasets_feature_search),
        Endpoint::FeatureContains => with_body!(FeatureContainsRequest, datasets_feature_contains),
        Endpoint::VenueGet => get!(VenueGetRequest, indoor_venue),
        Endpoint::PoiSearch => get!(PoiSearchRequest, indoor_poi_search),
        Endpoint::IndoorDirections => get!(IndoorDirectionsRequest, indoor_directions),
        Endpoint::Route | Endpoint::RouteWithTraffic => get!(RouteRequest, distance_route),
        Endpoint::Tolls => get!(TollsRequest, distance_tolls),
        Endpoint::Isochrone => get!(IsochroneRequest, distance_isochrone),
        Endpoint::MatrixCreate => with_body!(MatrixCreateRequest, distance_matrix_create),
        Endpoint::MatrixStatus => get!(MatrixStatusRequest, distance_matrix_status),
        Endpoint::MatrixResult => {
            // Completed: 303 to the result document, repeating the query string so that
            // credentials sent as `key`/`private_key` keep working (header credentials are
            // the client's to resend).
            let req = parsed(MatrixResultRequest::from_query(pairs, headers, path))?;
            let id = req.matrix_id.clone();
            engine.distance_matrix_result(grant, req)?;
            let segment =
                percent_encoding::utf8_percent_encode(&id, percent_encoding::NON_ALPHANUMERIC);
            let mut location = format!("/distance/matrix/async/{segment}/result");
            if !pairs.is_empty() {
                let query: String = url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(pairs)
                    .finish();
                location.push('?');
                location.push_str(&query);
            }
            let body = serde_json::json!({
                "matrix_id": id,
                "status": "completed",
                "location": location,
            });
            Ok(Reply::SeeOther {
                location,
                body: body.to_string().into_bytes(),
            })
        }
        Endpoint::MatrixResultData => get!(MatrixResultRequest, distance_matrix_result_data),
        Endpoint::Autosuggest => get!(AutosuggestRequest, threewords_autosuggest),
        Endpoint::ConvertTo3wa => get!(ConvertTo3waRequest, threewords_convert),
        Endpoint::PacksList => get!(PacksListRequest, packs_list),
        Endpoint::PackInstall => {
            let req = parsed(PackInstallRequest::from_parts(pairs, headers, path, body))?;
            json_as(engine.packs_install(grant, req), Reply::Accepted)
        }
        Endpoint::PackInstallStatus => get!(PackInstallStatusRequest, packs_install_status),
        Endpoint::PackRemove => get!(PackRemoveRequest, packs_remove),
    }
}
