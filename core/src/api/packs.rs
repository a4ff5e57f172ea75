//! Pack management (Waymark's own, not in the Location Platform spec): list the installed
//! packs with their attribution, install a pack from a URL with progress, remove a pack.
//! Every operation needs a private key with write permission.
//!
//! | endpoint | request | response |
//! |---|---|---|
//! | `GET /packs` | [`PacksListRequest`] | [`PacksListResponse`] |
//! | `POST /packs` | [`PackInstallRequest`] (body `{"url": ...}`) | [`PackInstallResponse`] (202-style job) |
//! | `GET /packs/installs/{install_id}` | [`PackInstallStatusRequest`] | [`PackInstallStatus`] |
//! | `DELETE /packs/{pack_id}` | [`PackRemoveRequest`] | [`PackRemoveResponse`] |
use serde::{Deserialize, Serialize};

use super::query::FromQuery;
use super::validation::{FieldError, Validate, shown};

/// One source's licence and attribution, as shown to users.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PackAttribution {
    /// Source id.
    pub id: String,
    /// Licence.
    pub licence: String,
    /// Text to display.
    pub attribution: String,
}

/// An installed, loaded pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PackInfo {
    /// Pack id.
    pub id: String,
    /// Version.
    pub version: String,
    /// Layers.
    pub layers: Vec<String>,
    /// `[west, south, east, north]`.
    pub bbox: Vec<f64>,
    /// Build time.
    pub built_at: String,
    /// Total size of the pack's files in bytes.
    pub size: u64,
    /// Sources with licences and attribution.
    pub attribution: Vec<PackAttribution>,
    /// Another version of this pack at the `source` of the request, with the bytes installing
    /// it takes; absent without `source` or when the source holds another pack or this version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub update: Option<PackUpdate>,
}

/// A version of an installed pack available at a pack source, and what installing it downloads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PackUpdate {
    /// The version at the source.
    pub version: String,
    /// The pack directory URL to install it from (`POST /packs`).
    pub url: String,
    /// Size of the full pack in bytes.
    pub size: u64,
    /// Bytes to download with the delta from the installed version (patches and the files that
    /// are not patched), when the source has a delta from exactly that version; else absent
    /// and installing downloads `size`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub delta_size: Option<u64>,
}

/// `GET /packs`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PacksListRequest {
    /// A pack directory URL (`file://`, `http(s)://`, as `POST /packs` takes): the installed
    /// pack with the same id gets `update` with that version's full and delta sizes. Without
    /// it the listing reads nothing over the network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub source: Option<String>,
}

/// Answer of `GET /packs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PacksListResponse {
    /// Loaded packs, by id.
    pub packs: Vec<PackInfo>,
}

/// `POST /packs`: the JSON body `{"url": ...}` (the query may only hold credentials).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(deny_unknown_fields)]
#[query(body)]
pub struct PackInstallRequest {
    /// `file:///...` or `http(s)://...` URL of a pack directory.
    #[cfg_attr(feature = "schema", schemars(regex(pattern = r"^(file|https?)://")))]
    pub url: String,
}

/// Answer of `POST /packs`: the install runs in the background.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PackInstallResponse {
    /// Id to poll with `GET /packs/installs/{install_id}`.
    pub install_id: String,
    /// `accepted`.
    pub status: String,
}

/// `GET /packs/installs/{install_id}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PackInstallStatusRequest {
    /// Install job id (path parameter).
    #[query(path)]
    pub install_id: String,
}

/// Progress of an install job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PackInstallStatus {
    /// Job id.
    pub install_id: String,
    /// `in_progress`, `completed` or `failed`.
    pub status: String,
    /// Pack id, once the manifest is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack_id: Option<String>,
    /// Pack version, once the manifest is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Bytes downloaded and verified so far.
    pub bytes_done: u64,
    /// Bytes of the whole pack (0 until the manifest is read).
    pub bytes_total: u64,
    /// What went wrong, when `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `DELETE /packs/{pack_id}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PackRemoveRequest {
    /// Pack id (path parameter).
    #[query(path)]
    pub pack_id: String,
}

