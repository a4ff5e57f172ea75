//! HTTP responses: JSON bodies with their status, the error mapping's output, and the success
//! reply an endpoint's row asks for (200, 202 or a 303 to another endpoint).
use serde::Serialize;
use warp::http::{HeaderValue, StatusCode, header};
use warp::reply::Response;
use waymark_core::endpoint::{Endpoint, Reply};
use waymark_core::error::{ApiError, ErrorCode, HttpError};
use waymark_core::operation::Answer;

/// Response header carrying the attribution the licences of the answering data ask for.
pub const ATTRIBUTION_HEADER: &str = "x-data-attribution";

/// A JSON response with a status.
pub fn json_response(status: StatusCode, body: impl Into<bytes::Bytes>) -> Response {
    let mut resp = Response::new(body.into().into());
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// The HTTP form of an [`ApiError`].
pub fn error_response(err: HttpError) -> Response {
    let status = StatusCode::from_u16(err.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = serde_json::to_vec(&err.body).unwrap_or_else(|_| b"{}".to_vec());
    let mut resp = json_response(status, body);
    for (name, value) in err.headers {
        if let Ok(v) = HeaderValue::from_str(&value) {
            resp.headers_mut().insert(name, v);
        }
    }
    resp
}

/// The success response of `endpoint` for `answer`, as its row's [`Reply`] says.
/// `path_params` and `pairs` are the request's, repeated in a 303's `Location` so that
/// credentials sent as `key`/`private_key` keep working (header credentials are the client's
/// to resend).
pub fn success<T: Serialize>(
    endpoint: Endpoint,
    answer: Answer<T>,
    path_params: &[String],
    pairs: &[(String, String)],
) -> Result<Response, ApiError> {
    let mut resp = match endpoint.reply() {
        Reply::Json => json_response(StatusCode::OK, to_json(&answer.value)?),
        Reply::Accepted => json_response(StatusCode::ACCEPTED, to_json(&answer.value)?),
        Reply::SeeOther(target) => see_other(target, path_params, pairs)?,
    };
    if let Some(attribution) = answer.attribution
        // Attribution texts may hold non-ASCII (©): sent as UTF-8 bytes.
        && let Ok(v) = HeaderValue::from_bytes(attribution.as_bytes())
    {
        resp.headers_mut().insert(ATTRIBUTION_HEADER, v);
    }
    Ok(resp)
}

/// A 303 to `target` with the same path parameters and query, and a small JSON body naming
/// the first path parameter, the completed state and the location.
fn see_other(
    target: Endpoint,
    path_params: &[String],
    pairs: &[(String, String)],
) -> Result<Response, ApiError> {
    let mut location = target.concrete_path(path_params);
    if !pairs.is_empty() {
        let query: String = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        location.push('?');
        location.push_str(&query);
    }
    let mut body = serde_json::Map::new();
    if let (Some(name), Some(value)) = (target.path_params().first(), path_params.first()) {
        body.insert((*name).into(), value.clone().into());
    }
    body.insert("status".into(), "completed".into());
    body.insert("location".into(), location.clone().into());
    let mut resp = json_response(StatusCode::SEE_OTHER, to_json(&body)?);
    if let Ok(v) = HeaderValue::from_str(&location) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    Ok(resp)
}

fn to_json<T: Serialize>(value: &T) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(value).map_err(|e| {
        tracing::error!(error = %e, "response serialization failed");
        ApiError::new(
            ErrorCode::Internal,
            "internal error; the details are in the waymark log",
        )
    })
}
