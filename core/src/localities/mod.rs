//! The localities group: autocomplete, details, geocode and reverse geocode, nearby points of
//! interest, answered from the packs' search indexes (`core::packs::search`, opened read-only
//! once per pack set) and their SQLite layers. The [`crate::Engine`] methods delegate here.
pub mod autocomplete;
pub mod automata;
pub mod context;
pub mod details;
pub mod format;
pub mod geocode;
pub mod index;
pub mod nearby;
pub mod text;

use std::sync::Arc;

use crate::api::{
    AutocompleteRequest, AutocompleteResponse, DetailsRequest, DetailsResponse, GeocodeRequest,
    GeocodeResponse, NearbyRequest, NearbyResponse,
};
use crate::error::ApiError;
use crate::operation::Call;
use crate::packs::registry::{PackSet, PackSetCache};
pub use index::LocalitiesIndex;

/// The localities operations over a pack registry's sets.
#[derive(Debug, Default)]
pub struct Localities {
    cache: PackSetCache<LocalitiesIndex>,
}

impl Localities {
    /// The indexes of `set` (opened once per set; 503 when no pack has the search layer).
    pub fn index(&self, set: Arc<PackSet>) -> Result<Arc<LocalitiesIndex>, ApiError> {
        self.cache.get_or_build(set, LocalitiesIndex::open)
    }

    /// Autocomplete, after the engine admitted the request.
    pub fn autocomplete(
        &self,
        set: Arc<PackSet>,
        call: &Call<'_>,
        req: &AutocompleteRequest,
        locale: Option<&str>,
    ) -> Result<AutocompleteResponse, ApiError> {
        let plan = autocomplete::plan(req, call.grant())?;
        let idx = self.index(set)?;
        call.charge()?;
        Ok(autocomplete::run(&idx, req, &plan, locale))
    }

    /// Details, after the engine admitted the request.
    pub fn details(
        &self,
        set: Arc<PackSet>,
        call: &Call<'_>,
        req: &DetailsRequest,
        locale: Option<&str>,
    ) -> Result<DetailsResponse, ApiError> {
        let idx = self.index(set)?;
        // An unknown id costs no quota.
        let answer = details::run(&idx, req, locale)?;
        call.charge()?;
        Ok(answer)
    }

    /// Geocode, after the engine admitted the request.
    pub fn geocode(
        &self,
        set: Arc<PackSet>,
        call: &Call<'_>,
        req: &GeocodeRequest,
        locale: Option<&str>,
    ) -> Result<GeocodeResponse, ApiError> {
        if let Some(a) = &req.address {
            let chars = a.chars().count();
            if text::query_tokens(a, false).is_empty() || chars > 500 {
                return Err(ApiError::validation(vec![crate::api::FieldError::invalid(
                    crate::api::Loc::Query,
                    "address",
                    crate::api::kinds::VALUE,
                    format!(
                        "give an address of 1 to 500 characters with letters or digits, got {chars} characters"
                    ),
                )]));
            }
        }
        let countries = autocomplete::resolve_countries(&req.components)?;
        let idx = self.index(set)?;
        call.charge()?;
        Ok(geocode::run(&idx, req, &countries, locale))
    }

    /// Nearby, after the engine admitted the request.
    pub fn nearby(
        &self,
        set: Arc<PackSet>,
        call: &Call<'_>,
        req: &NearbyRequest,
    ) -> Result<NearbyResponse, ApiError> {
        let plan = nearby::plan(req)?;
        let idx = self.index(set)?;
        call.charge()?;
        Ok(nearby::run(&idx, req, &plan))
    }
}