/// Answer of `DELETE /packs/{pack_id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PackRemoveResponse {
    /// The removed pack.
    pub pack_id: String,
    /// `removed`.
    pub status: String,
}

impl Validate for PackInstallRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        check_source_url(&self.url).map_err(|msg| {
            vec![FieldError::new(
                vec!["body".into(), "url".into()],
                "value_error",
                msg,
            )]
        })
    }
}

/// The rule on a pack source: a URL (as the `url` crate reads it, the reader of the fetch)
/// with the scheme `file`, `http` or `https`, and a host for the last two. A string that is not
/// such a URL is the caller's to fix (422), never a failed fetch.
fn check_source_url(source: &str) -> Result<(), String> {
    const HINT: &str =
        "give the url of a pack directory starting with file://, http:// or https://";
    if !["file://", "http://", "https://"]
        .iter()
        .any(|p| source.starts_with(p))
    {
        return Err(HINT.to_owned());
    }
    match url::Url::parse(source) {
        Ok(u) if u.scheme() == "file" || u.host_str().is_some_and(|h| !h.is_empty()) => Ok(()),
        Ok(_) => Err(format!("{HINT}: {} has no host", shown(source))),
        Err(e) => Err(format!(
            "{HINT}: {} is not a valid url ({e})",
            shown(source)
        )),
    }
}

impl Validate for PacksListRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![(
            "source",
            crate::api::validation::rule::pattern("^(file|https?)://"),
        )]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        match &self.source {
            Some(url) => check_source_url(url).map_err(|msg| {
                vec![FieldError::new(
                    vec!["query".into(), "source".into()],
                    "value_error",
                    msg,
                )]
            }),
            None => Ok(()),
        }
    }
}

impl Validate for PackInstallStatusRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        Ok(())
    }
}

impl Validate for PackRemoveRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn pack_sources_are_urls_with_a_host() {
        for ok in [
            "file:///srv/packs",
            "https://example.com/packs",
            "http://127.0.0.1:8080/p",
        ] {
            assert!(check_source_url(ok).is_ok(), "{ok}");
        }
        for bad in [
            "ftp://example.com",
            "http://",
            "http://!\u{ae}\u{c}x",
            "https://a b/",
            "packs",
        ] {
            let msg = check_source_url(bad).unwrap_err();
            assert!(msg.contains("file://, http:// or https://"), "{bad}: {msg}");
        }
    }
    use crate::api::query::{FromRequestParts, RequestHeaders};
    use crate::api::testing::parse_valid;

    #[test]
    fn install_body_is_checked() {
        let h = RequestHeaders::default();
        let ok =
            PackInstallRequest::from_parts(&[], &h, &[], br#"{"url": "file:///tmp/p"}"#).unwrap();
        assert_eq!(ok.url, "file:///tmp/p");
        let err =
            parse_valid::<PackInstallRequest>(&[], &h, &[], br#"{"url": "ftp://x"}"#).unwrap_err();
        assert_eq!(
            err[0].loc,
            vec![serde_json::json!("body"), serde_json::json!("url")]
        );
        assert!(PackInstallRequest::from_parts(&[], &h, &[], br#"{"uri": "file:///x"}"#).is_err());
        let extra = vec![("x".to_string(), "1".to_string())];
        assert!(PacksListRequest::from_query(&extra, &h, &[]).is_err());
        let source = vec![("source".to_string(), "http://127.0.0.1:1/a-2".to_string())];
        assert_eq!(
            PacksListRequest::from_query(&source, &h, &[])
                .unwrap()
                .source
                .as_deref(),
            Some("http://127.0.0.1:1/a-2")
        );
        let bad = vec![("source".to_string(), "ftp://x".to_string())];
        let err = parse_valid::<PacksListRequest>(&bad, &h, &[], b"").unwrap_err();
        assert_eq!(
            err[0].loc,
            vec![serde_json::json!("query"), serde_json::json!("source")]
        );
    }
}
